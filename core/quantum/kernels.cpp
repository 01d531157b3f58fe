#include "core/quantum/kernels.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <numeric>
#include <stdexcept>
#include <type_traits>

namespace spyglass::quantum::kernels {

namespace {

Isa widestSupported()
{
    return isaSupported(Isa::Avx512) ? Isa::Avx512 : isaSupported(Isa::Avx2) ? Isa::Avx2 : Isa::Portable;
}

Isa isaFromEnvironment()
{
    if (const char* e = std::getenv("SPYGLASS_NO_AVX2"); e && *e && *e != '0')
        return Isa::Portable;
    if (const char* e = std::getenv("SPYGLASS_KERNELS"); e && *e) {
        for (Isa isa : {Isa::Portable, Isa::Avx2, Isa::Avx512})
            if (std::strcmp(e, isaName(isa)) == 0 && isaSupported(isa))
                return isa;
        std::fprintf(stderr, "SPYGLASS_KERNELS=%s: not a kernel build this CPU runs (portable, avx2, avx512); using %s\n", e,
                     isaName(widestSupported()));
    }
    return widestSupported();
}

// Read on every apply(), which runs thousands of times per pass: a relaxed load, set once from the environment.
std::atomic<int>& activeSlot()
{
    static std::atomic<int> slot{int(isaFromEnvironment())};
    return slot;
}

}  // namespace

const char* isaName(Isa isa)
{
    switch (isa) {
    case Isa::Portable: return "portable";
    case Isa::Avx2: return "avx2";
    case Isa::Avx512: return "avx512";
    }
    return "?";
}

bool isaSupported(Isa isa)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    switch (isa) {
    case Isa::Portable: return true;
    case Isa::Avx2: return avx2;
    case Isa::Avx512:
        return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
    }
    return false;
#else
    return isa == Isa::Portable;
#endif
}

Isa activeIsa() { return Isa(activeSlot().load(std::memory_order_relaxed)); }

bool setActiveIsa(Isa isa)
{
    if (!isaSupported(isa))
        return false;
    activeSlot().store(int(isa), std::memory_order_relaxed);
    return true;
}

bool usingAvx2() { return activeIsa() != Isa::Portable; }

void apply(double* amps, int n, const PreparedGate& g)
{
    switch (activeIsa()) {
    case Isa::Avx512: avx512::apply(amps, n, g); break;
    case Isa::Avx2: avx2::apply(amps, n, g); break;
    case Isa::Portable: generic::apply(amps, n, g); break;
    }
}

void apply(float* amps, int n, const PreparedGate& g)
{
    switch (activeIsa()) {
    case Isa::Avx512: avx512::apply(amps, n, g); break;
    case Isa::Avx2: avx2::apply(amps, n, g); break;
    case Isa::Portable: generic::apply(amps, n, g); break;
    }
}

void prepareLaneTable(PreparedGate& g, bool single)
{
    const Isa isa = activeIsa();
    auto fill = [&](auto& table, int& bytes) {
        using T = typename std::remove_reference_t<decltype(table)>::value_type;
        auto lay = [&](T* out) {
            switch (isa) {
            case Isa::Avx512: return avx512::fillLaneTable(g, out);
            case Isa::Avx2: return avx2::fillLaneTable(g, out);
            case Isa::Portable: break;
            }
            return generic::fillLaneTable(g, out);
        };
        table.resize(static_cast<size_t>(lay(nullptr)));
        if (!table.empty())
            lay(table.data());
        bytes = isa == Isa::Avx512 ? avx512::vectorBytes() : isa == Isa::Avx2 ? avx2::vectorBytes() : generic::vectorBytes();
    };
    if (single)
        fill(g.laneTableSingle, g.laneTableSingleBytes);
    else
        fill(g.laneTableDouble, g.laneTableDoubleBytes);
}

CostShape shapeOf(const PreparedGate& g)
{
    CostShape s;
    s.k = g.k;
    s.controls = static_cast<int>(g.controls.size());
    s.lowestTarget = g.targets[0];
    s.diagonal = g.diagonal;
    s.sparse = g.sparse;
    s.entries = static_cast<int>(g.diagonal ? g.diagIndex.size() : g.sparse ? g.sparseCol.size() : 0);
    s.real = g.realMatrix;
    return s;
}

double relativeCost(const PreparedGate& g) { return relativeCost(shapeOf(g)); }

