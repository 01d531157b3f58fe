#include "core/quantum/kernel_calibration.h"

#include "core/quantum/statevector.h"

#include <omp.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <new>
#include <optional>
#include <random>

#if defined(__linux__)
#include <sched.h>
#endif

namespace spyglass::quantum::kernels {

namespace {

double seconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A random unitary on `dim` (Gram-Schmidt on Gaussian columns; real: orthogonal), interleaved re/im. Unitary, so
// the repeated applications keep the amplitudes' size (a non-unitary matrix drives them into subnormals, which
// run many times slower and measure the CPU's microcode instead of the kernel).
std::vector<double> randomUnitary(int dim, bool real, std::mt19937_64& rng)
{
    std::normal_distribution<double> normal;
    std::vector<std::complex<double>> u(size_t(dim) * dim);
    for (auto& x : u)
        x = {normal(rng), real ? 0.0 : normal(rng)};
    for (int c = 0; c < dim; ++c) {
        for (int p = 0; p < c; ++p) {
            std::complex<double> dot = 0;
            for (int r = 0; r < dim; ++r)
                dot += std::conj(u[size_t(r) * dim + p]) * u[size_t(r) * dim + c];
            for (int r = 0; r < dim; ++r)
                u[size_t(r) * dim + c] -= dot * u[size_t(r) * dim + p];
        }
        double norm = 0;
        for (int r = 0; r < dim; ++r)
            norm += std::norm(u[size_t(r) * dim + c]);
        for (int r = 0; r < dim; ++r)
            u[size_t(r) * dim + c] /= std::sqrt(norm);
    }
    std::vector<double> m;
    for (const auto& x : u) {
        m.push_back(x.real());
        m.push_back(x.imag());
    }
    return m;
}

// A program probe's steps (KernelProbe::layers).
std::vector<ProgramStep> programOf(const KernelProbe& s, std::mt19937_64& rng)
{
    const int k = static_cast<int>(s.targets.size());
    std::uniform_real_distribution<double> angle(0, 6.283185307179586);
    std::vector<ProgramStep> steps;
    for (int layer = 0; layer < s.layers; ++layer) {
        for (int j = 0; j < k; ++j) {
            if (s.steps != ProgramStepKind::ImagOff) {
                steps.push_back({j, randomUnitary(2, s.steps == ProgramStepKind::Real, rng)});
                continue;
            }
            const double theta = angle(rng);   // one angle for both entries, so the step stays unitary
            steps.push_back({j, {std::cos(theta / 2), 0, 0, -std::sin(theta / 2), 0, -std::sin(theta / 2), std::cos(theta / 2), 0}});
        }
        if (layer + 1 < s.layers || s.trailingDiagonal) {
            ProgramStep d;
            for (int i = 0; i < 1 << k; ++i) {
                const double a = angle(rng);
                d.values.push_back(std::cos(a));
                d.values.push_back(std::sin(a));
            }
            steps.push_back(std::move(d));
        }
    }
    return steps;
}

std::vector<double> matrixOf(const KernelProbe& s, std::mt19937_64& rng)
{
    const int k = static_cast<int>(s.targets.size()), dim = 1 << k;
    if (s.kind == KernelProbe::Dense || s.kind == KernelProbe::Real)
        return randomUnitary(dim, s.kind == KernelProbe::Real, rng);
    std::uniform_real_distribution<double> angle(0, 6.283185307179586);
    std::vector<double> m(size_t(2) * dim * dim, 0.0);
    if (s.kind == KernelProbe::Tensor || s.kind == KernelProbe::TensorReal) {
        // Factor j on index bit j: the Kronecker product built up from the lowest bit.
        std::vector<std::complex<double>> prod{1.0};
        for (int j = 0; j < k; ++j) {
            const std::vector<double> f = randomUnitary(2, s.kind == KernelProbe::TensorReal, rng);
            const size_t d = size_t(1) << j, nd = 2 * d;
            std::vector<std::complex<double>> next(nd * nd);
            for (size_t r = 0; r < nd; ++r)
                for (size_t c = 0; c < nd; ++c) {
                    const size_t fe = 2 * ((r / d) * 2 + c / d);
                    next[r * nd + c] = std::complex<double>(f[fe], f[fe + 1]) * prod[(r % d) * d + c % d];
                }
            prod = std::move(next);
        }
        for (size_t e = 0; e < prod.size(); ++e) {
            m[2 * e] = prod[e].real();
            m[2 * e + 1] = prod[e].imag();
        }
        return m;
    }
    if (s.kind == KernelProbe::Permutation) {
        // One cycle through every row: each amplitude moves.
        for (int r = 0; r < dim; ++r)
            m[2 * (size_t(r) * dim + (r + 1) % dim)] = 1;
        return m;
    }
    if (s.kind == KernelProbe::Diagonal) {
        for (int r = 0; r < dim; ++r) {
            const bool one = s.onlyLastFactor ? r != dim - 1 : r % 4 == 0;
            const double a = one ? 0.0 : angle(rng);
            m[2 * (size_t(r) * dim + r)] = one ? 1.0 : std::cos(a);
            m[2 * (size_t(r) * dim + r) + 1] = one ? 0.0 : std::sin(a);
        }
        return m;
    }
    const int half = dim / 2;
    const std::vector<double> u = randomUnitary(half, false, rng);
    for (int top = 0; top < 2; ++top) {
        const std::complex<double> phase = std::polar(1.0, angle(rng));
        for (int r = 0; r < half; ++r)
            for (int c = 0; c < half; ++c) {
                const std::complex<double> x = phase * std::complex<double>(u[2 * (size_t(r) * half + c)], u[2 * (size_t(r) * half + c) + 1]);
                const size_t e = size_t(top * half + r) * dim + top * half + c;
                m[2 * e] = x.real();
                m[2 * e + 1] = x.imag();
            }
    }
    return m;
}

// The uniform superposition on 2^n amplitudes: a unit vector, kept so by the unitary gates.
template <class T>
std::vector<T> uniformState(int n)
{
    std::vector<T> amps(size_t(2) << n, T(0));
    for (size_t i = 0; i < amps.size(); i += 2)
        amps[i] = T(1 / std::sqrt(double(size_t(1) << n)));
    return amps;
}

// One sample: g applied reps times to amps, ns per amplitude.
template <class T>
double sampleNs(std::vector<T>& amps, int n, const PreparedGate& g, int reps)
{
    const double t0 = seconds();
    for (int r = 0; r < reps; ++r)
        apply(amps.data(), n, g);
    return (seconds() - t0) / reps * 1e9 / double(size_t(1) << n);
}

// The CPUs the calling thread may run on (at most kMaxTimedCpus of them), and the thread held on one of them at a
// time; the thread's affinity is restored when destroyed. The probes' timings are differences the fit takes apart
// (a program's base is its 4-step time less 4 of its step costs), and on the VM of BENCHMARKS.md the two vCPUs ran
// the cache-bound probes 2x apart (a program's base 0.044 against 0.252 ns an amplitude): a table timed on the
// faster one made qft_26 1.5x slower on both (BENCHMARKS.md, "a calibration timed on every CPU").
class CpuPins {
public:
    static constexpr int kMaxTimedCpus = 4;
    CpuPins()
    {
#if defined(__linux__)
        held_ = sched_getaffinity(0, sizeof before_, &before_) == 0;
        for (int c = 0; held_ && c < CPU_SETSIZE && int(cpus_.size()) < kMaxTimedCpus; ++c)
            if (CPU_ISSET(c, &before_))
                cpus_.push_back(c);
#endif
        if (cpus_.empty())
            cpus_.push_back(-1);   // wherever the thread runs
    }
    ~CpuPins()
    {
#if defined(__linux__)
        if (held_)
            sched_setaffinity(0, sizeof before_, &before_);
#endif
    }
    CpuPins(const CpuPins&) = delete;
    CpuPins& operator=(const CpuPins&) = delete;
    const std::vector<int>& cpus() const { return cpus_; }
    void pin(int cpu)
    {
#if defined(__linux__)
        if (held_ && cpu >= 0) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            sched_setaffinity(0, sizeof one, &one);
        }
#else
        (void)cpu;
#endif
    }

private:
    std::vector<int> cpus_;
#if defined(__linux__)
    cpu_set_t before_;
    bool held_ = false;
#endif
};

double mean(const std::vector<double>& v)
{
    double s = 0;
    for (double x : v)
        s += x;
    return v.empty() ? 0 : s / double(v.size());
}

// A probe of k targets twice: from qubit 0 (inside the vector lanes) and from `high` (above them).
void addPlacements(std::vector<KernelProbe>& probes, const std::string& what, KernelProbe::Kind kind, int k, int high)
{
    std::vector<int> low, above;
    for (int j = 0; j < k; ++j) {
        low.push_back(j);
        above.push_back(high + j);
    }
    probes.push_back({what + ", targets 0..", kind, {}, low, false});
    probes.push_back({what + ", targets above the lanes", kind, {}, above, true});
}

// Least squares y = intercept + slope x.
struct Line {
    double intercept = 0, slope = 0;
};
Line fitLine(const std::vector<double>& x, const std::vector<double>& y)
{
    const double mx = mean(x), my = mean(y);
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
    }
    const double slope = sxx > 0 ? sxy / sxx : 0;
    return {my - slope * mx, slope};
}

}  // namespace

