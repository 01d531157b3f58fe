// fuse: groups gates into blocks acting on at most k qubits, each multiplied into one matrix, so the simulator
// applies one kernel per block instead of one per gate. Merging is not free: a dense k-qubit block costs 2^k
// multiply-adds per amplitude, while the simulator's cache blocking already spares most memory passes. So the
// pass builds several fusions and keeps whichever of them, or the circuit as it came, is estimated to run fastest
// (estimatedCost: the kernels' relativeCost plus the memory passes StateVector::countPasses plans):
// - cost-aware: a gate joins a block only when the merged block is estimated to run no slower than its parts
//   applied one by one (kernels::relativeCost of the prepared kernels): runs of diagonal gates (phases, cz, rzz,
//   the controlled phases of a QFT) and gates on the same qubits merge; a Hadamard absorbs a phase on another
//   qubit only where the block has a target inside a vector (it then runs as a dense block, no slower than the
//   two), and one-qubit gates on different qubits grow into a tensor product where the tensor kernel runs it
//   faster than its gates apart (kernels::kernelShape weighs it);
// - wide, as qsim's multi-qubit fuser does: gates on different qubits grow a block up to a size whatever the
//   kernel costs, which pays where a block of a few qubits runs faster than the gates it holds (a real 2-qubit
//   block, or a 3-qubit one that takes six gates of a brickwork), and where blocks save passes over the state that
//   the cache blocking cannot (gates that fit no cache block each cost a pass). Built within the cache blocks and
//   across them, each at every size from 2 to k: a greedy block grown to k qubits may take in part of the next
//   group of gates and be cut apart there (QASMBench's controlled swaps, 21 gates on 3 qubits each, make 12 blocks
//   at 3 and 23 at 4 in swap_test_n25);
// - wide within the cache blocks at k, diagonals held: a diagonal gate that no open block can take waits instead of
//   closing the blocks it shares a qubit with, which so keep growing past it (a QFT's blocks then take four whole
//   qubits each, not one Hadamard each: see fuseOps).
// A non-diagonal block (but in the wide fusion across them) stays within one of the simulator's cache blocks
// (StateVector::fitsCacheBlocks): a block across them would cost a pass over the whole state of its own.
// Greedy: open blocks are kept on disjoint qubit sets. A gate joins the blocks it touches when their union fits;
// when it does not, it may still join one of them, the others emitted first (they hold only gates before it on
// qubits it does not share with the kept one), so blocks follow a brickwork of two-qubit gates as qsim's fuser
// does; otherwise it closes (emits) them and opens a new block. In the wide fusions a gate on fresh qubits waits
// in a block of its own for a later gate to take it in, and the blocks closed together are packed into as few
// as fit (qsim's "orphaned" one-qubit gates); the cost-aware one merges it into the cheapest open block at once.
// The pass's own time is part of every run (at 20 qubits it was a quarter of the simulation), so it does the work
// by algorithm: a block's product grows by applying each gate to it in place on its qubits (2^(2n + m)
// multiply-adds for an m-qubit gate, not a 2^(3n) product with the gate embedded), a merge of disjoint factors is
// weighed from their shapes before it is multiplied out, every gate's matrix and cost are computed once for all
// the fusions tried, the estimate counts passes from qubit masks (StateVector::Footprint), only the fusion kept
// has its blocks made into ops (reordered matrices and program steps: fresh memory is a page fault every 4 KiB
// here), and the fusions tried are built side by side on OpenMP's threads, each by a Fuser of its own.
#include "core/quantum/pass.h"

#include "core/quantum/gates.h"
#include "core/quantum/kernels.h"
#include "core/quantum/simulator.h"
#include "core/quantum/statevector.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <exception>
#include <mutex>
#include <stdexcept>

namespace spyglass::quantum {

namespace {

// %.3g of x, for the pass summary.
std::string shortNumber(double x)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", x);
    return text;
}

// A gate of the input circuit, looked at once for all the fusions tried.
struct GateInfo {
    bool counted = false;             // an unconditioned primitive gate: it has a kernel (the rest is left as it is)
    std::vector<cplx> matrix;         // opMatrix: index bit j = op.qubits[j]
    double cost = 0;                  // kernels::relativeCost of the gate alone (controls resolved)
    bool diagonalMatrix = false;      // `matrix` has exact zeros off the diagonal
    int nonZeros = 0;                 // of `matrix`
    bool real = false;                // every entry of `matrix` is real
    bool rxLike = false;              // a one-qubit `matrix` with a real diagonal and imaginary entries off it
    int fixedRows = -1;               // `matrix` is a permutation (kernels::MatrixShape::permutation): the rows it
                                      // leaves in place; -1: not one
    bool tensor = false;              // `matrix` is a tensor product of one-qubit matrices (one qubit: trivially)
    StateVector::Footprint footprint; // what StateVector::countPasses reads of its kernel
};

// An open block: the gates merged so far, on at most kernels::kMaxTargets qubits.
struct Block {
    int qubits[kernels::kMaxTargets] = {};   // matrix index bit j = qubits[j]
    int n = 0;
    std::vector<cplx> matrix;         // the product of its gates; empty for a single gate (GateInfo::matrix)
    std::vector<uint32_t> gates;      // indices of its gates in the circuit's ops, in order
    double cost = 0;                  // relative cost of applying the block as one kernel (or its single gate)
    bool diagonal = false;            // merged blocks: the product has exact zeros off the diagonal
    int nonZeros = 0;                 // of the product
    bool real = false;                // every entry of the product is real
    int fixedRows = -1;               // the product is a permutation: the rows it leaves in place; -1: not one
    bool tensor = false;              // the product is a tensor product of one-qubit matrices

    uint64_t mask = 0;                // the qubits as a set (every gate is tested against every open block)

