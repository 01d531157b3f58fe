OPENQASM 2.0;
include "qelib1.inc";
gate g(a) q { rz(sqrt(a)) q; }
qreg q[1];
g(-1) q[0];
