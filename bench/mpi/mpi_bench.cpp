// mpi_bench: what the distributed state vector (core/quantum/distributed_statevector.h) communicates and how long
// it takes.
//
//   mpi_bench [--count-min 24] [--count-max 28] [--time 24,26] [--repeat 3] [--project-qubits 36]
//             [--project-nodes 64] [--gbps 100]
//   mpirun -np R mpi_bench --no-count --time 24,26      (wall time with R ranks)
//
// 1. Counted traffic, per rank, for QFT(n) (unmeasured), docs/quantum.md's random layered circuit (20 layers,
//    seed 1) and GHZ(n), n = count-min..count-max, on 2, 4 and 64 ranks: this engine's qubit swaps on the
//    circuit qsim runs (fused <= 4 qubits) and unfused, against QuEST 3's pairwise exchange on the unfused
//    circuit (distributed_plan.h says what each counts). Bytes are complex128.
// 2. Wall time of each circuit at the --time sizes on the ranks it was launched with (median of --repeat; the
//    gates and the return to logical order, not the allocation; the slowest rank's time).
// 3. With one rank: the projection of a --project-qubits circuit on --project-nodes nodes at --gbps per node:
//    compute = fused gates x 2^(local qubits) / (the fused-gate amplitude rate measured at the largest --time
//    size), communication = counted exchanges x half a local state / link bandwidth (full duplex: each rank
//    sends and receives at once), no overlap.
#include "core/quantum/distributed_statevector.h"
#include "core/quantum/generators.h"
#include "core/quantum/pipeline.h"
#include "core/quantum/simulator.h"

#ifdef SPYGLASS_HAVE_MPI
#include <mpi.h>
#endif

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace spyglass::quantum;
namespace dist = spyglass::quantum::distributed;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

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

std::vector<int> listArg(int argc, char** argv, const char* name, std::vector<int> fallback)
{
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], name) == 0) {
            std::vector<int> out;
            for (const char* p = argv[i + 1]; *p;) {
                out.push_back(std::atoi(p));
                while (*p && *p != ',')
                    ++p;
                if (*p == ',')
                    ++p;
            }
            return out;
        }
    return fallback;
}

struct Workload {
    const char* name;
    Circuit (*make)(int n);
};

const Workload kWorkloads[] = {
    {"QFT", [](int n) { return makeQft(n, 0, false); }},
    {"random layered", [](int n) { return makeRandomLayers(n, 20, 1); }},
    {"GHZ", [](int n) { return makeGhz(n); }},
};

std::vector<kernels::PreparedGate> gatesOf(const Circuit& c)
{
    std::vector<kernels::PreparedGate> out;
    for (const Op& op : c.ops)
        if (op.kind == OpKind::Gate)
            out.push_back(prepareOp(c, op));
    return out;
}

double gib(uint64_t bytes) { return double(bytes) / double(uint64_t(1) << 30); }

void countTable(int lo, int hi)
{
    std::printf("\n## Counted traffic per rank (complex128)\n\n");
    std::printf("| circuit | qubits | ranks | swaps, fused (exchanges / GiB) | swaps, unfused | QuEST pairwise, unfused | fused gates |\n");
    std::printf("| --- | --- | --- | --- | --- | --- | --- |\n");
    for (const Workload& w : kWorkloads)
        for (int n = lo; n <= hi; ++n) {
            const Circuit raw = w.make(n);
            const Circuit fused = prepareForSimulation(prepareForSimulation(raw, 0), 4);
            const auto rawGates = gatesOf(prepareForSimulation(raw, 0)), fusedGates = gatesOf(fused);
            for (int k : {1, 2, 6}) {
                const auto f = dist::countSwapStrategy(fusedGates, n, k, 16, true);
                const auto u = dist::countSwapStrategy(rawGates, n, k, 16, true);
                const auto q = dist::countPairwiseExchange(rawGates, n, k, 16);
                std::printf("| %s | %d | %d | %llu / %.3f | %llu / %.3f | %llu / %.3f | %zu |\n", w.name, n, 1 << k, (unsigned long long)f.exchanges,
                            gib(f.bytesSent), (unsigned long long)u.exchanges, gib(u.bytesSent), (unsigned long long)q.exchanges, gib(q.bytesSent),
                            fusedGates.size());
            }
        }
}

void barrier()
{
#ifdef SPYGLASS_HAVE_MPI
    if (dist::ranks() > 1)
        MPI_Barrier(MPI_COMM_WORLD);
#endif
}

double slowest(double t)
{
#ifdef SPYGLASS_HAVE_MPI
    if (dist::ranks() > 1) {
        double m = 0;
        MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        return m;
    }
#endif
    return t;
}

// Fused-gate amplitude updates per second at the largest timed size on one rank, per workload.
struct Rate {
    double perSecond = 0;
};

