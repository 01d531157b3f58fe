#include "core/quantum/export.h"

#include "core/quantum/simulator.h"

#include <functional>
#include <set>

namespace spyglass::quantum {

namespace {

std::string opText(const Circuit& c, const Op& op)
{
    std::string s;
    if (op.cond.active())
        s += "if(" + c.cregs[op.cond.creg].name + "==" + std::to_string(op.cond.value) + ") ";
    switch (op.kind) {
    case OpKind::Measure: return s + "measure " + c.qubitName(op.qubits[0]) + " -> " + c.clbitName(op.clbits[0]) + ";";
    case OpKind::Reset: return s + "reset " + c.qubitName(op.qubits[0]) + ";";
    case OpKind::Barrier: s += "barrier"; break;
    case OpKind::Gate:
        s += op.name;
        if (!op.params.empty()) {
            s += '(';
            for (size_t i = 0; i < op.params.size(); ++i)
                s += (i ? "," : "") + formatAngle(op.params[i]);
            s += ')';
        }
        break;
    }
    for (size_t i = 0; i < op.qubits.size(); ++i)
        s += (i ? "," : " ") + c.qubitName(op.qubits[i]);
    return s + ";";
}

}  // namespace

std::string exportQasm(const Circuit& c)
{
    std::string s = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\n";
    if (!c.finalLayout.empty()) {
        s += "// routed; final layout (logical -> physical):";
        for (size_t i = 0; i < c.finalLayout.size(); ++i)
            s += " " + std::to_string(i) + "->" + std::to_string(c.finalLayout[i]);
        s += "\n";
    }
    // User gate definitions that are used, callees before callers.
    std::set<std::string> done;
    std::function<void(const std::string&)> emitDef = [&](const std::string& name) {
        const GateDef* d = c.findGate(name);
        if (!d || d->builtin || done.count(name))
            return;
        done.insert(name);
        for (const GateCall& g : d->body)
            if (g.name != "barrier")
                emitDef(g.name);
        std::string line = (d->opaque ? "opaque " : "gate ") + name;
        if (!d->params.empty()) {
            line += '(';
            for (size_t i = 0; i < d->params.size(); ++i)
                line += (i ? "," : "") + d->params[i];
            line += ')';
        }
        for (size_t i = 0; i < d->qubits.size(); ++i)
            line += (i ? "," : " ") + d->qubits[i];
        if (d->opaque) {
            s += line + ";\n";
            return;
        }
        line += " {";
        for (const GateCall& g : d->body) {
            line += ' ' + g.name;
            if (!g.params.empty()) {
                line += '(';
                for (size_t i = 0; i < g.params.size(); ++i)
                    line += (i ? "," : "") + printExpr(*g.params[i], d->params);
                line += ')';
            }
            for (size_t i = 0; i < g.args.size(); ++i)
                line += (i ? "," : " ") + d->qubits[g.args[i]];
            line += ';';
        }
        s += line + " }\n";
    };
    for (const Op& op : c.ops) {
        if (op.fused)
            throw InputError(SourceLocation{c.name, op.line, 0}, "a fused block cannot be written as OpenQASM; export before the fuse pass");
        if (op.kind == OpKind::Gate)
            emitDef(op.name);
    }
    for (const Register& r : c.qregs)
        s += "qreg " + r.name + "[" + std::to_string(r.size) + "];\n";
    for (const Register& r : c.cregs)
        s += "creg " + r.name + "[" + std::to_string(r.size) + "];\n";
    for (const Op& op : c.ops)
        s += opText(c, op) + "\n";
    return s;
}

}  // namespace spyglass::quantum
