#include "core/quantum/row_permutation.h"

#include "core/quantum/index_bits.h"

#include <bit>
#include <numeric>

namespace spyglass::quantum {

namespace {

template <class T>
void applyCycles(T* block, int blockQubits, const RowCycles& c)
{
    if (c.cycleEnd.empty())
        return;
    // As floats, whatever the precision (kernels::cycleRows moves 64-byte lines).
    constexpr uint64_t floatsPerAmplitude = 2 * sizeof(T) / sizeof(float);
    const uint64_t blockMask = (uint64_t(1) << blockQubits) - 1;
    const uint64_t others = blockMask & ~c.qubits & ~((uint64_t(1) << c.lowest) - 1);
    const uint64_t bases = uint64_t(1) << std::popcount(others);
    float* const floats = reinterpret_cast<float*>(block);
    for (uint64_t b = 0; b < bases; ++b)
        kernels::cycleRows(floats + deposit(b, others) * floatsPerAmplitude, c.rowAt.data(), c.cycleEnd.data(), c.cycleEnd.size(),
                           floatsPerAmplitude << c.lowest);
}

}  // namespace

bool composable(const kernels::PreparedGate& g, int amplitudeBytes)
{
    const uint64_t qubits = kernels::qubitMask(g);
    return g.permutation && qubits != 0 && (uint64_t(amplitudeBytes) << std::countr_zero(qubits)) >= 64;
}

RowCycles composeRows(const std::vector<const kernels::PreparedGate*>& gates, int amplitudeBytes)
{
    RowCycles out;
    for (const kernels::PreparedGate* g : gates)
        out.qubits |= kernels::qubitMask(*g);
    out.lowest = std::countr_zero(out.qubits);
    const int u = std::popcount(out.qubits);
    const auto bitOf = [&](int q) { return uint32_t(1) << std::popcount(out.qubits & ((uint64_t(1) << q) - 1)); };
    // source[x]: the row whose amplitudes row x holds after the gates so far (a gate's permSource on its own rows:
    // after it, x holds what was at its source, which held source[that] before it).
    std::vector<uint32_t> source(size_t(1) << u), next(source.size());
    std::iota(source.begin(), source.end(), 0u);
    for (const kernels::PreparedGate* g : gates) {
        uint32_t controls = 0, targets = 0, targetBit[kernels::kMaxTargets];
        for (int c : g->controls)
            controls |= bitOf(c);
        for (int j = 0; j < g->k; ++j)
            targets |= targetBit[j] = bitOf(g->targets[j]);
        for (uint32_t x = 0; x < source.size(); ++x) {
            uint32_t from = x;
            if ((x & controls) == controls) {
                int r = 0;
                for (int j = 0; j < g->k; ++j)
                    r |= int((x & targetBit[j]) != 0) << j;
                const int s = g->permSource[size_t(r)];
                from = x & ~targets;
                for (int j = 0; j < g->k; ++j)
                    if (s >> j & 1)
                        from |= targetBit[j];
            }
            next[x] = source[from];
        }
        source.swap(next);
    }
    const uint64_t floatsPerAmplitude = uint64_t(amplitudeBytes) / sizeof(float);
    std::vector<char> seen(source.size(), 0);
    for (uint32_t r0 = 0; r0 < source.size(); ++r0) {
        if (seen[r0] || source[r0] == r0)
            continue;
        for (uint32_t r = r0; !seen[r]; r = source[r]) {
            seen[r] = 1;
            out.rowAt.push_back(deposit(r, out.qubits) * floatsPerAmplitude);
        }
        out.cycleEnd.push_back(static_cast<uint32_t>(out.rowAt.size()));
    }
    return out;
}

void applyRowCycles(float* block, int blockQubits, const RowCycles& c)
{
    applyCycles(block, blockQubits, c);
}

void applyRowCycles(double* block, int blockQubits, const RowCycles& c)
{
    applyCycles(block, blockQubits, c);
}

}  // namespace spyglass::quantum
