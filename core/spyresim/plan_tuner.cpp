#include "core/spyresim/plan_tuner.h"

#include "core/common/diagnostics.h"
#include "core/spyre/kernel_bundle.h"
#include "core/spyre/lx_neighbourhood.h"
#include "core/spyre/op_geometry.h"
#include "core/spyre/pass_work_division.h"
#include "core/spyresim/spyre_simulator.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <set>

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

// The op's tensors whose device order is a choice (rank >= 3: the batch is a dim of its own), by buffer name.
std::vector<std::string> orderedBuffers(const spyre::Program& p, const spyre::Op& op)
{
    std::set<int> ids;
    for (const spyre::Access& a : op.loads)
        ids.insert(a.buffer);
    ids.insert(op.store.buffer);
    std::vector<std::string> out;
    for (int id : ids)
        if (id >= 0 && id < static_cast<int>(p.buffers.size()) && p.buffers[id].shape.size() >= 3)
            out.push_back(p.buffers[id].name);
    return out;
}

struct Planned {
    const spyre::Op* op;
    std::vector<std::vector<int>> legal;                       // every split considered
    std::vector<std::pair<std::vector<int>, double>> splits;   // ways, cost-model estimate (us)
    std::vector<std::string> buffers;                          // order candidates: 2^n - 1 assignments
    size_t jointSplits = 0;                                    // splits[0..jointSplits) tried with each of them
};

}  // namespace

std::string TuneCandidate::label() const
{
    std::string s;
    for (const auto& [var, n] : ways)
        s += (s.empty() ? "" : " ") + var + ":" + std::to_string(n);
    for (const auto& [buffer, order] : orders)
        s += (s.empty() ? "" : " ") + buffer + "=" + spyre::bundleName(order);
    return s.empty() ? std::string("unsplit") : s;
}

