#include "core/quantum/kernels.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
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

// Whether the dim x dim matrix is a permutation matrix: one entry of exactly 1 in every row and column, zeros
// elsewhere. src (when not null) receives the column of each row's 1.
bool permutationOf(const double* m, int dim, int* src)
{
    std::vector<char> taken(size_t(dim), 0);
    for (int r = 0; r < dim; ++r) {
        int col = -1;
        for (int c = 0; c < dim; ++c) {
            const double re = m[2 * (size_t(r) * dim + c)], im = m[2 * (size_t(r) * dim + c) + 1];
            if (re == 0 && im == 0)
                continue;
            if (re != 1 || im != 0 || col >= 0 || taken[c])
                return false;
            col = c;
        }
        if (col < 0)
            return false;
        taken[col] = 1;
        if (src)
            src[r] = col;
    }
    return true;
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

int laneBits(Isa isa, bool single)
{
    switch (isa) {
    case Isa::Avx512: return single ? 3 : 2;
    case Isa::Avx2: return single ? 2 : 1;
    case Isa::Portable: break;
    }
    return 0;
}

bool usingAvx2() { return activeIsa() != Isa::Portable; }

// The active build's kernels::<build>::call: one switch for every entry point of the kernels.
#define SPYGLASS_ON_ACTIVE_BUILD(call)                   \
    switch (activeIsa()) {                               \
    case Isa::Avx512: avx512::call; break;               \
    case Isa::Avx2: avx2::call; break;                   \
    case Isa::Portable: generic::call; break;            \
    }

void apply(double* amps, int n, const PreparedGate& g)
{
    apply(amps, n, g, 0);
}

void sweepInPlace(double* x, int64_t count, double scale, double offset)
{
    SPYGLASS_ON_ACTIVE_BUILD(sweepInPlace(x, count, scale, offset))
}

void swapTileRows(float* back, float* buf, const float* next, uint64_t rows, uint64_t rowFloats, uint64_t strideFloats, uint64_t ahead)
{
    SPYGLASS_ON_ACTIVE_BUILD(swapTileRows(back, buf, next, rows, rowFloats, strideFloats, ahead))
}

void moveRuns(float* to, uint64_t toBase, const uint64_t* toRun, const float* from, uint64_t fromBase, const uint64_t* fromRun, size_t runs, uint64_t runFloats)
{
    SPYGLASS_ON_ACTIVE_BUILD(moveRuns(to, toBase, toRun, from, fromBase, fromRun, runs, runFloats))
}

void cycleRows(float* base, const uint64_t* rowAt, const uint32_t* cycleEnd, size_t cycles, uint64_t rowFloats)
{
    SPYGLASS_ON_ACTIVE_BUILD(cycleRows(base, rowAt, cycleEnd, cycles, rowFloats))
}

void applyPhaseProduct(double* amps, int n, const PhaseProduct& p, uint64_t heldZero)
{
    SPYGLASS_ON_ACTIVE_BUILD(applyPhaseProduct(amps, n, p, heldZero))
}

void applyPhaseProduct(float* amps, int n, const PhaseProduct& p, uint64_t heldZero)
{
    SPYGLASS_ON_ACTIVE_BUILD(applyPhaseProduct(amps, n, p, heldZero))
}

template <class T>
bool applyProgramOnActiveBuild(T* amps, int n, const PreparedGate& g, uint64_t heldZero, const PhaseProduct* before, int beforeCount)
{
    switch (activeIsa()) {
    case Isa::Avx512: return avx512::applyProgram(amps, n, g, heldZero, before, beforeCount);
    case Isa::Avx2: return avx2::applyProgram(amps, n, g, heldZero, before, beforeCount);
    case Isa::Portable: break;
    }
    return generic::applyProgram(amps, n, g, heldZero, before, beforeCount);
}

bool applyProgram(double* amps, int n, const PreparedGate& g, uint64_t heldZero, const PhaseProduct* before, int beforeCount)
{
    return applyProgramOnActiveBuild(amps, n, g, heldZero, before, beforeCount);
}

bool applyProgram(float* amps, int n, const PreparedGate& g, uint64_t heldZero, const PhaseProduct* before, int beforeCount)
{
    return applyProgramOnActiveBuild(amps, n, g, heldZero, before, beforeCount);
}

namespace {
constexpr double kPhaseProductTolerance = 1e-14;

void multiplyInto(double* z, const double* w)
{
    const double re = z[0] * w[0] - z[1] * w[1], im = z[0] * w[1] + z[1] * w[0];
    z[0] = re;
    z[1] = im;
}

// p with `qubit`, a control of p's only when p has no targets, turned into p's one target (factor = scale).
bool controlToTarget(PhaseProduct& p, int qubit)
{
    if (p.targets)
        return false;
    p.controls &= ~(uint64_t(1) << qubit);
    p.targets = uint64_t(1) << qubit;
    p.factor[qubit][0] = p.scale[0];
    p.factor[qubit][1] = p.scale[1];
    p.scale[0] = 1;
    p.scale[1] = 0;
    return true;
}

// p's controls narrowed to `controls` (a subset), or false when p is then no PhaseProduct.
bool narrowControls(PhaseProduct& p, uint64_t controls)
{
    const uint64_t dropped = p.controls & ~controls;
    if (!dropped)
        return true;
    if (dropped & (dropped - 1))
        return false;
    return controlToTarget(p, __builtin_ctzll(dropped));
}
}  // namespace

bool phasesOf(const PreparedGate& g, GatePhases& out)
{
    const int dim = 1 << g.k;
    if (!g.diagonalMatrix || g.k > kMaxTargets || (!g.diagonal && g.matrix.size() < size_t(2) * dim * dim))
        return false;
    // The factors: listed where they are not 1 (the diagonal kernel), or the dense matrix's diagonal (rz, crz).
    double d[2 << kMaxTargets];
    for (int j = 0; j < dim; ++j) {
        d[2 * j] = g.diagonal ? 1 : g.matrix[2 * (size_t(j) * dim + j)];
        d[2 * j + 1] = g.diagonal ? 0 : g.matrix[2 * (size_t(j) * dim + j) + 1];
    }
    for (size_t e = 0; e < g.diagIndex.size(); ++e) {
        d[2 * g.diagIndex[e]] = g.diagValue[2 * e];
        d[2 * g.diagIndex[e] + 1] = g.diagValue[2 * e + 1];
    }
    const auto isOne = [&](int j) { return std::abs(d[2 * j] - 1) <= kPhaseProductTolerance && std::abs(d[2 * j + 1]) <= kPhaseProductTolerance; };
    // Local bits whose 0 leaves every factor 1 act as controls.
    int controlBits = 0;
    for (int b = 0; b < g.k; ++b) {
        bool control = true;
        for (int j = 0; j < dim && control; ++j)
            control = (j >> b & 1) || isOne(j);
        if (control)
            controlBits |= 1 << b;
    }
    // Where they are all set, the factors must be a product of one factor per other bit.
    const int base = controlBits;
    const double* db = d + 2 * base;
    if (db[0] * db[0] + db[1] * db[1] < 0.5)
        return false;
    double f[kMaxTargets][2] = {};
    for (int b = 0; b < g.k; ++b)
        if (!(controlBits >> b & 1)) {
            // d[base | bit] / d[base]: |d[base]| is 1 (a unitary's diagonal), so the conjugate divides.
            const double* dj = d + 2 * (base | 1 << b);
            f[b][0] = dj[0] * db[0] + dj[1] * db[1];
            f[b][1] = dj[1] * db[0] - dj[0] * db[1];
        }
    for (int j = base; j < dim; j = (j + 1) | base) {
        double z[2] = {db[0], db[1]};
        for (int b = 0; b < g.k; ++b)
            if ((j & ~base) >> b & 1)
                multiplyInto(z, f[b]);
        if (std::abs(z[0] - d[2 * j]) > kPhaseProductTolerance || std::abs(z[1] - d[2 * j + 1]) > kPhaseProductTolerance)
            return false;
    }
    out.controls = out.targets = 0;
    for (int c : g.controls)
        out.controls |= uint64_t(1) << c;
    out.scale[0] = db[0];
    out.scale[1] = db[1];
    int count = 0;
    for (int b = 0; b < g.k; ++b) {   // targets ascending, so the factors follow the set bits of out.targets
        const int q = g.targets[b];
        if (controlBits >> b & 1) {
            out.controls |= uint64_t(1) << q;
        } else if (f[b][0] != 1 || f[b][1] != 0) {
            out.targets |= uint64_t(1) << q;
            out.factor[count][0] = f[b][0];
            out.factor[count][1] = f[b][1];
            ++count;
        }
    }
    return true;
}

PhaseProduct phaseProduct(const GatePhases& g)
{
    PhaseProduct p;
    p.controls = g.controls;
    p.targets = g.targets;
    p.scale[0] = g.scale[0];
    p.scale[1] = g.scale[1];
    int i = 0;
    for (uint64_t t = g.targets; t; t &= t - 1, ++i) {
        p.factor[__builtin_ctzll(t)][0] = g.factor[i][0];
        p.factor[__builtin_ctzll(t)][1] = g.factor[i][1];
    }
    return p;
}

bool mergePhaseProducts(PhaseProduct& into, const PhaseProduct& next)
{
    const uint64_t common = into.controls & next.controls;
    PhaseProduct a = into, b = next;
    if (!narrowControls(a, common) || !narrowControls(b, common))
        return false;
    // A target on a common control is 1 wherever the product applies: its factor joins the scale.
    for (PhaseProduct* p : {&a, &b})
        for (uint64_t t = p->targets & common; t; t &= t - 1) {
            const int q = __builtin_ctzll(t);
            multiplyInto(p->scale, p->factor[q]);
            p->targets &= ~(uint64_t(1) << q);
        }
    multiplyInto(a.scale, b.scale);
    for (uint64_t t = b.targets; t; t &= t - 1) {
        const int q = __builtin_ctzll(t);
        if (a.targets >> q & 1) {
            multiplyInto(a.factor[q], b.factor[q]);
        } else {
            a.factor[q][0] = b.factor[q][0];
            a.factor[q][1] = b.factor[q][1];
            a.targets |= uint64_t(1) << q;
        }
    }
    into = a;
    return true;
}

uint64_t fastControlWindow(uint64_t notVarying)
{
    uint64_t window = 0;
    for (int b = 0, found = 0; b < 64 && found < kFastControlBits; ++b)
        if (!(notVarying >> b & 1)) {
            window |= uint64_t(1) << b;
            ++found;
        }
    return window;
}

double diagonalTouched(const PreparedGate& g)
{
    // A diagonal matrix on a dense kernel (rz) reads and writes every amplitude its controls select.
    const double listed = g.diagonal ? double(g.diagIndex.size()) : double(1 << g.k);
    return listed / double(uint64_t(1) << (g.k + g.controls.size()));
}

void apply(float* amps, int n, const PreparedGate& g)
{
    apply(amps, n, g, 0);
}

void apply(double* amps, int n, const PreparedGate& g, uint64_t heldZero)
{
    SPYGLASS_ON_ACTIVE_BUILD(apply(amps, n, g, heldZero))
}

void apply(float* amps, int n, const PreparedGate& g, uint64_t heldZero)
{
    SPYGLASS_ON_ACTIVE_BUILD(apply(amps, n, g, heldZero))
}

void prepareLaneTable(const PreparedGate& g, bool single)
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
        const int width = isa == Isa::Avx512 ? avx512::vectorBytes() : isa == Isa::Avx2 ? avx2::vectorBytes() : generic::vectorBytes();
        if (bytes == width && !table.empty())
            return;   // laid out already (the gate itself ran in an earlier cache-blocked run)
        table.resize(static_cast<size_t>(lay(nullptr)));
        if (!table.empty())
            lay(table.data());
        bytes = width;
    };
    if (single)
        fill(g.laneTableSingle, g.laneTableSingleBytes);
    else
        fill(g.laneTableDouble, g.laneTableDoubleBytes);
}

