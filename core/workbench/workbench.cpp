#include "core/workbench/workbench.h"

#include "core/workbench/circuit_run.h"

#include "core/common/diagnostics.h"
#include "core/common/pass_dump.h"
#include "core/model/model_loader.h"
#include "core/model/reference_interpreter.h"
#include "core/model/tensor_file.h"
#include "core/model/test_data.h"
#include "core/spyre/spyre_pipeline.h"
#include "core/spyre/spyre_target.h"
#include "core/quantum/pipeline.h"
#include "core/quantum/qpir_printer.h"
#include "core/spyre/ir_printer.h"
#include "core/quantum/qasm_parser.h"
#include "core/quantum/simulator.h"
#include "core/quantum/state_analysis.h"
#include "core/session/session_recorder.h"
#include "core/session/session_store.h"
#include "core/spyresim/spyre_simulator.h"
#include "core/workbench/vqe_document.h"
#include "core/workbench/vqe_record.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QStringList>

#include <algorithm>
#include <cmath>

namespace spyglass {

namespace {

SourceLocation at(const QString& path) { return SourceLocation{path.toStdString(), 0, 0}; }

QString readText(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        throw InputError(at(path), "cannot open: " + f.errorString().toStdString());
    return QString::fromUtf8(f.readAll());
}

// What the explorer simulates automatically: enough for a picture, bounded so opening a file stays quick.
constexpr int kExplorerShots = 1024;
constexpr uint64_t kExplorerSeed = 1;
constexpr int kMaxSimulatedQubits = 24;
constexpr int kMaxStateQubits = 20;
constexpr size_t kTopAmplitudes = 64;
// 2^32 amplitude updates: about 5 s at the 1.2 ns an update that quantum::kMaxSimulationWork was measured with.
constexpr double kMaxExplorerWork = double(uint64_t(1) << 32);

// The state's pictures: the most probable amplitudes, Bloch vectors, every probability for small n and, when `c`
// measures, the distribution its shots estimate.
void describeState(QuantumRunResult& run, const quantum::Circuit& c, const std::vector<quantum::cplx>& amps)
{
    for (const auto& a : quantum::topAmplitudes(amps, kTopAmplitudes))
        run.topAmplitudes.push_back({a.index, a.amplitude, a.probability});
    run.bloch = quantum::blochVectors(amps, c.numQubits);
    if (c.numQubits <= kMaxBasisQubits) {
        run.probabilities.reserve(amps.size());
        for (const auto& a : amps)
            run.probabilities.push_back(std::norm(a));
    }
    if (c.numClbits > 0)
        run.measured = quantum::measuredDistribution(c, amps);
    run.hasState = true;
}

std::shared_ptr<const QuantumRunResult> simulateForExplorer(const quantum::Circuit& c, JobControl& control)
{
    auto run = std::make_shared<QuantumRunResult>();
    run->qubits = c.numQubits;
    run->shots = kExplorerShots;
    run->seed = kExplorerSeed;
    if (c.numQubits > kMaxSimulatedQubits) {
        run->note = QStringLiteral("%1 qubits: not simulated on open (limit %2); use spyglass-cli qsim.").arg(c.numQubits).arg(kMaxSimulatedQubits);
        return run;
    }
    const quantum::Circuit prepared = quantum::prepareForSimulation(c, 0);
    // A few qubits can still be hours of work: mid-circuit resets make every shot a run of its own.
    if (const double work = quantum::estimatedWork(prepared, kExplorerShots); work > kMaxExplorerWork) {
        run->note = QStringLiteral("Not simulated on open: %1 shots would take about %2 amplitude updates (the explorer's limit is %3); "
                                   "use spyglass-cli qsim --force.")
                        .arg(kExplorerShots)
                        .arg(work, 0, 'g', 2)
                        .arg(kMaxExplorerWork, 0, 'g', 2);
        return run;
    }
    quantum::SimOptions opt;
    opt.shots = kExplorerShots;
    opt.seed = kExplorerSeed;
    const quantum::SimResult r = quantum::simulate(prepared, opt, &control);
    run->counts = r.counts;
    run->simMs = r.simMs;
    if (!quantum::measurementsAreTerminal(prepared)) {
        run->note = QStringLiteral("The circuit measures mid-circuit or resets: shots were simulated one by one and there is no single final state.");
        return run;
    }
    if (c.numQubits > kMaxStateQubits) {
        run->note = QStringLiteral("State view limited to %1 qubits.").arg(kMaxStateQubits);
        return run;
    }
    const auto sv = quantum::finalState(prepared, quantum::Precision::Double, &control);
    describeState(*run, prepared, sv->amplitudes());
    return run;
}

}  // namespace

std::shared_ptr<const QuantumRunResult> stateAfterColumn(const quantum::Circuit& c, const std::vector<int>& opColumns, int column, JobControl& control)
{
    auto run = std::make_shared<QuantumRunResult>();
    run->qubits = c.numQubits;
    run->column = column;
    if (c.numQubits > kMaxStateQubits) {
        run->note = QStringLiteral("State view limited to %1 qubits.").arg(kMaxStateQubits);
        return run;
    }
    std::vector<char> keep(c.ops.size(), 0);
    for (size_t i = 0; i < c.ops.size() && i < opColumns.size(); ++i)
        keep[i] = opColumns[i] <= column;
    try {
        const quantum::Circuit prefix = quantum::prepareForSimulation(quantum::circuitPrefix(c, keep), 0);
        if (!quantum::measurementsAreTerminal(prefix))
            throw InputError(SourceLocation{}, "a reset comes before this column");
        const auto sv = quantum::finalState(prefix, quantum::Precision::Double, &control);
        describeState(*run, prefix, sv->amplitudes());
    } catch (const InputError& e) {
        run->note = QStringLiteral("No single state after column %1: %2.").arg(column).arg(QString::fromStdString(e.diagnostic().message));
    }
    return run;
}

namespace {

void compileCircuit(CompiledDocument& doc, const std::string& path, JobControl& control, const CompileRequest& request)
{
    control.report(0.05, "parsing");
    quantum::ParseResult parsed = quantum::parseQasmFile(path);
    doc.diagnostics.insert(doc.diagnostics.end(), parsed.warnings.begin(), parsed.warnings.end());
    control.checkpoint();
    control.report(0.2, "running passes");
    quantum::PipelineOptions options = request.quantum;
    options.extraPasses = plugins::quantumInsertions(request.plugins);
    std::vector<quantum::QuantumSnapshot> snapshots;
    try {
        std::vector<std::shared_ptr<PassInstrumentation<quantum::Circuit>>> watchers;
        if (!request.printAfter.empty() && request.printTo)
            watchers.push_back(std::make_shared<PrintAfterInstrumentation<quantum::Circuit>>(request.printAfter, quantum::printQpir, *request.printTo));
        snapshots = quantum::QuantumPipeline::run(parsed.circuit, options, control, watchers);
    } catch (const InputError& e) {
        // Pass errors name the circuit (its name is the file's stem): say the file.
        Diagnostic d = e.diagnostic();
        if (d.location.file.empty() || d.location.file == parsed.circuit.name)
            d.location.file = path;
        throw InputError(std::move(d));
    }
    for (const auto& s : snapshots) {
        doc.passes.push_back(s.record);
        doc.circuits.push_back(s.ir);
    }
    control.report(0.6, "simulating");
    if (request.simulate && !doc.circuits.empty())
        doc.quantumRun = simulateForExplorer(*doc.circuits.back(), control);
}

// Numbers as well as time when the model is small: below this much work (spyresim::numericsWork) the numeric
// simulation and the reference interpreter together take a fraction of a second.
constexpr int64_t kNumericsWorkLimit = 2'000'000'000;

// Simulates the final bundle: timing always (cheap), numbers too for small models, compared with the reference
// interpreter on the inputs `spyglass-cli run` would generate. The simulator refusing a bundle is a warning, not
// a failed open: the compile itself is still worth looking at.
void simulateModel(CompiledDocument& doc, const model::ModelGraph& graph, JobControl& control)
{
    const spyre::Program& program = *doc.programs.back();
    if (!program.bundle) {
        doc.simulationNote = QStringLiteral("Spyre simulator: the compiler produced no kernel bundle, nothing to simulate.");
        return;
    }
    // The simulator reports its own 0..1 progress; map it onto the end of the compile's bar and let a Cancel of
    // the compile reach it.
    JobControl sub([&control](double f, const std::string& what) {
        control.checkpoint();
        control.report(0.8 + 0.15 * f, what);
    });
    spyresim::SimOptions timing;
    timing.numerics = false;
    auto sim = std::make_shared<spyresim::SimResult>();
    try {
        *sim = *runOnSpyre(doc, graph, {}, timing, &sub).sim;
    } catch (const InputError& e) {
        Diagnostic d = e.diagnostic();
        d.severity = Severity::Warning;
        if (d.location.file.empty())
            d.location = at(doc.path);
        d.message = "not simulated: " + d.message;
        doc.diagnostics.push_back(std::move(d));
        doc.simulationNote = QStringLiteral("Spyre simulator: not simulated (%1)").arg(QString::fromStdString(e.what()));
        return;
    } catch (const Cancelled&) {
        throw;
    } catch (const std::exception& e) {
        // A simulator fault on a bundle the compiler accepted: say so, and still show the compile.
        doc.diagnostics.push_back(Diagnostic{Severity::Warning, at(doc.path), std::string("not simulated: the Spyre simulator failed: ") + e.what(), {}, {}});
        doc.simulationNote = QStringLiteral("Spyre simulator: not simulated (%1)").arg(QString::fromStdString(e.what()));
        return;
    }
    sim->trace = traceWithKernelLane(*sim);
    doc.simulation = sim;

    const auto work = static_cast<int64_t>(spyresim::numericsWork(*program.bundle, *doc.target));
    if (work > kNumericsWorkLimit) {
        doc.simulationNote = QStringLiteral("Spyre simulator: timing only (%1 multiply-adds of host work is above the %2 the explorer checks for numbers; "
                                            "use spyglass-cli run --backend spyre).")
                                 .arg(work)
                                 .arg(kNumericsWorkLimit);
        return;
    }
    try {
        control.report(0.95, "checking numbers against the reference interpreter");
        const std::vector<model::HostTensor> inputs = model::generatedInputs(graph);
        spyresim::SimOptions numeric;
        numeric.trace = false;
        const std::vector<model::HostTensor> outputs = runOnSpyre(doc, graph, inputs, numeric, &sub).outputs;
        const std::vector<model::HostTensor> reference = model::runReference(graph, inputs).outputs;
        // The spyre backend's default tolerance in `spyglass-cli run`.
        const double rtol = spyresim::kDeviceRtol, atol = spyresim::deviceAtol(reference);
        double maxAbs = 0;
        QStringList bad;
        const std::vector<model::TensorComparison> checks = compareOutputs(outputs, reference, rtol, atol);
        for (size_t k = 0; k < checks.size(); ++k) {
            maxAbs = std::max(maxAbs, checks[k].maxAbsErr);
            if (!checks[k].ok)
                bad << QString::fromStdString(checks[k].summary(graph.values[graph.outputs[k]].name));
        }
        doc.simulationNote = QStringLiteral("Spyre simulator numerics (fp16 device memory, inputs uniform in [-1, 1), seed 0): max abs error %1 "
                                            "vs the reference interpreter, %2 (rtol %3, atol %4).")
                                 .arg(maxAbs, 0, 'g', 4)
                                 .arg(bad.isEmpty() ? QStringLiteral("within tolerance") : QStringLiteral("OUTSIDE tolerance"))
                                 .arg(rtol)
                                 .arg(atol, 0, 'g', 4);
        // Wrong numbers are a wrong compile, not a remark: an error, though the compile is still shown.
        if (!bad.isEmpty()) {
            doc.numbersFailure = bad.join(QStringLiteral("; "));
            doc.diagnostics.push_back(Diagnostic{Severity::Error, at(doc.path),
                                                 "the Spyre simulator's outputs differ from the reference interpreter: " + doc.numbersFailure.toStdString(),
                                                 {}, {}});
        }
    } catch (const Cancelled&) {
        throw;
    } catch (const std::exception& e) {
        // Shape-only constants, an input the reference interpreter refuses, ...: the timing stands on its own.
        doc.simulationNote = QStringLiteral("Spyre simulator: timing only, numbers not checked (%1)").arg(QString::fromStdString(e.what()));
    }
}

void compileGraph(CompiledDocument& doc, const model::ModelGraph& graph, JobControl& control, const CompileRequest& request)
{
    doc.target = std::make_shared<const spyre::SpyreTarget>(spyre::SpyreTarget::loadOrDefault(request.targetPath));
    control.report(0.2, "compiling for Spyre");
    spyre::CompileOptions options = request.spyre;
    doc.pins = options.pins;
    doc.splitPins = options.splitPins;
    options.extraPasses = plugins::spyreInsertions(request.plugins);
    std::vector<std::shared_ptr<PassInstrumentation<spyre::Program>>> watchers;
    if (!request.printAfter.empty() && request.printTo)
        watchers.push_back(std::make_shared<PrintAfterInstrumentation<spyre::Program>>(
            request.printAfter, [](const spyre::Program& p) { return spyre::printProgram(p); }, *request.printTo));
    const auto snapshots = spyre::SpyrePipeline::run(spyre::importModel(graph, *doc.target), *doc.target, options, control, watchers);
    for (const auto& s : snapshots) {
        doc.passes.push_back(s.record);
        doc.programs.push_back(s.ir);
    }
}

void compileModel(CompiledDocument& doc, const std::string& path, JobControl& control, const CompileRequest& request)
{
    control.report(0.05, "loading model");
    const model::ModelGraph graph = model::loadModel(path, request.load);
    control.checkpoint();
    compileGraph(doc, graph, control, request);
    if (request.simulate && !doc.programs.empty()) {
        control.report(0.8, "simulating on Spyre");
        simulateModel(doc, graph, control);
    }
}

// Kernel bundles: until the simulator reads them here, the document holds the manifest as read.
void recordSource(CompiledDocument& doc, const QFileInfo& info, bool binary, double ms)
{
    PassRecord source;
    source.name = "source";
    source.description = "the document as read from disk";
    source.changed = true;
    source.summary = info.isDir() ? std::string("kernel bundle manifest")
                     : binary     ? "binary model, " + std::to_string(info.size()) + " bytes"
                                  : std::to_string(doc.sourceText.count(QLatin1Char('\n'))) + " lines";
    source.wallMs = ms;
    source.irText = doc.sourceText.toStdString();
    doc.passes.push_back(std::move(source));
}

}  // namespace

CompiledDocument compileModelGraph(const model::ModelGraph& graph, JobControl& control, const CompileRequest& request)
{
    CompiledDocument doc;
    doc.path = QString::fromStdString(graph.sourcePath);
    doc.kind = DocumentKind::Model;
    compileGraph(doc, graph, control, request);
    return doc;
}

SpyreRunResult runOnSpyre(const CompiledDocument& doc, const model::ModelGraph& graph, const std::vector<model::HostTensor>& inputs,
                          const spyresim::SimOptions& options, JobControl* control)
{
    const spyre::Program* program = doc.programs.empty() ? nullptr : doc.programs.back().get();
    if (!program || !program->bundle)
        throw InputError(SourceLocation{graph.sourcePath, 0, 0}, "the compiler produced no kernel bundle");
    std::map<std::string, model::HostTensor> byName;
    for (size_t k = 0; k < graph.inputs.size() && k < inputs.size(); ++k)
        byName[graph.values[graph.inputs[k]].name] = inputs[k];
    SpyreRunResult r;
    auto sim = std::make_shared<spyresim::SimResult>(spyresim::simulate(*program->bundle, *doc.target, byName, options, control));
    if (options.numerics)
        for (int v : graph.outputs) {
            const auto it = sim->outputs.find(graph.values[v].name);
            if (it == sim->outputs.end())
                throw InputError(SourceLocation{graph.sourcePath, 0, 0}, "the bundle does not produce output '" + graph.values[v].name + "'");
            r.outputs.push_back(it->second);
        }
    r.sim = std::move(sim);
    return r;
}

std::vector<model::TensorComparison> compareOutputs(const std::vector<model::HostTensor>& outputs, const std::vector<model::HostTensor>& expected,
                                                    double rtol, double atol)
{
    std::vector<model::TensorComparison> out;
    for (size_t k = 0; k < outputs.size() && k < expected.size(); ++k)
        out.push_back(model::compareTensors(outputs[k], expected[k], rtol, atol));
    return out;
}

std::shared_ptr<Trace> traceWithKernelLane(const spyresim::SimResult& sim)
{
    auto t = std::make_shared<Trace>();
    t->addLane("kernels", TraceLane::Kind::Other);
    for (const spyresim::KernelTime& k : sim.kernels) {
        TraceEvent e;
        e.lane = 0;
        e.name = "kernel";
        e.kernel = k.name;
        e.op = k.op;
        e.startNs = static_cast<int64_t>(std::llround(k.startNs));
        e.endNs = std::max(e.startNs + 1, static_cast<int64_t>(std::llround(k.startNs + k.timeNs)));
        e.bytes = k.bytesRead + k.bytesWritten;
        t->events.push_back(std::move(e));
    }
    if (sim.trace) {
        for (const TraceLane& l : sim.trace->lanes)
            t->lanes.push_back(l);
        for (TraceEvent e : sim.trace->events) {
            ++e.lane;
            t->events.push_back(std::move(e));
        }
    }
    t->sort();
    return t;
}

CompiledDocument compileDocument(const QString& path, JobControl& control, const CompileRequest& request)
{
    const QFileInfo info(path);
    CompiledDocument doc;
    doc.path = info.absoluteFilePath();
    if (request.kind) {
        doc.kind = *request.kind;   // the loaders say what is wrong with the file, if anything
    } else {
        if (!info.exists())
            throw InputError(at(path), "no such file or directory");
        doc.kind = detectDocumentKind(path.toStdString());
        if (doc.kind == DocumentKind::Unknown)
            throw InputError(at(path), "not a model (.onnx, .onnxtxt), circuit (.qasm), VQE recipe (.vqe) or kernel bundle");
    }
    if (request.maxFileBytes && info.isFile() && info.size() > *request.maxFileBytes)
        throw InputError(at(path), "file is larger than the " + std::to_string(*request.maxFileBytes >> 20) + " MiB limit");

    control.report(0.0, "reading " + info.fileName().toStdString());
    QElapsedTimer timer;
    timer.start();
    // Errors name the file as the caller gave it.
    const std::string given = path.toStdString();
    const bool binary = path.endsWith(QLatin1String(".onnx"), Qt::CaseInsensitive) || info.isDir();
    switch (doc.kind) {
    case DocumentKind::Circuit: compileCircuit(doc, given, control, request); break;
    case DocumentKind::Model: compileModel(doc, given, control, request); break;
    case DocumentKind::Vqe: {
        // The recipe is the document's one "pass"; the search is its simulation.
        const VqeRecipe recipe = readVqeRecipe(given);
        doc.sourceText = readText(path);
        recordSource(doc, info, false, static_cast<double>(timer.nsecsElapsed()) / 1e6);
        if (request.simulate) {
            control.report(0.1, "running the VQE");
            auto run = std::make_shared<CompiledDocument::VqeRun>();
            run->report = quantum::runVqeReport(recipe.options, recipe.hamiltonianFile, recipe.exact, &control);
            run->hamiltonianFile = recipe.hamiltonianFile;
            doc.vqe = std::move(run);
        }
        break;
    }
    default:
        doc.sourceText = readText(QDir(path).filePath(QStringLiteral("manifest.json")));
        recordSource(doc, info, binary, static_cast<double>(timer.nsecsElapsed()) / 1e6);
        break;
    }
    // The source is read after the loaders accepted the file (they refuse devices, FIFOs and oversized files).
    if (doc.kind != DocumentKind::KernelBundle && !binary)
        doc.sourceText = readText(path);
    control.report(1.0, "done");
    return doc;
}

spyresim::BisectReport bisectDocumentNumbers(const CompiledDocument& doc, JobControl& control, const model::LoadOptions& load)
{
    if (doc.kind != DocumentKind::Model || doc.programs.empty() || !doc.programs.back()->bundle || !doc.target)
        throw InputError(at(doc.path), "the numbers bisect needs a compiled model with a kernel bundle");
    const model::ModelGraph graph = model::loadModel(doc.path.toStdString(), load);
    const std::vector<model::HostTensor> inputs = model::generatedInputs(graph);
    std::map<std::string, model::HostTensor> byName;
    for (size_t k = 0; k < graph.inputs.size() && k < inputs.size(); ++k)
        byName[graph.values[graph.inputs[k]].name] = inputs[k];
    spyresim::SimOptions numeric;
    numeric.trace = false;
    return spyresim::bisectNumerics(graph, *doc.programs.back()->bundle, *doc.target, byName, numeric, &control);
}

void recordRun(const CompiledDocument& doc, session::SessionRecorder& recorder, const std::string& kind, const std::string& optionsJson)
{
    if (doc.vqe) {
        recordVqeRun(doc.vqe->report, doc.vqe->hamiltonianFile, recorder);   // a VQE run, whoever opened it
        return;
    }
    session::RunStart start;
    start.kind = kind;
    start.artifactPath = doc.path.toStdString();
    start.artifactKind = doc.kind == DocumentKind::Circuit ? "qasm" : doc.kind == DocumentKind::Model ? "onnx" : "bundle";
    if (doc.target)
        start.targetPath = doc.target->path;
    start.optionsJson = optionsJson;
    recorder.beginRun(start);
    recorder.addPassTimings(doc.passes);
    if (doc.simulation)
        recordSimulation(*doc.simulation, doc.programs.empty() ? 0 : doc.programs.back()->scratchpad.peakBytes, recorder);
    if (doc.quantumRun && !doc.circuits.empty() && !doc.quantumRun->counts.empty())
        recordCircuitTiming(*doc.circuits.back(), doc.quantumRun->simMs, doc.path.toStdString(), recorder);
    recorder.finishRun(session::RunStatus::Ok);
}

void recordSimulation(const spyresim::SimResult& sim, int64_t lxPeakBytes, session::SessionRecorder& recorder)
{
    for (const spyresim::KernelTime& k : sim.kernels)
        recorder.addKernelTiming(k.name, k.timeNs, k.bytesRead + k.bytesWritten, lxPeakBytes);
    recorder.setSimulationWallMs(sim.wallMs);
}

void recordRun(CompiledDocument& doc, const std::string& dbPath, int64_t sessionId, const std::string& kind, const std::string& optionsJson)
{
    // Its own connection: one SessionStore is one SQLite connection, used by one thread.
    try {
        session::SessionStore store(dbPath);
        session::SessionRecorder recorder(store, sessionId);
        recordRun(doc, recorder, kind, optionsJson);
    } catch (const InputError& e) {
        // Its message already names the database: keep its location, not a second copy of it in the text.
        Diagnostic d = e.diagnostic();
        d.severity = Severity::Warning;
        if (d.location.file.empty())
            d.location.file = dbPath;
        d.message = "this run was not recorded in the session history: " + d.message;
        doc.diagnostics.push_back(std::move(d));
    } catch (const std::exception& e) {
        doc.diagnostics.push_back(Diagnostic{Severity::Warning, SourceLocation{dbPath, 0, 0},
                                             std::string("this run was not recorded in the session history: ") + e.what(), {}, {}});
    }
}

}  // namespace spyglass
