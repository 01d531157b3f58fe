// quantum_bench: how close the state-vector simulator runs to this machine's memory bandwidth.
//
//   quantum_bench [--min-qubits 22] [--max-qubits 26] [--qft-min 20] [--qft-max 26] [--fuse-max 4]
//                 [--vqe-qubits 20] [--no-vqe] [--no-table] [--single]
//   quantum_bench --emit-peer-circuits DIR       the circuits of the peer harness (bench/peers), as gate lists
//   quantum_bench --emit-qasm-circuits DIR FILE...   OpenQASM files as gate lists of the harness (in {rz, ry, cx})
//   quantum_bench --peer-run LIST [--single] [--fuse K] [--dump OUT] [--fusion NAME]   our side of the harness:
//                                                one timed run (--fusion: keep that fusion, not the estimate's pick)
//   quantum_bench --fidelity DUMP_A DUMP_B       |<a|b>|^2 / (<a|a><b|b>) over the dumped amplitudes
//   quantum_bench --bandwidth Q                  triad and in-place bandwidth over arrays of a 2^Q complex128 state,
//                                                and in-place over a cache block a thread
//   quantum_bench --fma-peak                     FMA throughput of this CPU at the OpenMP thread count (GFLOP/s)
//   quantum_bench --kernel-costs [--qubits 15]   each kernel shape's ns per amplitude, one thread, beside relativeCost
//   quantum_bench --kernel-placement [--qubits 15]   the same for the kernels whose time depends on their targets' place
//
// 1. Bandwidth: STREAM triad a = b + s*c over arrays the size of the state (best of 3), and an in-place
//    read-modify-write pass (what an unfused gate does).
// 2. Single unfused gates at each size: time (median of 3) and ratio to the bound 2*bytes(state)/triad.
// 3. QFT(n) with and without fusion, against the sum of unfused bounds (gates x bound).
// 4. The circuits of docs/quantum.md's qsim/qulacs table (20 H on 26 qubits; 20 layers random rx/ry/rz + CZ
//    on 24 qubits; QFT 20/24), fused <= --fuse-max, and the random circuit also fused <= 3 and unfused (every
//    variant runs through StateVector::applyAll's cache blocking).
// 5. VQE-TFIM: one energy evaluation (median of 21) on the real-amplitude path runVqe uses (RealAnsatzState +
//    expectationReal) against the general complex path (ansatz fused <= 4 on a StateVector, then
//    StateVector::expectation), then the whole run: n qubits, 2 layers, Nelder-Mead 100 iterations, seed 1.
// The load average is printed before and after: the machine may be shared.
#include "core/quantum/ansatz_real.h"
#include "core/quantum/generators.h"
#include "core/quantum/kernel_calibration.h"
#include "core/quantum/kernels.h"
#include "core/quantum/pass.h"
#include "core/quantum/pipeline.h"
#include "core/quantum/qasm_parser.h"
#include "core/quantum/simulator.h"
#include "core/quantum/vqe.h"

#include "bench/peers/gate_list.h"
#include "bench/quantum/kernel_costs.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <stdexcept>
#include <vector>

using namespace spyglass::quantum;

namespace {

double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double cpuNow()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

double median3(double a, double b, double c) { return std::max(std::min(a, b), std::min(std::max(a, b), c)); }

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

void printLoad(const char* when)
{
    double l[3] = {0, 0, 0};
    if (getloadavg(l, 3) == 3)
        std::printf("load average %s: %.2f %.2f %.2f\n", when, l[0], l[1], l[2]);
}

struct Bandwidth {
    double triad = 0;   // GB/s, STREAM convention (3 arrays counted)
    double rmw = 0;     // GB/s, in-place read + write
};

Bandwidth measureBandwidth(size_t bytes)
{
    const size_t n = bytes / sizeof(double);
    double* a = static_cast<double*>(std::aligned_alloc(64, n * sizeof(double)));
    double* b = static_cast<double*>(std::aligned_alloc(64, n * sizeof(double)));
    double* c = static_cast<double*>(std::aligned_alloc(64, n * sizeof(double)));
    const int64_t len = static_cast<int64_t>(n);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < len; ++i) {
        a[i] = 0;
        b[i] = 1;
        c[i] = 2;
    }
    Bandwidth bw;
    for (int rep = 0; rep < 3; ++rep) {
        const double t0 = now();
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < len; ++i)
            a[i] = b[i] + 0.5 * c[i];
        const double t = now() - t0;
        bw.triad = std::max(bw.triad, 3.0 * bytes / t / 1e9);
    }
    std::printf("  (checksum %g)\n", a[len / 2]);
    std::free(a);
    std::free(b);
    std::free(c);
    // The in-place pass, as the fuse pass's calibration measures it (what an unfused gate does).
    bw.rmw = kernels::measureInPlaceBandwidth(bytes);
    return bw;
}

