OPENQASM 2.0;
include "include_self.qasm";
