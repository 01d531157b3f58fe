#pragma once
// The quantum pipeline: the common PassManager (core/common/pass_manager.h) over the passes the options select,
// plus any plugin passes, keeping an immutable snapshot after every pass. The GUI calls QuantumPipeline::run on a
// worker thread; JobControl cancels between passes.

#include "core/common/job_control.h"
#include "core/common/pass_record.h"
#include "core/quantum/circuit.h"
#include "core/quantum/pass.h"

#include <memory>
#include <vector>

namespace spyglass::quantum {

using QuantumSnapshot = Snapshot<Circuit>;   // record.name == "input" for the parsed circuit
using QuantumPassManager = spyglass::PassManager<Circuit, PassContext>;

struct PipelineOptions {
    bool inlineGates = true;
    bool decompose = true;
    Basis basis = Basis::U3Cx;
    bool optimize = true;                     // cancel_inverses, merge_rotations, remove_identities
    Coupling coupling = Coupling::None;       // route when not None
    bool fuse = false;
    int fuseMaxQubits = 4;
    bool recordIrText = true;                 // fill PassRecord::irText (off for big benchmark circuits)
    std::string stopAfter;                    // run up to and including this pass; empty: all
    std::vector<PassInsertion> extraPasses;   // plugins' passes, inserted in order
};

class QuantumPipeline {
public:
    // The built-in passes `options` selects, in order (adding a pass is one line there).
    static std::vector<std::unique_ptr<Pass>> passes(const PipelineOptions& options);
    // Those with options.extraPasses inserted. Throws InputError for an insertion point naming no pass.
    static QuantumPassManager passManager(const PipelineOptions& options);
    // Runs them; the first snapshot is the input. Throws Cancelled when the job is cancelled.
    static std::vector<QuantumSnapshot> run(const Circuit& input, const PipelineOptions& options, JobControl& job,
                                            const std::vector<std::shared_ptr<PassInstrumentation<Circuit>>>& watchers = {});
};

// The circuit the simulator runs: inline_gates, then fuse (when maxQubits > 0). No snapshots kept.
// localQubits: see makeFusePass (the circuit's qubit count minus log2 of the MPI ranks, when distributed).
Circuit prepareForSimulation(const Circuit& c, int fuseMaxQubits, int localQubits = std::numeric_limits<int>::max());

}  // namespace spyglass::quantum
