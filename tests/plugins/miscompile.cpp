// A wrong pass, as a plugin author might write one by mistake: it swaps the operands of the first division in the
// loop IR (softmax's e / sum becomes sum / e). The program still compiles and simulates; only the numbers check
// against the reference interpreter can tell, which is what the explorer's tests need it for.
#include <spyglass/pass_plugin.h>

#include <string>
#include <utility>

namespace {

using namespace spyglass;

class SwapDivision final : public spyre::Pass {
public:
    std::string name() const override { return "swap_division"; }
    std::string description() const override { return "swap the operands of the first division (a deliberate miscompile)"; }
    PassResult run(spyre::Program& program, spyre::PassContext&) override
    {
        if (program.stage != spyre::Stage::Loop)
            return {false, "nothing to do: not lowered"};
        for (spyre::Op& op : program.ops)
            for (spyre::Stmt& s : op.body)
                if (s.kind == spyre::StmtKind::Compute && s.fn == spyre::BodyFn::TrueDiv && s.args.size() == 2) {
                    std::swap(s.args[0], s.args[1]);
                    return {true, "swapped the division in " + op.name};
                }
        return {false, "no division"};
    }
};

void registerPasses(PassRegistry& registry)
{
    registry.addSpyrePass("after:propagate_layouts", [] { return std::make_unique<SwapDivision>(); });
}

}  // namespace

SPYGLASS_PASS_PLUGIN("miscompile", registerPasses)