    bool has(int q) const { return mask >> q & 1; }
    bool touches(const std::vector<int>& qs) const
    {
        for (int q : qs)
            if (has(q))
                return true;
        return false;
    }
};

// One op of a fusion as the estimate sees it: an op of the input circuit as it is, or a fused block (only the
// fusion kept has its blocks made into ops: their matrices reordered and their program steps built).
struct Item {
    uint32_t op = 0;                  // the input op (a fused block's first gate)
    bool fused = false;
    bool diagonal = false;            // fused: its matrix is diagonal
    bool program = false;             // fused: it runs as a program
    uint64_t qubits = 0;              // fused: its qubits, a mask
    double cost = 0;                  // relativeCost of its kernel
    uint32_t block = 0;               // fused: its Block in the fusion's `blocks`
};

// fn(i) for every i < n, side by side on OpenMP's threads; the first exception thrown is rethrown after them (none
// may leave the parallel region).
template <class F>
void parallelFor(size_t n, const F& fn)
{
    std::exception_ptr failed;
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t i = 0; i < n; ++i) {
        try {
            fn(i);
        } catch (...) {
#pragma omp critical(spyglass_fuse_failed)
            if (!failed)
                failed = std::current_exception();
        }
    }
    if (failed)
        std::rethrow_exception(failed);
}

// What kernels::prepare({}, qubits, m) would make of a product (a dense matrix on n qubits, no controls), for
// relativeCost, without preparing the kernel. onlyDiagonal: as if the entries off the diagonal were zero.
kernels::MatrixShape productInfo(const cplx* m, const int* qubits, int n, bool onlyDiagonal = false)
{
    // std::complex<double> is an array of its two parts ([complex.numbers.general]).
    kernels::MatrixShape p = kernels::shapeOfMatrix(reinterpret_cast<const double*>(m), n, onlyDiagonal);
    kernels::placeTargets(p.kernel, qubits, n);
    return p;
}

// Entries of a block's product smaller than this are rounding residue: set to exact zeros (chopRoundOff), and a
// product with none off its diagonal is diagonal. Gates that cancel leave residue of about 1e-16 where the exact
// product has zeros: QASMBench's qram builds each Toffoli from cx, rz(+-pi/4) and ry(pi/2), and 14 of its 22
// three-qubit blocks are permutations with phases (one entry a row) that the residue made dense, eight products a
// row where one does. A unitary's entries are at most 1, so the state moves by at most 1e-14 a block.
constexpr double kRoundOff = 1e-14;

void chopRoundOff(std::vector<cplx>& m)
{
    for (cplx& z : m)
        if (std::norm(z) < kRoundOff * kRoundOff)
            z = 0;
}

// The rows a product on n qubits leaves in place where it is a permutation (Block::fixedRows), else -1.
int fixedRowsOf(const kernels::MatrixShape& p, int n) { return p.permutation ? (1 << n) - p.kernel.entries : -1; }

// out[0..count) = a * in[0..count), or += when Accumulate: the products as std::complex computes them for finite
// values, written out so they vectorise (operator* calls __muldc3 for infinities and NaNs; a unitary has none).
template <bool Accumulate>
void scaleInto(cplx* out, cplx a, const cplx* in, size_t count)
{
    double* o = reinterpret_cast<double*>(out);
    const double* x = reinterpret_cast<const double*>(in);
    const double ar = a.real(), ai = a.imag();
    for (size_t c = 0; c < count; ++c) {
        const double xr = x[2 * c], xi = x[2 * c + 1];
        const double re = ar * xr - ai * xi, im = ar * xi + ai * xr;
        if constexpr (Accumulate) {
            o[2 * c] += re;
            o[2 * c + 1] += im;
        } else {
            o[2 * c] = re;
            o[2 * c + 1] = im;
        }
    }
}

// m (2^n x 2^n) := g x m, g a 2^gn x 2^gn matrix on the bits pos[0..gn) of m's index: the block's product grown
// by one gate in place, 2^(2n + gn) multiply-adds instead of the 2^(3n) of a product with g embedded. The terms
// of each sum are those of that product (its zeros skipped), in the same order when pos ascends.
void applyLeft(std::vector<cplx>& m, int n, const cplx* g, int gn, const int* pos, std::vector<cplx>& scratch)
{
    const int dim = 1 << n, gdim = 1 << gn;
    int offset[1 << kernels::kMaxTargets];
    int mask = 0;
    for (int j = 0; j < gn; ++j)
        mask |= 1 << pos[j];
    for (int s = 0; s < gdim; ++s) {
        offset[s] = 0;
        for (int j = 0; j < gn; ++j)
            offset[s] |= (s >> j & 1) << pos[j];
    }
    if (gn == 1) {
        // A one-qubit gate (most of them) mixes two rows at a time: each pair updated in place, column by column,
        // the same products summed in the same order as below, without the copies into `scratch`.
        const double* const e = reinterpret_cast<const double*>(g);
        const bool nonZero[4] = {g[0] != cplx(0), g[1] != cplx(0), g[2] != cplx(0), g[3] != cplx(0)};
        // y += g[k] x, skipped where g[k] is zero (as scaleInto's callers below skip it).
        const auto add = [&](double& yr, double& yi, int k, double xr, double xi) {
            if (!nonZero[k])
                return;
            yr += e[2 * k] * xr - e[2 * k + 1] * xi;
            yi += e[2 * k] * xi + e[2 * k + 1] * xr;
        };
        for (int base = 0; base < dim; ++base) {
            if (base & mask)
                continue;
            double* const r0 = reinterpret_cast<double*>(m.data() + size_t(base) * dim);
            double* const r1 = reinterpret_cast<double*>(m.data() + size_t(base | mask) * dim);
            for (int c = 0; c < dim; ++c) {
                const double x0r = r0[2 * c], x0i = r0[2 * c + 1], x1r = r1[2 * c], x1i = r1[2 * c + 1];
                double y0r = 0, y0i = 0, y1r = 0, y1i = 0;
                add(y0r, y0i, 0, x0r, x0i);
                add(y0r, y0i, 1, x1r, x1i);
                add(y1r, y1i, 2, x0r, x0i);
                add(y1r, y1i, 3, x1r, x1i);
                r0[2 * c] = y0r;
                r0[2 * c + 1] = y0i;
                r1[2 * c] = y1r;
                r1[2 * c + 1] = y1i;
            }
        }
        return;
    }
    scratch.resize(size_t(gdim) * dim);
    for (int base = 0; base < dim; ++base) {
        if (base & mask)
            continue;
        for (int t = 0; t < gdim; ++t)
            std::copy_n(m.begin() + long(base | offset[t]) * dim, dim, scratch.begin() + long(t) * dim);
        for (int s = 0; s < gdim; ++s) {
            cplx* row = m.data() + size_t(base | offset[s]) * dim;
            std::fill_n(row, dim, cplx(0));
            for (int t = 0; t < gdim; ++t) {
                const cplx gst = g[size_t(s) * gdim + t];
                if (gst == cplx(0))
                    continue;
                const cplx* in = scratch.data() + size_t(t) * dim;
                scaleInto<true>(row, gst, in, dim);
            }
        }
    }
}

