#pragma once
#include "core/spyre/pass.h"

namespace spyglass::spyre {

// Graph -> LoopLevelIR: every core op becomes a ComputedBuffer with a Pointwise, Reduction or MatMul loop body
// (iteration ranges, reduction ranges, affine loads and a store), as Inductor's lowerings do. Reshape, Expand and
// Slice become views that later loads index directly; a view that cannot be indexed affinely is materialised by a
// copy. Unsupported ops and attributes are InputErrors naming the op type, node and attribute.
class LowerPass : public Pass {
public:
    std::string name() const override { return "lower"; }
    std::string description() const override
    {
        return "lower every op to a ComputedBuffer with a Pointwise / Reduction / MatMul loop body";
    }
    PassResult run(Program& program, PassContext& ctx) override;
};

}  // namespace spyglass::spyre