std::vector<Rate> timeTable(const std::vector<int>& sizes, int repeat)
{
    std::vector<Rate> rates(std::size(kWorkloads));
    if (dist::isRoot()) {
        std::printf("\n## Wall time with %d rank%s (median of %d)\n\n", dist::ranks(), dist::ranks() > 1 ? "s" : "", repeat);
        std::printf("| circuit | qubits | ranks | fused gates | exchanges | s |\n| --- | --- | --- | --- | --- | --- |\n");
    }
    for (size_t wi = 0; wi < std::size(kWorkloads); ++wi)
        for (int n : sizes) {
            const Circuit fused = prepareForSimulation(prepareForSimulation(kWorkloads[wi].make(n), 0), 4);
            std::vector<double> t;
            dist::Traffic traffic;
            const auto gates = gatesOf(fused);
            for (int r = 0; r < repeat; ++r) {
                // Allocation and first touch of the pages are left out: they are the same whatever the gates.
                if (dist::ranks() > 1) {
                    dist::DistributedState ds(n, Precision::Double, dist::minLocalQubits(gates));
                    barrier();
                    const double t0 = now();
                    ds.applyAll(gates);
                    ds.restoreOrder();
                    t.push_back(slowest(now() - t0));
                    traffic = ds.traffic();
                } else {
                    StateVector sv(n, Precision::Double);
                    const double t0 = now();
                    sv.applyAll(gates);
                    t.push_back(now() - t0);
                }
            }
            std::sort(t.begin(), t.end());
            const double med = t[t.size() / 2];
            rates[wi].perSecond = double(gates.size()) * double(uint64_t(1) << n) / med;
            if (dist::isRoot())
                std::printf("| %s | %d | %d | %zu | %llu | %.3f |\n", kWorkloads[wi].name, n, dist::ranks(), gates.size(),
                            (unsigned long long)traffic.exchanges, med);
            std::fflush(stdout);
        }
    return rates;
}

void projection(const std::vector<Rate>& rates, int n, int nodes, double gbps, int measuredAt)
{
    const int k = std::countr_zero(unsigned(nodes)), local = n - k;
    const double linkBytes = gbps * 1e9 / 8;
    std::printf("\n## Projection: %d qubits on %d nodes (2^%d amplitudes, %.0f GiB per node), %.0f Gb/s per node\n\n", n, nodes, local,
                gib(uint64_t(16) << local), gbps);
    std::printf("rate measured here on one rank at %d qubits; compute = fused gates x 2^%d / rate; communication = exchanges x %.0f GiB / "
                "%.1f GB/s\n\n",
                measuredAt, local, gib(uint64_t(8) << local), linkBytes / 1e9);
    std::printf("| circuit | fused gates | rate (amplitude-gates/s) | compute s | exchanges (swaps) | comm s (swaps) | exchanges (QuEST) | "
                "comm s (QuEST) |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (size_t wi = 0; wi < std::size(kWorkloads); ++wi) {
        const Circuit raw = prepareForSimulation(kWorkloads[wi].make(n), 0);
        const auto fusedGates = gatesOf(prepareForSimulation(raw, 4));
        const auto ours = dist::countSwapStrategy(fusedGates, n, k, 16, true);
        const auto quest = dist::countPairwiseExchange(gatesOf(raw), n, k, 16);
        const double compute = double(fusedGates.size()) * double(uint64_t(1) << local) / rates[wi].perSecond;
        std::printf("| %s | %zu | %.3g | %.1f | %llu | %.1f | %llu | %.1f |\n", kWorkloads[wi].name, fusedGates.size(), rates[wi].perSecond, compute,
                    (unsigned long long)ours.exchanges, double(ours.bytesSent) / linkBytes, (unsigned long long)quest.exchanges,
                    double(quest.bytesSent) / linkBytes);
    }
}

}  // namespace

int main(int argc, char** argv)
{
    if (const auto error = dist::init(&argc, &argv)) {
        std::fprintf(stderr, "mpi_bench: %s\n", error->c_str());
        dist::finalize();
        return 2;
    }
    if (dist::isRoot() && !flagArg(argc, argv, "--no-count"))
        countTable(intArg(argc, argv, "--count-min", 24), intArg(argc, argv, "--count-max", 28));
    const std::vector<int> sizes = listArg(argc, argv, "--time", {24, 26});
    std::vector<Rate> rates;
    if (!sizes.empty() && sizes[0] > 0)
        rates = timeTable(sizes, intArg(argc, argv, "--repeat", 3));
    if (dist::ranks() == 1 && !rates.empty())
        projection(rates, intArg(argc, argv, "--project-qubits", 36), intArg(argc, argv, "--project-nodes", 64),
                   intArg(argc, argv, "--gbps", 100), sizes.back());
    dist::finalize();
    return 0;
}
