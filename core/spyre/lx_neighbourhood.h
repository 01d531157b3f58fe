#pragma once
// Which of a matmul's intermediates a candidate split lets scratchpad planning keep in LX. Work division ranks
// splits before scratchpad planning runs; ranking each with every operand in device memory favoured splits that
// slice an intermediate differently from its writer, which then stays in device memory (transpose_chain lost
// 1 536 sticks of DMA that way). With this, a split is timed with the residency it allows.

#include "core/spyre/core_regions.h"
#include "core/spyre/loop_ir.h"
#include "core/spyre/spyre_target.h"

#include <string>
#include <vector>

namespace spyglass::spyre {

// The simulator's time of the kernel codegen emits for `op` under its split, with `lxResident` the buffers held in
// LX (everything else moves between device memory and LX), in ns.
double opKernelNs(const Program& p, const Op& op, const SpyreTarget& t, const std::vector<int>& lxResident);

class LxNeighbourhood {
public:
    // The intermediates `op` (an op of `p`, found by name) shares with its writer and other readers whose splits are
    // decided: every other op with a split, except, when `laterMatmulsUndecided`, the matmuls after it (work
    // division's first round ranks matmuls in program order, so a later matmul has not chosen yet and will itself
    // follow the slices decided here). `lxPlanned`: scratchpad planning will run (off, nothing is ever resident).
    LxNeighbourhood(const Program& p, const Op& op, const SpyreTarget& t, bool lxPlanned,
                    bool laterMatmulsUndecided = false);

    // The buffers `candidate` (the op with the split under test) could keep in LX: every decided op touching
    // the buffer slices it as the candidate does, and one core's part fits in usable LX.
    std::vector<int> residentFor(const Op& candidate) const;

    // What the decided ops around the candidate pay, in ns, for the shared intermediates it leaves out of LX: each
    // one's writer stores it and its readers load it from device memory instead of finding it in LX.
    double spilledNs(const std::vector<int>& resident) const;

    // What decides residentFor and spilledNs besides the op itself, for work division's cache of equal matmuls.
    const std::string& signature() const { return signature_; }

private:
    struct Shared {
        int buffer = -1;
        CoreRegions regions;           // what each core touches of it in the decided ops (they agree)
        const Op* writer = nullptr;    // null: the candidate writes it
        double othersNs = 0;           // the decided ops' time moving it when it is not in LX
    };
    const Program& p_;
    int64_t capacity_ = 0;
    std::vector<Shared> shared_;
    std::string signature_;
};

}  // namespace spyglass::spyre
