#include "core/spyre/layout_model.h"

#include "core/common/diagnostics.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace spyglass::spyre {

int64_t restickifyElements(const Program& p, const Buffer& b, int dim)
{
    return deviceLayout(b.shape, b.strides, dim, DeviceOrder::Default, p.stickElements, p.deviceDtype).deviceElements();
}

namespace {

// A pin from the options (--pin, the GUI's what-if), or one an earlier pass wrote into the IR (Buffer::pinned with
// its stickDim: how a plugin pass pins layouts).
int pinFor(const Buffer& b, const std::map<std::string, int>& pins, std::vector<bool>& used, const std::vector<std::string>& names)
{
    for (size_t i = 0; i < names.size(); ++i)
        if (names[i] == b.name || (!b.origin.empty() && names[i] == b.origin)) {
            used[i] = true;
            return pins.at(names[i]);
        }
    if (b.pinned && b.stickDim >= 0)
        return b.stickDim;
    return -1;
}

}  // namespace

LayoutProblem buildLayoutProblem(const Program& p, const std::map<std::string, int>& pins)
{
    LayoutProblem lp;
    lp.varOfOp.assign(p.ops.size(), -1);
    lp.varOfBuffer.assign(p.buffers.size(), -1);
    std::vector<std::string> pinNames;
    for (const auto& [name, dim] : pins)
        pinNames.push_back(name);
    std::vector<bool> pinUsed(pinNames.size(), false);

    auto pinError = [&](const Buffer& b, int dim, const std::string& why) {
        return InputError(SourceLocation{p.sourcePath, 0, 0},
                          "--pin " + (b.origin.empty() ? b.name : b.origin) + "=" + std::to_string(dim) + ": " + why);
    };
    auto addSource = [&](int b) {
        const Buffer& buf = p.buffers[b];
        LayoutProblem::Var v;
        v.label = buf.name;
        v.buffer = b;
        const int pin = pinFor(buf, pins, pinUsed, pinNames);
        if (pin >= 0) {
            if (pin >= static_cast<int>(buf.shape.size()))
                throw pinError(buf, pin, "tensor has rank " + std::to_string(buf.shape.size()));
            v.outDim = {pin};
            ++lp.pins;
        } else {
            for (int d = static_cast<int>(buf.shape.size()) - 1; d >= 0; --d)
                if (buf.shape[d] > 1)
                    v.outDim.push_back(d);
            if (v.outDim.empty())
                v.outDim.push_back(buf.shape.empty() ? -1 : static_cast<int>(buf.shape.size()) - 1);
        }
        v.candidate.assign(v.outDim.size(), -1);
        lp.varOfBuffer[b] = static_cast<int>(lp.vars.size());
        lp.vars.push_back(std::move(v));
    };

    for (size_t o = 0; o < p.ops.size(); ++o) {
        const Op& op = p.ops[o];
        for (const Access& a : op.loads)
            if (lp.varOfBuffer[a.buffer] < 0 && p.buffers[a.buffer].producer < 0)
                addSource(a.buffer);
        LayoutProblem::Var v;
        v.label = op.name;
        v.op = static_cast<int>(o);
        v.buffer = op.store.buffer;
        const Buffer& out = p.buffers[op.store.buffer];
        const int pin = pinFor(out, pins, pinUsed, pinNames);
        std::vector<int> possible;
        for (size_t c = 0; c < op.candidates.size(); ++c) {
            possible.push_back(op.candidates[c].outputStickDim);
            if (pin >= 0 && op.candidates[c].outputStickDim != pin)
                continue;
            v.candidate.push_back(static_cast<int>(c));
            v.outDim.push_back(op.candidates[c].outputStickDim);
        }
        if (pin >= 0) {
            ++lp.pins;
            if (v.candidate.empty()) {
                std::string dims;
                for (int d : possible)
                    dims += (dims.empty() ? "" : ", ") + std::to_string(d);
                throw pinError(out, pin, op.name + " (" + opKindName(op.kind) + ") can only produce stick dim(s) {" +
                                             dims + "}");
            }
        }
        if (v.candidate.empty())
            throw InputError(SourceLocation{p.sourcePath, 0, 0}, op.name + " has no candidate layout (run propagate_layouts)");
        lp.varOfOp[o] = static_cast<int>(lp.vars.size());
        lp.varOfBuffer[op.store.buffer] = static_cast<int>(lp.vars.size());
        lp.vars.push_back(std::move(v));

        // One edge per distinct buffer this op loads.
        const int cv = lp.varOfOp[o];
        std::vector<int> seen;
        for (const Access& a : op.loads) {
            if (std::find(seen.begin(), seen.end(), a.buffer) != seen.end())
                continue;
            seen.push_back(a.buffer);
            LayoutProblem::Edge e;
            e.consumer = cv;
            e.producer = lp.varOfBuffer[a.buffer];
            e.buffer = a.buffer;
            const auto& cvar = lp.vars[cv];
            const auto& pvar = lp.vars[e.producer];
            e.cost.assign(cvar.candidate.size() * pvar.outDim.size(), 0);
            for (size_t kc = 0; kc < cvar.candidate.size(); ++kc) {
                const LayoutCandidate& cand = op.candidates[cvar.candidate[kc]];
                std::vector<int> needs;
                for (size_t i = 0; i < op.loads.size(); ++i)
                    if (op.loads[i].buffer == a.buffer && cand.loadStickDims[i] >= 0 &&
                        std::find(needs.begin(), needs.end(), cand.loadStickDims[i]) == needs.end())
                        needs.push_back(cand.loadStickDims[i]);
                for (size_t kp = 0; kp < pvar.outDim.size(); ++kp) {
                    int64_t c = 0;
                    for (int need : needs)
                        if (need != pvar.outDim[kp])
                            c += restickifyElements(p, p.buffers[a.buffer], need);
                    e.cost[kc * pvar.outDim.size() + kp] = c;
                }
            }
            lp.edges.push_back(std::move(e));
        }
    }
    for (size_t i = 0; i < pinNames.size(); ++i)
        if (!pinUsed[i])
            throw InputError(SourceLocation{p.sourcePath, 0, 0},
                             "--pin " + pinNames[i] +
                                 ": no tensor of that name in the compiled program (views such as Reshape outputs "
                                 "have no buffer of their own; name the tensor they view)");
    return lp;
}