// out := f x cur (f on the higher bits of the index), f a 2^fn x 2^fn matrix; f null: the identity on fn qubits.
void kronLeft(std::vector<cplx>& out, const cplx* f, int fn, const std::vector<cplx>& cur, int cn)
{
    const size_t cdim = size_t(1) << cn, fdim = size_t(1) << fn, dim = cdim * fdim;
    out.assign(dim * dim, cplx(0));
    for (size_t rf = 0; rf < fdim; ++rf)
        for (size_t cf = 0; cf < fdim; ++cf) {
            if (!f && rf != cf)
                continue;
            const cplx a = f ? f[rf * fdim + cf] : cplx(1);
            if (f && a == cplx(0))
                continue;
            for (size_t rc = 0; rc < cdim; ++rc) {
                cplx* o = out.data() + (rf * cdim + rc) * dim + cf * cdim;
                const cplx* in = cur.data() + rc * cdim;
                if (f)
                    scaleInto<false>(o, a, in, cdim);
                else
                    std::copy_n(in, cdim, o);
            }
        }
}

enum class Mode { CostAware, WideInCacheBlocks, Wide };

// One fusion of a circuit: its open blocks, its scratch and its counts, over the gates the fuse pass looked at
// once (GateInfo), so the fusions it tries run side by side, one a thread.
class Fuser {
public:
    Fuser(const Circuit& c, const std::vector<GateInfo>& info, bool countPasses, int localQubits)
        : c_(&c), info_(info), countPasses_(countPasses), localQubits_(localQubits)
    {
    }

    // What the simulator would spend per amplitude on `items`: every gate's kernel (kernels::relativeCost) and
    // every pass over the state applyAll plans, at kernels::passCost() (StateVector::plannedCost). Below the
    // cache-blocking size the whole state is in cache and passes cost nothing extra.
    double estimatedCost(const std::vector<Item>& items) const
    {
        double kernelsCost = 0;
        std::vector<StateVector::Footprint>& gates = footprints_;   // kept from call to call
        gates.clear();
        for (const Item& it : items) {
            if (!it.fused && !info_[it.op].counted)
                continue;
            kernelsCost += it.cost;
            if (!countPasses_)
                continue;
            if (!it.fused) {
                gates.push_back(info_[it.op].footprint);
                continue;
            }
            gates.push_back(StateVector::Footprint{it.qubits, 0, it.diagonal, false, it.cost});
        }
        if (!countPasses_)
            return kernelsCost;
        return StateVector::plannedCost(c_->numQubits, Precision::Double, gates);
    }

