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
        for (Isa isa : kAllIsas)
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

void apply(double* amps, int n, const PreparedGate& g, uint64_t heldZero)
{
    switch (activeIsa()) {
    case Isa::Avx512: avx512::apply(amps, n, g, heldZero); break;
    case Isa::Avx2: avx2::apply(amps, n, g, heldZero); break;
    case Isa::Portable: generic::apply(amps, n, g, heldZero); break;
    }
}

void apply(float* amps, int n, const PreparedGate& g, uint64_t heldZero)
{
    switch (activeIsa()) {
    case Isa::Avx512: avx512::apply(amps, n, g, heldZero); break;
    case Isa::Avx2: avx2::apply(amps, n, g, heldZero); break;
    case Isa::Portable: generic::apply(amps, n, g, heldZero); break;
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

CostShape kernelShape(int k, bool diagonalMatrix, int nonZeros, int diagonalFactorsNotOne, bool realMatrix)
{
    CostShape s;
    s.k = k;
    s.real = realMatrix;
    s.diagonal = diagonalMatrix && !(k == 1 && diagonalFactorsNotOne == 2);
    s.entries = s.diagonal ? diagonalFactorsNotOne : 0;
    if (!s.diagonal && k >= 2 && nonZeros <= (1 << k) * (1 << k) / 2) {
        // The sparse kernel where the cost table says it beats the dense one, both weighed with the targets above
        // the vector lanes (where it runs; below them the wide builds run it dense anyway).
        CostShape dense = s;
        dense.lowestTarget = kMaxTargets;
        CostShape sparse = dense;
        sparse.sparse = true;
        sparse.entries = nonZeros;
        if (relativeCost(sparse) < relativeCost(dense))
            s = sparse;
    }
    return s;
}

MatrixShape shapeOfMatrix(const double* m, int k, bool onlyDiagonal)
{
    const int dim = 1 << k;
    // Without branches on the entries (the fuse pass weighs thousands of products a run): one sweep over all of
    // them, one over the diagonal.
    int nonZeros = 0, imaginary = 0;
    for (int e = 0; e < dim * dim; ++e) {
        const double re = m[2 * e], im = m[2 * e + 1];
        nonZeros += (re != 0) | (im != 0);
        imaginary |= im != 0;
    }
    int diagonalNonZeros = 0, notOne = 0;
    for (int r = 0; r < dim; ++r) {
        const double re = m[2 * (r * dim + r)], im = m[2 * (r * dim + r) + 1];
        diagonalNonZeros += (re != 0) | (im != 0);
        notOne += (re != 1) | (im != 0);
    }
    MatrixShape s;
    s.realMatrix = !imaginary;
    s.nonZeros = onlyDiagonal ? diagonalNonZeros : nonZeros;
    s.diagonalMatrix = onlyDiagonal || nonZeros == diagonalNonZeros;
    s.kernel = kernelShape(k, s.diagonalMatrix, s.nonZeros, notOne, s.realMatrix);
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