bool tensorFactorsOf(const double* m, int k, double* factors)
{
    typedef std::complex<double> Z;
    const int dim = 1 << k;
    const auto at = [&](int r, int c) { return Z(m[2 * (size_t(r) * dim + c)], m[2 * (size_t(r) * dim + c) + 1]); };
    // M[r][c] = prod_j F_j[r_j][c_j], so F_j[a][b] / F_j[r0_j][c0_j] = M[r0 with bit j a][c0 with bit j b] / M[r0][c0]
    // for any entry (r0, c0) other than 0: the largest one, for the least rounding. The scale goes to factor 0.
    int pivot = 0;
    double largest = -1;
    for (int e = 0; e < dim * dim; ++e)
        if (const double v = m[2 * e] * m[2 * e] + m[2 * e + 1] * m[2 * e + 1]; v > largest) {
            largest = v;
            pivot = e;
        }
    if (!(largest > 0))
        return false;
    const int r0 = pivot / dim, c0 = pivot % dim;
    const Z inverse = std::conj(at(r0, c0)) / largest;   // 1 / M[r0][c0], one division for all the ratios
    Z f[kMaxTargets][2][2];
    for (int j = 0; j < k; ++j)
        for (int a = 0; a < 2; ++a)
            for (int b = 0; b < 2; ++b) {
                const int r = (r0 & ~(1 << j)) | a << j, c = (c0 & ~(1 << j)) | b << j;
                f[j][a][b] = j == 0 ? at(r, c) : at(r, c) * inverse;
            }
    // 1e-13 of the largest entry (1e-13 for a unitary): a scaled-down matrix is held to its own scale.
    const double kTolerance = 1e-13 * std::sqrt(largest);
    for (int r = 0; r < dim; ++r)
        for (int c = 0; c < dim; ++c) {
            Z z = f[0][r & 1][c & 1];
            for (int j = 1; j < k; ++j)
                z *= f[j][r >> j & 1][c >> j & 1];
            if (std::abs(z.real() - m[2 * (size_t(r) * dim + c)]) > kTolerance || std::abs(z.imag() - m[2 * (size_t(r) * dim + c) + 1]) > kTolerance)
                return false;
        }
    if (factors)
        for (int j = 0; j < k; ++j)
            for (int e = 0; e < 4; ++e) {
                factors[8 * j + 2 * e] = f[j][e >> 1][e & 1].real();
                factors[8 * j + 2 * e + 1] = f[j][e >> 1][e & 1].imag();
            }
    return true;
}