std::vector<KernelProbe> kernelProbes()
{
    // Above the vector lanes of every build and precision: complex64 in a 512-bit vector spans qubits 0-2.
    const int high = 4;
    std::vector<KernelProbe> probes;
    for (int k = 1; k <= 4; ++k)
        for (KernelProbe::Kind kind : {KernelProbe::Dense, KernelProbe::Real})
            addPlacements(probes, "dense " + std::to_string(k) + "q " + (kind == KernelProbe::Real ? "real" : "complex"), kind, k, high);
    probes.push_back({"dense 5q complex, targets 0..", KernelProbe::Dense, {}, {0, 1, 2, 3, 4}, false});
    probes.push_back({"dense 6q complex, targets 0..", KernelProbe::Dense, {}, {0, 1, 2, 3, 4, 5}, false});
    probes.push_back({"dense 1q complex, 1 control", KernelProbe::Dense, {high + 2}, {high}, true});
    probes.push_back({"sparse 2q (2 per row), targets above the lanes", KernelProbe::Sparse, {}, {high, high + 1}, true});
    probes.push_back({"sparse 2q (2 per row), targets 0, 1", KernelProbe::Sparse, {}, {0, 1}, false});
    probes.push_back({"sparse 3q (4 per row), targets above the lanes", KernelProbe::Sparse, {}, {high, high + 1, high + 2}, true});
    for (int k = 1; k <= 4; ++k)
        addPlacements(probes, "permutation " + std::to_string(k) + "q (every row moves)", KernelProbe::Permutation, k, high);
    for (int k = 2; k <= 4; ++k)
        for (KernelProbe::Kind kind : {KernelProbe::Tensor, KernelProbe::TensorReal})
            addPlacements(probes, "tensor of " + std::to_string(k) + " 1q " + (kind == KernelProbe::TensorReal ? "real" : "complex"), kind, k, high);
    // Programs on 4 targets above the lanes: a layer of real steps alone and with a diagonal after it, three
    // layers of real steps, one and three of complex ones, three of rx-like ones (fitCostTable solves the five
    // costs from them).
    const std::vector<int> four{high, high + 1, high + 2, high + 3};
    const ProgramStepKind real = ProgramStepKind::Real, complex = ProgramStepKind::Complex;
    probes.push_back({"program: 4 real steps", KernelProbe::Program, {}, four, true, false, 1, real, false});
    probes.push_back({"program: 4 real steps, 1 diagonal", KernelProbe::Program, {}, four, true, false, 1, real, true});
    probes.push_back({"program: 12 real steps, 2 diagonals", KernelProbe::Program, {}, four, true, false, 3, real, false});
    probes.push_back({"program: 4 complex steps", KernelProbe::Program, {}, four, true, false, 1, complex, false});
    probes.push_back({"program: 12 complex steps, 2 diagonals", KernelProbe::Program, {}, four, true, false, 3, complex, false});
    probes.push_back({"program: 12 real steps, 2 diagonals, targets 0..", KernelProbe::Program, {}, {0, 1, 2, 3}, false, false, 3, real, false});
    probes.push_back({"program: 12 rx-like steps, 2 diagonals", KernelProbe::Program, {}, four, true, false, 3, ProgramStepKind::ImagOff, false});
    probes.push_back({"diagonal 1q", KernelProbe::Diagonal, {}, {high}, true});
    probes.push_back({"diagonal 2q (cp-like: 1 of 4 factors != 1)", KernelProbe::Diagonal, {}, {high, high + 1}, true, true});
    probes.push_back({"diagonal 2q (3 of 4 factors != 1)", KernelProbe::Diagonal, {}, {high, high + 1}, true});
    probes.push_back({"diagonal 3q (6 of 8 factors != 1)", KernelProbe::Diagonal, {}, {high, high + 1, high + 2}, true});
    // Short segments: the lowest target inside the vector (the fit leaves it out; the table shows how far off it is).
    probes.push_back({"diagonal 3q, targets 1, 4, 5", KernelProbe::Diagonal, {}, {1, high, high + 1}, false});
    return probes;
}

