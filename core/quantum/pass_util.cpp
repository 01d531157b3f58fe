#include "core/quantum/pass.h"

#include "core/quantum/gates.h"
#include "core/quantum/qasm_parser.h"

#include <algorithm>
#include <set>

namespace spyglass::quantum::passutil {

const GateLibrary& builtinLibrary()
{
    static const GateLibrary lib = [] {
        ParseResult r = parseQasmString("OPENQASM 2.0;\ninclude \"qelib1.inc\";\n", "builtin");
        return *r.circuit.gates;
    }();
    return lib;
}

const GateDef* definitionFor(const Circuit& c, const std::string& name)
{
    if (const GateDef* d = c.findGate(name))
        return d;
    auto it = builtinLibrary().find(name);
    return it == builtinLibrary().end() ? nullptr : &it->second;
}

void expandOnce(const GateDef& def, const Op& op, std::vector<Op>& out)
{
    for (const GateCall& call : def.body) {
        Op n;
        n.cond = op.cond;
        n.line = op.line;
        for (int a : call.args)
            n.qubits.push_back(op.qubits[a]);
        if (call.name == "barrier") {
            n.kind = OpKind::Barrier;
            n.name = "barrier";
        } else {
            n.name = call.name;
            for (const ExprPtr& e : call.params)
                n.params.push_back(evaluate(*e, op.params));
        }
        out.push_back(std::move(n));
    }
}

bool isStdDiagonal(const std::string& n)
{
    static const std::set<std::string> diag = {"z", "s", "sdg", "t", "tdg", "rz", "u1", "p", "id", "u0",
                                               "cz", "cp", "cu1", "crz", "rzz"};
    return diag.count(n) > 0;
}

void eraseMarked(std::vector<Op>& ops, const std::vector<char>& removed)
{
    std::vector<Op> out;
    out.reserve(ops.size());
    for (size_t i = 0; i < ops.size(); ++i)
        if (!removed[i])
            out.push_back(std::move(ops[i]));
    ops = std::move(out);
}

bool sharesQubit(const Op& a, const Op& b)
{
    for (int q : a.qubits)
        if (std::find(b.qubits.begin(), b.qubits.end(), q) != b.qubits.end())
            return true;
    return false;
}

namespace {
std::vector<int> unionQubits(const Op& a, const Op& b)
{
    std::vector<int> u = a.qubits;
    for (int q : b.qubits)
        if (std::find(u.begin(), u.end(), q) == u.end())
            u.push_back(q);
    return u;
}
bool hasMatrix(const Op& op) { return op.kind == OpKind::Gate && (op.fused || findStdGate(op.name)); }
}  // namespace

bool gatesCommute(const Op& a, const Op& b)
{
    if (a.kind != OpKind::Gate || b.kind != OpKind::Gate || a.cond.active() || b.cond.active())
        return false;
    if (!sharesQubit(a, b))
        return true;
    if (!a.fused && !b.fused && isStdDiagonal(a.name) && isStdDiagonal(b.name))
        return true;
    if (!hasMatrix(a) || !hasMatrix(b))
        return false;
    const std::vector<int> u = unionQubits(a, b);
    if (u.size() > 3)
        return false;
    const int dim = 1 << u.size();
    const auto ma = embedMatrix(opMatrix(a), a.qubits, u), mb = embedMatrix(opMatrix(b), b.qubits, u);
    const auto ab = matMul(ma, mb, dim), ba = matMul(mb, ma, dim);
    for (size_t i = 0; i < ab.size(); ++i)
        if (std::abs(ab[i] - ba[i]) > 1e-9)
            return false;
    return true;
}

bool cancels(const Op& a, const Op& b)
{
    if (a.kind != OpKind::Gate || b.kind != OpKind::Gate || !(a.cond == b.cond) || !hasMatrix(a) || !hasMatrix(b))
        return false;
    if (a.qubits.size() != b.qubits.size())
        return false;
    std::vector<int> sa = a.qubits, sb = b.qubits;
    std::sort(sa.begin(), sa.end());
    std::sort(sb.begin(), sb.end());
    if (sa != sb || sa.size() > 3)
        return false;
    const int dim = 1 << sa.size();
    const auto ma = embedMatrix(opMatrix(a), a.qubits, sa), mb = embedMatrix(opMatrix(b), b.qubits, sa);
    return isIdentityUpToPhase(matMul(mb, ma, dim), dim);
}

}  // namespace spyglass::quantum::passutil
