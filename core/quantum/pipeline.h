#pragma once
// The quantum pass manager: runs a list of passes over a copy of the circuit, recording a PassRecord
// (summary, wall time, canonical text) and keeping an immutable snapshot after every pass. The GUI calls
// QuantumPipeline::run on a worker thread; JobControl cancels between passes.

#include "core/common/job_control.h"
#include "core/common/pass_record.h"
#include "core/quantum/circuit.h"
#include "core/quantum/pass.h"

#include <memory>
#include <vector>

namespace spyglass::quantum {

struct QuantumSnapshot {
    PassRecord record;                        // record.name == "input" for the parsed circuit
    std::shared_ptr<const Circuit> circuit;   // the circuit after this pass
};

struct PipelineOptions {
    bool inlineGates = true;
    bool decompose = true;
    Basis basis = Basis::U3Cx;
    bool optimize = true;                     // cancel_inverses, merge_rotations, remove_identities
    Coupling coupling = Coupling::None;       // route when not None
    bool fuse = false;
    int fuseMaxQubits = 4;
    bool recordIrText = true;                 // fill PassRecord::irText (off for big benchmark circuits)
};

class QuantumPipeline {
public:
    // The passes `options` selects, in order.
    static std::vector<std::unique_ptr<Pass>> passes(const PipelineOptions& options);
    // Runs them; the first snapshot is the input. Throws Cancelled when the job is cancelled.
    static std::vector<QuantumSnapshot> run(const Circuit& input, const PipelineOptions& options, JobControl& job);
    static std::vector<QuantumSnapshot> runPasses(const Circuit& input, std::vector<std::unique_ptr<Pass>> passes, bool recordIrText,
                                                  JobControl& job);
};

// The circuit the simulator runs: inline_gates, then fuse (when maxQubits > 0). No snapshots kept.
Circuit prepareForSimulation(const Circuit& c, int fuseMaxQubits);

}  // namespace spyglass::quantum
