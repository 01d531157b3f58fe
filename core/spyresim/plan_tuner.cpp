#include "core/spyresim/plan_tuner.h"

#include "core/common/diagnostics.h"
#include "core/spyre/op_geometry.h"
#include "core/spyre/pass_work_division.h"
#include "core/spyresim/spyre_simulator.h"

#include <algorithm>
#include <chrono>
#include <functional>

namespace spyglass::spyresim {

namespace {

double simulatedNs(const std::vector<spyre::SpyreSnapshot>& snaps, const spyre::SpyreTarget& target)
{
    SimOptions timing;
    timing.numerics = false;
    timing.trace = false;
    return simulate(*snaps.back().ir->bundle, target, {}, timing).kernelTimeNs;
}

// Every split of `op` over at least half and at most all of the cores, each var cut by a divisor of its units.
std::vector<std::vector<int>> splitsOf(const spyre::Program& p, const spyre::Op& op, int cores)
{
    std::vector<std::vector<int>> out;
    std::vector<int> ways(op.numVars(), 1);
    std::function<void(int, int)> walk = [&](int v, int used) {
        if (v == op.numVars()) {
            if (2 * used >= cores)
                out.push_back(ways);
            return;
        }
        for (int64_t d : spyre::divisorsAtMost(spyre::varUnits(p, op, v), cores / used)) {
            ways[v] = static_cast<int>(d);
            walk(v + 1, used * static_cast<int>(d));
        }
        ways[v] = 1;
    };
    walk(0, 1);
    return out;
}

}  // namespace

TunedPlan tunePlan(const model::ModelGraph& graph, const spyre::SpyreTarget& target, const spyre::CompileOptions& options,
                   JobControl& job, double budgetMs, int candidatesPerOp)
{
    const auto start = std::chrono::steady_clock::now();
    auto elapsedMs = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(); };
    spyre::CompileOptions o = options;
    o.keepIrText = false;
    TunedPlan plan;
    plan.splitPins = options.splitPins;
    plan.snapshots = spyre::SpyrePipeline::run(graph, target, o, job);
    plan.costModelNs = plan.tunedNs = simulatedNs(plan.snapshots, target);
    const spyre::Program& first = *plan.snapshots.back().ir;
    for (const spyre::Op& op : first.ops) {
        if (op.kind != spyre::OpKind::MatMul || options.splitPins.count(op.name))
            continue;
        struct Ranked {
            std::vector<int> ways;
            double estimateUs;
        };
        std::vector<Ranked> ranked;
        for (const std::vector<int>& w : splitsOf(first, op, target.cores))
            if (w != op.split.ways && !spyre::splitExceedsSpan(first, op, w, target))
                ranked.push_back({w, spyre::matmulSplitCostUs(first, op, w, target)});
        std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) { return a.estimateUs < b.estimateUs; });
        if (static_cast<int>(ranked.size()) > candidatesPerOp)
            ranked.resize(static_cast<size_t>(candidatesPerOp));
        for (const Ranked& r : ranked) {
            if (elapsedMs() > budgetMs) {
                plan.budgetExhausted = true;
                return plan;
            }
            job.checkpoint();
            TuneCandidate c;
            c.op = op.name;
            for (int v = 0; v < op.numVars(); ++v)
                if (r.ways[v] > 1)
                    c.ways[op.varName(v)] = r.ways[v];
            c.estimateUs = r.estimateUs;
            spyre::CompileOptions trial = o;
            trial.splitPins = plan.splitPins;
            trial.splitPins[op.name] = c.ways;
            std::vector<spyre::SpyreSnapshot> snaps;
            try {
                snaps = spyre::SpyrePipeline::run(graph, target, trial, job);
            } catch (const InputError&) {
                continue;   // a split the compiler refuses (a tile that no longer divides it): not a candidate
            }
            c.simulatedNs = simulatedNs(snaps, target);
            if (c.simulatedNs < plan.tunedNs) {
                c.kept = true;
                for (TuneCandidate& earlier : plan.candidates)
                    if (earlier.op == op.name)
                        earlier.kept = false;
                plan.tunedNs = c.simulatedNs;
                plan.splitPins = trial.splitPins;
                plan.snapshots = std::move(snaps);
            }
            plan.candidates.push_back(std::move(c));
        }
    }
    return plan;
}

}  // namespace spyglass::spyresim
