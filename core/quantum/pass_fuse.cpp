// fuse: groups consecutive gates into blocks acting on at most k qubits and multiplies each block into one
// matrix, so the simulator makes one pass over the state per block instead of one per gate.
// Greedy: open blocks are kept on disjoint qubit sets; a gate joins the blocks it touches when the union
// stays within k qubits, otherwise those blocks are closed (emitted) and the gate opens a new one.
#include "core/quantum/pass.h"

#include "core/quantum/gates.h"

#include <algorithm>

namespace spyglass::quantum {

namespace {

struct Block {
    std::vector<int> qubits;
    std::vector<Op> gates;
};

class Fuse : public Pass {
public:
    explicit Fuse(int k) : k_(std::clamp(k, 1, 6)) {}
    std::string name() const override { return "fuse"; }
    std::string description() const override
    {
        return "fuse gates into blocks of at most " + std::to_string(k_) + " qubits for the simulator";
    }
    PassResult run(Circuit& c) override
    {
        std::vector<Op> out;
        std::vector<Block> open;
        blocks_ = 0;
        fusedGates_ = 0;
        const int before = c.gateCount();
        auto closeIf = [&](auto pred) {
            for (size_t b = 0; b < open.size();) {
                if (pred(open[b])) {
                    emit(open[b], out);
                    open.erase(open.begin() + static_cast<long>(b));
                } else {
                    ++b;
                }
            }
        };
        auto touches = [](const Block& b, const std::vector<int>& qs) {
            for (int q : qs)
                if (std::find(b.qubits.begin(), b.qubits.end(), q) != b.qubits.end())
                    return true;
            return false;
        };
        for (Op& op : c.ops) {
            const bool fusable = op.kind == OpKind::Gate && !op.cond.active() && c.isPrimitive(op) &&
                                 static_cast<int>(op.qubits.size()) <= k_;
            if (!fusable) {
                // Measurements, resets, conditioned or opaque gates: close everything they touch (all blocks for
                // conditioned ops, whose trigger depends on earlier measurements).
                if (op.cond.active())
                    closeIf([](const Block&) { return true; });
                else
                    closeIf([&](const Block& b) { return touches(b, op.qubits); });
                out.push_back(std::move(op));
                continue;
            }
            std::vector<int> uni = op.qubits;
            std::vector<size_t> hit;
            for (size_t b = 0; b < open.size(); ++b)
                if (touches(open[b], op.qubits)) {
                    hit.push_back(b);
                    for (int q : open[b].qubits)
                        if (std::find(uni.begin(), uni.end(), q) == uni.end())
                            uni.push_back(q);
                }
            if (hit.empty()) {
                // A gate on fresh qubits joins the fullest open block it fits in (open blocks are disjoint, so
                // it commutes with all of them); a layer of one-qubit gates then fuses too.
                size_t bestBlock = open.size();
                for (size_t b = 0; b < open.size(); ++b)
                    if (static_cast<int>(open[b].qubits.size() + op.qubits.size()) <= k_ &&
                        (bestBlock == open.size() || open[b].qubits.size() > open[bestBlock].qubits.size()))
                        bestBlock = b;
                if (bestBlock != open.size()) {
                    for (int q : op.qubits)
                        open[bestBlock].qubits.push_back(q);
                    open[bestBlock].gates.push_back(std::move(op));
                    continue;
                }
            }
            if (static_cast<int>(uni.size()) <= k_) {
                Block merged;
                merged.qubits = uni;
                for (size_t b : hit)
                    for (Op& g : open[b].gates)
                        merged.gates.push_back(std::move(g));
                merged.gates.push_back(std::move(op));
                for (size_t i = hit.size(); i-- > 0;)
                    open.erase(open.begin() + static_cast<long>(hit[i]));
                open.push_back(std::move(merged));
            } else {
                for (size_t i = hit.size(); i-- > 0;) {
                    emit(open[hit[i]], out);
                    open.erase(open.begin() + static_cast<long>(hit[i]));
                }
                Block nb;
                nb.qubits = op.qubits;
                nb.gates.push_back(std::move(op));
                open.push_back(std::move(nb));
            }
        }
        for (Block& b : open)
            emit(b, out);
        c.ops = std::move(out);
        PassResult r;
        r.changed = blocks_ > 0;
        r.summary = "fused " + std::to_string(fusedGates_) + " of " + std::to_string(before) + " gates into " + std::to_string(blocks_) +
                    " block(s) of <= " + std::to_string(k_) + " qubits; " + std::to_string(c.gateCount()) + " gate ops remain";
        return r;
    }

private:
    void emit(Block& b, std::vector<Op>& out)
    {
        if (b.gates.size() == 1) {
            out.push_back(std::move(b.gates[0]));
            return;
        }
        std::vector<int> qs = b.qubits;
        std::sort(qs.begin(), qs.end());
        const int dim = 1 << qs.size();
        std::vector<cplx> m(static_cast<size_t>(dim) * dim);
        for (int i = 0; i < dim; ++i)
            m[static_cast<size_t>(i) * dim + i] = 1;
        for (const Op& g : b.gates)
            m = matMul(embedMatrix(opMatrix(g), g.qubits, qs), m, dim);
        auto fb = std::make_shared<FusedBlock>();
        fb->gateCount = static_cast<int>(b.gates.size());
        // Exact zeros off the diagonal keep a diagonal block on the cheap diagonal kernel.
        fb->diagonal = isDiagonal(m, dim, 1e-14);
        if (fb->diagonal)
            for (int r = 0; r < dim; ++r)
                for (int c = 0; c < dim; ++c)
                    if (r != c)
                        m[static_cast<size_t>(r) * dim + c] = 0;
        fb->matrix = std::move(m);
        Op f;
        f.name = "fused";
        f.qubits = qs;
        f.fused = std::move(fb);
        f.line = b.gates.front().line;
        out.push_back(std::move(f));
        ++blocks_;
        fusedGates_ += static_cast<int>(b.gates.size());
    }

    int k_;
    int blocks_ = 0, fusedGates_ = 0;
};

}  // namespace

std::unique_ptr<Pass> makeFusePass(int maxQubits) { return std::make_unique<Fuse>(maxQubits); }

}  // namespace spyglass::quantum
