#pragma once
// Workload generators, defined exactly so results are reproducible:
//   QFT(n): Qiskit's textbook QFT (H and controlled-phase ladder from the top qubit down, then swaps) on the
//           basis state |input>, so that QFT|x> = 2^{-n/2} sum_k e^{2 pi i x k / 2^n} |k>; measured.
//   Deutsch-Jozsa(n): n input qubits + 1 ancilla; constant oracle f(x) = 0 (or 1), balanced oracle
//           f(x) = s.x mod 2 for a non-zero mask s; measuring the inputs gives 0...0 iff constant.
//   GHZ(n): H then a CX chain; measured: all zeros or all ones.
//   Bernstein-Vazirani(n, s): n input qubits + 1 ancilla; measuring the inputs gives s.
//   Grover(n, marked): n qubits (3 by default), floor(pi/4 sqrt(2^n)) iterations of phase oracle + diffusion.
//   Random layers(n, layers, seed): docs/quantum.md's comparison circuit; each layer is rx, ry or rz (uniform)
//           at an angle uniform in [0, 2 pi) on every qubit, then cz on the pairs (q, q+1) from q = layer % 2;
//           std::mt19937_64 seeded with `seed`, the gate drawn before its angle. Not measured.

#include "core/quantum/circuit.h"

namespace spyglass::quantum {

Circuit makeQft(int n, uint64_t input = 0, bool measure = true);
Circuit makeDeutschJozsa(int n, bool balanced, uint64_t mask = 0);   // mask 0 -> all ones (balanced) / f = 0 (constant)
Circuit makeGhz(int n);
Circuit makeBernsteinVazirani(int n, uint64_t secret);
Circuit makeGrover(int n, uint64_t marked);
Circuit makeRandomLayers(int n, int layers, uint64_t seed);

}  // namespace spyglass::quantum