double relativeCost(const CostShape& g)
{
    // Fitted to `quantum_bench --kernel-costs` (one thread, a 2^13-amplitude state, random unitaries, best of 7;
    // AVX-512 build, complex128) on the 2-vCPU Xeon (Emerald Rapids, 2.3 GHz) of BENCHMARKS.md, 2026-12-04:
    // dense blocks of k = 1..6 targets 0.40-0.54 / 0.85-0.87 / 1.32-1.46 / 2.16-3.50 / 7.9 / 31.6 ns per
    // amplitude (the first value with the targets from qubit 0, the second above the vector lanes), real
    // matrices at k = 2, 3 0.36 / 0.50-0.76 (one FMA a product; no real form at k = 1, 4), a one-qubit gate with
    // a control 0.52, sparse blocks of 2 non-zeros a row on 2 qubits 0.76 and of 4 on 3 qubits 1.90, diagonals
    // of 1 / 3 factors != 1 on 1 / 2 qubits 0.29 / 0.35. complex64 keeps the same order at 0.5-0.8 of each. The
    // fit before it, on the 2-vCPU EPYC of the earlier tables, had a two-qubit block at 0.45 (as cheap as one
    // one-qubit gate there) and k = 3 / 4 at 0.95 / 2.1; relativeCost is one table, so the fusions chosen are
    // this machine's best, and `--kernel-costs` shows how far another CPU is from it.
    static constexpr double kDense[kMaxTargets + 1] = {0, 0.47, 0.86, 1.39, 2.8, 7.9, 31.6};
    static constexpr double kDenseReal[kMaxTargets + 1] = {0, 0.47, 0.36, 0.63, 2.8, 7.9, 31.6};
    const double touched = 1.0 / double(uint64_t(1) << g.controls);
    const double dim = double(1 << g.k);
    if (g.diagonal)
        return 0.08 + 0.5 * touched * double(g.entries) / dim;
    // The wide builds run a sparse gate with a target inside a complex128 vector as a dense one (kernels_impl.inc,
    // laneTargetMask).
    const int laneBits = activeIsa() == Isa::Avx512 ? 2 : activeIsa() == Isa::Avx2 ? 1 : 0;
    const bool sparseKernel = g.sparse && !(g.k <= 4 && g.lowestTarget < laneBits);
    if (sparseKernel)   // per non-zero of a row: 0.38 at k = 2, 0.475 at k = 3 (more rows in flight per base)
        return std::max(0.2, touched * double(g.entries) / dim * (0.19 + 0.095 * g.k));
    return (g.real ? kDenseReal : kDense)[g.k] * (g.k == 1 && g.controls > 0 ? 1.1 : touched);
}

CostShape kernelShape(int k, bool diagonalMatrix, int nonZeros, int diagonalFactorsNotOne)
{
    CostShape s;
    s.k = k;
    s.diagonal = diagonalMatrix && !(k == 1 && diagonalFactorsNotOne == 2);
    s.sparse = !s.diagonal && k >= 2 && nonZeros <= (1 << k) * (1 << k) / 2;
    s.entries = s.diagonal ? diagonalFactorsNotOne : s.sparse ? nonZeros : 0;
    return s;
}

MatrixShape shapeOfMatrix(const double* m, int k, bool onlyDiagonal)
{
    const int dim = 1 << k;
    MatrixShape s;
    s.diagonalMatrix = true;
    s.realMatrix = true;
    int notOne = 0;
    for (int r = 0; r < dim; ++r)
        for (int c = 0; c < dim; ++c) {
            const double re = m[2 * (r * dim + c)], im = m[2 * (r * dim + c) + 1];
            s.realMatrix = s.realMatrix && im == 0;
            if (r == c)
                notOne += re != 1 || im != 0;
            if ((re != 0 || im != 0) && (!onlyDiagonal || r == c)) {
                ++s.nonZeros;
                s.diagonalMatrix = s.diagonalMatrix && r == c;
            }
        }
    s.kernel = kernelShape(k, s.diagonalMatrix, s.nonZeros, notOne);
    s.kernel.real = s.realMatrix;
    return s;
}

PreparedGate prepare(const std::vector<int>& controls, const std::vector<int>& targets, const std::vector<double>& m)
{
    const int k = static_cast<int>(targets.size());
    if (k < 1 || k > kMaxTargets)
        throw std::invalid_argument("gate on " + std::to_string(k) + " target qubits is not supported by the kernels");
    const int dim = 1 << k;
    if (static_cast<int>(m.size()) != 2 * dim * dim)
        throw std::invalid_argument("matrix size does not match the gate's qubits");
    PreparedGate g;
    g.k = k;
    g.controls = controls;
    // Sort targets ascending and permute the matrix accordingly.
    std::vector<int> order(k);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return targets[a] < targets[b]; });
    for (int j = 0; j < k; ++j)
        g.targets[j] = targets[order[j]];
    // New local index bit j = old bit order[j].
    auto oldIndex = [&](int idx) {
        int o = 0;
        for (int j = 0; j < k; ++j)
            if (idx >> j & 1)
                o |= 1 << order[j];
        return o;
    };
    g.matrix.resize(m.size());
    for (int r = 0; r < dim; ++r)
        for (int c = 0; c < dim; ++c) {
            const size_t src = 2 * (static_cast<size_t>(oldIndex(r)) * dim + oldIndex(c));
            const size_t dst = 2 * (static_cast<size_t>(r) * dim + c);
            g.matrix[dst] = m[src];
            g.matrix[dst + 1] = m[src + 1];
        }
    const MatrixShape shape = shapeOfMatrix(g.matrix.data(), k);
    g.diagonalMatrix = shape.diagonalMatrix;
    g.realMatrix = shape.realMatrix;
    g.diagonal = shape.kernel.diagonal;
    g.sparse = shape.kernel.sparse;
    if (g.sparse) {
        g.rowStart.push_back(0);
        for (int r = 0; r < dim; ++r) {
            for (int c = 0; c < dim; ++c) {
                const double re = g.matrix[2 * (r * dim + c)], im = g.matrix[2 * (r * dim + c) + 1];
                if (re != 0 || im != 0) {
                    g.sparseCol.push_back(c);
                    g.sparseValue.push_back(re);
                    g.sparseValue.push_back(im);
                }
            }
            g.rowStart.push_back(static_cast<int>(g.sparseCol.size()));
        }
    }
    if (g.diagonal) {
        for (int j = 0; j < dim; ++j) {
            const double re = g.matrix[2 * (j * dim + j)], im = g.matrix[2 * (j * dim + j) + 1];
            if (re != 1 || im != 0) {
                g.diagIndex.push_back(j);
                g.diagValue.push_back(re);
                g.diagValue.push_back(im);
            }
        }
    }
    return g;
}

}  // namespace spyglass::quantum::kernels
