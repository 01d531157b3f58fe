#include "core/spyre/pass_work_division.h"

#include "core/common/diagnostics.h"
#include "core/spyre/lx_neighbourhood.h"
#include "core/spyre/op_geometry.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <functional>
#include <numeric>

namespace spyglass::spyre {

std::vector<int> defaultDivision(const Program& p, const Op& op, int cores)
{
    std::vector<int> ways(op.numVars(), 1);
    const int nIter = static_cast<int>(op.ranges.size());
    std::vector<int> order(nIter);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return varUnits(p, op, a) > varUnits(p, op, b); });
    int64_t budget = cores;
    for (int v : order) {
        const int64_t w = largestDivisorAtMost(varUnits(p, op, v), budget);
        ways[v] = static_cast<int>(w);
        budget /= w;
    }
    // Cores the output dims leave go to the one reduction var that takes most of them, for a matmul too: torch-spyre
    // work_division.py, multi_dim_iteration_space_split's third pass ("pick the single most-splittable reduction
    // dim for any remaining cores"; the backend splits at most one reduction dim).
    if (op.kind == OpKind::Reduction || op.kind == OpKind::MatMul) {
        int bestVar = -1;
        int64_t bestWays = 1;
        for (int v = nIter; v < op.numVars(); ++v)
            if (const int64_t w = largestDivisorAtMost(varUnits(p, op, v), budget); w > bestWays) {
                bestVar = v;
                bestWays = w;
            }
        if (bestVar >= 0)
            ways[bestVar] = static_cast<int>(bestWays);
    }
    return ways;
}

SplitCost matmulSplitCost(const Program& p, const Op& op, const std::vector<int>& ways, const SpyreTarget& t,
                          const LxNeighbourhood* lx)
{
    // The kernel codegen would emit for this split, timed by the simulator's model: one cost model for both.
    // Scratchpad planning has not run yet: an intermediate is charged no traffic where this split slices it as the
    // decided ops around it do (it can stay in LX), its device-memory traffic otherwise; and what those ops pay
    // for the intermediates this split leaves in device memory is part of the split's price.
    Op candidate = op;
    candidate.split.ways = ways;
    candidate.split.cores = std::accumulate(ways.begin(), ways.end(), 1, std::multiplies<int>());
    const std::vector<int> resident = lx ? lx->residentFor(candidate) : std::vector<int>{};
    SplitCost c;
    c.kernelUs = std::round(opKernelNs(p, candidate, t, resident)) / 1000.0;   // whole ns
    c.rankUs = c.kernelUs + (lx ? std::round(lx->spilledNs(resident)) / 1000.0 : 0.0);
    return c;
}

double matmulSplitCostUs(const Program& p, const Op& op, const std::vector<int>& ways, const SpyreTarget& t,
                         const LxNeighbourhood* lx)
{
    return matmulSplitCost(p, op, ways, t, lx).kernelUs;
}

namespace {

// The span check of one op, prepared once: per tensor it touches, its device bytes, the vars whose split cuts its
// outermost device dim, and how much its tile loops cut it. Evaluating a split is then a few multiplications,
// which matters because the matmul search evaluates every split.
class SpanModel {
public:
    SpanModel(const Program& p, const Op& op, const SpyreTarget& t) : limit_(t.spanBytes)
    {
        for (int b : touchedBuffers(op)) {
            const Buffer& buf = p.buffers[b];
            const SpyreTensorLayout l = p.layoutOf(buf);
            Item item;
            item.bytes = l.deviceElements() * p.deviceDtypeBytes;
            const Access* a = op.store.buffer == b ? &op.store : nullptr;
            for (const Access& ld : op.loads)
                if (!a && ld.buffer == b)
                    a = &ld;
            for (size_t d = 0; d < l.deviceSize.size(); ++d) {
                if (l.deviceSize[d] <= 1)
                    continue;
                for (int v = 0; v < op.numVars(); ++v)
                    if (variesWith(op, b, v) &&
                        walkedDim(buf, a->index.coeffOf(v), op.varRange(v), p.stickElements).dim == l.dimMap[d])
                        item.cutVars.push_back(v);
                break;
            }
            for (const TileLoop& tl : op.tiles)
                if (variesWith(op, b, tl.var))
                    item.tileCounts.push_back(tl.count);
            items_.push_back(std::move(item));
        }
    }

