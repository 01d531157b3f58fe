#pragma once
#include "core/spyre/pass.h"

namespace spyglass::spyre {

// Chooses one candidate layout per op and a stick dim per graph input and constant, minimising the elements moved
// by restickify (layout_model.h). Pins (--pin TENSOR=DIM) restrict the choice. Reports whether the answer is
// proven optimal, or its gap to a lower bound. Outside baseline mode, tensors of rank >= 3 get the batch-outermost
// device order (torch-spyre PR #4302); baseline keeps torch-spyre's default order.
class OptimizeLayoutsPass : public Pass {
public:
    std::string name() const override { return "optimize_layouts"; }
    std::string description() const override
    {
        return "choose stick dimensions globally, minimising restickify cost (exact or bounded beam search)";
    }
    PassResult run(Program& program, PassContext& ctx) override;
};

}  // namespace spyglass::spyre
