// cancel_inverses: removes pairs of gates that multiply to the identity (up to global phase), also when
// gates between them commute with the later one (cx a,b; z a; cx a,b: the cx pair cancels because z on the control commutes).
#include "core/quantum/pass.h"

namespace spyglass::quantum {

namespace {

class CancelInverses : public Pass {
public:
    std::string name() const override { return "cancel_inverses"; }
    std::string description() const override
    {
        return "remove pairs of mutually inverse gates, looking through gates that commute";
    }
    PassResult run(Circuit& c, PassContext&) override
    {
        std::vector<char> removed(c.ops.size(), 0);
        int pairs = 0;
        for (size_t i = 0; i < c.ops.size(); ++i) {
            const Op& op = c.ops[i];
            if (op.kind != OpKind::Gate)
                continue;
            int steps = 0;
            for (size_t j = i; j-- > 0 && steps < kWindow;) {
                if (removed[j])
                    continue;
                const Op& prev = c.ops[j];
                if (!passutil::sharesQubit(prev, op))
                    continue;
                ++steps;
                if (passutil::cancels(prev, op)) {
                    removed[i] = removed[j] = 1;
                    ++pairs;
                    break;
                }
                if (!passutil::gatesCommute(prev, op))
                    break;
            }
        }
        passutil::eraseMarked(c.ops, removed);
        PassResult r;
        r.changed = pairs > 0;
        r.summary = "removed " + std::to_string(pairs) + " inverse pair" + (pairs == 1 ? "" : "s") + " (" + std::to_string(2 * pairs) + " gates)";
        return r;
    }

private:
    static constexpr int kWindow = 64;   // how many overlapping ops to look back through
};

}  // namespace

std::unique_ptr<Pass> makeCancelInversesPass() { return std::make_unique<CancelInverses>(); }

}  // namespace spyglass::quantum
