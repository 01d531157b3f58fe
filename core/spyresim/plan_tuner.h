#pragma once
// The plan tuner (`--plan tuned`, the explorer's Spyre > Tune Plan): starting from the cost-model plan, it searches
// each matmul's core split and then the device order of the matmul's batched tensors, with the simulator's timing
// of the whole final bundle as the oracle (so restickifies, scratchpad residency and the neighbours' kernels count,
// which the per-kernel cost model in work division does not see), one matmul at a time, within a wall-time budget.
// Split candidates are the legal splits that use at least half the cores, tried in the order of the cost model's
// estimate; order candidates are every other assignment of the two device orders to the matmul's tensors of rank
// >= 3 (at most 7 over its first 3 such tensors), each with the split kept so far, with the split work division
// ranks best under that order, and with the cost model's first candidatesPerOp / 2 splits (a batch split pays only
// together with batch outermost). Every candidate tried is recorded with its simulated time.
#include "core/common/job_control.h"
#include "core/model/model_graph.h"
#include "core/spyre/pass.h"
#include "core/spyre/spyre_pipeline.h"
#include "core/spyre/spyre_target.h"

#include <map>
#include <string>
#include <vector>

namespace spyglass::spyresim {

struct TuneCandidate {
    std::string op;                                   // "op3"
    std::string what;                                 // "split" or "order": which knob this candidate turns
    std::map<std::string, int> ways;                  // the split it ran with, vars cut more than once
    std::map<std::string, spyre::DeviceOrder> orders; // order candidates: buffer -> the order tried
    double estimateUs = 0;               // the cost model's estimate for that kernel alone, 0 when no ranked split was pinned
    double simulatedNs = 0;              // the whole bundle's simulated kernel time with it
    bool kept = false;                   // it beat every earlier plan and stays in the tuned plan
    // "p0:2 p1:16" or "buf1=batch_outermost arg0=default": what the candidate pins, for lists and charts.
    std::string label() const;
};

struct TunedPlan {
    std::vector<spyre::SpyreSnapshot> snapshots;   // the tuned plan's compile
    double costModelNs = 0;                        // the cost-model plan, simulated
    double tunedNs = 0;                            // the tuned plan, simulated (<= costModelNs)
    std::map<std::string, std::map<std::string, int>> splitPins;   // what the tuned plan pins
    std::map<std::string, spyre::DeviceOrder> orderPins;
    std::vector<TuneCandidate> candidates;         // in the order they were simulated
    int plannedCandidates = 0;                     // how many the search would try without a budget
    double wallMs = 0;                             // the search's wall time, cost-model compile included
    std::string targetPath;                        // the target description the search ran on
    bool budgetExhausted = false;
    double gain() const { return tunedNs > 0 ? costModelNs / tunedNs : 1.0; }
};

// `options` is the cost-model plan's (its splitPins and orderPins are kept as given); `budgetMs` bounds the
// search's wall time (the cost-model compile always runs). Checks `job` between candidates and reports the
// fraction of the planned candidates simulated through job.report.
TunedPlan tunePlan(const model::ModelGraph& graph, const spyre::SpyreTarget& target, const spyre::CompileOptions& options,
                   JobControl& job, double budgetMs, int candidatesPerOp = 8);

}  // namespace spyglass::spyresim
