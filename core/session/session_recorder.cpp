#include "core/session/session_recorder.h"

#include "core/session/content_hash.h"
#include "core/session/session_store.h"

#include <QJsonDocument>

#include <stdexcept>

namespace spyglass::session {

namespace {

void requireJsonObject(const std::string& json, const char* what)
{
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json), &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        throw std::invalid_argument(std::string(what) + " must be a JSON object, got: " + json.substr(0, 80));
}

}  // namespace

SessionRecorder::SessionRecorder(SessionStore& store, RowId sessionId) : store_(store), sessionId_(sessionId) {}

SessionRecorder::~SessionRecorder()
{
    if (!open_)
        return;
    try {
        finishRun(RunStatus::Interrupted, "the run did not finish (its recorder was destroyed first)");
    } catch (const std::exception&) {
        // A destructor must not throw; the run is lost, as it would be if the process had died.
    }
}

void SessionRecorder::beginRun(const RunStart& start)
{
    if (open_)
        throw std::invalid_argument("beginRun: a run is already open; finish it first");
    if (start.kind.empty())
        throw std::invalid_argument("beginRun: the run needs a kind (compile, run, qsim, vqe, ...)");
    const std::string options = start.optionsJson.empty() ? std::string("{}") : start.optionsJson;
    requireJsonObject(options, "run options");
    run_ = RunDetail{};
    run_.run.sessionId = sessionId_;
    run_.run.kind = start.kind;
    run_.run.optionsJson = options;
    run_.run.startedAt = nowUtcIso();
    if (!start.artifactPath.empty() || !start.artifactHash.empty()) {
        run_.run.artifact.path = start.artifactPath;
        run_.run.artifact.kind = start.artifactKind;
        run_.run.artifact.contentHash = start.artifactHash.empty() ? contentHashOfPath(start.artifactPath) : start.artifactHash;
    }
    run_.run.targetHash = !start.targetHash.empty() ? start.targetHash
                          : start.targetPath.empty() ? std::string()
                                                      : contentHashOfPath(start.targetPath);
    open_ = true;
}

void SessionRecorder::addPassTiming(const std::string& name, double wallMs)
{
    if (open_)
        run_.passes.push_back({name, wallMs});
}

void SessionRecorder::addPassTimings(const PassRecords& passes)
{
    for (const PassRecord& p : passes)
        addPassTiming(p.name, p.wallMs);
}

void SessionRecorder::addKernelTiming(const std::string& name, double simNs, std::int64_t bytesMoved, std::int64_t lxPeakBytes)
{
    if (open_)
        run_.kernels.push_back({name, simNs, bytesMoved, lxPeakBytes});
}

void SessionRecorder::addCircuitTiming(int qubits, int gates, double simMs, const std::string& name)
{
    if (open_)
        run_.circuits.push_back({name, qubits, gates, simMs});
}

void SessionRecorder::setSimulationWallMs(double wallMs)
{
    if (open_)
        run_.run.simWallMs = wallMs;
}

void SessionRecorder::setResultJson(const std::string& json)
{
    requireJsonObject(json, "run result");
    if (open_)
        run_.run.resultJson = json;
}

RowId SessionRecorder::finishRun(RunStatus status, const std::string& errorText)
{
    if (!open_)
        throw std::invalid_argument("finishRun: no run is open");
    open_ = false;   // even if storing fails: a second finishRun must not store it twice
    run_.run.status = status;
    run_.run.errorText = errorText;
    run_.run.endedAt = nowUtcIso();
    return store_.insertRun(run_);
}

}  // namespace spyglass::session
