OPENQASM 2.0;
qreg q[0];