double timeGates(StateVector& sv, const Circuit& c, int* passes = nullptr)
{
    std::vector<kernels::PreparedGate> g;
    for (const Op& op : c.ops)
        if (op.kind == OpKind::Gate)
            g.push_back(prepareOp(c, op));
    const double t0 = now();
    const StateVector::Passes p = sv.applyAll(g);
    const double t = now() - t0;
    if (passes)
        *passes = p.total();
    return t;
}

Circuit single(int n, const char* name, std::vector<int> qubits, std::vector<double> params = {})
{
    Circuit c;
    c.numQubits = n;
    Op op;
    op.name = name;
    op.qubits = std::move(qubits);
    op.params = std::move(params);
    c.ops.push_back(op);
    return c;
}

int intArg(int argc, char** argv, const char* name, int fallback)
{
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], name) == 0)
            return std::atoi(argv[i + 1]);
    return fallback;
}
bool flagArg(int argc, char** argv, const char* name)
{
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], name) == 0)
            return true;
    return false;
}

const char* argValue(int argc, char** argv, const char* name)
{
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], name) == 0)
            return argv[i + 1];
    return nullptr;
}

void writeGateList(const std::string& path, const Circuit& c)
{
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (!f)
        throw std::runtime_error(path + ": cannot write");
    std::fprintf(f, "# %s\nqubits %d\n", c.name.c_str(), c.numQubits);
    for (const Op& op : c.ops) {
        if (op.kind != OpKind::Gate)
            continue;
        std::fprintf(f, "%s", op.name.c_str());
        for (int q : op.qubits)
            std::fprintf(f, " %d", q);
        for (double p : op.params)
            std::fprintf(f, " %.17g", p);
        std::fprintf(f, "\n");
    }
    std::fclose(f);
}

Circuit hadamards26()
{
    Circuit h;
    h.name = "20 H on distinct qubits (7i mod 26) of 26";
    h.numQubits = 26;
    for (int i = 0; i < 20; ++i) {
        Op op;
        op.name = "h";
        op.qubits = {(7 * i) % 26};
        h.ops.push_back(op);
    }
    return h;
}

// The harness's circuits: QFT 20-28 (no swaps: every simulator would move amplitudes the same way), random layered
// 20-26 (20 layers, seed 5, as in section 4), 20 H on 26, GHZ 26, and the VQE-TFIM ansatz (24 qubits, 4 layers).
int emitPeerCircuits(const std::string& dir)
{
    std::vector<std::pair<std::string, Circuit>> out;
    for (int n = 20; n <= 28; n += 2)
        out.emplace_back("qft_" + std::to_string(n), makeQft(n, 0, false));
    for (int n = 20; n <= 26; n += 2)
        out.emplace_back("random_" + std::to_string(n), makeRandomLayers(n, 20, 5));
    out.emplace_back("h20_26", hadamards26());
    Circuit ghz = makeGhz(26);
    ghz.ops.erase(std::remove_if(ghz.ops.begin(), ghz.ops.end(), [](const Op& op) { return op.kind != OpKind::Gate; }), ghz.ops.end());
    out.emplace_back("ghz_26", ghz);
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> u(-3.14159, 3.14159);
    std::vector<double> theta(24 * 5);
    for (double& t : theta)
        t = u(rng);
    out.emplace_back("vqe_24", vqeAnsatz(24, 4, theta));
    for (const auto& [name, c] : out) {
        writeGateList(dir + "/" + name + ".txt", c);
        std::printf("%s/%s.txt: %d qubits, %d gates\n", dir.c_str(), name.c_str(), c.numQubits, c.gateCount());
    }
    return 0;
}

