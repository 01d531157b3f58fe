OPENQASM 2.0;
include "/etc/passwd";