    // One fusion: the estimate's view of it into `items`, the blocks it made into `blocks`.
    // holdDiagonals: a diagonal gate that no open block can take is held instead of closing the blocks it touches
    // (see `held`).
    void fuseOps(Mode mode, int maxQubits, bool holdDiagonals, std::vector<Item>& items, std::vector<Block>& blocks)
    {
        const Circuit& c = *c_;
        const bool wide = mode != Mode::CostAware;
        weighMerges_ = !wide;
        Output out{&items, &blocks};
        std::vector<Block> open;
        // Open blocks are disjoint and no later gate touches them, so any grouping of them is a valid block:
        // wide fusion packs the ones closed together (each into the smallest group it fits), as qsim fuses
        // the one-qubit gates no two-qubit gate took ("orphaned gates").
        auto packOpen = [&]() {
            if (!wide)
                return;
            std::vector<Block> packed;
            for (Block& b : open) {
                size_t best = packed.size();
                for (size_t p = 0; p < packed.size(); ++p)
                    if (packed[p].n + b.n <= maxQubits && (best == packed.size() || packed[p].n < packed[best].n) &&
                        fitsCacheBlocks(c.numQubits, packed[p], b, mode))
                        best = p;
                if (best != packed.size())
                    packed[best] = merge(packed[best], b);
                else
                    packed.push_back(std::move(b));
            }
            open = std::move(packed);
        };
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
        // Diagonal blocks held back (holdDiagonals), while the open blocks they share a qubit with keep growing past
        // them. A QFT's controlled phases to the qubits below a block of four are what this is for: the phase of
        // qubit 19 with 23 no longer closes the block of 20-23, which so takes the Hadamards and phases of all four
        // qubits, one sweep where there were four (a block a qubit, each with one Hadamard). A held block is
        // released (emitted) before the first later gate on its qubits that is not diagonal, after the open blocks
        // with such a gate on them (which all came before it), but before the others: what they hold on its
        // qubits is diagonal and the rest on other qubits, so they commute with it and may still grow (the block
        // of 16-19 keeps its qubit 16 when the phases of 16 with 20-23 go out before the Hadamard on 16).
        std::vector<Block> held;
        const auto denseQubits = [&](const Block& b) {
            uint64_t m = 0;
            for (uint32_t g : b.gates)
                if (!info_[g].diagonalMatrix)
                    m |= info_[g].footprint.targets | info_[g].footprint.controls;
            return m;
        };
        auto release = [&](auto pred) {
            for (size_t h = 0; h < held.size();) {
                if (pred(held[h])) {
                    const uint64_t mask = held[h].mask;
                    emitWhere([&](const Block& b) { return (b.mask & mask) != 0 && (denseQubits(b) & mask) != 0; });
                    emit(held[h], out);
                    held.erase(held.begin() + static_cast<long>(h));
                } else {
                    ++h;
                }
            }
        };
        for (size_t i = 0; i < c.ops.size(); ++i) {
            const Op& op = c.ops[i];
            const bool fusable = info_[i].counted && static_cast<int>(op.qubits.size()) <= maxQubits;
            if (!fusable) {
                // Measurements, resets, conditioned or opaque gates: close everything they touch (all blocks for
                // conditioned ops, whose trigger depends on earlier measurements).
                if (op.cond.active()) {
                    packOpen();
                    emitWhere([](const Block&) { return true; });
                    release([](const Block&) { return true; });
                } else {
                    release([&](const Block& h) { return h.touches(op.qubits); });
                    emitWhere([&](const Block& b) { return b.touches(op.qubits); });
                }
                emitOp(static_cast<uint32_t>(i), out);
                continue;
            }
            if (!held.empty() && !info_[i].diagonalMatrix)
                release([&](const Block& h) { return h.touches(op.qubits); });
            Block one = single(static_cast<uint32_t>(i));
            size_t hit[kernels::kMaxTargets];
            int hits = 0;
            for (size_t b = 0; b < open.size(); ++b)
                if (open[b].touches(op.qubits))
                    hit[hits++] = b;
            if (hits == 0) {
                // A gate on fresh qubits commutes with every open block (they are disjoint from it), so it may join
                // one: the cheapest merge that does not cost more than the two apart.
                size_t best = open.size();
                if (wide) {
                    // Wide fusion lets it wait in a block of its own: a later gate on its qubits may take it in
                    // (a cz the rotations before it), where joining an unrelated block now would tie its qubits
                    // to that block's. What no gate takes is packed when it is closed (packOpen).
                    open.push_back(std::move(one));
                    continue;
                }
                // Cost-aware: the merge's cost from its factors' shapes, and the product multiplied out only for
                // the merge taken.
                double bestCost = 0;
                for (size_t b = 0; b < open.size(); ++b) {
                    if (open[b].n + one.n > maxQubits)
                        continue;
                    const kernels::MatrixShape p = disjointProduct(open[b], one);
                    const double cost = kernels::relativeCost(p.kernel);
                    if (cost <= open[b].cost + one.cost && (p.diagonalMatrix || fitsCacheBlocks(c.numQubits, open[b], one, mode)) &&
                        (best == open.size() || cost < bestCost)) {
                        best = b;
                        bestCost = cost;
                    }
                }
                if (best != open.size())
                    open[best] = merge(open[best], one);
                else
                    open.push_back(std::move(one));
                continue;
            }
            const Block* parts[kernels::kMaxTargets];
            double apart = one.cost;
            int unionSize = one.n;
            for (int h = 0; h < hits; ++h) {
                parts[h] = &open[hit[h]];
                apart += open[hit[h]].cost;
                for (int j = 0; j < open[hit[h]].n; ++j)
                    unionSize += std::find(op.qubits.begin(), op.qubits.end(), open[hit[h]].qubits[j]) == op.qubits.end();
            }
            if (unionSize <= maxQubits) {
                Block merged = merge(parts, hits, one);
                if ((wide || merged.cost <= apart) && fitsCacheBlocks(c.numQubits, merged, mode)) {
                    for (int h = hits; h-- > 0;)
                        open.erase(open.begin() + static_cast<long>(hit[h]));
                    open.push_back(std::move(merged));
                    continue;
                }
            }
            if (holdDiagonals && hits == 1 && info_[i].diagonalMatrix) {
                // No block can take it: held, into a held block it shares a qubit with where their union fits.
                const auto into = std::find_if(held.begin(), held.end(), [&](const Block& h) {
                    return (h.mask & one.mask) != 0 && std::popcount(h.mask | one.mask) <= maxQubits;
                });
                if (into != held.end())
                    *into = merge(*into, one);
                else
                    held.push_back(std::move(one));
                continue;
            }
            // Too wide (or too dear) for all its blocks at once: the gate may still join one of them, the others
            // emitted first (they are disjoint from the one kept and hold gates before this one, so they may run
            // before it). That is what lets blocks follow a brickwork of two-qubit gates, as qsim's multi-qubit
            // fuser does: {0,1} and {2,3} open, cz 1,2 grows {0,1} into {0,1,2} and emits {2,3}, where closing
            // both would start every block afresh. The kept one is the merge that saves the most.
            int keep = -1;
            Block kept;
            double keptSaving = 0;
            for (int h = 0; h < hits && hits > 1; ++h) {
                const Block& b = open[hit[h]];
                int size = one.n;
                for (int j = 0; j < b.n; ++j)
                    size += std::find(op.qubits.begin(), op.qubits.end(), b.qubits[j]) == op.qubits.end();
                if (size > maxQubits)
                    continue;
                Block merged = merge(b, one);
                const double saving = b.cost + one.cost - merged.cost;
                if ((wide || saving >= 0) && fitsCacheBlocks(c.numQubits, merged, mode) &&
                    (keep < 0 || (wide ? merged.gates.size() > kept.gates.size() : saving > keptSaving))) {
                    keep = h;
                    kept = std::move(merged);
                    keptSaving = saving;
                }
            }
            for (int h = hits; h-- > 0;) {
                if (h == keep)
                    continue;
                emit(open[hit[h]], out);
                open.erase(open.begin() + static_cast<long>(hit[h]));
                if (keep > h)
                    --hit[keep];
            }
            if (keep >= 0)
                open[hit[keep]] = std::move(kept);
            else
                open.push_back(std::move(one));
        }
        packOpen();
        for (Block& b : open)
            emit(b, out);
        for (Block& h : held)
            emit(h, out);
    }

    // The op a block emitted as `item` runs as: its product with its qubits ascending (zeros off the diagonal of a
    // diagonal one), and its program steps where it runs as a program.
    Op fusedOp(const Block& b, const Item& item) const
    {
        const int dim = 1 << b.n;
        const bool diagonal = item.diagonal;
        std::vector<int> qs(b.qubits, b.qubits + b.n);
        std::sort(qs.begin(), qs.end());
        std::vector<cplx> m = productOf(b, qs);
        chopRoundOff(m);   // as merge() did to the product it weighed
        auto fb = std::make_shared<FusedBlock>();
        fb->gateCount = static_cast<int>(b.gates.size());
        fb->diagonal = diagonal;
        if (diagonal)
            for (int r = 0; r < dim; ++r)
                for (int c = 0; c < dim; ++c)
                    if (r != c)
                        m[static_cast<size_t>(r) * dim + c] = 0;
        fb->matrix = std::move(m);
        std::vector<kernels::ProgramStep> program;
        if (item.program && programSteps(b, qs, program))
            program = kernels::normalizedProgram(qs.data(), b.n, qs, program);   // merged as the kernel runs them
        for (kernels::ProgramStep& step : program) {
            FusedStep fs;
            fs.target = step.target;
            for (size_t e = 0; e < step.values.size(); e += 2)
                fs.values.emplace_back(step.values[e], step.values[e + 1]);
            fb->program.push_back(std::move(fs));
        }
        Op f;
        f.name = "fused";
        f.qubits = std::move(qs);
        f.fused = std::move(fb);
        f.line = c_->ops[b.gates[0]].line;
        return f;
    }

