#pragma once
// The state vector: 2^n amplitudes in complex128 or complex64, allocated only after checking that the
// machine has the memory (a clear error instead of an OOM kill).

#include "core/quantum/circuit.h"
#include "core/quantum/kernels.h"
#include "core/quantum/pauli.h"

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

namespace spyglass::quantum {

enum class Precision { Double, Single };

// Bytes for `copies` state vectors of n qubits; throws InputError when they do not fit in available memory.
void checkMemory(int numQubits, Precision p, int copies = 1);
uint64_t availableMemoryBytes();

class StateVector {
public:
    StateVector(int numQubits, Precision p);
    ~StateVector();
    StateVector(const StateVector&) = delete;
    StateVector& operator=(const StateVector&) = delete;

    int numQubits() const { return n_; }
    Precision precision() const { return prec_; }
    uint64_t size() const { return uint64_t(1) << n_; }

    void setZero();                                   // |0...0>
    void copyFrom(const StateVector& other);
    void setAmplitudes(const std::vector<cplx>& amps);
    std::vector<cplx> amplitudes() const;
    cplx amplitude(uint64_t i) const;

    void apply(const kernels::PreparedGate& g);
    // Applies a run of gates, all on qubits below `chunkQubits`, chunk by chunk: each 2^chunkQubits slice
    // stays in cache while every gate of the run is applied to it (one memory pass for the whole run).
    void applyChunked(const kernels::PreparedGate* gates, size_t count, int chunkQubits);
    // Applies a gate list in cache-blocked runs: gates on low qubits chunk by chunk, gates on high (and the
    // lowest few) qubits tile by tile, reordering gates only past gates on disjoint qubits (statevector.cpp).
    void applyAll(const std::vector<kernels::PreparedGate>& gates);
    double probabilityOfOne(int qubit) const;
    // Projects `qubit` onto `outcome` and renormalises (prob = probability of that outcome).
    void collapse(int qubit, int outcome, double prob);
    double norm2() const;
    double expectation(const PauliSum& h) const;
    // Draws `shots` basis-state indices from |amplitude|^2 (one pass over the state).
    std::vector<uint64_t> sample(int shots, std::mt19937_64& rng) const;

    double* dataDouble() { return static_cast<double*>(data_); }
    float* dataFloat() { return static_cast<float*>(data_); }

private:
    void applyChunkRun(const kernels::PreparedGate* const* gates, size_t count, int chunkQubits);
    // Gates on qubits < w or >= b only, applied on tiles gathered into a buffer (see statevector.cpp).
    void applyTileRun(const kernels::PreparedGate* const* gates, size_t count, int b, int w);

    int n_;
    Precision prec_;
    void* data_ = nullptr;
};

}  // namespace spyglass::quantum
