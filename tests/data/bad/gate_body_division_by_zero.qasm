OPENQASM 2.0;
include "qelib1.inc";
gate g(a) q { rz(1/a) q; }
qreg q[1];
g(0) q[0];
