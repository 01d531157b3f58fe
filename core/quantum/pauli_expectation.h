#pragma once
// <psi|H|psi> for a Pauli sum on a REAL state vector psi (2^n reals, index bit q = qubit q), in two memory
// passes whatever the number of terms (plus one pass per term of the rare shapes listed below).
//
// For real psi, <P> = Re(i^numY) * sum_i psi[i ^ x] psi[i] (-1)^|i & z|: terms with an odd number of Y are zero
// (an imaginary antisymmetric matrix has zero expectation on a real vector) and numY = 2 mod 4 flips the sign.
// Terms are grouped by their flip mask x; each group is one weighted sum over the state:
//   - the diagonal group (x = 0, all Z strings) and every group flipping only qubits < b are summed in a
//     "chunk" pass over contiguous 2^b-amplitude chunks (each chunk stays in cache);
//   - groups whose flips include qubits >= b are summed in a "tile" pass over tiles of 2^w contiguous columns
//     times all 2^(n-b) high rows (the same tiling the real ansatz uses for its high-qubit gates), when the
//     group's low flips stay inside a tile (x mod 2^b < 2^w);
//   - anything else (off-diagonal groups with Z factors, or flips both >= b and >= w below b) gets its own
//     pass with a per-amplitude parity: correct for every Pauli sum, just not the fast path.

#include "core/quantum/pauli.h"
#include "core/quantum/real_kernels.h"

namespace spyglass::quantum {

// How a real state of n qubits is cut for cache-resident passes: chunks of 2^lowQubits contiguous amplitudes,
// tiles of 2^tileQubits contiguous columns across all 2^(n - lowQubits) high rows.
struct RealTiling {
    int lowQubits = 0;
    int tileQubits = 0;
};
RealTiling realTiling(int numQubits);

double expectationReal(const double* amps, int numQubits, const PauliSum& h);
double expectationReal(const float* amps, int numQubits, const PauliSum& h);
// The same with another cut (0 <= tileQubits <= lowQubits <= numQubits), kernel build and thread count (0: the
// OpenMP default); tests use it to exercise every path.
double expectationReal(const double* amps, int numQubits, const PauliSum& h, RealTiling tiling,
                       realk::Build build = realk::Build::Best, int threads = 0);
double expectationReal(const float* amps, int numQubits, const PauliSum& h, RealTiling tiling, realk::Build build = realk::Build::Best,
                       int threads = 0);

}  // namespace spyglass::quantum
