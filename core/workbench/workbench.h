#pragma once
// The workbench: what Spyglass does to a file, once, for the GUI, the CLI and the tests alike. It reads the file
// (bounded size), runs the compiler that fits its kind (with the request's options, pins and plugin passes), runs
// the fitting simulator (the Spyre timing model on the final bundle, and numbers checked against the reference
// interpreter for small models; the state-vector simulator for circuits), and returns one typed result, the
// CompiledDocument. recordRun() writes that result into a session. The GUI's Document is a thin observable wrapper
// of a CompiledDocument; `spyglass-cli compile` and `qcompile` print one.

#include "core/common/diagnostics.h"
#include "core/common/document_kind.h"
#include "core/common/job_control.h"
#include "core/common/pass_record.h"
#include "core/common/trace.h"
#include "core/model/model_loader.h"
#include "core/plugins/pass_plugin_loader.h"
#include "core/quantum/pipeline.h"
#include "core/quantum/state_analysis.h"
#include "core/quantum/vqe_report.h"
#include "core/spyre/pass.h"
#include "core/spyresim/numerics_bisect.h"

#include <QString>

#include <array>
#include <complex>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace spyglass::spyre {
struct Program;
struct SpyreTarget;
}
namespace spyglass::spyresim {
struct SimResult;
struct SimOptions;
}
namespace spyglass::model {
struct TensorComparison;
}
namespace spyglass::session {
class SessionRecorder;
}