// OpenQASM files (QASMBench's, which we did not write) as gate lists of the harness, each named after its file:
// parsed, its gates rewritten into {u3, cx} by the decompose pass and each u3(theta, phi, lambda) into rz(lambda)
// ry(theta) rz(phi) (the same matrix up to a global phase, which the harness's fidelity does not see; rotations by
// exactly 0 left out), measurements and barriers dropped (the harness times the state the gates make). A file with a
// reset or a conditioned gate has no one state every simulator could make: it is refused with its line, and the
// others are still written.
int emitQasmCircuits(const std::string& dir, const std::vector<std::string>& files)
{
    int refused = 0;
    for (const std::string& file : files) {
        Circuit c = parseQasmFile(file).circuit;
        const auto mixed = std::find_if(c.ops.begin(), c.ops.end(), [](const Op& op) { return op.kind == OpKind::Reset || op.cond.active(); });
        if (mixed != c.ops.end()) {
            std::fprintf(stderr, "%s:%d: %s: the harness times one pure state; not written\n", file.c_str(), mixed->line,
                         mixed->kind == OpKind::Reset ? "reset" : "a conditioned gate");
            ++refused;
            continue;
        }
        PassContext context;
        makeInlineGatesPass()->run(c, context);
        makeDecomposePass(Basis::U3Cx)->run(c, context);
        Circuit out;
        out.numQubits = c.numQubits;
        const size_t slash = file.find_last_of('/');
        out.name = file.substr(slash == std::string::npos ? 0 : slash + 1);
        if (out.name.size() > 5 && out.name.ends_with(".qasm"))
            out.name.resize(out.name.size() - 5);
        const auto add = [&](const char* name, std::vector<int> qubits, std::vector<double> params = {}) {
            Op op;
            op.name = name;
            op.qubits = std::move(qubits);
            op.params = std::move(params);
            out.ops.push_back(std::move(op));
        };
        for (const Op& op : c.ops) {
            if (op.kind != OpKind::Gate)
                continue;
            if (op.name == "cx") {
                add("cx", op.qubits);
            } else if (op.name == "u3") {
                const int q = op.qubits[0];
                const double theta = op.params[0], phi = op.params[1], lambda = op.params[2];
                if (lambda != 0)
                    add("rz", {q}, {lambda});
                if (theta != 0)
                    add("ry", {q}, {theta});
                if (phi != 0)
                    add("rz", {q}, {phi});
            } else {
                throw std::runtime_error(file + ":" + std::to_string(op.line) + ": '" + op.name + "' is left after the decompose pass");
            }
        }
        writeGateList(dir + "/" + out.name + ".txt", out);
        std::printf("%s/%s.txt: %d qubits, %d gates (from %s)\n", dir.c_str(), out.name.c_str(), out.numQubits, out.gateCount(), file.c_str());
    }
    return refused ? 2 : 0;
}

Circuit circuitOf(const peers::GateList& l)
{
    Circuit c;
    c.numQubits = l.qubits;
    c.qregs.push_back({"q", l.qubits, 0});
    for (const peers::Gate& g : l.gates) {
        Op op;
        op.name = g.name;
        op.qubits.assign(g.q, g.q + g.arity);
        if (peers::hasAngle(g.name))
            op.params = {g.angle};
        c.ops.push_back(op);
    }
    return c;
}

// g's targets inside a vector of the active build (bit q: qubit q), as kernels_impl.inc's laneTargetMask.
unsigned lanesOf(const kernels::PreparedGate& g, Precision prec)
{
    const int laneBits = kernels::laneBits(kernels::activeIsa(), prec == Precision::Single);
    unsigned mask = 0;
    for (int j = 0; j < g.k; ++j)
        if (g.targets[j] < laneBits)
            mask |= 1u << g.targets[j];
    return mask;
}

// Whether the active build runs g (dense or sparse, not diagonal, a permutation, a tensor product or a program)
// on its lane kernel, denseLanesRange: the wide builds, up to 4 targets, no control inside the vector, and a
// target inside it or 4 targets of a dense matrix (kernels_impl.inc, laneTargetMask).
bool runsOnLaneKernel(const kernels::PreparedGate& g, Precision prec)
{
    if (kernels::activeIsa() == kernels::Isa::Portable || g.diagonal || g.permutation || g.k > 4)
        return false;
    const int laneBits = kernels::laneBits(kernels::activeIsa(), prec == Precision::Single);
    for (int c : g.controls)
        if (c < laneBits)
            return false;
    return lanesOf(g, prec) != 0 || (g.k == 4 && !g.sparse);
}

