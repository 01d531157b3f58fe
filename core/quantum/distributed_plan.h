#pragma once
// Where the qubits of a state vector spread over 2^k MPI ranks live, and which data moves when. Pure logic
// (no MPI): the distributed engine (distributed_statevector.h) follows it, and the benchmark counts traffic with
// it for cluster sizes this machine does not have.
//
// Physical qubit p < n - k is bit p of a rank's local index; p >= n - k is bit p - (n - k) of the rank number
// ("global"). A gate whose non-diagonal targets are all local runs on every rank with the ordinary kernels;
// controls and diagonal factors on global qubits are constants per rank. A gate with a non-diagonal target on a
// global qubit first swaps that qubit with a local one (each rank exchanges half of its amplitudes with one
// partner), and the new placement stays until another gate needs a change: the local qubit given up is the one
// whose next use as a non-diagonal target lies furthest ahead (Belady's rule).

#include "core/quantum/kernels.h"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace spyglass::quantum::distributed {

// True when an MPI launcher started this process (Open MPI's mpirun sets OMPI_COMM_WORLD_SIZE; PMI and PMIx
// launchers such as srun set PMI_SIZE or PMIX_RANK); launcherRanks() is the rank count it states (1 if none).
bool launchedUnderMpi();
int launcherRanks();

class QubitMap {
public:
    QubitMap(int numQubits, int globalQubits);
    int numQubits() const { return n_; }
    int globalQubits() const { return k_; }
    int localQubits() const { return n_ - k_; }
    int physical(int logical) const { return phys_[logical]; }
    int logical(int physical) const { return log_[physical]; }
    bool isGlobal(int logical) const { return phys_[logical] >= n_ - k_; }
    bool identity() const;
    // Exchanges the roles of global slot `slot` (physical n - k + slot) and local qubit `local`.
    void swapGlobalLocal(int slot, int local);
    // Exchanges the logical qubits at physical positions a and b (a SWAP gate's relabelling, or a local swap).
    void swapLocal(int a, int b);

private:
    int n_, k_;
    std::vector<int> phys_, log_;
};

// A SWAP gate (two targets, no controls, the swap permutation) only exchanges what two logical qubits are
// called, wherever they live: it is absorbed into `map` (no kernel, no message) and relabel() returns true.
bool isSwapGate(const kernels::PreparedGate& g);
bool relabel(QubitMap& map, const kernels::PreparedGate& g);

// One exchange: global slot `slot` trades places with local qubit `local`.
struct Swap {
    int slot = 0;
    int local = 0;
};

// A one-target gate controlled by at least one local qubit, on a global target that no later gate (within the
// look-ahead) needs as a non-diagonal target: the rank pairs exchange only the controlled part of their states
// (2^-c of it for c local controls) and combine it in place, and the qubit stays global; a swap would move half
// the state now and, for a qubit whose place is global, half again to restore the logical order.
bool exchangeInPlace(const QubitMap& map, const std::vector<kernels::PreparedGate>& gates, size_t i);
// Amplitudes each rank sends for such a gate.
uint64_t inPlaceAmplitudes(const QubitMap& map, const kernels::PreparedGate& g);

// The swaps that make every non-diagonal target of gates[i] (logical qubits) local, chosen by look-ahead over
// the gates after it; `map` is updated. Nothing for a SWAP gate (relabel() handles it).
std::vector<Swap> swapsBefore(QubitMap& map, const std::vector<kernels::PreparedGate>& gates, size_t i);

// The swaps (global/local) and then local transpositions that bring `map` back to the identity, so rank r holds
// logical amplitudes [r 2^(n-k), (r+1) 2^(n-k)); `map` ends as the identity.
struct Restore {
    std::vector<Swap> swaps;
    std::vector<std::pair<int, int>> localSwaps;
};
Restore restoreIdentity(QubitMap& map);

// The fewest global qubits a circuit's gates allow with local states of at least `minLocal` qubits: the widest
// non-diagonal gate must fit locally, and a gate whose controls are all local needs a free local qubit besides.
int minLocalQubits(const std::vector<kernels::PreparedGate>& gates);

// Communication of a strategy for a gate list on n qubits over 2^k ranks, per rank: exchanges (one pairwise
// MPI_Sendrecv round each, in chunks) and bytes sent.
struct Traffic {
    uint64_t exchanges = 0;
    uint64_t bytesSent = 0;
};
// This engine: in-place exchanges where exchangeInPlace() says, swaps as swapsBefore() picks them, plus restoring the logical order at the end when `restore`.
Traffic countSwapStrategy(const std::vector<kernels::PreparedGate>& gates, int n, int k, int bytesPerAmplitude, bool restore);
// QuEST 3's pairwise exchange with the top k qubits global throughout: a non-diagonal gate with one target on a
// global qubit exchanges the whole local state with the partner rank (exchangeStateVectors), a gate with several
// targets swaps each global target in and back out (half the local state each way).
Traffic countPairwiseExchange(const std::vector<kernels::PreparedGate>& gates, int n, int k, int bytesPerAmplitude);

}  // namespace spyglass::quantum::distributed
