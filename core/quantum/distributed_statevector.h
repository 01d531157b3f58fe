#pragma once
// The state vector spread over MPI ranks (`mpirun -np 2^k spyglass-cli qsim ...`): each rank holds 2^(n-k)
// amplitudes in an ordinary StateVector and runs local gates with its kernels, cache blocking and fusion; where
// data moves is distributed_plan.h's business. Results (samples, expectation values, probabilities) are the
// same on every rank. Built without MPI (or launched without mpirun) there is one rank: ranks() == 1 and the
// callers use StateVector directly; DistributedState then only exists to say so.

#include "core/common/job_control.h"
#include "core/quantum/distributed_plan.h"
#include "core/quantum/pauli.h"
#include "core/quantum/statevector.h"

#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace spyglass::quantum::distributed {

// MPI_Init_thread when built with MPI and launchedUnderMpi(); a no-op otherwise. Non-root ranks' stdout and
// stderr go to /dev/null so that messages appear once; errors that only some ranks see reach rank 0 through
// agree(). Returns an error message when the rank count is not a power of two.
std::optional<std::string> init(int* argc, char*** argv);
void finalize();
// Whether this build has the MPI engine (distributed_statevector.cpp) or only one process (distributed_serial.cpp).
bool builtWithMpi();
int rank();
int ranks();
inline bool isRoot() { return rank() == 0; }
// The qubits of an n-qubit state each rank holds when spread over every rank (the top log2(ranks) are global): what
// fusion keeps its non-diagonal blocks on (makeFusePass). n when not distributed.
inline int localQubits(int numQubits)
{
    int global = 0;
    while ((1 << (global + 1)) <= ranks())
        ++global;
    return numQubits - global;
}
// Collective over all ranks: when any rank passes a message, every rank throws InputError with the message of
// the lowest such rank.
void agree(const std::optional<std::string>& error);
// Runs fn on every rank in rank order (each waits for the previous one to finish).
void inTurn(const std::function<void()>& fn);
// The same value on every rank: rank 0's (a seed drawn on each rank); the largest over the ranks; a barrier.
uint64_t broadcast(uint64_t v);
double maxOverRanks(double v);
void barrier();

class DistributedState {
public:
    // Collective. Uses the largest power of two of ranks that leaves every rank at least `minLocal` qubits
    // (distributed_plan.h: minLocalQubits); the ranks left over hold nothing and take part in collectives only.
    // InputError (on every rank) when any rank lacks the memory.
    DistributedState(int numQubits, Precision p, int minLocal);
    ~DistributedState();
    DistributedState(const DistributedState&) = delete;
    DistributedState& operator=(const DistributedState&) = delete;

    int numQubits() const;
    int usedRanks() const;
    bool holdsAmplitudes() const;   // false on the ranks left over
    const QubitMap& map() const;
    // For the user (rank 0 prints it): why fewer ranks than launched hold the state; empty when all do.
    std::string note() const;

    void setZero();
    void copyFrom(const DistributedState& other);
    // Gates on logical qubits, in order: local runs go to StateVector::applyAll, swaps where plan.h says.
    void applyAll(const std::vector<kernels::PreparedGate>& gates, JobControl* job = nullptr);
    void apply(const kernels::PreparedGate& g) { applyAll(std::vector<kernels::PreparedGate>{g}); }
    // Moves amplitudes so that rank r holds logical amplitudes [offset(), offset() + 2^(n-k)) in order.
    void restoreOrder();
    uint64_t offset() const;
    const StateVector* local() const;   // null on the ranks left over

    double probabilityOfOne(int qubit) const;
    void collapse(int qubit, int outcome, double prob);
    // StateVector::resetAfter: here the collapse, then an X gate where the outcome was 1.
    void resetAfter(int qubit, int outcome, double prob);
    double expectation(const PauliSum& h);
    // The same draws as StateVector::sample on the whole state with the same generator state (restores order).
    std::vector<uint64_t> sample(int shots, std::mt19937_64& rng);

    Traffic traffic() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace spyglass::quantum::distributed
