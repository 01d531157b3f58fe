OPENQASM 2.0;
gate g a { measure a; }