std::vector<KernelTiming> timeKernels(int qubits, bool alsoComplex64, const std::function<void(const KernelTiming&)>& progress,
                                      TimingEffort effort, const std::vector<KernelProbe>& probes)
{
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    std::mt19937_64 rng(3);
    std::vector<KernelTiming> out;
    for (const KernelProbe& p : probes) {
        KernelTiming t;
        t.probe = p;
        if (p.kind == KernelProbe::Program) {
            // The steps' product is the gate's matrix, which the portable build runs.
            const std::vector<ProgramStep> steps = programOf(p, rng);
            t.gate = prepare(p.controls, p.targets, programMatrix(static_cast<int>(p.targets.size()), steps));
            if (activeIsa() != Isa::Portable)
                setProgram(t.gate, p.targets, steps);
        } else {
            t.gate = prepare(p.controls, p.targets, matrixOf(p, rng));
        }
        // The tensor kernel is measured whatever the table in use says of it (prepare() picks it by that table;
        // a table that priced it too high would never be corrected). The portable build has none.
        if ((p.kind == KernelProbe::Tensor || p.kind == KernelProbe::TensorReal) && activeIsa() != Isa::Portable)
            useTensorKernel(t.gate);
        out.push_back(std::move(t));
    }
    // Every probe a sample a round on each CPU, the best of the rounds on each: a core that slows down for a while
    // (another guest on it) then slows every probe alike rather than the ones timed meanwhile. A probe's cost is the
    // harmonic mean of its CPUs' (their rates add up when threads share the work). Enough repetitions for a sample
    // of effort.sampleSeconds at 0.5 ns an amplitude.
    CpuPins pins;
    const size_t cpus = pins.cpus().size();
    const int reps = std::max(1, int(effort.sampleSeconds * 2e9 / double(size_t(1) << qubits)));
    std::vector<double> amps128 = uniformState<double>(qubits);
    std::vector<float> amps64 = alsoComplex64 ? uniformState<float>(qubits) : std::vector<float>();
    // Each probe's gate laid out as the cache-blocked runs apply it, for complex128 and complex64.
    const int precisions = 1 + alsoComplex64;
    std::vector<PreparedGate> laidOut[2];
    for (int single = 0; single < precisions; ++single)
        for (const KernelTiming& t : out) {
            laidOut[single].push_back(t.gate);
            prepareLaneTable(laidOut[single].back(), single);
        }
    std::vector<double> best[2];
    for (int single = 0; single < precisions; ++single)
        best[single].assign(out.size() * cpus, 1e30);
    for (int sample = 0; sample < std::max(1, effort.samples); ++sample)
        for (size_t c = 0; c < cpus; ++c) {
            pins.pin(pins.cpus()[c]);
            for (size_t i = 0; i < out.size(); ++i) {
                double& b128 = best[0][i * cpus + c];
                b128 = std::min(b128, sampleNs(amps128, qubits, laidOut[0][i], reps));
                if (alsoComplex64) {
                    double& b64 = best[1][i * cpus + c];
                    b64 = std::min(b64, sampleNs(amps64, qubits, laidOut[1][i], reps));
                }
            }
        }
    for (size_t i = 0; i < out.size(); ++i) {
        double rate[2] = {0, 0};
        for (size_t c = 0; c < cpus; ++c)
            for (int single = 0; single < precisions; ++single)
                rate[single] += 1 / best[single][i * cpus + c];
        out[i].complex128Ns = double(cpus) / rate[0];
        out[i].complex64Ns = alsoComplex64 ? double(cpus) / rate[1] : 0;
    }
    if (progress)
        for (const KernelTiming& t : out)
            progress(t);
    omp_set_num_threads(threads);
    return out;
}

