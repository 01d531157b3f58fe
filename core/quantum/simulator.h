#pragma once
// Runs a QPIR circuit (of primitive or fused gates) on the state vector: sampling shots once from the final
// state when every measurement is terminal, per-shot trajectories otherwise (mid-circuit measure, reset, if).

#include "core/common/job_control.h"
#include "core/quantum/circuit.h"
#include "core/quantum/distributed_statevector.h"
#include "core/quantum/statevector.h"

#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>

namespace spyglass::quantum {

// The most work `qsim` starts unasked (without --force), in amplitude updates (one gate or fused block applied
// to one amplitude): 2^38, about 5 minutes on the 2-core development machine, which measured 1.2 ns per update
// (`qsim` of a 20-qubit, 4 000-gate circuit with --no-fusion: 4.99 s for 4 000 x 2^20 updates, 2026-12-01).
constexpr double kMaxSimulationWork = double(uint64_t(1) << 38);

struct SimOptions {
    int shots = 1024;
    uint64_t seed = 1;
    Precision precision = Precision::Double;
    // Refuse (InputError, before anything runs) when estimatedWork exceeds this; no limit unless set.
    double maxWork = std::numeric_limits<double>::infinity();
};

// Amplitude updates simulate() will do: the gates once when every measurement is terminal, else the unitary
// prefix once and the rest (a measurement or reset once per qubit, and the state copy) once per shot, each over
// 2^qubits amplitudes.
double estimatedWork(const Circuit& c, int shots);

struct SimResult {
    std::map<std::string, int> counts;   // Qiskit keys: registers joined by ' ', last declared leftmost, MSB first
    double simMs = 0;
    bool trajectories = false;           // true when shots were simulated one by one
    int gatesApplied = 0;                // gate ops per run of the circuit
    int fusedBlocks = 0;
    // Under mpirun (distributed_statevector.h): the ranks that held the state, the data they exchanged (per
    // rank, summed over the runs of the circuit) and why fewer ranks than launched were used, if they were.
    int ranks = 1;
    distributed::Traffic traffic;
    std::string note;
};

// True when every measurement is terminal and nothing depends on a measurement (sample once).
bool measurementsAreTerminal(const Circuit& c);

// Throws InputError for ops the simulator cannot run (opaque or undefined gates: run inline_gates first).
SimResult simulate(const Circuit& c, const SimOptions& opt, JobControl* job = nullptr);

// The final state of the circuit's gates, ignoring terminal measurements; InputError when the circuit has
// mid-circuit measurement, reset after gates, or conditions.
std::unique_ptr<StateVector> finalState(const Circuit& c, Precision p, JobControl* job = nullptr);

// The same over the MPI ranks (distributed::ranks() > 1), in logical order (DistributedState::restoreOrder).
// `beforeGates` runs once the state is allocated (its memory checked by every rank together), before any gate.
std::unique_ptr<distributed::DistributedState> finalDistributedState(const Circuit& c, Precision p, JobControl* job = nullptr,
                                                                     const std::function<void()>& beforeGates = {});

// The gate ops of `c` prepared in order (barriers skipped); InputError for measurement, reset or conditions.
std::vector<kernels::PreparedGate> prepareGates(const Circuit& c);
// The gates before the terminal measurements, prepared; InputError when the circuit has mid-circuit measurement,
// reset after gates, or conditions.
std::vector<kernels::PreparedGate> prepareFinalGates(const Circuit& c);

// Runs the gates of `c` (no measurement/reset/conditions allowed) on an existing state.
void applyGates(const Circuit& c, StateVector& sv, JobControl* job = nullptr);

// Prepares one gate op for the kernels (controls of standard gates are kept as controls).
kernels::PreparedGate prepareOp(const Circuit& c, const Op& op);

// Bitstring key for a classical register file in Qiskit's convention.
std::string countsKey(const Circuit& c, const std::vector<char>& clbits);

}  // namespace spyglass::quantum
