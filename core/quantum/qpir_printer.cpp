#include "core/quantum/qpir_printer.h"

namespace spyglass::quantum {

std::string printOp(const Circuit& c, const Op& op)
{
    std::string s = "qpir.";
    if (op.fused) {
        s += "fused<" + std::to_string(op.qubits.size()) + " qubits, " + std::to_string(op.fused->gateCount) + " gates" +
             (op.fused->diagonal ? ", diagonal" : "") +
             (op.fused->program.empty() ? "" : ", program of " + std::to_string(op.fused->program.size()) + " steps") + ">";
    } else {
        s += op.name;
    }
    if (!op.params.empty()) {
        s += '(';
        for (size_t i = 0; i < op.params.size(); ++i)
            s += (i ? ", " : "") + formatAngle(op.params[i]);
        s += ')';
    }
    for (size_t i = 0; i < op.qubits.size(); ++i)
        s += (i ? ", " : " ") + c.qubitName(op.qubits[i]);
    if (op.kind == OpKind::Measure)
        for (size_t i = 0; i < op.clbits.size(); ++i)
            s += (i ? ", " : " -> ") + c.clbitName(op.clbits[i]);
    if (op.cond.active()) {
        const std::string reg = op.cond.creg < static_cast<int>(c.cregs.size()) ? c.cregs[op.cond.creg].name : "?";
        s += " if " + reg + " == " + std::to_string(op.cond.value);
    }
    return s;
}

std::string printQpir(const Circuit& c)
{
    std::string s = "qpir.circuit @" + (c.name.empty() ? std::string("main") : c.name) + " {qubits = " + std::to_string(c.numQubits) +
                    ", clbits = " + std::to_string(c.numClbits) + ", ops = " + std::to_string(c.ops.size()) + "} {\n";
    for (const Register& r : c.qregs)
        s += "  qpir.qreg @" + r.name + "[" + std::to_string(r.size) + "] : qubits " + std::to_string(r.offset) + ".." +
             std::to_string(r.offset + r.size - 1) + "\n";
    for (const Register& r : c.cregs)
        s += "  qpir.creg @" + r.name + "[" + std::to_string(r.size) + "] : clbits " + std::to_string(r.offset) + ".." +
             std::to_string(r.offset + r.size - 1) + "\n";
    if (c.gates) {
        for (const auto& [name, d] : *c.gates) {
            if (d.builtin)
                continue;
            s += std::string("  qpir.") + (d.opaque ? "opaque_def @" : "gate_def @") + name;
            if (!d.params.empty()) {
                s += '(';
                for (size_t i = 0; i < d.params.size(); ++i)
                    s += (i ? ", " : "") + d.params[i];
                s += ')';
            }
            for (size_t i = 0; i < d.qubits.size(); ++i)
                s += (i ? ", " : " ") + d.qubits[i];
            if (!d.opaque) {
                s += " {";
                for (const GateCall& g : d.body) {
                    s += ' ' + g.name;
                    if (!g.params.empty()) {
                        s += '(';
                        for (size_t i = 0; i < g.params.size(); ++i)
                            s += (i ? ", " : "") + printExpr(*g.params[i], d.params);
                        s += ')';
                    }
                    for (size_t i = 0; i < g.args.size(); ++i)
                        s += (i ? ", " : " ") + d.qubits[g.args[i]];
                    s += ';';
                }
                s += " }";
            }
            s += '\n';
        }
    }
    for (const Op& op : c.ops)
        s += "  " + printOp(c, op) + "\n";
    if (!c.finalLayout.empty()) {
        s += "  qpir.final_layout [";
        for (size_t i = 0; i < c.finalLayout.size(); ++i)
            s += (i ? ", " : "") + std::to_string(c.finalLayout[i]);
        s += "]\n";
    }
    s += "}\n";
    return s;
}

}  // namespace spyglass::quantum
