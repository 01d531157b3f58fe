// Example quantum pass plugin: a peephole pass that rewrites h(t); cx(c, t); h(t) into cz(c, t) (the Hadamards turn
// the CNOT's target into a phase), when nothing else touches t in between and no conditioned op or barrier on
// everything sits there. It runs after inline_gates, where every gate is a qelib1 primitive and before decompose lowers cz
// again, so the effect shows as fewer gates in the Pipeline and `qcompile --json`. Build:
//   g++ -std=c++20 -O2 -fPIC -shared $(pkg-config --cflags spyglass-plugin) hcxh_to_cz.cpp -o hcxh_to_cz.so
// Use: spyglass-cli qcompile circuit.qasm --pass-plugin ./hcxh_to_cz.so
#include <spyglass/pass_plugin.h>

#include <string>
#include <vector>

namespace {

using namespace spyglass;
using quantum::Op;

bool plainGate(const Op& op, const char* name, size_t qubits)
{
    return op.isGate() && op.name == name && op.qubits.size() == qubits && !op.cond.active() && op.params.empty();
}

bool touches(const Op& op, int q)
{
    if (op.kind == quantum::OpKind::Barrier && op.qubits.empty())
        return true;   // a barrier on everything
    for (int x : op.qubits)
        if (x == q)
            return true;
    return op.cond.active();   // a conditioned op may depend on anything measured: do not move past it
}

// The next op after `from` that touches q, or ops.size().
size_t nextOn(const std::vector<Op>& ops, size_t from, int q)
{
    for (size_t i = from + 1; i < ops.size(); ++i)
        if (touches(ops[i], q))
            return i;
    return ops.size();
}

class HCxHToCz final : public quantum::Pass {
public:
    std::string name() const override { return "hcxh_to_cz"; }
    std::string description() const override { return "rewrite h(t); cx(c,t); h(t) into cz(c,t)"; }
    PassResult run(quantum::Circuit& c, quantum::PassContext&) override
    {
        std::vector<char> removed(c.ops.size(), 0);
        int rewrites = 0;
        for (size_t i = 0; i < c.ops.size(); ++i) {
            if (removed[i] || !plainGate(c.ops[i], "h", 1))
                continue;
            const int t = c.ops[i].qubits[0];
            const size_t j = nextOn(c.ops, i, t);
            if (j >= c.ops.size() || removed[j] || !plainGate(c.ops[j], "cx", 2) || c.ops[j].qubits[1] != t)
                continue;
            const size_t k = nextOn(c.ops, j, t);
            if (k >= c.ops.size() || removed[k] || !plainGate(c.ops[k], "h", 1))
                continue;
            // Ops on the control alone may sit in between: the Hadamards do not touch it, so they keep their
            // order relative to the cx (now cz).
            c.ops[j].name = "cz";
            removed[i] = removed[k] = 1;
            ++rewrites;
        }
        quantum::passutil::eraseMarked(c.ops, removed);
        return {rewrites > 0, "rewrote " + std::to_string(rewrites) + " h-cx-h into cz"};
    }
};

void registerPasses(PassRegistry& registry)
{
    registry.addQuantumPass("after:inline_gates", [] { return std::make_unique<HCxHToCz>(); });
}

}  // namespace

SPYGLASS_PASS_PLUGIN("hcxh-to-cz", registerPasses)
