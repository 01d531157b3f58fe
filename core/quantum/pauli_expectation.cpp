#include "core/quantum/pauli_expectation.h"

#include "core/quantum/real_kernels.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <omp.h>
#include <stdexcept>
#include <vector>

namespace spyglass::quantum {

RealTiling realTiling(int n)
{
    // Chunks of 2^13 amplitudes (64 KiB in double) stay in L2; a tile keeps <= 2^15 amplitudes (256 KiB) and is at
    // least 8 columns wide (a cache line of doubles) so its rows are read as whole lines.
    RealTiling t;
    if (n <= 13) {
        t.lowQubits = n;
        t.tileQubits = n;
        return t;
    }
    const int high = std::min(n - 13, 12);
    t.lowQubits = n - high;
    t.tileQubits = std::min(t.lowQubits, std::max(3, 15 - high));
    return t;
}

namespace {

// Parity of the set bits without a popcount instruction (the portable build has none).
inline int parity(uint64_t x)
{
    x ^= x >> 32;
    x ^= x >> 16;
    x ^= x >> 8;
    x ^= x >> 4;
    return (0x6996 >> (x & 0xf)) & 1;
}

using realk::ZTerm;

// Terms with the same flip mask x: weight D(i) = dconst + sum_t c_t (-1)^|i & z_t|.
struct Group {
    uint64_t x = 0;
    double dconst = 0;
    std::vector<ZTerm> zterms;
};

// The diagonal weight sum_t c_t (-1)^|i & z_t| for blocks of 2^L consecutive indices: terms inside the low L bits
// are one table, terms above them a constant per block, terms straddling the boundary a table each with a
// per-block sign. The TFIM ring has two straddling terms, so a block costs three adds per amplitude.
struct DiagWeights {
    static constexpr int L = 8;
    int bits = 0;                                // min(L, lowQubits)
    std::vector<double> low;                     // 2^bits
    std::vector<ZTerm> high;                     // z has no low bits
    std::vector<uint64_t> straddleMask;          // z's high bits, per straddling term ...
    std::vector<std::vector<double>> straddle;   // ... and c (-1)^|k & z| over the low bits
    std::vector<const double*> straddlePtr;

    // lowQubits: the chunk size, which a weight block must not exceed.
    DiagWeights(const std::vector<ZTerm>& terms, int lowQubits)
    {
        bits = std::min(L, lowQubits);
        const uint64_t len = uint64_t(1) << bits, mask = len - 1;
        low.assign(len, 0.0);
        for (const ZTerm& t : terms) {
            if ((t.z & ~mask) == 0) {
                for (uint64_t k = 0; k < len; ++k)
                    low[k] += parity(k & t.z) ? -t.c : t.c;
            } else if ((t.z & mask) == 0) {
                high.push_back(t);
            } else {
                std::vector<double> tab(len);
                for (uint64_t k = 0; k < len; ++k)
                    tab[k] = parity(k & t.z) ? -t.c : t.c;
                straddle.push_back(std::move(tab));
                straddleMask.push_back(t.z & ~mask);
            }
        }
        for (const auto& tab : straddle)
            straddlePtr.push_back(tab.data());
    }
};

template <class T>
double expectationImpl(const T* a, int n, const PauliSum& h, RealTiling tiling, realk::Build build, int threads)
{
    if (tiling.tileQubits < 0 || tiling.tileQubits > tiling.lowQubits || tiling.lowQubits > n)
        throw std::invalid_argument("bad real-state tiling");
    const int b = tiling.lowQubits, w = tiling.tileQubits;
    const uint64_t chunkLen = uint64_t(1) << b, lowMask = chunkLen - 1, tileCols = uint64_t(1) << w;
    std::vector<ZTerm> diagTerms;
    std::map<uint64_t, Group> byMask;
    for (const PauliTerm& t : h.terms) {
        if (t.numY & 1)
            continue;   // zero on a real state
        const double c = (t.numY & 2) ? -t.coeff : t.coeff;
        if (t.xMask == 0) {
            diagTerms.push_back({t.zMask, c});
            continue;
        }
        Group& g = byMask[t.xMask];
        g.x = t.xMask;
        if (t.zMask == 0)
            g.dconst += c;
        else
            g.zterms.push_back({t.zMask, c});
    }
    std::vector<Group> inChunk, inTile, general;
    for (auto& [x, g] : byMask) {
        if (!g.zterms.empty())
            general.push_back(g);
        else if (x < chunkLen)
            inChunk.push_back(g);
        else if ((x & lowMask) < tileCols)
            inTile.push_back(g);
        else
            general.push_back(g);
    }
    const DiagWeights dw(diagTerms, b);
    std::vector<uint64_t> chunkX, tileX;
    std::vector<double> chunkW, tileW;
    for (const Group& g : inChunk) {
        chunkX.push_back(g.x);
        chunkW.push_back(g.dconst);
    }
    for (const Group& g : inTile) {
        tileX.push_back(g.x);
        tileW.push_back(g.dconst);
    }
    realk::ExpectationPlan plan;
    plan.n = n;
    plan.lowQubits = b;
    plan.tileQubits = w;
    plan.diagonal = !diagTerms.empty();
    plan.diagBits = dw.bits;
    plan.low = dw.low.data();
    plan.high = dw.high.data();
    plan.numHigh = static_cast<int>(dw.high.size());
    plan.straddleMask = dw.straddleMask.data();
    plan.straddle = dw.straddlePtr.data();
    plan.numStraddle = static_cast<int>(dw.straddlePtr.size());
    plan.chunkX = chunkX.data();
    plan.chunkW = chunkW.data();
    plan.numChunk = static_cast<int>(chunkX.size());
    plan.tileX = tileX.data();
    plan.tileW = tileW.data();
    plan.numTile = static_cast<int>(tileX.size());
    std::vector<double> partial(size_t(1) << std::max(n - b, b - w));
    plan.partial = partial.data();
    plan.threads = threads > 0 ? threads : omp_get_max_threads();
    double total = realk::expectationPasses(a, plan, build);
    // Everything else: one pass per group with a parity per amplitude.
    for (const Group& g : general) {
        const int64_t len = int64_t(1) << n;
        double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static) if (len >= (int64_t(1) << 16))
        for (int64_t i = 0; i < len; ++i) {
            double d = g.dconst;
            for (const ZTerm& t : g.zterms)
                d += parity(uint64_t(i) & t.z) ? -t.c : t.c;
            s += d * double(a[i]) * double(a[uint64_t(i) ^ g.x]);
        }
        total += s;
    }
    return total;
}

}  // namespace

double expectationReal(const double* amps, int n, const PauliSum& h) { return expectationImpl(amps, n, h, realTiling(n), realk::Build::Best, 0); }
double expectationReal(const float* amps, int n, const PauliSum& h) { return expectationImpl(amps, n, h, realTiling(n), realk::Build::Best, 0); }
double expectationReal(const double* amps, int n, const PauliSum& h, RealTiling t, realk::Build build, int threads)
{
    return expectationImpl(amps, n, h, t, build, threads);
}
double expectationReal(const float* amps, int n, const PauliSum& h, RealTiling t, realk::Build build, int threads)
{
    return expectationImpl(amps, n, h, t, build, threads);
}

}  // namespace spyglass::quantum
