#include "core/quantum/swap_network.h"

#include "core/quantum/index_bits.h"
#include "core/quantum/kernels.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace spyglass::quantum {

namespace {

// The state moves in runs of 2^m amplitudes (m the lowest qubit swapped); run r holds the amplitudes whose index
// is r above its m lowest bits. sigma, the swaps on run indices, pairs the runs: r exchanges with sigma(r).
// Taken in the order of r alone, sigma(r) jumps across the state from one run to the next (a QFT's swaps pair
// each low qubit with a high one), a cache line and a TLB entry per run. So the runs go a tile at a time: every
// value of the lowest run bits (consecutive runs: rows of up to kRowBytes) and of their images, the other bits
// held. A tile's image is the tile of the held bits' image. Both are copied into a buffer in the order of their
// addresses and written back so, each run from its image's place in the buffer (kernels::moveRuns), so the
// transposition happens in L1. 2026-12-06, the Xeon of BENCHMARKS.md, 26 qubits in complex64, two threads: ten
// swaps of qubits 3-12 with 22-13 (runs of one 64-byte line) took 0.223 s exchanged run by run in place, 0.044-
// 0.050 s in tiles of rows of 1 KiB (both in AVX-512 vectors), against 0.018-0.020 s for a Hadamard on qubit 25
// (one pass); rows of 512 bytes or of 4-32 KiB were slower. Seven swaps of qubits 6-12 with 19-13 (a QFT's at 26
// qubits) took 1.45-1.5 passes so.
constexpr size_t kRowBytes = 2048;
constexpr int kMaxRowBits = 4;

struct RunPairs {
    std::vector<std::pair<int, int>> bits;   // the swapped qubits, as bits of a run index
    uint64_t operator()(uint64_t r) const
    {
        for (const auto& [p, q] : bits) {
            const uint64_t differ = ((r >> p) ^ (r >> q)) & 1;
            r ^= (differ << p) | (differ << q);
        }
        return r;
    }
};

template <class T>
void swapNetwork(T* amps, int n, const std::vector<std::pair<int, int>>& swaps)
{
    if (swaps.empty())
        return;
    int m = n;
    for (const auto& [p, q] : swaps)
        m = std::min({m, p, q});
    const int runBits = n - m;
    // As floats, whatever the precision (kernels::moveRuns moves 64-byte lines).
    float* const state = reinterpret_cast<float*>(amps);
    const uint64_t runFloats = (uint64_t(2) << m) * sizeof(T) / sizeof(float);
    RunPairs sigma;
    for (const auto& [p, q] : swaps)
        sigma.bits.emplace_back(p - m, q - m);
    const uint64_t runMask = runBits >= 64 ? ~uint64_t(0) : (uint64_t(1) << runBits) - 1;

    int rowBits = 0;
    while (rowBits < std::min(kMaxRowBits, runBits) && (runFloats * sizeof(float) << (rowBits + 1)) <= kRowBytes)
        ++rowBits;
    if (rowBits == 0) {
        // Runs of a row or more: each exchanged with its image directly, a row's length at a time, both read in
        // order.
        constexpr uint64_t kPieceFloats = kRowBytes / sizeof(float);
        static const uint64_t zero = 0;
#pragma omp parallel
        {
            alignas(64) float piece[kPieceFloats];
#pragma omp for schedule(dynamic, 16)
            for (int64_t r = 0; r <= int64_t(runMask); ++r) {
                const uint64_t s = sigma(uint64_t(r));
                if (s <= uint64_t(r))
                    continue;
                for (uint64_t i = 0; i < runFloats; i += kPieceFloats) {
                    float* const x = state + uint64_t(r) * runFloats + i;
                    float* const y = state + s * runFloats + i;
                    const uint64_t floats = std::min(kPieceFloats, runFloats - i);
                    kernels::moveRuns(piece, 0, &zero, x, 0, &zero, 1, floats);
                    kernels::moveRuns(x, 0, &zero, y, 0, &zero, 1, floats);
                    kernels::moveRuns(y, 0, &zero, piece, 0, &zero, 1, floats);
                }
            }
        }
        return;
    }
    uint64_t tileMask = (uint64_t(1) << rowBits) - 1;
    for (int bit = 0; bit < rowBits; ++bit)
        tileMask |= sigma(uint64_t(1) << bit);
    const uint64_t heldMask = runMask & ~tileMask;

    // A tile's runs in the order of their addresses (as offsets from its base; rows of 2^rowBits consecutive
    // runs), and for each the one whose content it takes (its image, as an index into that order).
    const size_t tileRuns = size_t(1) << std::popcount(tileMask);
    std::vector<uint64_t> offset(tileRuns), source(tileRuns), order(tileRuns);
    for (size_t c = 0; c < tileRuns; ++c) {
        offset[c] = deposit(c, tileMask);
        source[c] = extract(sigma(offset[c]), tileMask);
        order[c] = c;
    }
    // A tile that is its own image moves only its runs that are not their own (a quarter of all runs stay at two
    // swaps, every one of them in such a tile): those runs' offsets, and for each where in the buffer its image is.
    std::vector<uint64_t> movedOffset, movedSource, movedOrder, slot(tileRuns);
    for (size_t c = 0; c < tileRuns; ++c)
        if (source[c] != c) {
            slot[c] = movedOffset.size();
            movedOrder.push_back(movedOffset.size());
            movedOffset.push_back(offset[c]);
        }
    for (size_t c = 0; c < tileRuns; ++c)
        if (source[c] != c)
            movedSource.push_back(slot[source[c]]);
    const int64_t tiles = int64_t(1) << std::popcount(heldMask);
#pragma omp parallel if (tiles >= 32)
    {
        std::vector<float> buffer(2 * tileRuns * runFloats + 16);
        float* const tileCopy = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(buffer.data()) + 63) & ~uintptr_t(63));
        float* const imageCopy = tileCopy + tileRuns * runFloats;
        const auto gather = [&](uint64_t base, float* to) { kernels::moveRuns(to, 0, order.data(), state, base, offset.data(), tileRuns, runFloats); };
        const auto scatter = [&](uint64_t base, const float* from) {
            kernels::moveRuns(state, base, offset.data(), from, 0, source.data(), tileRuns, runFloats);
        };
#pragma omp for schedule(dynamic, 16)
        for (int64_t t = 0; t < tiles; ++t) {
            const uint64_t base = deposit(uint64_t(t), heldMask), imageBase = sigma(base);
            // Each pair of tiles once, from the lower base.
            if (imageBase < base)
                continue;
            if (imageBase == base) {
                const size_t moved = movedOffset.size();
                kernels::moveRuns(tileCopy, 0, movedOrder.data(), state, base, movedOffset.data(), moved, runFloats);
                kernels::moveRuns(state, base, movedOffset.data(), tileCopy, 0, movedSource.data(), moved, runFloats);
                continue;
            }
            gather(base, tileCopy);
            gather(imageBase, imageCopy);
            scatter(base, imageCopy);
            scatter(imageBase, tileCopy);
        }
    }
}

}  // namespace

void applySwapNetwork(float* amps, int numQubits, const std::vector<std::pair<int, int>>& swaps)
{
    swapNetwork(amps, numQubits, swaps);
}

void applySwapNetwork(double* amps, int numQubits, const std::vector<std::pair<int, int>>& swaps)
{
    swapNetwork(amps, numQubits, swaps);
}

}  // namespace spyglass::quantum
