#pragma once
#include "core/spyre/pass.h"

namespace spyglass::spyre {

// Gives every op its set of candidate device layouts (torch-spyre's propagate_layouts): for each var that could
// walk the stick, the output stick dimension it implies and the stick dimension each load then needs.
//   pointwise / most reductions: "all-same" — one candidate per var, inputs sticked along that same var;
//   matmul: "fixed-in-out" — A sticked on K, B and the output on N;
//   restickify: fixed by construction.
// A candidate is dropped when some load cannot be stick-contiguous along its var at all.
class PropagateLayoutsPass : public Pass {
public:
    std::string name() const override { return "propagate_layouts"; }
    std::string description() const override { return "give every op its set of candidate device layouts"; }
    PassResult run(Program& program, PassContext& ctx) override;
};

// The candidates of one op (exposed for tests).
std::vector<LayoutCandidate> layoutCandidates(const Program& p, const Op& op);

}  // namespace spyglass::spyre
