// inline_gates: replaces every call of a user-defined gate (and qelib1's composite gates such as c3x) by its
// body, recursively, until only gates the simulator knows by matrix remain. Opaque gates stay as they are.
#include "core/quantum/pass.h"

namespace spyglass::quantum {

namespace {

class InlineGates : public Pass {
public:
    std::string name() const override { return "inline_gates"; }
    std::string description() const override { return "expand user-defined and composite gates into primitive gates"; }
    PassResult run(Circuit& c, PassContext&) override
    {
        int expanded = 0, opaque = 0;
        std::vector<Op> out;
        out.reserve(c.ops.size());
        // Work list per op so nested definitions expand depth-first in order.
        for (const Op& op : c.ops) {
            expand(c, op, out, expanded, opaque, 0);
        }
        const size_t before = c.ops.size();
        c.ops = std::move(out);
        PassResult r;
        r.changed = expanded > 0;
        r.summary = "expanded " + std::to_string(expanded) + " gate call" + (expanded == 1 ? "" : "s") + "; " +
                    std::to_string(before) + " -> " + std::to_string(c.ops.size()) + " ops";
        if (opaque)
            r.summary += "; " + std::to_string(opaque) + " opaque gate call(s) left";
        return r;
    }

private:
    void expand(const Circuit& c, const Op& op, std::vector<Op>& out, int& expanded, int& opaque, int depth)
    {
        if (op.kind != OpKind::Gate || c.isPrimitive(op)) {
            out.push_back(op);
            return;
        }
        const GateDef* def = passutil::definitionFor(c, op.name);
        if (!def || def->opaque || depth > 64) {
            ++opaque;
            out.push_back(op);
            return;
        }
        ++expanded;
        std::vector<Op> body;
        passutil::expandOnce(*def, op, body);
        for (const Op& b : body)
            expand(c, b, out, expanded, opaque, depth + 1);
    }
};

}  // namespace

std::unique_ptr<Pass> makeInlineGatesPass() { return std::make_unique<InlineGates>(); }

}  // namespace spyglass::quantum