    int fusedGates_ = 0;   // into the blocks of the last fuseOps

private:
    const cplx* matrixOf(const Block& b) const { return b.matrix.empty() ? info_[b.gates[0]].matrix.data() : b.matrix.data(); }

    // The product of b's gates on `qubits` (b's, ascending), multiplied again one gate at a time: emit() lets go of
    // the product merge() built, since only the fusion kept needs its blocks' products. b.gates is an order the
    // gates may run in (merge() puts a block's parts, which are disjoint, before the gate that joins them).
    std::vector<cplx> productOf(const Block& b, const std::vector<int>& qubits) const
    {
        const size_t dim = size_t(1) << b.n;
        std::vector<cplx> m(dim * dim), scratch;
        for (size_t r = 0; r < dim; ++r)
            m[r * dim + r] = 1;
        for (uint32_t g : b.gates) {
            const std::vector<int>& on = c_->ops[g].qubits;
            int pos[kernels::kMaxTargets];
            for (size_t j = 0; j < on.size(); ++j)
                pos[j] = static_cast<int>(std::find(qubits.begin(), qubits.end(), on[j]) - qubits.begin());
            applyLeft(m, b.n, info_[g].matrix.data(), static_cast<int>(on.size()), pos, scratch);
        }
        return m;
    }

    Block single(uint32_t i) const
    {
        const Op& op = c_->ops[i];
        const GateInfo& g = info_[i];
        Block b;
        b.n = static_cast<int>(op.qubits.size());
        std::copy(op.qubits.begin(), op.qubits.end(), b.qubits);
        for (int q : op.qubits)
            b.mask |= uint64_t(1) << q;
        b.gates.push_back(i);
        b.cost = g.cost;
        b.nonZeros = g.nonZeros;
        b.real = g.real;
        b.fixedRows = g.fixedRows;
        b.tensor = g.tensor;
        return b;
    }

    // The cost shape of b's product with gate `g` on qubits disjoint from b's (g x b: b on the low bits), from
    // the two factors: non-zeros multiply, the product is diagonal when both are, and its factors are the
    // products of theirs.
    kernels::MatrixShape disjointProduct(const Block& b, const Block& g) const
    {
        kernels::MatrixShape p;
        const int n = b.n + g.n;
        p.nonZeros = b.nonZeros * g.nonZeros;
        const bool bDiag = b.gates.size() == 1 ? info_[b.gates[0]].diagonalMatrix : b.diagonal;
        p.diagonalMatrix = bDiag && info_[g.gates[0]].diagonalMatrix;
        int notOne = 0;
        if (p.diagonalMatrix) {
            const cplx *mb = matrixOf(b), *mg = matrixOf(g);
            const int db = 1 << b.n, dg = 1 << g.n;
            for (int s = 0; s < dg; ++s)
                for (int t = 0; t < db; ++t)
                    notOne += mg[size_t(s) * dg + s] * mb[size_t(t) * db + t] != cplx(1);
        }
        p.realMatrix = b.real && g.real;
        // A product of two permutations is one; it leaves a row in place where both factors do.
        p.permutation = b.fixedRows >= 0 && g.fixedRows >= 0 && !p.diagonalMatrix;
        if (p.permutation)
            notOne = (1 << n) - b.fixedRows * g.fixedRows;
        // And of two tensor products of one-qubit matrices.
        p.tensor = b.tensor && g.tensor && !p.diagonalMatrix && !p.permutation;
        p.kernel = kernels::kernelShape(n, p.diagonalMatrix, p.nonZeros, notOne, p.realMatrix, p.permutation, p.tensor);
        int qubits[2 * kernels::kMaxTargets];
        std::copy(g.qubits, g.qubits + g.n, std::copy(b.qubits, b.qubits + b.n, qubits));
        kernels::placeTargets(p.kernel, qubits, n);
        return p;
    }

    // The blocks parts[0..count) (disjoint, all before gate g) and then g, as one block: the parts' tensor
    // product (the first on the lowest bits), the identity on g's other qubits, then g applied in place.
    Block merge(const Block* const* parts, int count, const Block& g)
    {
        Block m;
        for (int i = 0; i < count; ++i) {
            std::copy(parts[i]->qubits, parts[i]->qubits + parts[i]->n, m.qubits + m.n);
            m.n += parts[i]->n;
            m.mask |= parts[i]->mask;
            m.gates.insert(m.gates.end(), parts[i]->gates.begin(), parts[i]->gates.end());
        }
        int fresh = 0;
        for (int j = 0; j < g.n; ++j)
            if (!m.has(g.qubits[j])) {
                m.qubits[m.n++] = g.qubits[j];
                ++fresh;
            }
        m.mask |= g.mask;
        m.gates.insert(m.gates.end(), g.gates.begin(), g.gates.end());
        if (g.gates.size() > 1)   // g a block of its own, disjoint from the parts (packOpen)
            std::sort(m.gates.begin(), m.gates.end());
        const int p0 = parts[0]->n;
        m.matrix.assign(matrixOf(*parts[0]), matrixOf(*parts[0]) + (size_t(1) << (2 * p0)));
        int done = p0;
        for (int i = 1; i < count; ++i) {
            kronLeft(scratch_, matrixOf(*parts[i]), parts[i]->n, m.matrix, done);
            std::swap(scratch_, m.matrix);
            done += parts[i]->n;
        }
        const cplx* gm = matrixOf(g);
        if (fresh == g.n) {
            // g on fresh qubits only (in its own order, above the parts): its tensor product with them.
            kronLeft(scratch_, gm, g.n, m.matrix, done);
            std::swap(scratch_, m.matrix);
        } else {
            if (fresh > 0) {
                kronLeft(scratch_, nullptr, fresh, m.matrix, done);
                std::swap(scratch_, m.matrix);
            }
            int pos[kernels::kMaxTargets];
            for (int j = 0; j < g.n; ++j)
                pos[j] = static_cast<int>(std::find(m.qubits, m.qubits + m.n, g.qubits[j]) - m.qubits);
            applyLeft(m.matrix, m.n, gm, g.n, pos, scratch_);
        }
        chopRoundOff(m.matrix);
        if (!weighMerges_) {
            // The wide fusions merge by qubits and gate counts; only a diagonal product may cross the cache blocks.
            // emit() weighs the blocks they keep.
            m.diagonal = isDiagonal(m.matrix, 1 << m.n);   // exact zeros off the diagonal; most products fail at the first
            return m;
        }
        const kernels::MatrixShape p = productInfo(m.matrix.data(), m.qubits, m.n);
        m.cost = kernels::relativeCost(p.kernel);
        m.diagonal = p.diagonalMatrix;
        m.nonZeros = p.nonZeros;
        m.real = p.kernel.real;
        m.fixedRows = fixedRowsOf(p, m.n);
        m.tensor = p.tensor;
        return m;
    }
    Block merge(const Block& part, const Block& g)
    {
        const Block* parts[1] = {&part};
        return merge(parts, 1, g);
    }