double measureInPlaceBandwidth(size_t bytes)
{
    // Over a state's own memory (mapped and first-touched as a state is, in huge pages where they are faster) and
    // in the widest vectors, as a gate sweeps it: a scalar loop over aligned_alloc'd memory was bound by the core,
    // not the memory (2026-12-05 on the Xeon of BENCHMARKS.md, 2 threads, 512 MiB: 23.6 GB/s, against 57.7 in
    // AVX-512 vectors over huge pages and 46 GB/s that a one-gate pass of our simulator reached).
    const int n = std::max(4, static_cast<int>(std::bit_width(bytes / 16)) - 1);
    std::optional<StateVector> state;
    try {
        state.emplace(n, Precision::Double);
    } catch (const std::exception&) {
        return 0;
    }
    double* x = state->dataDouble();
    const int64_t count = int64_t(2) << n;
    kernels::sweepInPlace(x, count, 0.0, 1.0);
    double best = 0;
    for (int rep = 0; rep < 3; ++rep) {
        const double t0 = seconds();
        kernels::sweepInPlace(x, count, 0.999, 0.001);
        best = std::max(best, 2.0 * double(count * sizeof(double)) / (seconds() - t0) / 1e9);
    }
    // Read a result, so the passes cannot be dropped as dead stores.
    volatile double sink = x[count / 2];
    (void)sink;
    return best;
}

