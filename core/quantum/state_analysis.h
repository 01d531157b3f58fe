#pragma once
// What the State view shows of a final state: per-qubit Bloch vectors (from each qubit's reduced density
// matrix) and the most probable basis states.

#include "core/quantum/statevector.h"

#include <array>
#include <cstdint>
#include <vector>

namespace spyglass::quantum {

// (x, y, z) = (Tr ρX, Tr ρY, Tr ρZ) of qubit k's reduced density matrix; length 1 for a product state,
// shorter when the qubit is entangled with others.
std::vector<std::array<double, 3>> blochVectors(const std::vector<cplx>& amplitudes, int numQubits);

struct BasisAmplitude {
    uint64_t index = 0;   // bit k = qubit k
    cplx amplitude;
    double probability = 0;
};

// The `k` largest-probability basis states, most probable first (ties by index).
std::vector<BasisAmplitude> topAmplitudes(const std::vector<cplx>& amplitudes, size_t k);

}  // namespace spyglass::quantum