    bool exceeds(const std::vector<int>& ways) const
    {
        for (const Item& item : items_) {
            int64_t cut = 1;
            for (int v : item.cutVars)
                cut *= ways[v];
            int64_t span = ceilDiv(item.bytes, cut);
            for (int64_t count : item.tileCounts)
                span = ceilDiv(span, count);
            if (span > limit_)
                return true;
        }
        return false;
    }

private:
    struct Item {
        int64_t bytes = 0;
        std::vector<int> cutVars;
        std::vector<int64_t> tileCounts;
    };
    std::vector<Item> items_;
    int64_t limit_;
};

}  // namespace

bool splitExceedsSpan(const Program& p, const Op& op, const std::vector<int>& ways, const SpyreTarget& t)
{
    return SpanModel(p, op, t).exceeds(ways);
}

namespace {

double memoryEstimateUs(const Program& p, const Op& op, const SpyreTarget& t)
{
    int64_t bytes = 0;
    for (int b : touchedBuffers(op))
        bytes += p.deviceBytes(p.buffers[b]);
    return static_cast<double>(bytes) / (t.lpddr5EffectiveGBs * 1e3);
}

CoreSplit bestMatmulSplit(const Program& p, const Op& op, const SpyreTarget& t, const LxNeighbourhood& lx, int& evaluated,
                          double& rankUs)
{
    const int nv = op.numVars();
    std::vector<int> ways(nv, 1);
    const SpanModel span(p, op, t);
    CoreSplit best;
    double bestCost = 1e300, bestKernelUs = 0;
    bool bestWithinSpan = false;
    std::function<void(int, int64_t)> rec = [&](int v, int64_t budget) {
        if (v == nv) {
            ++evaluated;
            const SplitCost sc = matmulSplitCost(p, op, ways, t, &lx);
            const double c = sc.rankUs;
            const bool ok = !span.exceeds(ways);
            // Splits within the span come first; then the cheapest; then the fewest cores.
            const int cores = std::accumulate(ways.begin(), ways.end(), 1, std::multiplies<int>());
            if ((ok && !bestWithinSpan) || (ok == bestWithinSpan && (c < bestCost - 1e-12 ||
                                                                    (std::abs(c - bestCost) <= 1e-12 && cores < best.cores)))) {
                bestCost = c;
                bestKernelUs = sc.kernelUs;
                bestWithinSpan = ok;
                best.ways = ways;
                best.cores = cores;
            }
            return;
        }
        for (int64_t d : divisorsAtMost(varUnits(p, op, v), budget)) {
            ways[v] = static_cast<int>(d);
            rec(v + 1, budget / d);
        }
        ways[v] = 1;
    };
    rec(0, t.cores);
    best.estimatedUs = bestKernelUs;
    rankUs = bestCost;
    return best;
}


// The pass's own choice: torch-spyre's default division; for matmuls (unless baseline) the cost model's best split.
// What decides a matmul's best split: its iteration space, tile loops, accesses and the shapes and device layouts
// of its tensors, and how the decided ops around it slice the intermediates it shares with them. Equal signatures
// (every layer of a transformer) share one search.
std::string matmulSignature(const Program& p, const Op& op, const LxNeighbourhood& lx)
{
    std::string sig = lx.signature() + "#";
    auto ints = [&](const std::vector<int64_t>& v) {
        for (int64_t x : v)
            sig += std::to_string(x) + ",";
        sig += ";";
    };
    ints(op.ranges);
    ints(op.reductionRanges);
    for (const TileLoop& t : op.tiles)
        ints({t.var, t.count, t.extent});
    auto access = [&](const Access& a) {
        const Buffer& b = p.buffers[a.buffer];
        for (const auto& [var, coeff] : a.index.terms)
            ints({var, coeff});
        ints(b.shape);
        sig += std::to_string(static_cast<int>(b.kind)) + p.layoutOf(b).text() + "|";
    };
    for (const Access& a : op.loads)
        access(a);
    access(op.store);
    return sig;
}

struct RankedSplit {
    CoreSplit split;
    int evaluated = 0;
    double rankUs = 0;   // the kernel's time plus its neighbours' for what the split leaves in device memory
};
using SplitCache = std::map<std::string, RankedSplit>;

CoreSplit chooseSplit(const Program& program, const Op& op, const PassContext& ctx, bool firstRound, int& modelled, int& differs,
                      SplitCache& cache)
{
    const SpyreTarget& t = ctx.target;
    CoreSplit s;
    s.ways = defaultDivision(program, op, t.cores);
    s.cores = std::accumulate(s.ways.begin(), s.ways.end(), 1, std::multiplies<int>());
    s.why = "default: largest dims first";
    if (op.kind == OpKind::MatMul) {
        const LxNeighbourhood lx(program, op, t, ctx.options.scratchpad != ScratchpadPolicy::None, firstRound);
        const SplitCost def = matmulSplitCost(program, op, s.ways, t, &lx);
        s.estimatedUs = def.kernelUs;
        if (!ctx.options.baseline) {
            const std::string sig = matmulSignature(program, op, lx);
            auto hit = cache.find(sig);
            if (hit == cache.end()) {
                RankedSplit r;
                r.split = bestMatmulSplit(program, op, t, lx, r.evaluated, r.rankUs);
                hit = cache.emplace(sig, r).first;
            }
            const RankedSplit& best = hit->second;
            ++modelled;
            if (best.split.ways != s.ways && best.rankUs < def.rankUs) {
                ++differs;
                char why[240];
                const double theirs = best.rankUs - best.split.estimatedUs, defTheirs = def.rankUs - def.kernelUs;
                if (std::abs(theirs - defTheirs) > 1e-9)
                    std::snprintf(why, sizeof why,
                                  "cost model: best of %d splits (default would take %.3f us, and its neighbours %.3f us "
                                  "more for the intermediates it leaves in device memory; this split %.3f us)",
                                  best.evaluated, def.kernelUs, defTheirs, theirs);
                else
                    std::snprintf(why, sizeof why, "cost model: best of %d splits (default would take %.3f us)",
                                  best.evaluated, def.kernelUs);
                s = best.split;
                s.why = why;
            } else {
                s.why = "cost model: default split is best of " + std::to_string(best.evaluated);
            }
        }
    } else {
        s.estimatedUs = memoryEstimateUs(program, op, t);
    }
    return s;
}

// "p0:4, p1:8": a split as the user writes it back (the CLI's --pin-split and the GUI's dialog read this form).
std::string formatWays(const std::map<std::string, int>& ways)
{
    std::string out;
    for (const auto& [var, w] : ways)
        out += (out.empty() ? "" : ",") + var + ":" + std::to_string(w);
    return out;
}

// The pinned split for `op`, checked against what the pass itself could choose: vars of the op, whole divisors of
// each var's units (sticks along the stick var, else elements: a core's slice is a whole number of them), reduction
// vars only for the kinds whose split the pass models (a reduction combines partial results over cores; a matmul's
// K split sums partials), and no more cores than the target has.
CoreSplit pinnedSplit(const Program& p, const Op& op, const std::string& pinName,
                      const std::map<std::string, int>& pin, const SpyreTarget& t)
{
    auto refuse = [&](const std::string& why) {
        Diagnostic d;
        d.location.file = p.sourcePath;
        for (const std::string& o : op.origins)
            d.node += (d.node.empty() ? "" : ", ") + o;
        d.message = "--pin-split " + pinName + "=" + formatWays(pin) + ": " + op.name + " (" + opKindName(op.kind) +
                    "): " + why;
        return InputError(std::move(d));
    };
    auto varList = [&] {
        std::string vars;
        for (int v = 0; v < op.numVars(); ++v)
            vars += (vars.empty() ? "" : ", ") + op.varName(v) + " (" + std::to_string(varUnits(p, op, v)) +
                    (v == op.stickVar() ? " sticks)" : ")");
        return vars;
    };
    if (pin.empty())
        throw refuse("no vars given");
    CoreSplit s;
    s.ways.assign(op.numVars(), 1);
    const int nIter = static_cast<int>(op.ranges.size());
    for (const auto& [var, w] : pin) {
        int v = -1;
        for (int i = 0; i < op.numVars(); ++i)
            if (op.varName(i) == var)
                v = i;
        if (v < 0)
            throw refuse("no var '" + var + "'; its vars are " + varList());
        if (w < 1)
            throw refuse(var + " split " + std::to_string(w) + " ways: ways must be at least 1");
        const int64_t units = varUnits(p, op, v);
        if (units % w != 0)
            throw refuse(var + " has " + std::to_string(units) + (v == op.stickVar() ? " sticks" : " elements") +
                         " per tile, which " + std::to_string(w) + " does not divide");
        if (v >= nIter && w > 1 && op.kind != OpKind::Reduction && op.kind != OpKind::MatMul)
            throw refuse(var + " is a reduction var; only Reduction and MatMul ops may split one over cores");
        s.ways[v] = w;
    }
    int64_t cores = 1;
    for (int w : s.ways)
        cores *= w;
    if (cores > t.cores)
        throw refuse("needs " + std::to_string(cores) + " cores; the target has " + std::to_string(t.cores));
    s.cores = static_cast<int>(cores);
    s.why = "pinned by the user";
    return s;
}

}  // namespace

