#pragma once
// What the State view shows of a final state: per-qubit Bloch vectors (from each qubit's reduced density
// matrix) and the most probable basis states.

#include "core/quantum/circuit.h"
#include "core/quantum/statevector.h"

#include <array>
#include <cstdint>
#include <string>
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

// What the shots of a circuit whose measurements are all terminal estimate: the probability of every outcome of
// the classical bits, from the state before the measurements (the marginal over the measured qubits; the others,
// e.g. an ancilla, are summed over).
struct MeasuredDistribution {
    std::vector<int> qubitOfClbit;       // the qubit measured into each clbit; -1 when none is
    std::vector<int> unmeasuredQubits;   // qubits no measurement reads, in index order
    struct Outcome {
        uint64_t bits = 0;               // bit j = clbit j
        std::string key;                 // as the shot counts spell it (countsKey: last register leftmost, MSB first)
        double probability = 0;
    };
    std::vector<Outcome> outcomes;       // every outcome with probability > 1e-12, in basis order of the clbits
};
// Outcomes are only enumerated for up to kMaxMarginalClbits clbits (outcomes stays empty beyond).
constexpr int kMaxMarginalClbits = 24;
MeasuredDistribution measuredDistribution(const Circuit& c, const std::vector<cplx>& amplitudes);

// The circuit up to a point of the drawing: the ops `keep` marks, in order, without measurements (the state
// just before them is what is shown). Used to show the state after a column of the Circuit view.
Circuit circuitPrefix(const Circuit& c, const std::vector<char>& keep);

}  // namespace spyglass::quantum