int64_t layoutCost(const LayoutProblem& lp, const std::vector<int>& choice)
{
    int64_t c = 0;
    for (const auto& e : lp.edges)
        c += lp.edgeCost(e, choice[e.consumer], choice[e.producer]);
    return c;
}

LayoutSolution bruteForceLayout(const LayoutProblem& lp)
{
    LayoutSolution best;
    best.method = "brute force";
    best.cost = std::numeric_limits<int64_t>::max();
    std::vector<int> choice(lp.vars.size(), 0);
    while (true) {
        ++best.states;
        const int64_t c = layoutCost(lp, choice);
        if (c < best.cost) {
            best.cost = c;
            best.choice = choice;
        }
        size_t v = 0;
        while (v < choice.size() && ++choice[v] == static_cast<int>(lp.vars[v].outDim.size()))
            choice[v++] = 0;
        if (v == choice.size())
            break;
    }
    best.lowerBound = best.cost;
    best.provenOptimal = true;
    return best;
}

namespace {

// The frontier DP. States whose cost so far plus lower bound of the rest exceeds `pruneAbove` are dropped: no
// completion of theirs can cost `pruneAbove` or less. Returns an empty choice when every state was dropped.
LayoutSolution frontierSearch(const LayoutProblem& lp, int beamWidth, int64_t pruneAbove)
{
    const int n = static_cast<int>(lp.vars.size());
    LayoutSolution sol;
    if (n == 0) {
        sol.method = "exact (empty)";
        sol.provenOptimal = true;
        return sol;
    }
    std::vector<int> lastPartner(n);
    for (int v = 0; v < n; ++v)
        lastPartner[v] = v;
    std::vector<std::vector<int>> inEdges(n), outEdges(n);
    std::vector<int64_t> staticMin(lp.edges.size());
    std::vector<std::vector<int64_t>> minGivenProducer(lp.edges.size());
    for (size_t ei = 0; ei < lp.edges.size(); ++ei) {
        const auto& e = lp.edges[ei];
        lastPartner[e.producer] = std::max(lastPartner[e.producer], e.consumer);
        inEdges[e.consumer].push_back(static_cast<int>(ei));
        outEdges[e.producer].push_back(static_cast<int>(ei));
        const size_t np = lp.vars[e.producer].outDim.size(), nc = lp.vars[e.consumer].outDim.size();
        minGivenProducer[ei].assign(np, std::numeric_limits<int64_t>::max());
        for (size_t kc = 0; kc < nc; ++kc)
            for (size_t kp = 0; kp < np; ++kp)
                minGivenProducer[ei][kp] = std::min(minGivenProducer[ei][kp], e.cost[kc * np + kp]);
        staticMin[ei] = *std::min_element(minGivenProducer[ei].begin(), minGivenProducer[ei].end());
    }
    // Sum of static minima of edges whose producer is after step k (both ends still open).
    std::vector<int64_t> staticAfter(n + 1, 0);
    for (size_t ei = 0; ei < lp.edges.size(); ++ei)
        staticAfter[lp.edges[ei].producer] += staticMin[ei];
    for (int k = n - 1; k >= 0; --k)
        staticAfter[k] += staticAfter[k + 1];
    // staticAfter[k] now = edges with producer >= k; we need producer > k: use staticAfter[k + 1].

    struct State {
        std::vector<uint8_t> frontierChoice;
        int64_t g = 0;
        int64_t h = 0;
        int parent = -1;
        int choice = 0;
    };
    std::vector<std::vector<std::pair<int, int>>> trail(n);   // per step: (parent, choice) of each kept state
    std::vector<int> frontier;
    std::vector<State> states(1);
    std::vector<int> posInFrontier(n, -1);
    int64_t prunedBound = std::numeric_limits<int64_t>::max();
    bool pruned = false;
    for (int k = 0; k < n; ++k) {
        for (size_t i = 0; i < frontier.size(); ++i)
            posInFrontier[frontier[i]] = static_cast<int>(i);
        std::vector<int> next;
        for (int v : frontier)
            if (lastPartner[v] > k)
                next.push_back(v);
        if (lastPartner[k] > k)
            next.push_back(k);
        const int domain = static_cast<int>(lp.vars[k].outDim.size());
        std::unordered_map<std::string, int> index;
        std::vector<State> children;
        children.reserve(states.size() * domain);
        for (size_t si = 0; si < states.size(); ++si) {
            const State& s = states[si];
            for (int c = 0; c < domain; ++c) {
                int64_t g = s.g;
                for (int ei : inEdges[k]) {
                    const auto& e = lp.edges[ei];
                    g += lp.edgeCost(e, c, s.frontierChoice[posInFrontier[e.producer]]);
                }
                std::string key(next.size(), '\0');
                for (size_t i = 0; i < next.size(); ++i)
                    key[i] = static_cast<char>(next[i] == k ? c : s.frontierChoice[posInFrontier[next[i]]]);
                auto it = index.find(key);
                if (it != index.end()) {
                    State& old = children[it->second];
                    if (g < old.g) {
                        old.g = g;
                        old.parent = static_cast<int>(si);
                        old.choice = c;
                    }
                    continue;
                }
                State child;
                child.frontierChoice.assign(key.begin(), key.end());
                child.g = g;
                child.parent = static_cast<int>(si);
                child.choice = c;
                index.emplace(std::move(key), static_cast<int>(children.size()));
                children.push_back(std::move(child));
            }
        }
        sol.states += static_cast<int64_t>(children.size());
        // Lower bound of what is left, given the frontier choices.
        for (State& ch : children) {
            int64_t h = 0;
            for (size_t i = 0; i < next.size(); ++i)
                for (int ei : outEdges[next[i]])
                    if (lp.edges[ei].consumer > k)
                        h += minGivenProducer[ei][ch.frontierChoice[i]];
            ch.h = h + staticAfter[k + 1];
        }
        if (pruneAbove != std::numeric_limits<int64_t>::max())
            children.erase(std::remove_if(children.begin(), children.end(),
                                          [&](const State& ch) { return ch.g + ch.h > pruneAbove; }),
                           children.end());
        if (static_cast<int>(children.size()) > beamWidth) {
            std::vector<int> order(children.size());
            for (size_t i = 0; i < order.size(); ++i)
                order[i] = static_cast<int>(i);
            std::nth_element(order.begin(), order.begin() + beamWidth, order.end(), [&](int a, int b) {
                const int64_t fa = children[a].g + children[a].h, fb = children[b].g + children[b].h;
                return fa != fb ? fa < fb : a < b;
            });
            for (size_t i = beamWidth; i < order.size(); ++i)
                prunedBound = std::min(prunedBound, children[order[i]].g + children[order[i]].h);
            std::vector<State> kept;
            kept.reserve(beamWidth);
            for (int i = 0; i < beamWidth; ++i)
                kept.push_back(std::move(children[order[i]]));
            children = std::move(kept);
            pruned = true;
        }
        trail[k].reserve(children.size());
        for (const State& ch : children)
            trail[k].emplace_back(ch.parent, ch.choice);
        for (int v : frontier)
            posInFrontier[v] = -1;
        frontier = std::move(next);
        states = std::move(children);
        if (states.empty())
            break;
    }
    sol.method = pruned ? "beam search (width " + std::to_string(beamWidth) + ") over frontier states"
                        : "exact dynamic programme over frontier states";
    if (states.empty()) {   // every state's lower bound exceeded pruneAbove
        sol.provenOptimal = !pruned;
        sol.lowerBound = prunedBound;
        return sol;
    }
    int best = 0;
    for (size_t i = 1; i < states.size(); ++i)
        if (states[i].g < states[best].g)
            best = static_cast<int>(i);
    sol.cost = states[best].g;
    sol.choice.assign(n, 0);
    for (int k = n - 1, s = best; k >= 0; --k) {
        sol.choice[k] = trail[k][s].second;
        s = trail[k][s].first;
    }
    sol.provenOptimal = !pruned || prunedBound >= sol.cost;
    sol.lowerBound = pruned ? std::min(sol.cost, prunedBound) : sol.cost;
    return sol;
}

}  // namespace