    // A non-diagonal block runs in one pass over one cache block, and, when the state is spread over MPI ranks,
    // only on local qubits: a block that took a global qubit in would need that qubit swapped in for the whole
    // block, where its gates alone might need no exchange (a diagonal or a control on a global qubit moves nothing).
    // Mode::Wide may cross the cache blocks (a block there costs a pass of its own, but may replace several gates
    // that each cost one); the whole-circuit estimate decides whether that pays.
    bool fitsCacheBlocks(int numQubits, const Block& b, Mode mode) const
    {
        return b.diagonal || fitsCacheBlocks(numQubits, b.qubits, b.n, mode);
    }
    // Whether a and b may merge: their union fits a cache block, or neither does and each would cost a pass of
    // its own (two rxx from the middle qubits, fixed in a tile, to the high ones, fixed in a chunk), and merged
    // they cost one; never onto a global qubit. A lone SWAP that fits no block costs no pass of its own: it joins
    // the swap network of the swaps around it (StateVector::applyAll), where merged it would cost one.
    bool fitsCacheBlocks(int numQubits, const Block& a, const Block& b, Mode mode) const
    {
        int qs[2 * kernels::kMaxTargets];
        std::copy(a.qubits, a.qubits + a.n, qs);
        std::copy(b.qubits, b.qubits + b.n, qs + a.n);
        if (fitsCacheBlocks(numQubits, qs, a.n + b.n, mode))
            return true;
        const bool local = std::all_of(qs, qs + a.n + b.n, [&](int q) { return q < localQubits_; });
        const auto costsAPass = [&](const Block& x) {
            return !fitsCacheBlocks(numQubits, x, mode) && !(x.gates.size() == 1 && info_[x.gates[0]].footprint.swap);
        };
        return local && costsAPass(a) && costsAPass(b);
    }
    bool fitsCacheBlocks(int numQubits, const int* qubits, int n, Mode mode) const
    {
        if (!std::all_of(qubits, qubits + n, [&](int q) { return q < localQubits_; }))
            return false;
        return mode == Mode::Wide || StateVector::fitsCacheBlocks(numQubits, std::vector<int>(qubits, qubits + n));
    }

    struct Output {
        std::vector<Item>* items;
        std::vector<Block>* blocks;
    };
    void emitOp(uint32_t i, Output& out) const { out.items->push_back(Item{i, false, false, false, 0, info_[i].cost, 0}); }

    void emit(Block& b, Output& out)
    {
        if (b.gates.size() == 1) {
            emitOp(b.gates[0], out);
            return;
        }
        fusedGates_ += static_cast<int>(b.gates.size());
        const int dim = 1 << b.n;
        // Exact zeros off the diagonal keep a diagonal block on the cheap diagonal kernel.
        const bool diagonal = isDiagonal(b.matrix, dim);   // merge() chopped the residue (chopRoundOff)
        std::vector<int> qs(b.qubits, b.qubits + b.n);
        std::sort(qs.begin(), qs.end());
        const kernels::MatrixShape shape = productInfo(b.matrix.data(), b.qubits, b.n, diagonal);
        double cost = kernels::relativeCost(shape.kernel);
        // A block of one-qubit gates and diagonals may run as a program (its gates one after another in one sweep)
        // where that is estimated to be faster than its product; not a diagonal product, a permutation or a tensor
        // product, which have kernels of their own that do no more.
        bool asProgram = false;
        if (!diagonal && !shape.permutation && !shape.tensor) {
            kernels::CostShape steps;
            steps.k = b.n;
            kernels::placeTargets(steps, qs.data(), b.n);
            if (programShape(b, steps)) {
                const double programCost = kernels::relativeCost(steps);
                asProgram = programCost < cost;
                cost = std::min(cost, programCost);
            }
        }
        out.items->push_back(Item{b.gates[0], true, diagonal, asProgram, b.mask, cost, static_cast<uint32_t>(out.blocks->size())});
        // Its product goes back to the heap, where the next merges take it: kept, the products of every fusion
        // tried were 2.3 MB of fresh pages (random_20), a fault each, which took 6 ms of the pass's 9 on the EPYC
        // of BENCHMARKS.md; fusedOp() multiplies out the kept fusion's again.
        std::vector<cplx>().swap(b.matrix);
        out.blocks->push_back(std::move(b));
    }

