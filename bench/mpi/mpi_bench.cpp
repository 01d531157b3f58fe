// mpi_bench: what the distributed state vector (core/quantum/distributed_statevector.h) communicates and how long
// it takes.
//
//   mpi_bench [--count-min 24] [--count-max 28] [--time 24,26] [--repeat 3] [--project-qubits 36]
//             [--project-nodes 64] [--gbps 100] [--only QFT|random|GHZ]
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

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using namespace spyglass::quantum;
namespace dist = spyglass::quantum::distributed;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// "--name value" pairs and bare flags ("--name" -> "").
std::map<std::string, std::string> options(int argc, char** argv)
{
    std::map<std::string, std::string> o;
    for (int i = 1; i < argc; ++i) {
        const bool valued = i + 1 < argc && std::strncmp(argv[i + 1], "--", 2) != 0;
        o[argv[i]] = valued ? argv[i + 1] : "";
        i += valued;
    }
    return o;
}

int number(const std::map<std::string, std::string>& o, const char* name, int fallback)
{
    const auto it = o.find(name);
    return it == o.end() ? fallback : std::atoi(it->second.c_str());
}

std::vector<int> numbers(const std::map<std::string, std::string>& o, const char* name, std::vector<int> fallback)
{
    const auto it = o.find(name);
    if (it == o.end())
        return fallback;
    std::vector<int> out;
    for (size_t at = 0; at <= it->second.size();) {
        const size_t comma = std::min(it->second.find(',', at), it->second.size());
        out.push_back(std::atoi(it->second.substr(at, comma - at).c_str()));
        at = comma + 1;
    }
    return out;
}

struct Workload {
    const char* name;
    Circuit (*make)(int n);
};

// --only: the workloads whose name starts with it (all when empty).
std::string g_only;
bool selected(const Workload& w) { return std::string(w.name).rfind(g_only, 0) == 0; }

const Workload kWorkloads[] = {
    {"QFT", [](int n) { return makeQft(n, 0, false); }},
    {"random layered", [](int n) { return makeRandomLayers(n, 20, 1); }},
    {"GHZ", [](int n) { return makeGhz(n); }},
};

double gib(uint64_t bytes) { return double(bytes) / double(uint64_t(1) << 30); }

void countTable(int lo, int hi)
{
    std::printf("\n## Counted traffic per rank (complex128)\n\n");
    std::printf("| circuit | qubits | ranks | swaps, fused (exchanges / GiB) | swaps, unfused | QuEST pairwise, unfused | fused gates |\n");
    std::printf("| --- | --- | --- | --- | --- | --- | --- |\n");
    for (const Workload& w : kWorkloads)
        for (int n = lo; n <= hi && selected(w); ++n) {
            const Circuit raw = w.make(n);
            const auto rawGates = prepareFinalGates(prepareForSimulation(raw, 0));
            for (int k : {1, 2, 6}) {
                // Fused as qsim fuses for 2^k ranks: non-diagonal blocks on the n - k local qubits only.
                const auto fusedGates = prepareFinalGates(prepareForSimulation(prepareForSimulation(raw, 0), 4, n - k));
                const auto f = dist::countSwapStrategy(fusedGates, n, k, 16, true);
                const auto u = dist::countSwapStrategy(rawGates, n, k, 16, true);
                const auto q = dist::countPairwiseExchange(rawGates, n, k, 16);
                std::printf("| %s | %d | %d | %llu / %.3f | %llu / %.3f | %llu / %.3f | %zu |\n", w.name, n, 1 << k, (unsigned long long)f.exchanges,
                            gib(f.bytesSent), (unsigned long long)u.exchanges, gib(u.bytesSent), (unsigned long long)q.exchanges, gib(q.bytesSent),
                            fusedGates.size());
            }
        }
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
            if (!selected(kWorkloads[wi]))
                continue;
            const Circuit fused = prepareForSimulation(prepareForSimulation(kWorkloads[wi].make(n), 0), 4, dist::localQubits(n));
            std::vector<double> t;
            dist::Traffic traffic;
            const auto gates = prepareFinalGates(fused);
            for (int r = 0; r < repeat; ++r) {
                // Allocation and first touch of the pages are left out: they are the same whatever the gates.
                if (dist::ranks() > 1) {
                    dist::DistributedState ds(n, Precision::Double, dist::minLocalQubits(gates));
                    dist::barrier();
                    const double t0 = now();
                    ds.applyAll(gates);
                    ds.restoreOrder();
                    t.push_back(dist::maxOverRanks(now() - t0));
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
        if (!selected(kWorkloads[wi]))
            continue;
        const Circuit raw = prepareForSimulation(kWorkloads[wi].make(n), 0);
        const auto fusedGates = prepareFinalGates(prepareForSimulation(raw, 4, n - k));
        const auto ours = dist::countSwapStrategy(fusedGates, n, k, 16, true);
        const auto quest = dist::countPairwiseExchange(prepareFinalGates(raw), n, k, 16);
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
    const auto o = options(argc, argv);
    if (o.count("--only"))
        g_only = o.at("--only");
    if (dist::isRoot() && !o.count("--no-count"))
        countTable(number(o, "--count-min", 24), number(o, "--count-max", 28));
    const std::vector<int> sizes = numbers(o, "--time", {24, 26});
    std::vector<Rate> rates;
    if (!sizes.empty() && sizes[0] > 0)
        rates = timeTable(sizes, number(o, "--repeat", 3));
    if (dist::ranks() == 1 && !rates.empty())
        projection(rates, number(o, "--project-qubits", 36), number(o, "--project-nodes", 64), number(o, "--gbps", 100), sizes.back());
    dist::finalize();
    return 0;
}
