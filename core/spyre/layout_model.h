#pragma once
// The global stick-layout problem of optimize_layouts, in torch-spyre's cost-node terms:
// one variable per op (which candidate layout) and per source buffer (graph input or constant: which stick dim,
// free because the host writes it in any layout), one edge per (consumer op, buffer) costing 0 when the layouts
// are stick-compatible and the padded device element count of the tensor when a restickify is needed.

#include "core/spyre/loop_ir.h"

#include <map>
#include <string>
#include <vector>

namespace spyglass::spyre {

struct LayoutProblem {
    struct Var {
        std::string label;
        int op = -1;       // op index, or -1
        int buffer = -1;   // the buffer whose stick dim this var decides (op output or source buffer)
        std::vector<int> candidate;   // per choice: op candidate index (ops) or -1 (sources)
        std::vector<int> outDim;      // per choice: stick dim of `buffer`
    };
    struct Edge {
        int consumer = -1;   // var index (an op)
        int producer = -1;   // var index (op or source), always earlier than consumer
        int buffer = -1;
        std::vector<int64_t> cost;   // [consumerChoice * producerChoices + producerChoice]
    };
    std::vector<Var> vars;   // in topological order
    std::vector<Edge> edges;
    std::vector<int> varOfOp;
    std::vector<int> varOfBuffer;
    int pins = 0;

    int64_t edgeCost(const Edge& e, int kc, int kp) const
    {
        return e.cost[static_cast<size_t>(kc) * vars[e.producer].outDim.size() + kp];
    }
};

struct LayoutSolution {
    std::vector<int> choice;   // per var
    int64_t cost = 0;
    int64_t lowerBound = 0;
    bool provenOptimal = false;
    int64_t states = 0;
    std::string method;
};

// Throws InputError when a pin names no tensor or a dim its producer cannot produce.
LayoutProblem buildLayoutProblem(const Program& p, const std::map<std::string, int>& pins);
int64_t layoutCost(const LayoutProblem& problem, const std::vector<int>& choice);
// Exact when no state had to be pruned (states with the same choices on the live frontier are merged, keeping
// the cheaper); otherwise a beam of `beamWidth` ranked by cost so far plus a per-edge lower bound of the rest.
// With a `boundingBeamWidth` below `beamWidth`, a beam that narrow runs first and the wide search drops every state
// whose lower bound exceeds its cost (branch and bound): the same optimum, far fewer states.
LayoutSolution solveLayout(const LayoutProblem& problem, int beamWidth, int boundingBeamWidth = 0);
// Every assignment, for tests on small graphs.
LayoutSolution bruteForceLayout(const LayoutProblem& problem);
// Padded device elements of `b` re-sticked on `dim`: what one restickify of it moves.
int64_t restickifyElements(const Program& p, const Buffer& b, int dim);

}  // namespace spyglass::spyre