    // What a program of b's gates would run (kernels::CostShape's program fields, s's targets placed), counted from
    // the gates alone as kernels::setProgram merges their steps: a diagonal into the diagonal before it where the
    // steps between touch none of its qubits, a one-qubit gate into the one before it on its qubit where the steps
    // between do not touch that qubit (real times real stays real, rx-like times rx-like stays rx-like). False
    // where b cannot run as a program (a gate that is neither one-qubit nor diagonal, or more qubits than the kernel
    // takes). Counts only: the fuse pass weighs every block of every fusion it tries, and builds the steps of those
    // it keeps.
    bool programShape(const Block& b, kernels::CostShape& s) const
    {
        if (b.n < 2 || b.n > kernels::kMaxTensorTargets)
            return false;
        struct Step {
            uint64_t qubits;   // a one-qubit step's qubit, a diagonal's
            bool diagonal, real, rxLike;
        };
        Step steps[kernels::kMaxProgramSteps + 1];
        int count = 0;
        for (uint32_t i : b.gates) {
            const Op& op = c_->ops[i];
            const GateInfo& g = info_[i];
            const bool oneQubit = op.qubits.size() == 1 && !g.diagonalMatrix;
            if (!oneQubit && !g.diagonalMatrix)
                return false;
            uint64_t qubits = 0;
            for (int q : op.qubits)
                qubits |= uint64_t(1) << q;
            bool merged = false;
            for (int j = count; j-- > 0 && !merged;) {
                Step& e = steps[j];
                if (!oneQubit && e.diagonal) {
                    e.qubits |= qubits;
                    merged = true;
                } else if (oneQubit && !e.diagonal && e.qubits == qubits) {
                    e.real = e.real && g.real;
                    e.rxLike = e.rxLike && g.rxLike;
                    merged = true;
                } else if (e.qubits & qubits) {
                    break;
                }
            }
            if (merged)
                continue;
            if (count > kernels::kMaxProgramSteps)
                return false;
            steps[count++] = Step{qubits, !oneQubit, g.real, g.rxLike};
        }
        int diagonals = 0;
        for (int j = 0; j < count; ++j)
            diagonals += steps[j].diagonal;
        if (!kernels::programFits(count - diagonals, diagonals))
            return false;
        s.program = true;
        s.programReal = s.programRxLike = s.programComplex = s.programDiagonal = s.programInLanes = 0;
        const uint64_t lanes = (uint64_t(1) << kernels::laneBits(kernels::activeIsa(), false)) - 1;
        for (int j = 0; j < count; ++j) {
            if (steps[j].diagonal) {
                ++s.programDiagonal;
                continue;
            }
            ++(steps[j].real ? s.programReal : steps[j].rxLike ? s.programRxLike : s.programComplex);
            s.programInLanes += (steps[j].qubits & lanes) != 0;
        }
        return true;
    }

    // b's gates as program steps on the qubits `sorted` (b's, ascending), in circuit order, when each is a
    // one-qubit gate or a diagonal one and the program kernel can take the block (at most kMaxTensorTargets
    // qubits: the vectors of a base stay in registers); false otherwise.
    bool programSteps(const Block& b, const std::vector<int>& sorted, std::vector<kernels::ProgramStep>& steps) const
    {
        steps.clear();
        if (b.n < 2 || b.n > kernels::kMaxTensorTargets)
            return false;
        const auto place = [&](int q) { return static_cast<int>(std::find(sorted.begin(), sorted.end(), q) - sorted.begin()); };
        for (uint32_t i : b.gates) {
            const Op& op = c_->ops[i];
            const GateInfo& g = info_[i];
            kernels::ProgramStep step;
            if (op.qubits.size() == 1) {
                step.target = place(op.qubits[0]);
                for (const cplx& z : g.matrix) {
                    step.values.push_back(z.real());
                    step.values.push_back(z.imag());
                }
            } else if (g.diagonalMatrix) {
                const int m = static_cast<int>(op.qubits.size()), gateDim = 1 << m;
                int at[kernels::kMaxTargets];
                for (int j = 0; j < m; ++j)
                    at[j] = place(op.qubits[static_cast<size_t>(j)]);
                for (int x = 0; x < 1 << b.n; ++x) {
                    int local = 0;
                    for (int j = 0; j < m; ++j)
                        local |= (x >> at[j] & 1) << j;
                    const cplx z = g.matrix[static_cast<size_t>(local) * gateDim + local];
                    step.values.push_back(z.real());
                    step.values.push_back(z.imag());
                }
            } else {
                return false;
            }
            steps.push_back(std::move(step));
        }
        return true;
    }

    const Circuit* c_;
    const std::vector<GateInfo>& info_;
    bool countPasses_;
    int localQubits_;   // qubits >= this are global (distributed over MPI ranks)
    std::vector<cplx> scratch_;
    mutable std::vector<StateVector::Footprint> footprints_;
    bool weighMerges_ = true;   // merge() weighs the product's kernel (the cost-aware fusion decides by it)
};