namespace spyglass {

// The simulator's answer for a circuit document (computed once, after the last pass).
struct QuantumRunResult {
    int qubits = 0;
    int shots = 0;
    uint64_t seed = 0;
    std::map<std::string, int> counts;     // Qiskit-convention keys
    double simMs = 0;
    bool hasState = false;                 // false for mid-circuit measurement or too many qubits
    struct Amplitude {
        uint64_t index = 0;                // bit k = qubit k
        std::complex<double> value;
        double probability = 0;
    };
    std::vector<Amplitude> topAmplitudes;  // most probable first
    std::vector<std::array<double, 3>> bloch;   // per qubit
    // Every basis state's probability by index (bit k = qubit k), for up to kMaxBasisQubits qubits.
    std::vector<double> probabilities;
    // What the counts estimate, from the state: the marginal over the measured clbits (circuits that measure).
    std::optional<quantum::MeasuredDistribution> measured;
    // For a state part-way along the circuit (stateAfterColumn): the last drawing column applied (-1: none, the
    // initial |0…0⟩). Unset for the final state.
    std::optional<int> column;
    QString note;                          // why something is missing, in plain words
};

// Beyond this the State view lists the most probable states instead of all 2^n.
constexpr int kMaxBasisQubits = 10;

// The state after every op in drawing columns 0..column (opColumns as the Circuit view places them, one per op),
// measurements left out: the step-by-step view along the circuit. No shots; note says why there is no state
// (too many qubits, a reset or a condition on the way).
std::shared_ptr<const QuantumRunResult> stateAfterColumn(const quantum::Circuit& c, const std::vector<int>& opColumns, int column,
                                                         JobControl& control);

struct CompiledDocument {
    QString path;
    DocumentKind kind = DocumentKind::Unknown;
    QString sourceText;                   // the file as read (empty for binary models)
    PassRecords passes;                   // one record per pass, in order
    std::vector<Diagnostic> diagnostics;  // problems that did not stop the compile (a failed numbers check is an error)
    // Circuit documents: the circuit after each pass (parallel to `passes`) and the simulation.
    std::vector<std::shared_ptr<const quantum::Circuit>> circuits;
    std::shared_ptr<const QuantumRunResult> quantumRun;
    // Model documents: the Spyre program after each pass (parallel to `passes`) and the target used.
    std::vector<std::shared_ptr<const spyre::Program>> programs;
    std::shared_ptr<const spyre::SpyreTarget> target;
    std::map<std::string, int> pins;       // the stick-dimension pins this compile was asked for
    std::map<std::string, std::map<std::string, int>> splitPins;   // and the core-split pins (op -> var -> ways)
    // The Spyre simulator on the final kernel bundle: kernel times and the trace (its first lane, "kernels", spans
    // each kernel including its fixed overhead, so the trace ends at the total kernel time). Null when the
    // compile produced no bundle or the simulator refused it (then simulationNote says why).
    std::shared_ptr<const spyresim::SimResult> simulation;
    // One line for the log: the numerics check against the reference interpreter, or why there was none.
    QString simulationNote;
    // The numerics check failed: which outputs differ and by how much (an Error in diagnostics says the same).
    QString numbersFailure;
    // VQE documents (a .vqe recipe): the search it describes, run when the request simulates.
    struct VqeRun {
        quantum::VqeReport report;
        std::string hamiltonianFile;   // what the session records as the run's artifact, as `vqe --session` does
    };
    std::shared_ptr<const VqeRun> vqe;
};

// Files larger than this are refused before reading (a model or circuit of this size is not a document).
constexpr qint64 kMaxDocumentBytes = 512ll * 1024 * 1024;

// What to do with the file beyond the defaults.
struct CompileRequest {
    // What the file is; by default, its extension says (DocumentKind detection).
    std::optional<DocumentKind> kind;
    // Files beyond this are refused before reading; nullopt: only the loaders' own limits (e.g. load.maxModelBytes).
    std::optional<qint64> maxFileBytes = kMaxDocumentBytes;
    // Model documents: the compiler's options, including the GUI's "what-if" pins (tensor -> stick dimension;
    // op -> var -> ways). extraPasses is filled from `plugins`.
    spyre::CompileOptions spyre;
    std::optional<std::string> targetPath;   // default: the installed target (SpyreTarget::loadDefault)
    model::LoadOptions load;
    // Circuit documents: the pipeline's options (the explorer's default: inline, decompose to {u3, cx}, optimise).
    quantum::PipelineOptions quantum;
    // Pass plugins (File > Load Pass Plugin, --pass-plugin): their passes join whichever pipeline fits the file.
    std::vector<const plugins::LoadedPlugin*> plugins;
    // Run the simulator after the compile (the explorer does; `compile` and `qcompile` do not).
    bool simulate = true;
    // --print-after: the IR after these passes ("all": every pass) is printed to printTo as the passes run.
    std::set<std::string> printAfter;
    std::ostream* printTo = nullptr;
};

// Throws InputError for unreadable or unsupported files (and for pins or plugins the compiler rejects), Cancelled.
CompiledDocument compileDocument(const QString& path, JobControl& control, const CompileRequest& request = {});

// A model already loaded (`spyglass-cli run` reads it with its --dim options and test data), compiled as
// compileDocument compiles a model file: the request's target, options, plugins and --print-after. Never simulates.
CompiledDocument compileModelGraph(const model::ModelGraph& graph, JobControl& control, const CompileRequest& request);

// The final kernel bundle of a compiled model simulated on `inputs` (in graph input order). `outputs` follow the
// graph's output order (empty when options.numerics is off). Throws InputError when the compile produced no bundle,
// or the bundle does not produce an output. `spyglass-cli run --backend spyre` and the explorer's numbers check
// both run this.
struct SpyreRunResult {
    std::shared_ptr<const spyresim::SimResult> sim;
    std::vector<model::HostTensor> outputs;
};
SpyreRunResult runOnSpyre(const CompiledDocument& doc, const model::ModelGraph& graph, const std::vector<model::HostTensor>& inputs,
                          const spyresim::SimOptions& options, JobControl* control);

// Each output against its expected tensor, |y - ref| <= atol + rtol * |ref| elementwise (one comparison per output).
std::vector<model::TensorComparison> compareOutputs(const std::vector<model::HostTensor>& outputs, const std::vector<model::HostTensor>& expected,
                                                    double rtol, double atol);

// The Spyre simulator's trace as the Timeline and every Chrome-trace export show it: a first lane "kernels" with one
// span per kernel (its whole time, fixed overhead included), then the simulator's core and DMA lanes. The core
// lanes alone end before the last kernel's overhead; the kernels lane ends exactly at the total kernel time.
std::shared_ptr<Trace> traceWithKernelLane(const spyresim::SimResult& sim);

// The numbers bisect (spyresim::bisectNumerics) of a compiled model's final bundle on the inputs its numbers check
// ran (model::generatedInputs): which op a failed check comes from. Reads the model from doc.path again with `load`.
// Throws InputError when the document is not a compiled model, what the loader and the bisect throw, Cancelled.
spyresim::BisectReport bisectDocumentNumbers(const CompiledDocument& doc, JobControl& control, const model::LoadOptions& load = {});

// Records the result as one run of `kind` ("compile", "qcompile"): pass timings, simulated kernel timings,
// circuit timing. Throws what the store throws.
void recordRun(const CompiledDocument& doc, session::SessionRecorder& recorder, const std::string& kind,
               const std::string& optionsJson = {});
// The same into session `sessionId` of the store at `dbPath`, with its own connection (safe on a worker thread).
// A store that cannot be written is not a failed compile: a warning is added to the document instead.
void recordRun(CompiledDocument& doc, const std::string& dbPath, int64_t sessionId, const std::string& kind,
               const std::string& optionsJson = {});
// The rows of a Spyre simulation in the run being recorded: one kernel row per kernel (its time, the bytes it
// moved, the plan's scratchpad peak) and the simulation's host time. recordRun writes them for the explorer,
// `run --backend spyre` and `run-bundle` for theirs.
void recordSimulation(const spyresim::SimResult& sim, int64_t lxPeakBytes, session::SessionRecorder& recorder);

}  // namespace spyglass
