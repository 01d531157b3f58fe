#pragma once
// The plan tuner (`--plan tuned`): starting from the cost-model plan, it searches each matmul's core split with the
// simulator's timing of the whole final bundle as the oracle (so restickifies, scratchpad residency and the
// neighbours' splits count, which the per-kernel cost model in work division does not see), one matmul at a time,
// within a wall-time budget. Candidates are the legal splits that use at least half the cores, tried in the
// order of the cost model's estimate; every one tried is recorded with its simulated time.
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
    std::string op;                      // "op3"
    std::map<std::string, int> ways;     // the split tried, vars cut more than once
    double estimateUs = 0;               // the cost model's estimate for that kernel alone
    double simulatedNs = 0;              // the whole bundle's simulated kernel time with it
    bool kept = false;                   // it beat every earlier plan and stays in the tuned plan
};

struct TunedPlan {
    std::vector<spyre::SpyreSnapshot> snapshots;   // the tuned plan's compile
    double costModelNs = 0;                        // the cost-model plan, simulated
    double tunedNs = 0;                            // the tuned plan, simulated (<= costModelNs)
    std::map<std::string, std::map<std::string, int>> splitPins;   // what the tuned plan pins
    std::vector<TuneCandidate> candidates;
    bool budgetExhausted = false;
    double gain() const { return tunedNs > 0 ? costModelNs / tunedNs : 1.0; }
};

// `options` is the cost-model plan's (its splitPins are kept as given); `budgetMs` bounds the search's wall time
// (the cost-model compile always runs). Checks `job` between candidates.
TunedPlan tunePlan(const model::ModelGraph& graph, const spyre::SpyreTarget& target, const spyre::CompileOptions& options,
                   JobControl& job, double budgetMs, int candidatesPerOp = 8);

}  // namespace spyglass::spyresim
