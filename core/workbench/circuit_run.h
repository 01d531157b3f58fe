#pragma once
// A circuit file run on the state-vector simulator as written, with shots: what `spyglass-cli qsim` does (the
// explorer's own simulation, of the compiled circuit, is compileDocument's). Under mpirun every rank runs it on
// its part of the state (distributed_statevector.h); rank 0 records it.

#include "core/common/diagnostics.h"
#include "core/common/job_control.h"
#include "core/quantum/circuit.h"
#include "core/quantum/simulator.h"

#include <optional>
#include <string>
#include <vector>

namespace spyglass::session {
class SessionRecorder;
}

namespace spyglass {

struct CircuitRunRequest {
    int shots = 1024;
    std::optional<uint64_t> seed;    // default: a random one (rank 0's, under mpirun)
    quantum::Precision precision = quantum::Precision::Double;
    bool fusion = true;
    int fuseMaxQubits = 4;
    bool force = false;              // run past quantum::kMaxSimulationWork
};

struct CircuitRun {
    std::string path;
    std::vector<Diagnostic> warnings;   // the parser's
    quantum::Circuit circuit;           // gates inlined: what the user wrote, in primitive gates
    quantum::Circuit simulated;         // after fusion (the same as `circuit` without it)
    CircuitRunRequest request;
    uint64_t seed = 0;                  // the seed used
    quantum::SimResult result;
};

// Throws InputError (located in the file) for circuits that do not parse or that the simulator refuses.
CircuitRun runCircuitFile(const std::string& path, const CircuitRunRequest& request, JobControl& control);

// One "qsim" run: its options, the circuit's timing row and the simulation's wall time.
void recordRun(const CircuitRun& run, session::SessionRecorder& recorder);

// The circuit-timing row every recorded circuit simulation writes (this run's and the explorer's), named by file.
void recordCircuitTiming(const quantum::Circuit& circuit, double simMs, const std::string& path, session::SessionRecorder& recorder);

}  // namespace spyglass
