OPENQASM 2.0;
qreg q[2];
creg q[2];