bool useTensorKernel(PreparedGate& g)
{
    std::vector<double> factors(size_t(8) * g.k);
    if (g.k > kMaxTargets || !tensorFactorsOf(g.matrix.data(), g.k, factors.data()))
        return false;
    g.tensor = true;
    g.sparse = false;
    g.tensorFactors = std::move(factors);
    return true;
}

bool isButterflyFactor(const double* f)
{
    // f[2 * (2a + b)] = Re F[a][b]: every imaginary part 0, F[0][1] = F[0][0], F[1][1] = -F[1][0], |F[1][0]| = |F[0][0]|,
    // to 1e-14 of |F[0][0]| (a fused block's entries are products taken in different orders; its factors, ratios
    // of them, are that close to +-1 times each other).
    const double tolerance = 1e-14 * std::abs(f[0]);
    return f[0] != 0 && f[1] == 0 && f[3] == 0 && f[5] == 0 && f[7] == 0 && std::abs(f[2] - f[0]) <= tolerance &&
           std::abs(f[6] + f[4]) <= tolerance && std::abs(std::abs(f[4]) - std::abs(f[0])) <= tolerance;
}

CostShape kernelShape(int k, bool diagonalMatrix, int nonZeros, int diagonalFactorsNotOne, bool realMatrix, bool permutation, bool tensor)
{
    CostShape s;
    s.k = k;
    s.real = realMatrix;
    s.diagonal = diagonalMatrix && !(k == 1 && diagonalFactorsNotOne == 2);
    s.entries = s.diagonal ? diagonalFactorsNotOne : 0;
    if (permutation && !diagonalMatrix) {
        s.permutation = true;
        s.entries = diagonalFactorsNotOne;
        return s;
    }
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
    if (tensor && !s.diagonal && k >= 2 && k <= kMaxTensorTargets) {
        CostShape t = s;
        t.sparse = false;
        t.entries = 0;
        t.tensor = true;
        CostShape other = s;
        other.lowestTarget = kMaxTargets;   // weighed as above
        if (relativeCost(t) < relativeCost(other))
            s = t;
    }
    return s;
}