// Floating-point operations the kernels do for g on an n-qubit state, counted as the FMA pipes see them: every
// vector multiply takes the slot of an FMA, so it counts as the 2 flops a lane the FMA peak credits an FMA with (a
// complex multiply-add 8, or 4 by a real coefficient where the dense kernels have their real form, at 2 and 3
// targets (but for the portable build's blocks on qubit 0, which have none: counted 4 all the same); a complex
// product, a multiply and an FMA a lane, 8; a product by a real factor, a multiply, 4; a permutation none; a tensor
// product two multiply-adds per factor, real or complex, but a butterfly above the vector lanes one addition (2: an
// addition pipe's work here, counted as its flops), and the butterflies' scales one real product, 4): the work the
// FMA bound divides by the CPU's peak.
double gateFlops(const kernels::PreparedGate& g, int n, Precision prec)
{
    const double rows = std::ldexp(1.0, n - int(g.controls.size()));   // amplitudes the gate writes
    const double dim = double(1 << g.k);
    if (g.diagonal)
        return rows * double(g.diagIndex.size()) / dim * 8;
    if (g.permutation)
        return 0;   // the amplitudes only move
    if (g.sparse && !runsOnLaneKernel(g, prec))
        return rows * double(g.sparseCol.size()) / dim * 8;
    if (g.tensor && kernels::activeIsa() != kernels::Isa::Portable) {
        const int laneBits = kernels::laneBits(kernels::activeIsa(), prec == Precision::Single);
        double perAmplitude = 0;
        bool butterflies = false;
        for (int j = 0; j < g.k; ++j) {
            const bool butterfly = g.targets[j] >= laneBits && kernels::isButterflyFactor(&g.tensorFactors[size_t(8) * j]);
            butterflies |= butterfly;
            perAmplitude += butterfly ? 2 : 2 * (g.realMatrix ? 4 : 8);
        }
        return rows * (perAmplitude + (butterflies ? 4 : 0));
    }
    if (g.program && kernels::activeIsa() != kernels::Isa::Portable) {
        // Per amplitude, per step: a one-qubit matrix with real entries or entries each real or imaginary (ry, rx)
        // two real-by-complex multiply-adds (8), any other two complex ones (16); a diagonal a real-by-complex
        // product (4) or a complex one (8).
        double perAmplitude = 0;
        for (const kernels::ProgramStep& s : g.programSteps)
            switch (kernels::programStepKind(s, g.k)) {
            case kernels::ProgramStepKind::Real:
            case kernels::ProgramStepKind::ImagOff: perAmplitude += 8; break;
            case kernels::ProgramStepKind::Complex: perAmplitude += 16; break;
            case kernels::ProgramStepKind::Diagonal: perAmplitude += 4; break;
            case kernels::ProgramStepKind::ComplexDiagonal: perAmplitude += 8; break;
            }
        return rows * perAmplitude;
    }
    if (runsOnLaneKernel(g, prec)) {
        // Products per output: every input, or where its targets in the vector only select (unmixedBits), those
        // of its other targets; real ones one FMA each up to 3 of them.
        const int inVector = std::popcount(unsigned(lanesOf(g, prec))), lanesLocal = (1 << inVector) - 1;
        const int inputs = inVector < g.k && (g.unmixedBits & lanesLocal) == lanesLocal ? 1 << (g.k - inVector) : 1 << g.k;
        return rows * inputs * (g.realMatrix && inputs <= 8 ? 4 : 8);
    }
    // The segment kernel at 3 targets, above qubit 0, does half the products where a target only selects.
    int lowest = g.targets[0];
    for (int c : g.controls)
        lowest = std::min(lowest, c);
    const bool selects = g.k == 3 && lowest >= 1 && g.unmixedBits != 0 && !g.sparse;
    return rows * (selects ? dim / 2 : dim) * (g.realMatrix && (g.k == 2 || g.k == 3) ? 4 : 8);
}

// Peak FMA throughput: every thread runs 12 independent chains of vector FMAs (enough to cover the FMA latency on
// both pipes) in the widest vectors the kernels use here, written as intrinsics (ISO C++ turns contraction off).
// Each returns the chains' sum, so they are not dead code. One body per ISA: a template instantiated outside the
// target region would not inline the intrinsics.
#define SPYGLASS_FMA_CHAINS(V, set1, fmadd)                  \
    V acc[12];                                               \
    const V x = set1(0.999999), y = set1(1e-7);              \
    for (int j = 0; j < 12; ++j)                             \
        acc[j] = set1(1.0 + j);                              \
    for (int64_t i = 0; i < iters; ++i)                      \
        _Pragma("GCC unroll 12") for (int j = 0; j < 12; ++j) \
            acc[j] = fmadd(acc[j], x, y);                    \
    double s = 0;                                            \
    for (int j = 0; j < 12; ++j)                             \
        s += double(acc[j][0]);                              \
    return s;

#pragma GCC push_options
#pragma GCC target("avx512f,fma")
double fma512(int64_t iters, bool single)
{
    if (single) {
        SPYGLASS_FMA_CHAINS(__m512, _mm512_set1_ps, _mm512_fmadd_ps)
    }
    SPYGLASS_FMA_CHAINS(__m512d, _mm512_set1_pd, _mm512_fmadd_pd)
}
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2,fma")
double fma256(int64_t iters, bool single)
{
    if (single) {
        SPYGLASS_FMA_CHAINS(__m256, _mm256_set1_ps, _mm256_fmadd_ps)
    }
    SPYGLASS_FMA_CHAINS(__m256d, _mm256_set1_pd, _mm256_fmadd_pd)
}
#pragma GCC pop_options
#undef SPYGLASS_FMA_CHAINS