LayoutSolution solveLayout(const LayoutProblem& lp, int beamWidth, int boundingBeamWidth)
{
    const auto noBound = std::numeric_limits<int64_t>::max();
    if (boundingBeamWidth <= 0 || boundingBeamWidth >= beamWidth)
        return frontierSearch(lp, beamWidth, noBound);
    // Branch and bound: a narrow beam's cost is one no optimum exceeds, and the wide search drops every state whose
    // lower bound is above it. A beam whose pruned states were all bounded at or above its cost is the answer.
    LayoutSolution incumbent = frontierSearch(lp, boundingBeamWidth, noBound);
    if (incumbent.provenOptimal)
        return incumbent;
    LayoutSolution bounded = frontierSearch(lp, beamWidth, incumbent.cost);
    const std::string how = ", bounded by a width-" + std::to_string(boundingBeamWidth) + " beam's cost";
    bounded.states += incumbent.states;
    if (bounded.choice.empty() || bounded.cost > incumbent.cost) {
        // The wide search found nothing cheaper (it can lose the incumbent's own path only when it pruned for width).
        incumbent.states = bounded.states;
        incumbent.lowerBound = std::min(incumbent.cost, bounded.lowerBound);
        incumbent.provenOptimal = incumbent.lowerBound >= incumbent.cost;
        incumbent.method = bounded.method + how;
        return incumbent;
    }
    bounded.method += how;
    return bounded;
}

}  // namespace spyglass::spyre
