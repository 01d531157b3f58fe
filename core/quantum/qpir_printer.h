#pragma once
// The one canonical text form of QPIR (MLIR-like). The GUI's IR view shows it and diffs it between
// passes, --dump-dir writes it, so it is stable: same circuit, same text.
//
//   qpir.circuit @adder_n4 {qubits = 4, clbits = 4} {
//     qpir.qreg @q[4] : qubits 0..3
//     qpir.creg @c[4] : clbits 0..3
//     qpir.gate_def @majority(a, b, c) { cx c, b; cx c, a; ccx a, b, c; }
//     qpir.x q[0]
//     qpir.u3(pi/2, 0, pi) q[1]
//     qpir.cx q[0], q[1]
//     qpir.measure q[0] -> c[0]
//     qpir.x q[1] if c == 1
//     qpir.fused<3 qubits, 7 gates> q[0], q[1], q[2]
//   }

#include "core/quantum/circuit.h"

#include <string>

namespace spyglass::quantum {

std::string printQpir(const Circuit& c);
// One op as it appears in the text (without indentation), for views and messages.
std::string printOp(const Circuit& c, const Op& op);

}  // namespace spyglass::quantum