double fmaPeakGflops(bool single)
{
    const bool wide = kernels::activeIsa() == kernels::Isa::Avx512;
    if (kernels::activeIsa() == kernels::Isa::Portable)
        return 0;   // the portable build does no FMA; no bound from it
    const int lanes = (wide ? 64 : 32) / (single ? 4 : 8);
    const int64_t iters = int64_t(1) << 24;
    double best = 0, sink = 0;
    for (int rep = 0; rep < 3; ++rep) {
        const double t0 = now();
        int threads = 1;
#pragma omp parallel reduction(+ : sink)
        {
            threads = omp_get_num_threads();
            sink += wide ? fma512(iters, single) : fma256(iters, single);
        }
        const double dt = now() - t0;
        best = std::max(best, double(threads) * double(iters) * 12 * lanes * 2 / dt / 1e9);
    }
    if (sink == 12345.678)   // uses the result, so the loops are not dead code
        std::printf("#");
    return best;
}

// In-place sweeps over buffers of a cache block's size, one a thread (kCacheBlockBytes: the simulator's tiles hold
// 512 KiB, its chunks 256 KiB - 1 MiB): how fast a kernel can read and write amplitudes that stay in the core's
// L2, whatever its arithmetic. Every gate a cache-blocked run applies reads and writes its block so, which bounds
// a run of many light gates (a QFT's) below the memory bound: one thread of the Xeon of BENCHMARKS.md (run 20) read
// and wrote 22.5 GB/s in place over a state in memory and 89-100 GB/s over 512 KiB, so a pass from memory costs
// about as much as 4-5 sweeps through L2.
constexpr size_t kCacheBlockBytes = size_t(512) << 10;

#pragma GCC push_options
#pragma GCC target("avx512f")
void sweep512(float* x, int64_t count)
{
    const __m512 s = _mm512_set1_ps(0.999f), c = _mm512_set1_ps(0.001f);   // c: no denormals however many sweeps
    for (int64_t i = 0; i < count; i += 16)
        _mm512_store_ps(x + i, _mm512_fmadd_ps(_mm512_load_ps(x + i), s, c));
}
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2,fma")
void sweep256(float* x, int64_t count)
{
    const __m256 s = _mm256_set1_ps(0.999f), c = _mm256_set1_ps(0.001f);
    for (int64_t i = 0; i < count; i += 8)
        _mm256_store_ps(x + i, _mm256_fmadd_ps(_mm256_load_ps(x + i), s, c));
}
#pragma GCC pop_options

// GB/s read + written by all threads together, best of 5.
double cacheBandwidthGbs()
{
    if (kernels::activeIsa() == kernels::Isa::Portable)
        return 0;   // no vector sweep to measure it with
    const bool wide = kernels::activeIsa() == kernels::Isa::Avx512;
    const int64_t count = int64_t(kCacheBlockBytes / sizeof(float)), sweeps = 2000;
    double best = 0, sink = 0;
#pragma omp parallel reduction(+ : sink)
    {
        float* x = static_cast<float*>(std::aligned_alloc(64, kCacheBlockBytes));
        std::fill(x, x + count, 1.0f);
        for (int rep = 0; rep < 5; ++rep) {
            double t0 = 0;
#pragma omp barrier
#pragma omp master
            t0 = now();
            for (int64_t i = 0; i < sweeps; ++i)
                wide ? sweep512(x, count) : sweep256(x, count);
#pragma omp barrier
#pragma omp master
            best = std::max(best, double(omp_get_num_threads()) * double(sweeps) * 2 * double(kCacheBlockBytes) / (now() - t0) / 1e9);
        }
        sink += x[count / 2];
        std::free(x);
    }
    if (sink == 12345.678)   // uses the result, so the sweeps are not dead code
        std::printf("#");
    return best;
}

// Bytes the gates read and write in cache (every amplitude a gate changes, read and written once): diagonal gates
// count none, as the simulator may apply them within another gate's sweep (PhaseRun), and a permutation only the
// amplitudes it moves. The cache bound divides it by cacheBandwidthGbs.
double cacheBytes(const std::vector<kernels::PreparedGate>& gates, int n, Precision prec)
{
    const double amplitudeBytes = prec == Precision::Single ? 8 : 16;
    double bytes = 0;
    for (const kernels::PreparedGate& g : gates) {
        if (g.diagonalMatrix)
            continue;
        double moved = 1;
        if (g.permutation) {
            int fixedPoints = 0;
            for (size_t r = 0; r < g.permSource.size(); ++r)
                fixedPoints += g.permSource[r] == int(r);
            moved = 1 - double(fixedPoints) / double(g.permSource.size());
        }
        bytes += std::ldexp(1.0, n - int(g.controls.size())) * moved * 2 * amplitudeBytes;
    }
    return bytes;
}