const std::pair<const std::string, std::map<std::string, int>>* splitPinOf(const Op& op, const CompileOptions& o)
{
    auto it = o.splitPins.find(op.name);
    // A pin may name an op that fuse merged into this one (picked at an earlier pass): the name is its identity.
    for (size_t f = 0; it == o.splitPins.end() && f < op.fusedFrom.size(); ++f)
        it = o.splitPins.find(op.fusedFrom[f]);
    // Origins read "MatMul 'layer0/mm'": the node's name is the quoted part. A restickify's origin quotes a tensor,
    // not a node, so it is pinned by op name only.
    if (it == o.splitPins.end() && op.kind != OpKind::Restickify)
        for (it = o.splitPins.begin(); it != o.splitPins.end(); ++it)
            if (std::any_of(op.origins.begin(), op.origins.end(), [&](const std::string& origin) {
                    return origin == it->first || origin.find("'" + it->first + "'") != std::string::npos;
                }))
                break;
    return it == o.splitPins.end() ? nullptr : &*it;
}

// Rounds of matmul ranking at most; in the examples and models tried the splits settle by the second.
constexpr int kMatmulRounds = 4;

PassResult WorkDivisionPass::run(Program& program, PassContext& ctx)
{
    if (program.stage != Stage::Loop)
        return {false, "nothing to do: not lowered"};
    const SpyreTarget& t = ctx.target;
    int maxCores = 0, modelled = 0, differs = 0, pinned = 0;
    std::map<std::string, int> pinUses;
    SplitCache splitCache;
    std::vector<const std::pair<const std::string, std::map<std::string, int>>*> pinOf;
    for (const Op& op : program.ops)
        pinOf.push_back(splitPinOf(op, ctx.options));
    for (const auto* pin : pinOf)
        if (pin)
            ++pinUses[pin->first];
    for (const auto& [name, ways] : ctx.options.splitPins) {
        const int uses = pinUses.count(name) ? pinUses.at(name) : 0;
        if (uses == 0)
            throw InputError(SourceLocation{program.sourcePath, 0, 0},
                             "--pin-split " + name + ": no op of that name (or computing that ONNX node) in the program");
        // One ONNX node can decompose into several ops with different vars; a pin names one split, so one op.
        if (uses > 1)
            throw InputError(SourceLocation{program.sourcePath, 0, 0},
                             "--pin-split " + name + ": " + std::to_string(uses) +
                                 " ops compute that node; pin one of them by its op name");
    }
    for (Op& op : program.ops)
        op.split = CoreSplit{};   // undecided: what the LX neighbourhood of a matmul must not match against
    auto divide = [&](size_t i, bool firstRound) {
        Op& op = program.ops[i];
        CoreSplit s;
        if (const auto* pin = pinOf[i]) {
            s = pinnedSplit(program, op, pin->first, pin->second, t);
            if (op.kind == OpKind::MatMul) {
                const LxNeighbourhood lx(program, op, t, ctx.options.scratchpad != ScratchpadPolicy::None);
                s.estimatedUs = matmulSplitCostUs(program, op, s.ways, t, &lx);
            } else {
                s.estimatedUs = memoryEstimateUs(program, op, t);
            }
            ++pinned;
        } else {
            s = chooseSplit(program, op, ctx, firstRound, modelled, differs, splitCache);
        }
        // Coarse tiling has already cut every tile as far as it could; if a core's slice is still beyond the span, the
        // kernel would address past what a core can reach (EAR overflow: wrong results on the real chip).
        if (splitExceedsSpan(program, op, s.ways, t)) {
            Diagnostic d;
            d.location.file = program.sourcePath;
            for (const std::string& o : op.origins)
                d.node += (d.node.empty() ? "" : ", ") + o;
            d.message = op.name + ": one core's slice spans more than the " + std::to_string(t.spanBytes >> 20) +
                        " MiB of device memory a core can address in one kernel, even tiled and split over " +
                        std::to_string(s.cores) + (s.cores == 1 ? " core" : " cores") +
                        (pinOf[i] ? " (the split pinned by --pin-split " + pinOf[i]->first + ")" : "");
            throw InputError(std::move(d));
        }
        op.split = s;
        maxCores = std::max(maxCores, s.cores);
    };
    // Ops whose split depends on nothing else first (pinned ops and every op but a matmul: torch-spyre's default
    // division), then the matmuls in program order, each ranked with the LX residency its split allows among the
    // ops decided so far. A matmul ranked before a later matmul that shares an intermediate with it could not see
    // how that one slices it: later rounds re-rank every matmul against all the others' splits until none changes.
    auto ranked = [&](size_t i) { return program.ops[i].kind == OpKind::MatMul && !pinOf[i]; };
    for (size_t i = 0; i < program.ops.size(); ++i)
        if (!ranked(i))
            divide(i, true);
    for (int round = 0; round < kMatmulRounds; ++round) {
        bool changed = false;
        modelled = differs = 0;
        for (size_t i = 0; i < program.ops.size(); ++i)
            if (ranked(i)) {
                const std::vector<int> before = program.ops[i].split.ways;
                divide(i, round == 0);
                changed = changed || program.ops[i].split.ways != before;
            }
        if (!changed)
            break;
    }
    PassResult r;
    r.changed = !program.ops.empty();
    r.summary = "divided " + std::to_string(program.ops.size()) + " ops over up to " + std::to_string(maxCores) + " of " +
                std::to_string(t.cores) + " cores";
    if (ctx.options.baseline)
        r.summary += " (baseline: torch-spyre default division)";
    else
        r.summary += "; cost model changed " + std::to_string(differs) + " of " + std::to_string(modelled) + " matmul splits";
    if (pinned)
        r.summary += "; " + std::to_string(pinned) + " pinned";
    return r;
}

}  // namespace spyglass::spyre
