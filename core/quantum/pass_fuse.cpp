// fuse: groups gates into blocks acting on at most k qubits, each multiplied into one matrix, so the simulator
// applies one kernel per block instead of one per gate. Merging is not free: a dense k-qubit block costs 2^k
// multiply-adds per amplitude, while the simulator's cache blocking already spares most memory passes. So the
// pass builds several fusions and keeps whichever of them, or the circuit as it came, is estimated to run fastest
// (estimatedCost: the kernels' relativeCost plus the memory passes StateVector::countPasses plans):
// - cost-aware: a gate joins a block only when the merged block is estimated to run no slower than its parts
//   applied one by one (kernels::relativeCost of the prepared kernels): runs of diagonal gates (phases, cz, rzz,
//   the controlled phases of a QFT) and gates on the same qubits merge; a Hadamard absorbs a phase on another
//   qubit only where the block has a target inside a vector (it then runs as a dense block, no slower than the
//   two), and one-qubit gates on different qubits pair up but do not grow into large tensor products;
// - wide, as qsim's multi-qubit fuser does: gates on different qubits grow a block up to a size whatever the
//   kernel costs, which pays where a block of a few qubits runs no slower than the gates it holds (the lane-flip
//   kernels run a 2-qubit block as fast as one one-qubit gate), and where blocks save passes over the state that
//   the cache blocking cannot (gates that fit no cache block each cost a pass). Built once within the cache blocks
//   for every size from 2 to k, and once across them at k.
// A non-diagonal block (but in the wide fusion across them) stays within one of the simulator's cache blocks
// (StateVector::fitsCacheBlocks): a block across them would cost a pass over the whole state of its own.
// Greedy: open blocks are kept on disjoint qubit sets; a gate that does not merge closes (emits) the blocks it
// touches and opens a new one.
#include "core/quantum/pass.h"

#include "core/quantum/gates.h"
#include "core/quantum/kernels.h"
#include "core/quantum/simulator.h"
#include "core/quantum/statevector.h"

#include <algorithm>
#include <cstdio>

namespace spyglass::quantum {

namespace {

// One pass over a state too large for the cache, per amplitude in relativeCost's units (single-thread ns): an
// in-place read-modify-write of 32 bytes (complex128) at the 88-107 GB/s BENCHMARKS.md measured for two threads
// on the quiet machine (0.3 ns of wall time per amplitude, 0.6 thread-ns), plus as much again for a tile's copy
// into and out of its buffer.
constexpr double kPassCost = 1.2;

// %.3g of x, for the pass summary.
std::string shortNumber(double x)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", x);
    return text;
}

struct Block {
    std::vector<int> qubits;     // matrix index bit j = qubits[j]
    std::vector<cplx> matrix;    // product of the gates so far
    std::vector<Op> gates;
    double cost = 0;             // relative cost of applying the block as one kernel (or its single gate)
    bool diagonal = false;       // merged blocks: the product is diagonal
};

class Fuse : public Pass {
    enum class Mode { CostAware, WideInCacheBlocks, Wide };

public:
    Fuse(int k, int localQubits) : k_(std::clamp(k, 1, 6)), localQubits_(localQubits) {}
    std::string name() const override { return "fuse"; }
    std::string description() const override
    {
        return "fuse gates into blocks of at most " + std::to_string(k_) + " qubits where the merged block runs faster";
    }
    PassResult run(Circuit& c, PassContext&) override
    {
        const int before = c.gateCount();
        struct Candidate {
            std::string name;
            std::vector<Op> ops;
            int blocks = 0, fusedGates = 0;
            double cost = 0;
        };
        // Every fusion weighs the gates alone: their kernels are prepared once (most of the pass's time otherwise).
        std::vector<double> gateCost(c.ops.size());
        for (size_t i = 0; i < c.ops.size(); ++i)
            if (c.ops[i].kind == OpKind::Gate && !c.ops[i].cond.active() && c.isPrimitive(c.ops[i]))
                gateCost[i] = kernels::relativeCost(prepareOp(c, c.ops[i]));
        // Only the best candidate so far is kept, so the next one is built in memory the last one freed: fresh pages
        // cost a fault each, about 25 us on the machine of BENCHMARKS.md (random_20: 250 faults and 7 ms fewer).
        Candidate best{"unfused", {}, 0, 0, estimatedCost(c, c.ops)};
        bool fused = false;
        std::string costs = " (estimated cost per amplitude: unfused " + shortNumber(best.cost);
        auto consider = [&](std::string name, Mode mode, int maxQubits) {
            blocks_ = fusedGates_ = 0;
            Candidate next{std::move(name), fuseOps(c, c.ops, gateCost, mode, maxQubits), blocks_, fusedGates_, 0};
            next.cost = estimatedCost(c, next.ops);
            costs += ", " + next.name + " " + shortNumber(next.cost);
            // Ties go to the simpler circuit (fewer merges), so fusing never costs more than not fusing.
            if (next.cost < best.cost * (1 - 1e-9)) {
                best = std::move(next);
                fused = true;
            }
        };
        // Wide fusion within the cache blocks at every block size up to k, as one would try qsim's fuser at each
        // max_fused_size (a dense block's flops double with every qubit, so the widest blocks are not always the
        // fastest), and wide fusion across them at k.
        consider("cost-aware", Mode::CostAware, k_);
        for (int k = 2; k <= k_; ++k)
            consider("wide <= " + std::to_string(k) + " in cache blocks", Mode::WideInCacheBlocks, k);
        consider("wide", Mode::Wide, k_);
        costs += ")";
        if (fused)
            c.ops = std::move(best.ops);
        PassResult r;
        r.changed = best.blocks > 0;
        if (!fused)
            r.summary = "kept " + std::to_string(before) + " gates unfused" + costs;
        else
            r.summary = best.name + ": fused " + std::to_string(best.fusedGates) + " of " + std::to_string(before) + " gates into " +
                        std::to_string(best.blocks) + " block(s) of <= " + std::to_string(k_) + " qubits; " + std::to_string(c.gateCount()) +
                        " gate ops remain" + costs;
        return r;
    }

private:
    // What the simulator would spend per amplitude on `ops`: every gate's kernel (kernels::relativeCost) and every
    // pass over the state (StateVector::countPasses) at kPassCost. Below the cache-blocking size the whole state
    // is in cache and passes cost nothing extra.
    double estimatedCost(const Circuit& c, const std::vector<Op>& ops) const
    {
        std::vector<kernels::PreparedGate> gates;
        double kernelsCost = 0;
        for (const Op& op : ops) {
            if (op.kind != OpKind::Gate || op.cond.active() || !(op.fused || c.isPrimitive(op)))
                continue;
            gates.push_back(prepareOp(c, op));
            kernelsCost += kernels::relativeCost(gates.back());
        }
        // A state small enough for every gate to fit the cache blocks is one the simulator does not block at all.
        std::vector<int> all(static_cast<size_t>(c.numQubits));
        for (int q = 0; q < c.numQubits; ++q)
            all[static_cast<size_t>(q)] = q;
        if (StateVector::fitsCacheBlocks(c.numQubits, all))
            return kernelsCost;
        return kernelsCost + StateVector::countPasses(c.numQubits, Precision::Double, gates).total() * kPassCost;
    }

