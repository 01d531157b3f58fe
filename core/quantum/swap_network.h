#pragma once
// A layer of SWAP gates on disjoint qubit pairs in one pass over the state (StateVector::applyAll runs the swaps
// that fit no cache block so: a QFT's closing swaps between the middle qubits and the high ones, each of which
// cost a pass of its own).

#include <cstdint>
#include <utility>
#include <vector>

namespace spyglass::quantum {

// Swaps the qubits of each pair of `swaps` in the n-qubit state `amps` (interleaved re/im). The pairs must be
// disjoint: the permutation of the amplitudes is then its own inverse, so it runs in place, each amplitude moved
// once by an exchange with its image (the ones that are their own image stay). Amplitudes move in runs of 2^m,
// m the lowest qubit of the pairs: ask it only of swaps on qubits whose runs are whole cache lines.
void applySwapNetwork(float* amps, int numQubits, const std::vector<std::pair<int, int>>& swaps);
void applySwapNetwork(double* amps, int numQubits, const std::vector<std::pair<int, int>>& swaps);

}  // namespace spyglass::quantum
