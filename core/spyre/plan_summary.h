#pragma once
// The headline numbers of a compiled plan, as `compile --json` prints them and the GUI's layout what-if
// compares them: restickify ops and the elements they move, layout cost, kernels, cores, LX peak.

#include "core/spyre/loop_ir.h"

#include <cstdint>

namespace spyglass::spyre {

struct PlanSummary {
    int64_t restickifyCount = 0;
    int64_t restickifyElements = 0;   // device elements written by restickify ops
    int64_t layoutCost = 0;           // optimize_layouts' objective (elements, edge model)
    bool layoutOptimal = false;
    int64_t kernels = 0;
    int coresUsed = 0;
    int64_t lxPeakBytes = 0;
};

PlanSummary summarizePlan(const Program& program);

}  // namespace spyglass::spyre