    // gateCost[i]: kernels::relativeCost of ops[i] alone.
    std::vector<Op> fuseOps(const Circuit& c, std::vector<Op> ops, const std::vector<double>& gateCost, Mode mode, int maxQubits)
    {
        const bool wide = mode != Mode::CostAware;
        std::vector<Op> out;
        std::vector<Block> open;
        auto emitWhere = [&](auto pred) {
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
        for (size_t i = 0; i < ops.size(); ++i) {
            Op& op = ops[i];
            const bool fusable = op.kind == OpKind::Gate && !op.cond.active() && c.isPrimitive(op) &&
                                 static_cast<int>(op.qubits.size()) <= maxQubits;
            if (!fusable) {
                // Measurements, resets, conditioned or opaque gates: close everything they touch (all blocks for
                // conditioned ops, whose trigger depends on earlier measurements).
                if (op.cond.active())
                    emitWhere([](const Block&) { return true; });
                else
                    emitWhere([&](const Block& b) { return touches(b, op.qubits); });
                out.push_back(std::move(op));
                continue;
            }
            Block single;
            single.qubits = op.qubits;
            single.matrix = opMatrix(op);
            single.cost = gateCost[i];
            single.gates.push_back(std::move(op));

            std::vector<size_t> hit;
            for (size_t b = 0; b < open.size(); ++b)
                if (touches(open[b], single.qubits))
                    hit.push_back(b);
            if (hit.empty()) {
                // A gate on fresh qubits commutes with every open block (they are disjoint from it), so it may join
                // one: the cheapest merge that does not cost more than the two apart.
                size_t best = open.size();
                Block bestMerged;
                if (wide) {
                    // Wide fusion takes any merge that fits, so it picks the smallest block to grow without
                    // multiplying out every possible merge (the fuse pass's time is part of every run).
                    for (size_t b = 0; b < open.size(); ++b) {
                        std::vector<int> qubits = open[b].qubits;
                        qubits.insert(qubits.end(), single.qubits.begin(), single.qubits.end());
                        if (static_cast<int>(qubits.size()) <= maxQubits && (best == open.size() || open[b].qubits.size() < open[best].qubits.size()) &&
                            fitsCacheBlocks(c.numQubits, qubits, mode))
                            best = b;
                    }
                    if (best != open.size())
                        open[best] = merge({&open[best]}, single);
                    else
                        open.push_back(std::move(single));
                    continue;
                }
                for (size_t b = 0; b < open.size(); ++b) {
                    if (static_cast<int>(open[b].qubits.size() + single.qubits.size()) > maxQubits)
                        continue;
                    Block merged = merge({&open[b]}, single);
                    if (merged.cost <= open[b].cost + single.cost && fitsCacheBlocks(c.numQubits, merged, mode) &&
                        (best == open.size() || merged.cost < bestMerged.cost)) {
                        best = b;
                        bestMerged = std::move(merged);
                    }
                }
                if (best != open.size())
                    open[best] = std::move(bestMerged);
                else
                    open.push_back(std::move(single));
                continue;
            }
            std::vector<const Block*> parts;
            double apart = single.cost;
            size_t unionSize = single.qubits.size();
            for (size_t b : hit) {
                parts.push_back(&open[b]);
                apart += open[b].cost;
                for (int q : open[b].qubits)
                    unionSize += std::find(single.qubits.begin(), single.qubits.end(), q) == single.qubits.end();
            }
            if (static_cast<int>(unionSize) <= maxQubits) {
                Block merged = merge(parts, single);
                if ((wide || merged.cost <= apart) && fitsCacheBlocks(c.numQubits, merged, mode)) {
                    for (size_t i = hit.size(); i-- > 0;)
                        open.erase(open.begin() + static_cast<long>(hit[i]));
                    open.push_back(std::move(merged));
                    continue;
                }
            }
            for (size_t i = hit.size(); i-- > 0;) {
                emit(open[hit[i]], out);
                open.erase(open.begin() + static_cast<long>(hit[i]));
            }
            open.push_back(std::move(single));
        }
        for (Block& b : open)
            emit(b, out);
        return out;
    }

    // A non-diagonal block runs in one pass over one cache block, and, when the state is spread over MPI ranks,
    // only on local qubits: a block that took a global qubit in would need that qubit swapped in for the whole
    // block, where its gates alone might need no exchange (a diagonal or a control on a global qubit moves nothing).
    // Mode::Wide may cross the cache blocks (a block there costs a pass of its own, but may replace several gates
    // that each cost one); the whole-circuit estimate decides whether that pays.
    bool fitsCacheBlocks(int numQubits, const Block& b, Mode mode) const
    {
        return b.diagonal || fitsCacheBlocks(numQubits, b.qubits, mode);
    }
    bool fitsCacheBlocks(int numQubits, const std::vector<int>& qubits, Mode mode) const
    {
        return (mode == Mode::Wide || StateVector::fitsCacheBlocks(numQubits, qubits)) &&
               std::all_of(qubits.begin(), qubits.end(), [&](int q) { return q < localQubits_; });
    }

    // The blocks in `parts` (disjoint, all before `gate`) and then `gate`, as one block.
    static Block merge(const std::vector<const Block*>& parts, const Block& gate)
    {
        Block m;
        for (const Block* p : parts)
            for (int q : p->qubits)
                m.qubits.push_back(q);
        for (int q : gate.qubits)
            if (std::find(m.qubits.begin(), m.qubits.end(), q) == m.qubits.end())
                m.qubits.push_back(q);
        const int dim = 1 << m.qubits.size();
        for (size_t i = 0; i < parts.size(); ++i) {
            const std::vector<cplx> embedded = embedMatrix(parts[i]->matrix, parts[i]->qubits, m.qubits);
            m.matrix = i == 0 ? embedded : matMul(embedded, m.matrix, dim);
            for (const Op& g : parts[i]->gates)
                m.gates.push_back(g);
        }
        m.matrix = matMul(embedMatrix(gate.matrix, gate.qubits, m.qubits), m.matrix, dim);
        for (const Op& g : gate.gates)
            m.gates.push_back(g);
        const kernels::PreparedGate kernel = kernels::prepare({}, m.qubits, interleavedMatrix(m.matrix));
        m.cost = kernels::relativeCost(kernel);
        m.diagonal = kernel.diagonalMatrix;
        return m;
    }

    void emit(Block& b, std::vector<Op>& out)
    {
        if (b.gates.size() == 1) {
            out.push_back(std::move(b.gates[0]));
            return;
        }
        std::vector<int> qs = b.qubits;
        std::sort(qs.begin(), qs.end());
        const int dim = 1 << qs.size();
        // The product merge() built, its qubits reordered ascending.
        std::vector<cplx> m = embedMatrix(b.matrix, b.qubits, qs);
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
    int localQubits_;   // qubits >= this are global (distributed over MPI ranks)
    int blocks_ = 0, fusedGates_ = 0;
};

}  // namespace

std::unique_ptr<Pass> makeFusePass(int maxQubits, int localQubits) { return std::make_unique<Fuse>(maxQubits, localQubits); }

}  // namespace spyglass::quantum
