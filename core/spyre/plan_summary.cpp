#include "core/spyre/plan_summary.h"

#include "core/spyre/kernel_bundle.h"

#include <algorithm>

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

}  // namespace spyglass::spyre
