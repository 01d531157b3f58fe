#pragma once
#include "core/spyre/pass.h"

namespace spyglass::spyre {

// Fuses pointwise chains: a pointwise op whose only consumer is a pointwise or reduction op is inlined into that
// consumer's body (its loads re-indexed through the consumer's index), and a pointwise op that is the only consumer
// of a matmul, over the same iteration space, becomes the matmul's epilogue. Pinned tensors are never fused away.
class FusePass : public Pass {
public:
    std::string name() const override { return "fuse"; }
    std::string description() const override
    {
        return "fuse pointwise chains into their consumer, and pointwise epilogues into matmuls";
    }
    PassResult run(Program& program, PassContext& ctx) override;
};

}  // namespace spyglass::spyre
