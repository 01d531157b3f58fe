OPENQASM 2.0;
include "qelib1.inc";
qreg q[1];
rx(0.1, 0.2) q[0];
