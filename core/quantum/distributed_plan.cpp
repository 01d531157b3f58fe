#include "core/quantum/distributed_plan.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace spyglass::quantum::distributed {

bool launchedUnderMpi()
{
    return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK");
}

int launcherRanks()
{
    for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"})
        if (const char* v = std::getenv(var))
            return std::max(1, std::atoi(v));
    return 1;
}

QubitMap::QubitMap(int n, int k) : n_(n), k_(k), phys_(static_cast<size_t>(n)), log_(static_cast<size_t>(n))
{
    if (k < 0 || k > n)
        throw std::invalid_argument("bad number of global qubits");
    std::iota(phys_.begin(), phys_.end(), 0);
    std::iota(log_.begin(), log_.end(), 0);
}

bool QubitMap::identity() const
{
    for (int q = 0; q < n_; ++q)
        if (phys_[q] != q)
            return false;
    return true;
}

void QubitMap::swapGlobalLocal(int slot, int local)
{
    swapLocal(n_ - k_ + slot, local);
}

void QubitMap::swapLocal(int a, int b)
{
    std::swap(log_[a], log_[b]);
    phys_[log_[a]] = a;
    phys_[log_[b]] = b;
}

namespace {

// Look-ahead of the swap choice: far enough to see the next layers of any circuit, bounded so a long circuit
// stays linear.
constexpr size_t kLookAhead = 1 << 14;

}  // namespace

bool isSwapGate(const kernels::PreparedGate& g)
{
    if (g.k != 2 || !g.controls.empty() || g.matrix.size() != 32)
        return false;
    // Row r has its 1 in column swap(r): 0 -> 0, 1 -> 2, 2 -> 1, 3 -> 3.
    static const int col[4] = {0, 2, 1, 3};
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c)
            if (g.matrix[2 * (r * 4 + c)] != (c == col[r] ? 1.0 : 0.0) || g.matrix[2 * (r * 4 + c) + 1] != 0)
                return false;
    return true;
}

bool relabel(QubitMap& map, const kernels::PreparedGate& g)
{
    if (!isSwapGate(g))
        return false;
    map.swapLocal(map.physical(g.targets[0]), map.physical(g.targets[1]));
    return true;
}

bool exchangeInPlace(const QubitMap& map, const std::vector<kernels::PreparedGate>& gates, size_t i)
{
    const kernels::PreparedGate& g = gates[i];
    if (g.k != 1 || g.diagonalMatrix || !map.isGlobal(g.targets[0]))
        return false;
    if (std::none_of(g.controls.begin(), g.controls.end(), [&](int c) { return !map.isGlobal(c); }))
        return false;
    const int p = map.physical(g.targets[0]);
    QubitMap ahead = map;
    for (size_t j = i + 1; j < gates.size() && j <= i + kLookAhead; ++j) {
        const kernels::PreparedGate& h = gates[j];
        if (h.diagonalMatrix || relabel(ahead, h))
            continue;
        for (int t = 0; t < h.k; ++t)
            if (ahead.physical(h.targets[t]) == p)
                return false;
    }
    return true;
}

uint64_t inPlaceAmplitudes(const QubitMap& map, const kernels::PreparedGate& g)
{
    int local = 0;
    for (int c : g.controls)
        local += !map.isGlobal(c);
    return uint64_t(1) << (map.localQubits() - local);
}

std::vector<Swap> swapsBefore(QubitMap& map, const std::vector<kernels::PreparedGate>& gates, size_t i)
{
    const kernels::PreparedGate& g = gates[i];
    std::vector<Swap> out;
    if (g.diagonalMatrix || isSwapGate(g))
        return out;
    std::vector<int> needed;
    for (int j = 0; j < g.k; ++j)
        if (map.isGlobal(g.targets[j]))
            needed.push_back(g.targets[j]);
    if (needed.empty())
        return out;
    const int L = map.localQubits();
    // Next use of each local position's logical qubit as a non-diagonal target after gate i.
    std::vector<size_t> next(static_cast<size_t>(L), std::numeric_limits<size_t>::max());
    std::vector<char> candidate(static_cast<size_t>(L), 1);
    for (int j = 0; j < g.k; ++j)
        if (!map.isGlobal(g.targets[j]))
            candidate[map.physical(g.targets[j])] = 0;
    int open = static_cast<int>(std::count(candidate.begin(), candidate.end(), 1));
    if (open < static_cast<int>(needed.size()))
        throw std::logic_error("too few local qubits for a gate's targets");
    int unknown = open;
    QubitMap ahead = map;   // follows the SWAP gates' relabelling, so a use is charged to the data it needs
    for (size_t j = i + 1; j < gates.size() && j <= i + kLookAhead && unknown > 0; ++j) {
        const kernels::PreparedGate& h = gates[j];
        if (h.diagonalMatrix || relabel(ahead, h))
            continue;
        for (int t = 0; t < h.k; ++t) {
            const int p = ahead.physical(h.targets[t]);
            if (p < L && candidate[p] && next[p] == std::numeric_limits<size_t>::max()) {
                next[p] = j;
                --unknown;
            }
        }
    }
    for (int q : needed) {
        int best = -1;
        for (int p = L - 1; p >= 0; --p)   // ties go to the highest local qubit: its half is contiguous
            if (candidate[p] && (best < 0 || next[p] > next[best]))
                best = p;
        candidate[best] = 0;
        const Swap s{map.physical(q) - L, best};
        map.swapGlobalLocal(s.slot, s.local);
        out.push_back(s);
    }
    return out;
}