TunedPlan tunePlan(const model::ModelGraph& graph, const spyre::SpyreTarget& target, const spyre::CompileOptions& options,
                   JobControl& job, double budgetMs, int candidatesPerOp)
{
    const auto start = std::chrono::steady_clock::now();
    auto elapsedMs = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(); };
    spyre::CompileOptions o = options;
    o.keepIrText = false;
    TunedPlan plan;
    plan.splitPins = options.splitPins;
    plan.orderPins = options.orderPins;
    plan.targetPath = target.path;
    // The candidates' compiles report nothing: the search's progress is candidates done over planned.
    JobControl quiet;
    job.report(0, "tuning: cost-model plan");
    plan.snapshots = spyre::SpyrePipeline::run(graph, target, o, quiet);
    plan.costModelNs = plan.tunedNs = simulatedNs(plan.snapshots, target);
    // Held apart: a kept candidate replaces plan.snapshots while the search still walks these ops.
    const auto firstIr = plan.snapshots.back().ir;
    const spyre::Program& first = *firstIr;
    std::vector<Planned> planned;
    for (const spyre::Op& op : first.ops) {
        if (op.kind != spyre::OpKind::MatMul || options.splitPins.count(op.name))
            continue;
        Planned p{&op, {}, {}, {}, 0};
        for (const std::vector<int>& w : splitsOf(first, op, target.cores))
            if (!spyre::splitExceedsSpan(first, op, w, target))
                p.legal.push_back(w);
        const spyre::LxNeighbourhood lx(first, op, target, first.scratchpad.planned);
        for (const std::vector<int>& w : p.legal)
            if (w != op.split.ways)
                p.splits.emplace_back(w, spyre::matmulSplitCost(first, op, w, target, &lx).rankUs);
        std::stable_sort(p.splits.begin(), p.splits.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
        if (static_cast<int>(p.splits.size()) > candidatesPerOp)
            p.splits.resize(static_cast<size_t>(candidatesPerOp));
        for (const std::string& b : orderedBuffers(first, op))
            if (!options.orderPins.count(b) && p.buffers.size() < 3)
                p.buffers.push_back(b);
        p.jointSplits = std::min(p.splits.size(), static_cast<size_t>(std::max(1, candidatesPerOp / 2)));
        plan.plannedCandidates += static_cast<int>(p.splits.size()) + static_cast<int>(2 + p.jointSplits) * ((1 << p.buffers.size()) - 1);
        planned.push_back(std::move(p));
    }
    // Compiles and simulates one candidate; keeps it when it beats the plan so far.
    auto tryCandidate = [&](TuneCandidate c, const spyre::CompileOptions& trial) {
        job.checkpoint();
        std::vector<spyre::SpyreSnapshot> snaps;
        try {
            snaps = spyre::SpyrePipeline::run(graph, target, trial, quiet);
        } catch (const InputError&) {
            return;   // a split the compiler refuses (a tile that no longer divides it): not a candidate
        }
        c.simulatedNs = simulatedNs(snaps, target);
        if (!trial.splitPins.count(c.op))   // the split work division chose: what the candidate ran with
            for (const spyre::Op& now : snaps.back().ir->ops)
                if (now.name == c.op)
                    for (int v = 0; v < now.numVars(); ++v)
                        if (now.split.ways[v] > 1)
                            c.ways[now.varName(v)] = now.split.ways[v];
        if (c.simulatedNs < plan.tunedNs * (1 - 1e-9)) {   // a tie (rounding) keeps the earlier plan
            c.kept = true;
            for (TuneCandidate& earlier : plan.candidates)
                if (earlier.op == c.op)
                    earlier.kept = false;
            plan.tunedNs = c.simulatedNs;
            plan.splitPins = trial.splitPins;
            plan.splitPins[c.op] = c.ways;   // a re-ranked split stays what it was when later ops change
            plan.orderPins = trial.orderPins;
            plan.snapshots = std::move(snaps);
        }
        plan.candidates.push_back(std::move(c));
        job.report(static_cast<double>(plan.candidates.size()) / std::max(1, plan.plannedCandidates),
                   "tuning: " + std::to_string(plan.candidates.size()) + " of " + std::to_string(plan.plannedCandidates) + " candidates");
    };
    auto outOfTime = [&] {
        if (elapsedMs() <= budgetMs)
            return false;
        plan.budgetExhausted = true;
        return true;
    };
    for (const Planned& p : planned) {
        const spyre::Op& op = *p.op;
        for (const auto& [w, estimate] : p.splits) {
            if (outOfTime())
                break;
            TuneCandidate c;
            c.op = op.name;
            c.what = "split";
            for (int v = 0; v < op.numVars(); ++v)
                if (w[v] > 1)
                    c.ways[op.varName(v)] = w[v];
            c.estimateUs = estimate;
            spyre::CompileOptions trial = o;
            trial.splitPins = plan.splitPins;
            trial.orderPins = plan.orderPins;
            trial.splitPins[op.name] = c.ways;
            tryCandidate(std::move(c), trial);
        }
        // Device orders with the split kept so far (pinned, so that work division does not re-rank it).
        std::map<std::string, spyre::DeviceOrder> current;
        for (const std::string& name : p.buffers)
            for (const spyre::Buffer& b : plan.snapshots.back().ir->buffers)
                if (b.name == name)
                    current[name] = b.order;
        std::map<std::string, int> keptWays;
        for (const spyre::Op& now : plan.snapshots.back().ir->ops)
            if (now.name == op.name)
                for (int v = 0; v < now.numVars(); ++v)
                    if (now.split.ways[v] > 1)
                        keptWays[now.varName(v)] = now.split.ways[v];
        // Per order: the split kept so far, the one work division ranks best under that order, and the cost model's
        // first splits (a split and an order can only pay together: PR #4302's batch split needs batch outermost).
        // Bit i of mask set: buffer i gets the other order than the plan so far gives it.
        auto orderOf = [&](size_t i, int mask) {
            const spyre::DeviceOrder now = current[p.buffers[i]];
            if (!((mask >> i) & 1))
                return now;
            return now == spyre::DeviceOrder::Default ? spyre::DeviceOrder::BatchOutermost : spyre::DeviceOrder::Default;
        };
        for (int mask = 1; mask < (1 << p.buffers.size()); ++mask) {
            // The cost model's ranking under this order: the first program with the op's tensors re-ordered.
            spyre::Program reordered = first;
            for (spyre::Buffer& b : reordered.buffers)
                for (size_t i = 0; i < p.buffers.size(); ++i)
                    if (b.name == p.buffers[i])
                        b.order = orderOf(i, mask);
            std::vector<std::pair<std::vector<int>, double>> ranked;
            const spyre::LxNeighbourhood lx(reordered, op, target, reordered.scratchpad.planned);
            for (const std::vector<int>& w : p.legal)
                ranked.emplace_back(w, spyre::matmulSplitCost(reordered, op, w, target, &lx).rankUs);
            std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
            for (int variant = -2; variant < static_cast<int>(std::min(p.jointSplits, ranked.size())); ++variant) {
                if (outOfTime())
                    break;
                TuneCandidate c;
                c.op = op.name;
                c.what = "order";
                spyre::CompileOptions trial = o;
                trial.splitPins = plan.splitPins;
                trial.orderPins = plan.orderPins;
                if (variant == -1) {
                    trial.splitPins.erase(op.name);   // work division ranks the splits again under the new order
                } else {
                    std::map<std::string, int> ways = keptWays;
                    if (variant >= 0) {
                        ways.clear();
                        for (int v = 0; v < op.numVars(); ++v)
                            if (ranked[variant].first[v] > 1)
                                ways[op.varName(v)] = ranked[variant].first[v];
                        c.estimateUs = ranked[variant].second;
                        if (ways == keptWays)
                            continue;   // the first variant ran it already
                    }
                    c.ways = trial.splitPins[op.name] = ways;
                }
                for (size_t i = 0; i < p.buffers.size(); ++i)
                    c.orders[p.buffers[i]] = trial.orderPins[p.buffers[i]] = orderOf(i, mask);
                tryCandidate(std::move(c), trial);
            }
        }
        if (plan.budgetExhausted)
            break;
    }
    plan.wallMs = elapsedMs();
    return plan;
}

}  // namespace spyglass::spyresim
