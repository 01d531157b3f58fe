#include "core/workbench/circuit_run.h"

#include "core/quantum/distributed_statevector.h"
#include "core/quantum/pipeline.h"
#include "core/quantum/qasm_parser.h"
#include "core/session/session_recorder.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <filesystem>
#include <random>

namespace spyglass {

CircuitRun runCircuitFile(const std::string& path, const CircuitRunRequest& request, JobControl& control)
{
    quantum::ParseResult parsed = quantum::parseQasmFile(path);
    CircuitRun run;
    run.path = path;
    run.request = request;
    run.warnings = std::move(parsed.warnings);
    try {
        run.circuit = quantum::prepareForSimulation(parsed.circuit, 0);
        // Fusion keeps blocks off the qubits spread over MPI ranks.
        run.simulated = request.fusion ? quantum::prepareForSimulation(run.circuit, request.fuseMaxQubits, quantum::distributed::localQubits(run.circuit.numQubits))
                                       : run.circuit;
        quantum::SimOptions opt;
        opt.shots = request.shots;
        // Every rank draws the same shots: rank 0's seed.
        run.seed = quantum::distributed::broadcast(request.seed ? *request.seed : std::random_device{}());
        opt.seed = run.seed;
        opt.precision = request.precision;
        if (!request.force)
            opt.maxWork = quantum::kMaxSimulationWork;
        run.result = quantum::simulate(run.simulated, opt, &control);
    } catch (const InputError& e) {
        // Pass and simulator errors name the circuit (the file's stem): say the file.
        Diagnostic d = e.diagnostic();
        if (d.location.file.empty() || d.location.file == parsed.circuit.name)
            d.location.file = path;
        throw InputError(std::move(d));
    }
    return run;
}

void recordCircuitTiming(const quantum::Circuit& circuit, double simMs, const std::string& path, session::SessionRecorder& recorder)
{
    recorder.addCircuitTiming(circuit.numQubits, circuit.gateCount(), simMs, std::filesystem::path(path).filename().string());
}

void recordRun(const CircuitRun& run, session::SessionRecorder& recorder)
{
    QJsonObject options;
    options[QStringLiteral("shots")] = run.request.shots;
    options[QStringLiteral("seed")] = static_cast<qint64>(run.seed);   // exact: seeds go up to 2^63 - 1
    options[QStringLiteral("precision")] = run.request.precision == quantum::Precision::Double ? QStringLiteral("double") : QStringLiteral("single");
    options[QStringLiteral("fusion")] = run.request.fusion;
    if (run.request.fusion)
        options[QStringLiteral("fuse_max")] = run.request.fuseMaxQubits;
    recorder.beginRun({.kind = "qsim", .artifactPath = run.path, .artifactKind = "qasm",
                       .optionsJson = QJsonDocument(options).toJson(QJsonDocument::Compact).toStdString()});
    recordCircuitTiming(run.circuit, run.result.simMs, run.path, recorder);
    recorder.setSimulationWallMs(run.result.simMs);
    recorder.finishRun(session::RunStatus::Ok);
}

}  // namespace spyglass
