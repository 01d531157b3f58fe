#include "core/spyre/plan_summary.h"

#include "core/common/units.h"
#include "core/spyre/kernel_bundle.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace spyglass::spyre {

PlanSummary summarizePlan(const Program& p)
{
    PlanSummary s;
    for (const Op& op : p.ops) {
        if (op.kind == OpKind::Restickify) {
            ++s.restickifyCount;
            s.restickifyElements += p.layoutOf(p.buffers[static_cast<size_t>(op.store.buffer)]).deviceElements();
        }
        if (!op.split.ways.empty())
            s.coresUsed = std::max(s.coresUsed, op.split.cores);
    }
    s.layoutCost = p.layout.cost;
    s.layoutOptimal = p.layout.provenOptimal;
    s.kernels = p.bundle ? static_cast<int64_t>(p.bundle->kernels.size()) : static_cast<int64_t>(p.ops.size());
    s.lxPeakBytes = p.scratchpad.peakBytes;
    return s;
}

namespace {

std::string delta(int64_t x, int64_t y)
{
    const int64_t d = y - x;
    if (d == 0)
        return std::to_string(y) + " (same)";
    return std::to_string(x) + " → " + std::to_string(y) + " (" + (d > 0 ? "+" : "") + std::to_string(d) + ")";
}

std::string percent(double pct)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%.1f %%", pct > 0 ? "+" : "", pct);
    return buf;
}

}  // namespace

std::string comparePlans(const PlanSummary& a, const PlanSummary& b, std::optional<double> simA, std::optional<double> simB)
{
    std::string s = "restickify ops " + delta(a.restickifyCount, b.restickifyCount) + "; elements moved " +
                    delta(a.restickifyElements, b.restickifyElements) + "; layout cost " + delta(a.layoutCost, b.layoutCost);
    // The layout optimiser's proof is about its objective, an element count; time is the simulator's to say.
    if (b.layoutOptimal)
        s += ", proven optimal for the fewest restickified elements under the pins (not for time)";
    s += "; LX peak bytes " + delta(a.lxPeakBytes, b.lxPeakBytes) + "; ";
    if (!simA || !simB)
        return s + "simulated kernel time not available (the simulator did not run on both plans)";
    const double x = *simA, y = *simB;
    if (std::llround(x) == std::llround(y))
        return s + "simulated kernel time " + formatDuration(y) + " (same)";
    const double pct = x > 0 ? 100.0 * (y - x) / x : 0.0;
    s += "simulated kernel time " + formatDuration(x) + " → " + formatDuration(y) + " (" + percent(pct) + ")";
    if (a.layoutOptimal && b.layoutCost > a.layoutCost && y < x)
        s += ": the unpinned plan has the fewest restickified elements, this one simulates " + percent(-pct).substr(1) + " faster";
    else if (b.layoutOptimal && b.layoutCost < a.layoutCost && y > x)
        s += ": fewer restickified elements, yet " + percent(pct).substr(1) + " slower in the simulator";
    return s;
}

}  // namespace spyglass::spyre
