// remove_identities: drops gates that do nothing up to global phase: id, u0, rotations by multiples of
// 2*pi, u3(0, 0, 0), and any gate on at most 3 qubits whose matrix is the identity times a phase.
#include "core/quantum/pass.h"

#include "core/quantum/gates.h"

namespace spyglass::quantum {

namespace {

class RemoveIdentities : public Pass {
public:
    std::string name() const override { return "remove_identities"; }
    std::string description() const override { return "remove gates that equal the identity up to global phase"; }
    PassResult run(Circuit& c, PassContext&) override
    {
        std::vector<Op> out;
        out.reserve(c.ops.size());
        int removed = 0;
        for (Op& op : c.ops) {
            if (op.kind == OpKind::Gate && op.qubits.size() <= 3 && (op.fused || findStdGate(op.name))) {
                const auto m = opMatrix(op);
                if (isIdentityUpToPhase(m, 1 << op.qubits.size(), 1e-12)) {
                    ++removed;
                    continue;
                }
            }
            out.push_back(std::move(op));
        }
        c.ops = std::move(out);
        PassResult r;
        r.changed = removed > 0;
        r.summary = "removed " + std::to_string(removed) + " identity gate" + (removed == 1 ? "" : "s");
        return r;
    }
};

}  // namespace

std::unique_ptr<Pass> makeRemoveIdentitiesPass() { return std::make_unique<RemoveIdentities>(); }

}  // namespace spyglass::quantum
