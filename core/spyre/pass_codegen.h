#pragma once
#include "core/spyre/kernel_bundle.h"
#include "core/spyre/pass.h"

namespace spyglass::spyre {

// Every core's slice of an op's (tile) iteration space under its split, as codegen writes it into the bundle;
// the Work division view draws the same slices.
std::vector<KernelSlice> coreSlicesOf(const Program& program, const Op& op);

// What codegen writes for one op (at kernel `index`) and for one buffer: the work division times candidate splits
// on exactly this kernel with the simulator's timing model. `lxResident`, when given, lists the buffers held in LX
// instead of the scratchpad plan's (work division asks what a split would cost before scratchpad planning runs).
Kernel kernelOf(const Program& program, const Op& op, int index, const std::vector<int>* lxResident = nullptr);
BundleTensor bundleTensorOf(const Program& program, const Buffer& buffer);

// Builds the kernel bundle in memory (torch-spyre's op spec, minus the proprietary backend): one kernel per op
// with its iteration space, per-core work slices, tile loops, tensor arguments with device layouts and LX
// allocations, DMA transfers in sticks, and restickify moves. Export writes it to disk (kernel_bundle.h).
class CodegenPass : public Pass {
public:
    std::string name() const override { return "codegen"; }
    std::string description() const override { return "build the kernel bundle: one op spec per kernel"; }
    PassResult run(Program& program, PassContext& ctx) override;
};

}  // namespace spyglass::spyre
