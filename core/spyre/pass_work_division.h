#pragma once
#include "core/spyre/pass.h"

namespace spyglass::spyre {

// Splits each op's (tile) iteration space over 1..cores cores with even splits, counting the stick var in sticks
// so every slice starts on a stick boundary. Default (torch-spyre's, and the only one in baseline mode): output
// dims largest first, each taking its largest divisor that fits the remaining cores; reduction dims only take
// leftover cores in reductions. Outside baseline, matmuls try every split (batch, M, N, K) and keep the fastest
// under the simulator's timing model (with the LX residency each split allows: lx_neighbourhood.h), among splits
// within the 256 MiB span when any is.
class WorkDivisionPass : public Pass {
public:
    std::string name() const override { return "work_division"; }
    std::string description() const override
    {
        return "split each op over 1-32 cores with even, stick-aligned slices; cost model for matmul splits";
    }
    PassResult run(Program& program, PassContext& ctx) override;
};

class LxNeighbourhood;

// A matmul split's price under the simulator's timing model: the kernel's own time, and what work division ranks
// by, that time plus what the decided ops around it pay for the intermediates the split leaves in device memory
// (lx_neighbourhood.h). Microseconds, whole ns.
struct SplitCost {
    double kernelUs = 0;
    double rankUs = 0;
};
SplitCost matmulSplitCost(const Program& p, const Op& op, const std::vector<int>& ways, const SpyreTarget& t,
                          const LxNeighbourhood* lx);

// Simulated time of `op` split `ways` (per var), in microseconds: the simulator's timing model (kernel_timing.h)
// on the kernel codegen emits for that split, with the intermediates `lx` says this split can keep in LX charged
// no traffic (without `lx`, every operand in device memory): matmulSplitCost's kernelUs.
double matmulSplitCostUs(const Program& p, const Op& op, const std::vector<int>& ways, const SpyreTarget& t,
                         const LxNeighbourhood* lx = nullptr);
// Does any core's span of any tensor exceed the target's span with these ways?
bool splitExceedsSpan(const Program& p, const Op& op, const std::vector<int>& ways, const SpyreTarget& t);
// The --pin-split entry for `op` (by op name, else by the ONNX node it computes), or null. Coarse tiling asks too, so
// that it leaves every pinned var a whole number of slices per tile.
const std::pair<const std::string, std::map<std::string, int>>* splitPinOf(const Op& op, const CompileOptions& o);
// torch-spyre's default division: output vars largest first, the cores they leave to one reduction var.
std::vector<int> defaultDivision(const Program& p, const Op& op, int cores);

}  // namespace spyglass::spyre