int measureTileRowsAhead(int numQubits)
{
    if (StateVector::blocks(numQubits, Precision::Single).tilesInPlace)
        return 0;
    std::optional<StateVector> state;
    try {
        state.emplace(numQubits, Precision::Single);
    } catch (const std::exception&) {
        return 0;
    }
    state->copyTiles(0);   // the threads' tile buffers mapped before any round is timed
    constexpr int kAhead[] = {0, 4, 8, 16};
    double best[std::size(kAhead)];
    std::fill(std::begin(best), std::end(best), 1e300);
    for (int round = 0; round < 3; ++round) {
        for (size_t c = 0; c < std::size(kAhead); ++c) {
            const double t0 = seconds();
            state->copyTiles(static_cast<uint64_t>(kAhead[c]));
            best[c] = std::min(best[c], seconds() - t0);
        }
    }
    // Asking ahead has to win by more than the rounds' noise (3 %) to be kept.
    size_t chosen = 0;
    for (size_t c = 1; c < std::size(kAhead); ++c)
        if (best[c] < best[chosen] && best[c] < 0.97 * best[0])
            chosen = c;
    return kAhead[chosen];
}

double passCostFromBandwidth(double gbs, int threads) { return 2.0 * double(threads) * 32.0 / gbs; }

CostTable fitCostTable(const std::vector<KernelTiming>& timings, double passCost)
{
    CostTable t;
    std::vector<double> dense[7], real[7];
    std::vector<double> diagonalX, diagonalY;
    double sparseNs[7] = {}, sparsePerRow[7] = {};
    double cheapest = 1e30, controlledNs = 0;
    std::vector<double> permutation;
    std::vector<double> tensorK[2], tensorNs[2];   // complex, real: targets above the lanes
    std::vector<const KernelTiming*> tensorInLanes[2];   // the same from qubit 0
    double programNs[7] = {};   // the program probes, in kernelProbes()' order
    int programs = 0;
    for (const KernelTiming& m : timings) {
        const int k = m.gate.k;
        if (m.probe.kind != KernelProbe::Permutation && !m.gate.tensor)   // the floor is of the dense, sparse and diagonal kernels
            cheapest = std::min(cheapest, m.complex128Ns);
        switch (m.probe.kind) {
        case KernelProbe::Dense:
            if (!m.gate.controls.empty())
                controlledNs = m.complex128Ns;
            else
                dense[k].push_back(m.complex128Ns);
            break;
        case KernelProbe::Real:
            real[k].push_back(m.complex128Ns);
            break;
        case KernelProbe::Sparse:
            if (m.gate.sparse && m.probe.aboveLanes) {   // the sparse kernel itself (below the lanes it runs dense)
                sparseNs[k] = m.complex128Ns;
                sparsePerRow[k] = double(m.gate.sparseCol.size()) / double(1 << k);
            }
            break;
        case KernelProbe::Permutation:   // every row moves
            permutation.push_back(m.complex128Ns);
            break;
        case KernelProbe::Tensor:
        case KernelProbe::TensorReal:
            if (!m.gate.tensor)   // the portable build runs them dense
                break;
            if (m.probe.aboveLanes) {
                tensorK[m.probe.kind == KernelProbe::TensorReal].push_back(k);
                tensorNs[m.probe.kind == KernelProbe::TensorReal].push_back(m.complex128Ns);
            } else {
                tensorInLanes[m.probe.kind == KernelProbe::TensorReal].push_back(&m);
            }
            break;
        case KernelProbe::Program:
            if (m.gate.program && programs < 7)   // the portable build runs them dense
                programNs[programs++] = m.complex128Ns;
            break;
        case KernelProbe::Diagonal:
            if (!m.probe.aboveLanes)
                break;
            diagonalX.push_back(double(m.gate.diagIndex.size()) / double(1 << k));
            diagonalY.push_back(m.complex128Ns);
            break;
        }
    }
    // Dense: the mean of the targets' placements measured (from qubit 0 and above the lanes); a size not measured
    // costs what the built-in table says relative to the largest size measured below it.
    const CostTable& builtin = builtinCostTable();
    for (int k = 1; k <= 6; ++k) {
        t.dense[k] = dense[k].empty() ? t.dense[k - 1] * builtin.dense[k] / std::max(1e-9, builtin.dense[k - 1]) : mean(dense[k]);
        t.denseReal[k] = real[k].empty() ? t.dense[k] : std::min(mean(real[k]), t.dense[k]);
    }
    t.controlled = controlledNs > 0 ? controlledNs / t.dense[1] : builtin.controlled;
    // Diagonal (targets above the lanes): least squares on the fraction of factors != 1, the slope kept >= 0.
    const Line diagonal = fitLine(diagonalX, diagonalY);
    t.diagonalSlope = std::max(0.0, diagonal.slope);
    t.diagonalBase = std::max(0.0, mean(diagonalY) - t.diagonalSlope * mean(diagonalX));
    // Sparse: the cost per non-zero of a row at k = 2 and 3, a line through the two, with a base and a slope of
    // at least 0 (every number of the file is; a noisy k = 3 once gave base -1.17). Flat if the line would fall;
    // through the origin, fitted to both, if its base would be negative.
    if (sparseNs[2] > 0 && sparseNs[3] > 0) {
        const double c2 = sparseNs[2] / sparsePerRow[2], c3 = sparseNs[3] / sparsePerRow[3];
        t.sparseSlope = std::max(0.0, c3 - c2);
        t.sparseBase = t.sparseSlope > 0 ? c2 - 2 * t.sparseSlope : (c2 + c3) / 2;
        if (t.sparseBase < 0) {
            t.sparseBase = 0;
            t.sparseSlope = (2 * c2 + 3 * c3) / 13;
        }
    } else {
        t.sparseBase = builtin.sparseBase;
        t.sparseSlope = builtin.sparseSlope;
    }
    // No kernel runs faster than the cheapest one measured.
    t.sparseFloor = cheapest < 1e30 ? cheapest : builtin.sparseFloor;
    // Permutations: the mean over their sizes and placements (0.13-0.39 ns on the EPYC, 2026-12-05).
    t.permutation = permutation.empty() ? builtin.permutation : mean(permutation);
    // Tensor products, targets above the lanes: a line in the number of factors for complex and for real ones,
    // through a common base (the mean of the two lines' intercepts, at least 0), each slope then the mean of
    // (time - base) / k. From qubit 0: what each factor inside the lanes adds to that, the mean over the probes, at
    // least 0. Apart, because a factor inside the lanes takes a lane flip (on the Xeon of BENCHMARKS.md four real
    // factors took 0.387 ns per amplitude above the lanes and 0.568 from qubit 0; fitted together, the model priced
    // a tensor block of Hadamards above the lanes dearer than 2-qubit blocks which ran slower).
    if (tensorK[0].size() >= 2 && tensorK[1].size() >= 2) {
        t.tensor[0] = std::max(0.0, (fitLine(tensorK[0], tensorNs[0]).intercept + fitLine(tensorK[1], tensorNs[1]).intercept) / 2);
        for (int r = 0; r < 2; ++r) {
            std::vector<double> slope;
            for (size_t i = 0; i < tensorK[r].size(); ++i)
                slope.push_back((tensorNs[r][i] - t.tensor[0]) / tensorK[r][i]);
            t.tensor[1 + r] = std::max(1e-3, mean(slope));
            std::vector<double> extra;
            for (const KernelTiming* m : tensorInLanes[r]) {
                const int inLanes = targetsInLanes(shapeOf(m->gate));
                if (inLanes > 0)
                    extra.push_back((m->complex128Ns - t.tensor[0] - m->gate.k * t.tensor[1 + r]) / inLanes);
            }
            t.tensorInLanes[r] = extra.empty() ? 0 : std::max(0.0, mean(extra));
        }
    } else {
        std::copy(builtin.tensor, builtin.tensor + 3, t.tensor);
        std::copy(builtin.tensorInLanes, builtin.tensorInLanes + 2, t.tensorInLanes);
    }
    // Programs: a diagonal costs what it adds to a layer of real steps, a real step a quarter of what two layers
    // more add but their two diagonals, the base what a layer leaves; a complex step the same from its probes.
    // Each at least a thousandth of a ns (as the tensor factors). Inside the lanes: what the real probe from qubit
    // 0 adds per step on a lane target (three layers of one on each), at least 0. An rx-like step: a real one and
    // what twelve of them add over twelve real ones, at least nothing.
    if (programs == 7) {
        const double diagonal = std::max(1e-3, programNs[1] - programNs[0]);
        const double real = std::max(1e-3, (programNs[2] - programNs[0] - 2 * diagonal) / 8);
        const double base = std::max(0.0, programNs[0] - 4 * real);
        const double complex = std::max(1e-3, (programNs[4] - programNs[3] - 2 * diagonal) / 8);
        t.program[0] = base;
        t.program[1] = real;
        t.program[2] = complex;
        t.program[3] = diagonal;
        const int inLanes = 3 * std::min(4, laneBits(activeIsa(), false));
        t.program[4] = inLanes > 0 ? std::max(0.0, (programNs[5] - programNs[2]) / inLanes) : 0;
        t.programRxLike = real + std::max(0.0, (programNs[6] - programNs[2]) / 12);
    } else {
        std::copy(builtin.program, builtin.program + 5, t.program);
        t.programRxLike = builtin.programRxLike;
    }
    t.passCost = passCost;
    return t;
}

