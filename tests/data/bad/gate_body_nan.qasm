OPENQASM 2.0;
gate inner(b) q { U(0,0,b) q; }
gate outer(a) q { inner(0/a) q; }
qreg q[2];
outer(0) q;
