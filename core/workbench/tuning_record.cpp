#include "core/workbench/tuning_record.h"

#include "core/common/diagnostics.h"
#include "core/model/model_loader.h"
#include "core/session/session_recorder.h"
#include "core/session/session_store.h"
#include "core/spyre/kernel_bundle.h"
#include "core/workbench/workbench.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace spyglass {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

spyresim::TunedPlan tuneDocument(const QString& path, JobControl& control, const CompileRequest& request, double budgetMs)
{
    control.report(0, "loading model");
    const model::ModelGraph graph = model::loadModel(path.toStdString(), request.load);
    const spyre::SpyreTarget target = spyre::SpyreTarget::loadOrDefault(request.targetPath);
    spyre::CompileOptions options = request.spyre;
    options.extraPasses = plugins::spyreInsertions(request.plugins);
    return spyresim::tunePlan(graph, target, options, control, budgetMs);
}

void recordTuning(const spyresim::TunedPlan& plan, const std::string& artifactPath, session::SessionRecorder& recorder)
{
    // The search is named by where it started: the first candidate's run follows the search's "index 0".
    for (size_t i = 0; i < plan.candidates.size(); ++i) {
        const spyresim::TuneCandidate& c = plan.candidates[i];
        QJsonObject ways, orders, options, result;
        for (const auto& [var, n] : c.ways)
            ways[q(var)] = n;
        for (const auto& [buffer, order] : c.orders)
            orders[q(buffer)] = QString::fromLatin1(spyre::bundleName(order));
        options[QStringLiteral("op")] = q(c.op);
        options[QStringLiteral("ways")] = ways;
        options[QStringLiteral("orders")] = orders;
        result[QStringLiteral("index")] = static_cast<int>(i);
        result[QStringLiteral("candidates")] = static_cast<int>(plan.candidates.size());
        result[QStringLiteral("op")] = q(c.op);
        result[QStringLiteral("what")] = q(c.what);
        result[QStringLiteral("label")] = q(c.label());
        result[QStringLiteral("estimate_us")] = c.estimateUs;
        result[QStringLiteral("simulated_ns")] = c.simulatedNs;
        result[QStringLiteral("kept")] = c.kept;
        result[QStringLiteral("cost_model_ns")] = plan.costModelNs;
        result[QStringLiteral("tuned_ns")] = plan.tunedNs;
        recorder.beginRun({.kind = kTuningRunKind, .artifactPath = artifactPath, .artifactKind = "onnx", .targetPath = plan.targetPath,
                           .optionsJson = QJsonDocument(options).toJson(QJsonDocument::Compact).toStdString()});
        recorder.setResultJson(QJsonDocument(result).toJson(QJsonDocument::Compact).toStdString());
        recorder.finishRun(session::RunStatus::Ok);
    }
}

std::optional<std::string> recordTuning(const spyresim::TunedPlan& plan, const std::string& artifactPath, const std::string& dbPath,
                                        session::RowId sessionId)
{
    try {
        session::SessionStore store(dbPath);
        session::SessionRecorder recorder(store, sessionId);
        recordTuning(plan, artifactPath, recorder);
        return std::nullopt;
    } catch (const std::exception& e) {
        return std::string("the tuning search was not recorded in the session history: ") + e.what();
    }
}

TuningSearch tuningSearch(const spyresim::TunedPlan& plan, const std::string& artifactPath)
{
    TuningSearch s;
    s.artifactPath = artifactPath;
    s.costModelNs = plan.costModelNs;
    for (const spyresim::TuneCandidate& c : plan.candidates)
        s.points.push_back({0, c.op, c.what, c.label(), c.simulatedNs, c.estimateUs, c.kept});
    return s;
}

TuningSearch recordedTuning(session::SessionStore& store, session::RowId sessionId)
{
    TuningSearch s;
    for (const session::RunInfo& r : store.runs(sessionId)) {
        if (r.kind != kTuningRunKind || r.status != session::RunStatus::Ok)
            continue;
        const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(r.resultJson)).object();
        if (!o.contains(QStringLiteral("simulated_ns")))
            continue;
        if (o.value(QStringLiteral("index")).toInt() == 0)
            s = TuningSearch{};   // a later search replaces the earlier one
        s.artifactPath = r.artifact.path;
        s.costModelNs = o.value(QStringLiteral("cost_model_ns")).toDouble();
        s.points.push_back({r.id, o.value(QStringLiteral("op")).toString().toStdString(), o.value(QStringLiteral("what")).toString().toStdString(),
                            o.value(QStringLiteral("label")).toString().toStdString(), o.value(QStringLiteral("simulated_ns")).toDouble(),
                            o.value(QStringLiteral("estimate_us")).toDouble(), o.value(QStringLiteral("kept")).toBool()});
    }
    return s;
}

}  // namespace spyglass
