OPENQASM 2.0;
gate g a { CX a, b; }
