OPENQASM 2.0;
include "no_such_file.inc";
