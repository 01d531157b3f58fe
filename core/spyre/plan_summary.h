#pragma once
// The headline numbers of a compiled plan, as `compile --json` prints them and the GUI's layout what-if
// compares them: restickify ops and the elements they move, layout cost, kernels, cores, LX peak.

#include "core/spyre/loop_ir.h"

#include <cstdint>
#include <optional>
#include <string>

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

// The layout what-if's comparison of the plan before pins with the plan after, in plain text (the GUI's banner
// shows it): restickify ops, elements moved, layout cost with what its optimality proof covers (the fewest
// restickified elements under the pins, a count, not time), LX peak, and the simulated kernel time of both plans
// beside it when both were simulated, saying so when the element optimum is not the faster plan.
std::string comparePlans(const PlanSummary& before, const PlanSummary& after, std::optional<double> simulatedBeforeNs,
                         std::optional<double> simulatedAfterNs);

}  // namespace spyglass::spyre
