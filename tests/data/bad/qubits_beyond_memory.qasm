OPENQASM 2.0;
include "qelib1.inc";
// 40 qubits in complex128 are 16 TiB of amplitudes: refused before allocating.
qreg q[40];
h q;
