#pragma once
#include "core/spyre/pass.h"

namespace spyglass::spyre {

// Places each core's share of a buffer in LX over the kernel timeline (op order). Planned buffers: op outputs that
// stay on the device, and graph inputs/constants read by more than one op (cloned into LX at first use). A buffer
// lives from its first to its last use; its size is its device bytes over the writer's cores, 128 B aligned.
//   greedy (torch-spyre's default): in place of a dying parent, else address 0, else above the high-water mark,
//     else the first gap;
//   first-fit: the lowest free offset;  best-fit: the smallest free gap that fits.
// Live buffers never overlap; nothing goes beyond usable LX; what fits nowhere stays in device memory.
class ScratchpadPlanningPass : public Pass {
public:
    std::string name() const override { return "scratchpad_planning"; }
    std::string description() const override { return "place each core's buffers in LX over the kernel timeline"; }
    PassResult run(Program& program, PassContext& ctx) override;
};

}  // namespace spyglass::spyre
