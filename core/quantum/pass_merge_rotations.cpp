// merge_rotations: adds the angles of consecutive rotations about the same axis on the same qubits
// (rx, ry, rz, p/u1, rxx, rzz, crx, cry, crz, cp/cu1), looking through gates that commute, and multiplies
// runs of u3 on one qubit into a single u3.
#include "core/quantum/pass.h"

#include "core/quantum/gates.h"

#include <set>

namespace spyglass::quantum {

namespace {

const std::set<std::string> kRotations = {"rx", "ry", "rz", "p", "u1", "rxx", "rzz", "crx", "cry", "crz", "cp", "cu1"};

class MergeRotations : public Pass {
public:
    std::string name() const override { return "merge_rotations"; }
    std::string description() const override { return "merge consecutive same-axis rotations and runs of u3 gates"; }
    PassResult run(Circuit& c, PassContext&) override
    {
        std::vector<char> removed(c.ops.size(), 0);
        int merged = 0, u3merged = 0;
        for (size_t i = 0; i < c.ops.size(); ++i) {
            Op& op = c.ops[i];
            if (op.kind != OpKind::Gate || op.cond.active() || op.fused)
                continue;
            if (kRotations.count(op.name)) {
                int steps = 0;
                for (size_t j = i; j-- > 0 && steps < 64;) {
                    if (removed[j] || !passutil::sharesQubit(c.ops[j], op))
                        continue;
                    ++steps;
                    Op& prev = c.ops[j];
                    if (prev.kind == OpKind::Gate && !prev.cond.active() && !prev.fused && prev.name == op.name && prev.qubits == op.qubits) {
                        // op commutes with everything between, so it can move back next to prev.
                        prev.params[0] += op.params[0];
                        removed[i] = 1;
                        ++merged;
                        break;
                    }
                    if (!passutil::gatesCommute(prev, op))
                        break;
                }
            } else if (op.name == "u3") {
                // The previous op on this qubit, if it is an unconditioned u3, absorbs this one.
                for (size_t j = i; j-- > 0;) {
                    if (removed[j] || !passutil::sharesQubit(c.ops[j], op))
                        continue;
                    Op& prev = c.ops[j];
                    if (prev.kind == OpKind::Gate && prev.name == "u3" && !prev.cond.active() && prev.qubits == op.qubits) {
                        const auto m = matMul(opMatrix(op), opMatrix(prev), 2);
                        double th, ph, la;
                        u3Angles(m, th, ph, la);
                        prev.params = {th, ph, la};
                        removed[i] = 1;
                        ++u3merged;
                    }
                    break;
                }
            }
        }
        passutil::eraseMarked(c.ops, removed);
        PassResult r;
        r.changed = merged + u3merged > 0;
        r.summary = "merged " + std::to_string(merged) + " rotation(s) and " + std::to_string(u3merged) + " u3 gate(s) into their predecessors";
        return r;
    }
};

}  // namespace

std::unique_ptr<Pass> makeMergeRotationsPass() { return std::make_unique<MergeRotations>(); }

}  // namespace spyglass::quantum