// Timed like the peers' drivers: from the state's allocation to the last gate, fusion included (time_s), and the
// same without the allocation and first touch of the state (sim_s).
int peerRun(const std::string& file, Precision prec, int fuse, const char* dump, const char* fusionKept)
{
    // Read before the clock starts, as the peers' drivers read theirs.
    Circuit sim = circuitOf(peers::readGateList(file));
    const int n = sim.numQubits;
    const double t0 = now(), c0 = cpuNow();
    StateVector sv(n, prec);
    const double t1 = now(), c1 = cpuNow();
    std::string fusion = "off";
    if (fuse > 1)
        fusion = (fusionKept ? makeFusePassKeeping(fuse, fusionKept) : makeFusePass(fuse))->run(sim).summary;
    const std::vector<kernels::PreparedGate> gates = prepareGates(sim);
    const double t2 = now(), c2 = cpuNow();
    const StateVector::Passes passes = sv.applyAll(gates);
    const double t3 = now(), c3 = cpuNow();
    double flops = 0;
    for (const kernels::PreparedGate& g : gates)
        flops += gateFlops(g, n, prec);
    std::printf("cache_bytes %.0f\n", cacheBytes(gates, n, prec));
    // The phases, wall and CPU seconds (CPU over wall above the thread count: time lost to other processes).
    std::printf("time_s %.6f\nsim_s %.6f\npasses %d\nops %zu\ncomposed_gates %d\nflops %.0f\nkernels %s\nphases_wall alloc %.4f fuse %.4f gates %.4f\nphases_cpu alloc %.4f fuse %.4f gates %.4f\n",
                t3 - t0, t3 - t1, passes.total(), gates.size(), passes.composedGates, flops, kernels::isaName(kernels::activeIsa()), t1 - t0, t2 - t1, t3 - t2, c1 - c0, c2 - c1, c3 - c2);
    std::printf("fusion %s\n", fusion.c_str());
    if (dump)
        peers::writeDump(dump, n, [&](uint64_t i, double& re, double& im) {
            const cplx a = sv.amplitude(i);
            re = a.real();
            im = a.imag();
        });
    return 0;
}

std::vector<cplx> readDump(const char* path)
{
    std::FILE* f = std::fopen(path, "rb");
    if (!f)
        throw std::runtime_error(std::string(path) + ": cannot open");
    std::vector<cplx> v;
    double re_im[2];
    while (std::fread(re_im, sizeof re_im, 1, f) == 1)
        v.emplace_back(re_im[0], re_im[1]);
    std::fclose(f);
    return v;
}

