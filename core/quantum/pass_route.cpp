// route: makes every two-qubit gate act on neighbouring physical qubits of a coupling map by inserting
// SWAPs along a shortest path (starting from the trivial layout). The circuit afterwards acts on physical
// wires; Circuit::finalLayout records where each logical qubit ends up.
#include "core/quantum/pass.h"

#include "core/quantum/coupling.h"

#include <numeric>

namespace spyglass::quantum {

namespace {

const char* couplingName(Coupling c)
{
    switch (c) {
    case Coupling::Linear: return "linear";
    case Coupling::Grid: return "grid";
    case Coupling::HeavyHex: return "heavyhex";
    case Coupling::None: break;
    }
    return "none";
}

class Route : public Pass {
public:
    explicit Route(Coupling c) : coupling_(c) {}
    std::string name() const override { return "route"; }
    std::string description() const override
    {
        return std::string("insert SWAPs so two-qubit gates act on neighbours of the ") + couplingName(coupling_) + " coupling map";
    }
    PassResult run(Circuit& c, PassContext&) override
    {
        PassResult r;
        if (coupling_ == Coupling::None || c.numQubits == 0) {
            r.summary = "no coupling map; nothing to route";
            return r;
        }
        if (c.numQubits > 4096)
            throw InputError(SourceLocation{c.name, 0, 0}, "route: " + std::to_string(c.numQubits) +
                                                              " qubits is more than the 4096 a coupling map is built for");
        const CouplingMap map = makeCouplingMap(couplingName(coupling_), c.numQubits);
        std::vector<int> l2p(static_cast<size_t>(c.numQubits)), p2l(static_cast<size_t>(c.numQubits));
        if (c.finalLayout.size() == l2p.size())
            l2p = c.finalLayout;
        else
            std::iota(l2p.begin(), l2p.end(), 0);
        for (int l = 0; l < c.numQubits; ++l)
            p2l[l2p[l]] = l;
        std::vector<Op> out;
        out.reserve(c.ops.size());
        int swaps = 0;
        for (const Op& op : c.ops) {
            if (op.kind == OpKind::Gate && op.qubits.size() > 2)
                throw InputError(SourceLocation{c.name, op.line, 0},
                                 "route: gate '" + op.name + "' acts on " + std::to_string(op.qubits.size()) +
                                     " qubits; decompose to one- and two-qubit gates first");
            if (op.kind == OpKind::Gate && op.qubits.size() == 2) {
                int pa = l2p[op.qubits[0]];
                const int pb = l2p[op.qubits[1]];
                while (map.dist[pa][pb] > 1) {
                    int step = -1;
                    for (int w : map.adj[pa])
                        if (map.dist[w][pb] == map.dist[pa][pb] - 1) {
                            step = w;
                            break;
                        }
                    Op sw;
                    sw.name = "swap";
                    sw.qubits = {pa, step};
                    sw.line = op.line;
                    out.push_back(sw);
                    ++swaps;
                    const int la = p2l[pa], lb = p2l[step];
                    std::swap(p2l[pa], p2l[step]);
                    l2p[la] = step;
                    l2p[lb] = pa;
                    pa = step;
                }
            }
            Op mapped = op;
            for (int& q : mapped.qubits)
                q = l2p[q];
            out.push_back(std::move(mapped));
        }
        c.ops = std::move(out);
        c.finalLayout = l2p;
        r.changed = swaps > 0;
        r.summary = "inserted " + std::to_string(swaps) + " SWAP" + (swaps == 1 ? "" : "s") + " for a " + couplingName(coupling_) + " map of " +
                    std::to_string(map.size) + " qubits (" + std::to_string(map.edges()) + " couplers)";
        return r;
    }

private:
    Coupling coupling_;
};

}  // namespace

std::unique_ptr<Pass> makeRoutePass(Coupling c) { return std::make_unique<Route>(c); }

}  // namespace spyglass::quantum