class Fuse : public Pass {

public:
    Fuse(int k, int localQubits, std::string keep = {})
        : k_(std::clamp(k, 1, kernels::kMaxTargets)), localQubits_(localQubits), keep_(std::move(keep))
    {
    }
    std::string name() const override { return "fuse"; }
    std::string description() const override
    {
        return "fuse gates into blocks of at most " + std::to_string(k_) + " qubits where the merged block runs faster";
    }
    PassResult run(Circuit& c, PassContext&) override
    {
        const int before = c.gateCount();
        // Every fusion weighs the gates alone and multiplies their matrices: both are computed once.
        std::vector<GateInfo> info(c.ops.size());
        for (size_t i = 0; i < c.ops.size(); ++i) {
            const Op& op = c.ops[i];
            GateInfo& g = info[i];
            g.counted = op.kind == OpKind::Gate && !op.cond.active() && c.isPrimitive(op);
            if (!g.counted)
                continue;
            // The kernel prepareOp would make, weighed from the gate's target matrix without preparing it.
            const StdGate* sg = op.fused ? nullptr : findStdGate(op.name);
            const int controls = sg ? sg->controls : 0;
            std::vector<cplx> target = sg ? stdTargetMatrix(op.name, op.params) : op.fused->matrix;
            const int k = static_cast<int>(op.qubits.size()) - controls;
            if (k < 1 || k > kernels::kMaxTargets)
                throw std::invalid_argument("gate on " + std::to_string(k) + " target qubits is not supported by the kernels");
            kernels::MatrixShape p = productInfo(target.data(), op.qubits.data() + controls, k);
            p.kernel.controls = controls;
            g.cost = kernels::relativeCost(p.kernel);
            for (int j = 0; j < static_cast<int>(op.qubits.size()); ++j)
                (j < controls ? g.footprint.controls : g.footprint.targets) |= uint64_t(1) << op.qubits[static_cast<size_t>(j)];
            g.footprint.diagonalMatrix = p.diagonalMatrix;
            g.footprint.swap = sg && op.name == "swap";
            g.footprint.cost = g.cost;
            if (static_cast<int>(op.qubits.size()) <= k_) {
                // Without controls the op's matrix is its target matrix, weighed above (opMatrix).
                if (controls == 0) {
                    g.matrix = std::move(target);
                } else {
                    g.matrix = opMatrix(op);
                    p = productInfo(g.matrix.data(), op.qubits.data(), static_cast<int>(op.qubits.size()));
                }
                g.diagonalMatrix = p.diagonalMatrix;
                g.nonZeros = p.nonZeros;
                g.real = p.kernel.real;
                // std::complex<double> is an array of its two parts ([complex.numbers.general]).
                g.rxLike = op.qubits.size() == 1 &&
                           kernels::oneQubitStepKind(reinterpret_cast<const double*>(g.matrix.data())) == kernels::ProgramStepKind::ImagOff;
                g.fixedRows = fixedRowsOf(p, static_cast<int>(op.qubits.size()));
                g.tensor = op.qubits.size() == 1 || p.tensor;
            }
        }
        std::vector<int> all(static_cast<size_t>(c.numQubits));
        for (int q = 0; q < c.numQubits; ++q)
            all[static_cast<size_t>(q)] = q;
        // A state small enough for every gate to fit the cache blocks is one the simulator does not block at all.
        const bool countPasses = !StateVector::fitsCacheBlocks(c.numQubits, all);
        // The fusions tried: wide fusion within the cache blocks and across them at every block size up to k, as
        // one would try qsim's fuser at each max_fused_size (a dense block's flops double with every qubit, so the
        // widest blocks are not always the fastest), and within them at k with diagonals held. Each is built and weighed by a Fuser of its
        // own, side by side on OpenMP's threads (the pass's time is part of every run; the cost-aware fusion, the
        // dearest, first).
        struct Candidate {
            std::string name;
            Mode mode = Mode::CostAware;
            int maxQubits = 0;
            bool holdDiagonals = false;
            std::vector<Item> items;
            std::vector<Block> blocks;
            int fusedGates = 0;
            double cost = 0;
            // Its items and blocks let go: another fusion is estimated cheaper (release()).
            bool released = false;
            void release()
            {
                std::vector<Item>().swap(items);
                std::vector<Block>().swap(blocks);
                released = true;
            }
        };
        std::vector<Candidate> tried;
        tried.push_back({"cost-aware", Mode::CostAware, k_, false, {}, {}, 0, 0});
        for (int k = 2; k <= k_; ++k)
            tried.push_back({"wide <= " + std::to_string(k) + " in cache blocks", Mode::WideInCacheBlocks, k, false, {}, {}, 0, 0});
        tried.push_back({"wide <= " + std::to_string(k_) + " in cache blocks, diagonals held", Mode::WideInCacheBlocks, k_, true, {}, {}, 0, 0});
        for (int k = 2; k < k_; ++k)
            tried.push_back({"wide <= " + std::to_string(k), Mode::Wide, k, false, {}, {}, 0, 0});
        tried.push_back({"wide", Mode::Wide, k_, false, {}, {}, 0, 0});
        Fuser kept(c, info, countPasses, localQubits_);
        Candidate unfused{"unfused", Mode::CostAware, 0, false, {}, {}, 0, 0};
        for (size_t i = 0; i < c.ops.size(); ++i)
            unfused.items.push_back(Item{static_cast<uint32_t>(i), false, false, false, 0, info[i].cost, 0});
        unfused.cost = kept.estimatedCost(unfused.items);
        // A fusion that can no longer be kept lets go of its items and blocks as soon as that is known, so the
        // fusions built after it on the same thread, and the kept one's ops, reuse that memory (fresh memory is a
        // page fault every 4 KiB: see Fuser::emit). One can no longer be kept when another, complete, beats it (the
        // choice below then never falls on it, whatever the order), or when it does not beat the unfused circuit.
        // Ties go to the simpler circuit (fewer merges), so fusing never costs more than not fusing.
        const auto beats = [](const Candidate& a, const Candidate& b) { return a.cost < b.cost * (1 - 1e-9); };
        std::mutex leading;
        Candidate* leader = nullptr;   // a complete fusion none estimated so far beats
        parallelFor(tried.size(), [&](size_t t) {
            Candidate& next = tried[t];
            Fuser fuser(c, info, countPasses, localQubits_);
            fuser.fuseOps(next.mode, next.maxQubits, next.holdDiagonals, next.items, next.blocks);
            next.fusedGates = fuser.fusedGates_;
            next.cost = fuser.estimatedCost(next.items);
            if (!keep_.empty())
                return;
            const std::lock_guard<std::mutex> lock(leading);
            if (!beats(next, unfused) || (leader && beats(*leader, next))) {
                next.release();
                return;
            }
            if (leader && beats(next, *leader))
                leader->release();
            if (!leader || next.cost < leader->cost)
                leader = &next;
        });
        const Candidate* best = &unfused;
        std::string costs = " (estimated cost per amplitude: unfused " + shortNumber(unfused.cost);
        for (const Candidate& next : tried) {
            costs += ", " + next.name + " " + shortNumber(next.cost);
            if (keep_.empty() ? beats(next, *best) : next.name == keep_)
                best = &next;
        }
        costs += "; kernel costs " + kernels::activeCostSource() + ")";
        if (best->released)
            throw std::logic_error("fuse: the fusion kept had let go of its blocks");
        for (Candidate& next : tried)
            if (&next != best)
                next.release();
        const bool fused = best != &unfused;
        if (fused) {
            // The fusion kept made into ops, its blocks side by side.
            std::vector<Op> ops(best->items.size());
            parallelFor(ops.size(), [&](size_t i) {
                const Item& item = best->items[i];
                ops[i] = item.fused ? kept.fusedOp(best->blocks[item.block], item) : c.ops[item.op];
            });
            c.ops = std::move(ops);
        }
        PassResult r;
        r.changed = !best->blocks.empty();
        if (!fused)
            r.summary = "kept " + std::to_string(before) + " gates unfused" + costs;
        else
            r.summary = best->name + ": fused " + std::to_string(best->fusedGates) + " of " + std::to_string(before) + " gates into " +
                        std::to_string(best->blocks.size()) + " block(s) of <= " + std::to_string(k_) + " qubits; " + std::to_string(c.gateCount()) +
                        " gate ops remain" + costs;
        return r;
    }

private:
    int k_;
    int localQubits_;   // qubits >= this are global (distributed over MPI ranks)
    std::string keep_;  // makeFusePassKeeping: the fusion kept whatever the estimates; empty: the cheapest
};

}  // namespace

std::unique_ptr<Pass> makeFusePass(int maxQubits, int localQubits) { return std::make_unique<Fuse>(maxQubits, localQubits); }
std::unique_ptr<Pass> makeFusePassKeeping(int maxQubits, const std::string& fusion)
{
    return std::make_unique<Fuse>(maxQubits, std::numeric_limits<int>::max(), fusion);
}

}  // namespace spyglass::quantum