MatrixShape shapeOfMatrix(const double* m, int k, bool onlyDiagonal)
{
    const int dim = 1 << k;
    // Without branches on the entries (the fuse pass weighs thousands of products a run): one sweep over all of
    // them, one over the diagonal.
    int nonZeros = 0, imaginary = 0, ones = 0;
    for (int e = 0; e < dim * dim; ++e) {
        const double re = m[2 * e], im = m[2 * e + 1];
        nonZeros += (re != 0) | (im != 0);
        imaginary |= im != 0;
        ones += (re == 1) & (im == 0);
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
    s.permutation = !s.diagonalMatrix && ones == dim && nonZeros == dim && permutationOf(m, dim, nullptr);
    s.tensor = !s.diagonalMatrix && !s.permutation && k >= 2 && k <= kMaxTensorTargets && tensorFactorsOf(m, k, nullptr);
    s.kernel = kernelShape(k, s.diagonalMatrix, s.nonZeros, notOne, s.realMatrix, s.permutation, s.tensor);
    return s;
}

uint64_t targetMask(const PreparedGate& g)
{
    uint64_t m = 0;
    for (int j = 0; j < g.k; ++j)
        m |= uint64_t(1) << g.targets[j];
    return m;
}

uint64_t qubitMask(const PreparedGate& g)
{
    uint64_t m = targetMask(g);
    for (int c : g.controls)
        m |= uint64_t(1) << c;
    return m;
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
    int mixed = 0;
    for (int r = 0; r < dim; ++r)
        for (int c = 0; c < dim; ++c)
            if (g.matrix[2 * (r * dim + c)] != 0 || g.matrix[2 * (r * dim + c) + 1] != 0)
                mixed |= r ^ c;
    g.unmixedBits = (dim - 1) & ~mixed;
    const MatrixShape shape = shapeOfMatrix(g.matrix.data(), k);
    g.diagonalMatrix = shape.diagonalMatrix;
    g.realMatrix = shape.realMatrix;
    g.diagonal = shape.kernel.diagonal;
    g.sparse = shape.kernel.sparse;
    g.permutation = shape.permutation;
    if (shape.kernel.tensor)
        useTensorKernel(g);
    if (g.permutation) {
        g.permSource.resize(dim);
        permutationOf(g.matrix.data(), dim, g.permSource.data());
    }
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
