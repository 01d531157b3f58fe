qreg q[1];
OPENQASM 2.0;