Restore restoreIdentity(QubitMap& map)
{
    Restore r;
    const int L = map.localQubits(), k = map.globalQubits();
    // Global slots first: slot s must hold logical L + s. When that qubit is local, one swap brings it; when it
    // sits in another global slot, it goes through a local qubit whose logical place is local (two swaps).
    for (int s = 0; s < k; ++s) {
        const int want = L + s;
        if (map.physical(want) == L + s)
            continue;
        if (map.physical(want) >= L) {
            int via = -1;
            for (int p = L - 1; p >= 0 && via < 0; --p)
                if (map.logical(p) < L)
                    via = p;
            if (via < 0)
                throw std::logic_error("no local qubit to route a global qubit through");
            r.swaps.push_back({map.physical(want) - L, via});
            map.swapGlobalLocal(map.physical(want) - L, via);
        }
        const int p = map.physical(want);
        r.swaps.push_back({s, p});
        map.swapGlobalLocal(s, p);
    }
    for (int p = 0; p < L; ++p) {
        if (map.logical(p) == p)
            continue;
        const int from = map.physical(p);
        r.localSwaps.push_back({p, from});
        map.swapLocal(p, from);
    }
    return r;
}

int minLocalQubits(const std::vector<kernels::PreparedGate>& gates)
{
    int need = 1;
    for (const kernels::PreparedGate& g : gates) {
        if (!g.diagonalMatrix)
            need = std::max(need, g.k);
        need = std::max(need, static_cast<int>(g.controls.size()) + 1);
    }
    return need;
}

Traffic countSwapStrategy(const std::vector<kernels::PreparedGate>& gates, int n, int k, int bytesPerAmplitude, bool restore)
{
    QubitMap map(n, k);
    Traffic t;
    const uint64_t half = (uint64_t(1) << (n - k)) / 2 * uint64_t(bytesPerAmplitude);
    for (size_t i = 0; i < gates.size(); ++i) {
        if (relabel(map, gates[i]))
            continue;
        if (exchangeInPlace(map, gates, i)) {
            t.exchanges += 1;
            t.bytesSent += inPlaceAmplitudes(map, gates[i]) * uint64_t(bytesPerAmplitude);
            continue;
        }
        const auto swaps = swapsBefore(map, gates, i);
        t.exchanges += swaps.size();
        t.bytesSent += swaps.size() * half;
    }
    if (restore) {
        const Restore r = restoreIdentity(map);
        t.exchanges += r.swaps.size();
        t.bytesSent += r.swaps.size() * half;
    }
    return t;
}

Traffic countPairwiseExchange(const std::vector<kernels::PreparedGate>& gates, int n, int k, int bytesPerAmplitude)
{
    Traffic t;
    const uint64_t local = (uint64_t(1) << (n - k)) * uint64_t(bytesPerAmplitude);
    for (const kernels::PreparedGate& g : gates) {
        if (g.diagonalMatrix)
            continue;
        int global = 0;
        for (int j = 0; j < g.k; ++j)
            global += g.targets[j] >= n - k;
        if (global == 0)
            continue;
        if (g.k == 1) {
            t.exchanges += 1;
            t.bytesSent += local;
        } else {
            t.exchanges += 2 * uint64_t(global);
            t.bytesSent += 2 * uint64_t(global) * (local / 2);
        }
    }
    return t;
}

}  // namespace spyglass::quantum::distributed
