#include "core/workbench/vqe_record.h"

#include "core/common/diagnostics.h"
#include "core/session/session_recorder.h"
#include "core/session/session_store.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace spyglass {

void recordVqeRun(const quantum::VqeReport& report, const std::string& hamiltonianFile, session::SessionRecorder& rec)
{
    const quantum::VqeOptions& o = report.options;
    QJsonObject options;
    options[QStringLiteral("qubits")] = o.qubits;
    options[QStringLiteral("layers")] = o.layers;
    options[QStringLiteral("optimizer")] = QString::fromStdString(o.optimizer);
    options[QStringLiteral("iterations")] = o.iterations;
    options[QStringLiteral("seed")] = static_cast<qint64>(o.seed);   // exact: seeds go up to 2^63 - 1
    rec.beginRun({.kind = "vqe", .artifactPath = hamiltonianFile, .artifactKind = hamiltonianFile.empty() ? "" : "hamiltonian",
                  .optionsJson = QJsonDocument(options).toJson(QJsonDocument::Compact).toStdString()});
    rec.addCircuitTiming(o.qubits, 0, report.result.wallMs, "vqe");
    rec.setSimulationWallMs(report.result.wallMs);
    rec.setResultJson(QJsonDocument(quantum::vqeReportJson(report)).toJson(QJsonDocument::Compact).toStdString());
    rec.finishRun(session::RunStatus::Ok);
}

std::string recordVqeRun(const quantum::VqeReport& report, const std::string& hamiltonianFile, const std::string& dbPath, session::RowId sessionId)
{
    try {
        session::SessionStore store(dbPath);
        session::SessionRecorder recorder(store, sessionId);
        recordVqeRun(report, hamiltonianFile, recorder);
        return {};
    } catch (const std::exception& e) {
        return std::string("this VQE run was not recorded in the session history: ") + e.what();
    }
}

std::vector<RecordedVqeRun> recordedVqeRuns(session::SessionStore& store)
{
    std::vector<RecordedVqeRun> out;
    for (const session::SessionInfo& s : store.listSessions())
        for (session::RunInfo& r : store.runs(s.id))
            if (r.kind == "vqe" && r.status == session::RunStatus::Ok)
                out.push_back({std::move(r), s.name});
    std::stable_sort(out.begin(), out.end(), [](const RecordedVqeRun& a, const RecordedVqeRun& b) { return a.run.startedAt > b.run.startedAt; });
    return out;
}

quantum::VqeReport recordedVqeReport(session::SessionStore& store, session::RowId runId)
{
    const auto detail = store.runDetail(runId);
    if (!detail || detail->run.kind != "vqe")
        throw InputError(SourceLocation{store.path(), 0, 0}, "run " + std::to_string(runId) + " is not a VQE run");
    QJsonParseError error;
    const QJsonDocument json = QJsonDocument::fromJson(QByteArray::fromStdString(detail->run.resultJson), &error);
    if (!json.isObject())
        throw InputError(SourceLocation{store.path(), 0, 0}, "run " + std::to_string(runId) + ": its result is not a JSON object (" +
                                                             error.errorString().toStdString() + ")");
    try {
        return quantum::vqeReportFromJson(json.object());
    } catch (const InputError& e) {
        throw InputError(SourceLocation{store.path(), 0, 0}, "run " + std::to_string(runId) + ": " + e.diagnostic().message);
    }
}

}  // namespace spyglass