int fidelity(const char* a, const char* b)
{
    const std::vector<cplx> x = readDump(a), y = readDump(b);
    if (x.size() != y.size() || x.empty()) {
        std::fprintf(stderr, "%s and %s hold different numbers of amplitudes (%zu, %zu)\n", a, b, x.size(), y.size());
        return 2;
    }
    cplx dot = 0;
    double nx = 0, ny = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        dot += std::conj(x[i]) * y[i];
        nx += std::norm(x[i]);
        ny += std::norm(y[i]);
    }
    // A sample that holds almost none of either state's weight compares rounding noise: no fidelity then. Spread
    // over a state of up to 40 qubits (gate_list.h) a sample of 2^16 holds 6e-8 of its weight or more; complex64
    // rounding noise on the indices a sparse state leaves at zero, about 1e-16 each, holds 7e-12.
    if (nx < 1e-9 || ny < 1e-9) {
        std::printf("fidelity unmeasured (the sampled amplitudes hold %.3g and %.3g of the states' weight)\n", nx, ny);
        return 0;
    }
    std::printf("fidelity %.9f\n", std::norm(dot) / (nx * ny));
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    try {
        if (const char* dir = argValue(argc, argv, "--emit-peer-circuits"))
            return emitPeerCircuits(dir);
        if (argc >= 3 && std::strcmp(argv[1], "--emit-qasm-circuits") == 0)
            return emitQasmCircuits(argv[2], std::vector<std::string>(argv + 3, argv + argc));
        if (const char* file = argValue(argc, argv, "--peer-run"))
            return peerRun(file, flagArg(argc, argv, "--single") ? Precision::Single : Precision::Double, intArg(argc, argv, "--fuse", 4),
                           argValue(argc, argv, "--dump"), argValue(argc, argv, "--fusion"));
        if (const char* q = argValue(argc, argv, "--bandwidth")) {
            // The harness's bandwidth line: arrays the size of a complex128 state of q qubits.
            const Bandwidth bw = measureBandwidth((size_t(1) << std::atoi(q)) * 16);
            std::printf("triad_gbs %.1f\nrmw_gbs %.1f\ncache_rmw_gbs %.1f\n", bw.triad, bw.rmw, cacheBandwidthGbs());
            return 0;
        }
        if (flagArg(argc, argv, "--kernel-costs"))
            return bench::kernelCosts(intArg(argc, argv, "--qubits", 15));
        if (flagArg(argc, argv, "--kernel-placement"))
            return bench::kernelPlacement(intArg(argc, argv, "--qubits", 15));
        if (flagArg(argc, argv, "--fma-peak")) {
            std::printf("fma_gflops_f64 %.1f\nfma_gflops_f32 %.1f\nkernels %s\n", fmaPeakGflops(false), fmaPeakGflops(true),
                        kernels::isaName(kernels::activeIsa()));
            return 0;
        }
        if (argc == 4 && std::strcmp(argv[1], "--fidelity") == 0)
            return fidelity(argv[2], argv[3]);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "quantum_bench: %s\n", e.what());
        return 2;
    }
    const int minQ = intArg(argc, argv, "--min-qubits", 22), maxQ = intArg(argc, argv, "--max-qubits", 26);
    const int qftMin = intArg(argc, argv, "--qft-min", 20), qftMax = intArg(argc, argv, "--qft-max", 26);
    const int fuseMax = intArg(argc, argv, "--fuse-max", 4);
    const int vqeQubits = intArg(argc, argv, "--vqe-qubits", 20);
    const Precision prec = flagArg(argc, argv, "--single") ? Precision::Single : Precision::Double;
    const int amp = prec == Precision::Double ? 16 : 8;
    const char* wait = std::getenv("OMP_WAIT_POLICY");
    std::printf("quantum_bench: %d OpenMP threads (OMP_WAIT_POLICY=%s), %s kernels, %s\n", omp_get_max_threads(), wait ? wait : "unset",
                kernels::isaName(kernels::activeIsa()), prec == Precision::Double ? "complex128" : "complex64");
    printLoad("at start");

    // 1 + 2: bandwidth and single gates
    std::printf("\n## single unfused gates (median of 3) vs bound = 2 * state bytes / triad bandwidth\n");
    std::printf("| qubits | state MiB | triad GB/s | rmw GB/s | gate | time ms | bound ms | ratio |\n|---|---|---|---|---|---|---|---|\n");
    for (int n = minQ; n <= maxQ; n += 2) {
        const size_t bytes = (size_t(1) << n) * amp;
        const Bandwidth bw = measureBandwidth(bytes);
        const double bound = 2.0 * bytes / (bw.triad * 1e9);
        StateVector sv(n, prec);
        struct G {
            const char* label;
            Circuit c;
        };
        const std::vector<G> gates = {
            {"h q0", single(n, "h", {0})},
            {"h q[n/2]", single(n, "h", {n / 2})},
            {"h q[n-1]", single(n, "h", {n - 1})},
            {"x q[n-1]", single(n, "x", {n - 1})},
            {"rz q[n/2] (diagonal)", single(n, "rz", {n / 2}, {0.3})},
            {"cx q0,q[n-1]", single(n, "cx", {0, n - 1})},
            {"cp q1,q[n-2] (diag, 1/4 touched)", single(n, "cp", {1, n - 2}, {0.3})},
        };
        bool first = true;
        for (const G& g : gates) {
            const double t = median3(timeGates(sv, g.c), timeGates(sv, g.c), timeGates(sv, g.c));
            if (first)
                std::printf("| %d | %zu | %.1f | %.1f | %s | %.2f | %.2f | %.2f |\n", n, bytes >> 20, bw.triad, bw.rmw, g.label, t * 1e3, bound * 1e3,
                            t / bound);
            else
                std::printf("| | | | | %s | %.2f | %.2f | %.2f |\n", g.label, t * 1e3, bound * 1e3, t / bound);
            first = false;
        }
        std::fflush(stdout);
    }

    // 3: QFT with and without fusion
    std::printf("\n## QFT(n) on |0...0>, gates only: unfused vs fused (<= %d qubits per block)\n", fuseMax);
    std::printf("| qubits | gates | unfused s (passes) | fused s (passes) | blocks | sum of unfused bounds s | speedup vs unfused | bounds / fused |\n|---|---|---|---|---|---|---|---|\n");
    for (int n = qftMin; n <= qftMax; n += 2) {
        const size_t bytes = (size_t(1) << n) * amp;
        const Bandwidth bw = measureBandwidth(bytes);
        const double bound = 2.0 * bytes / (bw.triad * 1e9);
        const Circuit q = makeQft(n, 0, false);
        const Circuit fused = prepareForSimulation(q, fuseMax);
        StateVector sv(n, prec);
        int pu = 0, pf = 0;
        const double tu = timeGates(sv, q, &pu);
        sv.setZero();
        const double tf = timeGates(sv, fused, &pf);
        std::printf("| %d | %d | %.3f (%d) | %.3f (%d) | %d | %.3f | %.1fx | %.1fx |\n", n, q.gateCount(), tu, pu, tf, pf, fused.gateCount(),
                    q.gateCount() * bound, tu / tf, q.gateCount() * bound / tf);
        std::fflush(stdout);
    }

    // 4: the comparison circuits of docs/quantum.md
    if (!flagArg(argc, argv, "--no-table")) {
        std::printf("\n## docs/quantum.md comparison circuits (fused <= %d unless noted)\n| circuit | s |\n|---|---|\n", fuseMax);
        if (maxQ >= 26) {
            Circuit h;
            h.numQubits = 26;
            for (int i = 0; i < 20; ++i) {
                Op op;
                op.name = "h";
                op.qubits = {(7 * i) % 26};
                h.ops.push_back(op);
            }
            StateVector sv(26, prec);
            std::printf("| 20 H gates on 26 qubits, targets (7i) mod 26, unfused | %.3f |\n", timeGates(sv, h));
        }
        for (int n : {20, 24}) {
            if (n > maxQ)
                continue;
            StateVector sv(n, prec);
            const Circuit q = prepareForSimulation(makeQft(n, 0, false), fuseMax);
            std::printf("| QFT %d qubits | %.3f |\n", n, timeGates(sv, q));
            sv.setZero();
            const Circuit r = makeRandomLayers(n, 20, 5);
            const Circuit rf = prepareForSimulation(r, fuseMax);
            std::printf("| %d qubits, 20 layers random rx/ry/rz + CZ alternating pairs (%d gates, %d ops fused) | %.3f |\n", n, r.gateCount(),
                        rf.gateCount(), timeGates(sv, rf));
            std::fflush(stdout);
            if (fuseMax != 3) {
                sv.setZero();
                const Circuit r3 = prepareForSimulation(r, 3);
                std::printf("| %d qubits, the same random circuit fused <= 3 (%d ops) | %.3f |\n", n, r3.gateCount(), timeGates(sv, r3));
                std::fflush(stdout);
            }
            sv.setZero();
            std::printf("| %d qubits, the same random circuit unfused (%d gates, cache-blocked runs only) | %.3f |\n", n, r.gateCount(), timeGates(sv, r));
            std::fflush(stdout);
        }
    }

    // 5: VQE
    if (!flagArg(argc, argv, "--no-vqe")) {
        VqeOptions o;
        o.qubits = vqeQubits;
        o.layers = 2;
        o.optimizer = "nelder-mead";
        o.iterations = 100;
        o.seed = 1;
        o.precision = prec;
        {
            // One energy evaluation: the real path runVqe uses against the general complex path.
            std::mt19937_64 rng(7);
            std::uniform_real_distribution<double> u(-3.14159, 3.14159);
            std::vector<double> theta(static_cast<size_t>(o.qubits * (o.layers + 1)));
            for (double& t : theta)
                t = u(rng);
            const PauliSum h = tfimHamiltonian(o.qubits);
            RealAnsatzState real(o.qubits, o.layers, prec);
            std::vector<double> tp, te;
            double eReal = 0;
            for (int rep = 0; rep < 21; ++rep) {
                const double t0 = now();
                real.prepare(theta);
                const double t1 = now();
                eReal = real.expectation(h);
                const double t2 = now();
                tp.push_back(t1 - t0);
                te.push_back(t2 - t1);
            }
            const Circuit ansatz = prepareForSimulation(vqeAnsatz(o.qubits, o.layers, theta), 4);
            StateVector sv(o.qubits, prec);
            std::vector<double> tc;
            double eComplex = 0;
            for (int rep = 0; rep < 3; ++rep) {
                const double t0 = now();
                sv.setZero();
                timeGates(sv, ansatz);
                eComplex = sv.expectation(h);
                tc.push_back(now() - t0);
            }
            const double real1 = median(tp) + median(te);
            std::printf("\n## VQE-TFIM %d qubits, 2 layers: one energy evaluation\n| path | prepare ms | expectation ms | total ms | energy |\n|---|---|---|---|---|\n",
                        o.qubits);
            std::printf("| real amplitudes (RealAnsatzState + expectationReal), median of 21 | %.2f | %.2f | %.2f | %.12f |\n", median(tp) * 1e3,
                        median(te) * 1e3, real1 * 1e3, eReal);
            std::printf("| complex StateVector, ansatz fused <= 4 + StateVector::expectation, median of 3 | | | %.2f | %.12f |\n", median(tc) * 1e3,
                        eComplex);
            std::printf("| ratio complex / real | | | %.1fx | difference %.1e |\n", median(tc) / real1, std::fabs(eReal - eComplex));
            std::fflush(stdout);
        }
        const VqeResult r = runVqe(o);
        std::printf("\n## VQE-TFIM %d qubits, 2 layers, Nelder-Mead 100 iterations, seed 1\n| energy | evaluations | wall s | ms per evaluation |\n|---|---|---|---|\n| %.6f | %d | %.2f | %.1f |\n",
                    o.qubits, r.energy, r.evaluations, r.wallMs / 1e3, r.wallMs / r.evaluations);
    }
    printLoad("at end");
    return 0;
}