Calibration measureCalibration(int qubits, int stateQubits, const std::function<void(const std::string&)>& say, TimingEffort effort)
{
    auto tell = [&](const std::string& s) {
        if (say)
            say(s);
    };
    const int threads = omp_get_max_threads();
    const size_t bytes = (size_t(1) << stateQubits) * 16;
    tell("in-place bandwidth over " + std::to_string(bytes >> 20) + " MiB, " + std::to_string(threads) + " threads");
    const double gbs = measureInPlaceBandwidth(bytes);
    if (!(gbs > 0))
        throw std::bad_alloc();   // the array to measure the bandwidth over
    const double pass = passCostFromBandwidth(gbs, threads);
    char line[128];
    std::snprintf(line, sizeof line, "  %.1f GB/s: a pass costs %.3g thread-ns per amplitude", gbs, pass);
    tell(line);
    // The tiles of a complex64 state as large as the one the bandwidth was measured over.
    tell("tiles of a 2^" + std::to_string(stateQubits + 1) + "-amplitude complex64 state copied in and out, rows asked for 0-16 ahead");
    const int ahead = measureTileRowsAhead(stateQubits + 1);
    tell("  " + std::to_string(ahead) + " rows ahead");
    char when[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    Calibration c;
    const Isa active = activeIsa();
    for (Isa isa : kAllIsas) {
        if (!setActiveIsa(isa))
            continue;
        tell(std::string(isaName(isa)) + " kernels on a 2^" + std::to_string(qubits) + "-amplitude state, one thread on each CPU in turn");
        Calibration::Entry e;
        e.isa = isa;
        e.cpu = cpuIdentity();
        e.threads = threads;
        e.measured = when;
        e.table = fitCostTable(timeKernels(qubits, false, {}, effort), pass);
        e.table.tileRowsAhead = ahead;
        c.entries.push_back(e);
    }
    setActiveIsa(active);
    return c;
}

}  // namespace spyglass::quantum::kernels
