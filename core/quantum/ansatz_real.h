#pragma once
// The VQE ansatz state (vqe.h: RY layers with CZ rings in between) kept as 2^n REAL amplitudes. RY and CZ are
// real matrices and |0...0> is real, so the imaginary parts are identically zero: half the memory traffic of
// complex128 and a quarter of the arithmetic per gate. One state preparation is 2 * layers passes over memory
// (layers >= 1), whatever the qubit count, using the cut of realTiling():
//   - a chunk pass over contiguous 2^b-amplitude chunks (in cache) applies the RY gates on qubits < b and the
//     CZ ring (a sign per index: diagonal, so it needs no partner amplitude);
//   - a tile pass over tiles of 2^w columns x all high rows applies the RY gates on qubits >= b.
// Schedule (RY layers 0..L, CZ ring after RY layers 0..L-1):
//   chunk: write CZ RY_0 |0> in closed form (a product state times a sign), then RY_1 on the low qubits;
//   for l = 1..L: tile: RY_l on the high qubits; if l < L, chunk: CZ ring, then RY_{l+1} on the low qubits.
// (RY gates on disjoint qubits commute, and every gate of one layer precedes the next CZ ring.)

#include "core/quantum/pauli.h"
#include "core/quantum/pauli_expectation.h"
#include "core/quantum/statevector.h"

#include <vector>

namespace spyglass::quantum {

class RealAnsatzState {
public:
    // InputError when the state does not fit in available memory. `tiling` defaults to realTiling(numQubits);
    // tests pass other cuts to exercise every pass on small states.
    RealAnsatzState(int numQubits, int layers, Precision p);
    RealAnsatzState(int numQubits, int layers, Precision p, RealTiling tiling);
    ~RealAnsatzState();
    RealAnsatzState(const RealAnsatzState&) = delete;
    RealAnsatzState& operator=(const RealAnsatzState&) = delete;

    int numQubits() const { return n_; }
    int layers() const { return layers_; }

    // theta: numQubits * (layers + 1) angles, layer by layer (vqeAnsatz's order). `build` picks the kernel
    // build (tests compare the portable one with the AVX2 one).
    void prepare(const std::vector<double>& theta, realk::Build build = realk::Build::Best);
    double expectation(const PauliSum& h, realk::Build build = realk::Build::Best) const;
    double amplitude(uint64_t i) const;
    // OpenMP threads for the passes (default: omp_get_max_threads()); results do not depend on it.
    void setThreads(int threads);
    int threads() const { return threads_; }
    // The state as complex amplitudes (imaginary parts 0), e.g. to compare with the gate-by-gate simulator.
    void copyTo(StateVector& sv) const;

    // Per-state tables (angles, first-layer product, CZ sign tables); defined in ansatz_real.cpp.
    struct Impl;

private:
    int n_;
    int layers_;
    Precision prec_;
    void* data_ = nullptr;
    Impl* impl_ = nullptr;
    int threads_ = 1;
};

}  // namespace spyglass::quantum
