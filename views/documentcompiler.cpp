#include "views/documentcompiler.h"

#include "core/common/diagnostics.h"
#include "core/model/model_loader.h"
#include "core/spyre/spyre_pipeline.h"
#include "core/spyre/spyre_target.h"
#include "core/quantum/pipeline.h"
#include "core/quantum/qasm_parser.h"
#include "core/quantum/simulator.h"
#include "core/quantum/state_analysis.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>

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
    const std::vector<quantum::cplx> amps = sv->amplitudes();
    for (const auto& a : quantum::topAmplitudes(amps, kTopAmplitudes))
        run->topAmplitudes.push_back({a.index, a.amplitude, a.probability});
    run->bloch = quantum::blochVectors(amps, c.numQubits);
    run->hasState = true;
    return run;
}

void compileCircuit(CompiledDocument& doc, JobControl& control)
{
    control.report(0.05, "parsing");
    quantum::ParseResult parsed = quantum::parseQasmFile(doc.path.toStdString());
    doc.diagnostics.insert(doc.diagnostics.end(), parsed.warnings.begin(), parsed.warnings.end());
    control.checkpoint();
    control.report(0.2, "running passes");
    quantum::PipelineOptions options;   // inline, decompose to {u3, cx}, optimise; no routing
    const auto snapshots = quantum::QuantumPipeline::run(parsed.circuit, options, control);
    for (const auto& s : snapshots) {
        doc.passes.push_back(s.record);
        doc.circuits.push_back(s.circuit);
    }
    control.report(0.6, "simulating");
    if (!doc.circuits.empty())
        doc.quantumRun = simulateForExplorer(*doc.circuits.back(), control);
}

void compileModel(CompiledDocument& doc, JobControl& control, const CompileRequest& request)
{
    control.report(0.05, "loading model");
    const model::ModelGraph graph = model::loadModel(doc.path.toStdString());
    control.checkpoint();
    const std::string targetPath = spyre::SpyreTarget::defaultPath();
    if (targetPath.empty())
        throw InputError(SourceLocation{"spyre.json", 0, 0}, "no Spyre target description found (resources/targets/spyre.json)");
    doc.target = std::make_shared<const spyre::SpyreTarget>(spyre::SpyreTarget::load(targetPath));
    control.report(0.2, "compiling for Spyre");
    spyre::CompileOptions options;
    options.pins = request.pins;
    doc.pins = request.pins;
    const auto snapshots = spyre::SpyrePipeline::run(graph, *doc.target, options, control);
    for (const auto& s : snapshots) {
        doc.passes.push_back(s.record);
        doc.programs.push_back(s.program);
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

CompiledDocument compileDocument(const QString& path, JobControl& control, const CompileRequest& request)
{
    const QFileInfo info(path);
    if (!info.exists())
        throw InputError(at(path), "no such file or directory");
    CompiledDocument doc;
    doc.path = info.absoluteFilePath();
    doc.kind = detectDocumentKind(path.toStdString());
    if (doc.kind == DocumentKind::Unknown)
        throw InputError(at(path), "not a model (.onnx, .onnxtxt), circuit (.qasm) or kernel bundle");
    if (info.isFile() && info.size() > kMaxDocumentBytes)
        throw InputError(at(path), "file is larger than the " + std::to_string(kMaxDocumentBytes >> 20) + " MiB limit");

    control.report(0.0, "reading " + info.fileName().toStdString());
    QElapsedTimer timer;
    timer.start();
    const bool binary = path.endsWith(QLatin1String(".onnx"), Qt::CaseInsensitive) || info.isDir();
    if (info.isDir())
        doc.sourceText = readText(QDir(path).filePath(QStringLiteral("manifest.json")));
    else if (!binary)
        doc.sourceText = readText(path);
    control.checkpoint();

    switch (doc.kind) {
    case DocumentKind::Circuit: compileCircuit(doc, control); break;
    case DocumentKind::Model: compileModel(doc, control, request); break;
    default: recordSource(doc, info, binary, static_cast<double>(timer.nsecsElapsed()) / 1e6); break;
    }
    control.report(1.0, "done");
    return doc;
}

}  // namespace spyglass
