#pragma once
// Bits of a state index spread over and gathered from a set of qubits (the pdep and pext instructions' work), for
// the code that walks part of a state's index space: a swap network's tiles, a composed permutation's rows.

#include <cstdint>

namespace spyglass::quantum {

// x's low bits spread over the set bits of mask, lowest first.
inline uint64_t deposit(uint64_t x, uint64_t mask)
{
    uint64_t out = 0;
    for (; mask && x; x >>= 1, mask &= mask - 1)
        if (x & 1)
            out |= mask & -mask;
    return out;
}

// The bits of x at the set bits of mask, packed (deposit's inverse).
inline uint64_t extract(uint64_t x, uint64_t mask)
{
    uint64_t out = 0;
    for (int i = 0; mask; mask &= mask - 1, ++i)
        if (x & mask & -mask)
            out |= uint64_t(1) << i;
    return out;
}

}  // namespace spyglass::quantum
