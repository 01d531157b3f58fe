OPENQASM 2.0;
qreg q[2];
/* this comment never ends
U(0,0,0) q[0];
