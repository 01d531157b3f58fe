#include "core/session/session_export.h"

#include "core/session/session_store.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <sstream>
#include <stdexcept>

namespace spyglass::session {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

QJsonValue nullable(const std::string& s) { return s.empty() ? QJsonValue(QJsonValue::Null) : QJsonValue(qs(s)); }

QJsonObject parseObject(const std::string& json)
{
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json));
    return doc.isObject() ? doc.object() : QJsonObject();
}

std::string number(double v)
{
    std::ostringstream out;
    out.precision(17);
    out << v;
    return out.str();
}

}  // namespace

std::string csvField(const std::string& s)
{
    // A spreadsheet runs a cell that starts with = + - @ (or a tab or CR before one) as a formula: a session
    // named "=HYPERLINK(...)" must arrive as text, so such a cell gets a leading ' (OWASP's advice) and quotes.
    const bool formula = !s.empty() && std::string_view("=+-@\t\r").find(s.front()) != std::string_view::npos;
    if (!formula && s.find_first_of(",\"\r\n") == std::string::npos)
        return s;
    std::string out = formula ? "\"'" : "\"";
    for (char c : s) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + '"';
}

std::string sessionCsv(SessionStore& store, RowId sessionId)
{
    const auto info = store.session(sessionId);
    if (!info)
        throw std::out_of_range("no session " + std::to_string(sessionId));
    std::string out =
        "session_id,session_name,run_id,run_kind,artifact_path,artifact_hash,run_status,run_started,run_ended,"
        "run_error,run_sim_wall_ms,record,name,wall_ms,sim_ns,bytes_moved,lx_peak_bytes,qubits,gates,sim_ms\n";
    for (RowId runId : store.runIds(sessionId)) {
        const auto d = store.runDetail(runId);
        if (!d)
            continue;
        const RunInfo& r = d->run;
        const std::string prefix = std::to_string(info->id) + ',' + csvField(info->name) + ',' + std::to_string(r.id) + ',' +
                                   csvField(r.kind) + ',' + csvField(r.artifact.path) + ',' + r.artifact.contentHash + ',' +
                                   runStatusName(r.status) + ',' + r.startedAt + ',' + r.endedAt + ',' + csvField(r.errorText) + ',' +
                                   (r.simWallMs ? number(*r.simWallMs) : std::string()) + ',';
        out += prefix + "run,,,,,,,\n";
        for (const PassTiming& p : d->passes)
            out += prefix + "pass," + csvField(p.name) + ',' + number(p.wallMs) + ",,,,,,\n";
        for (const KernelTiming& k : d->kernels)
            out += prefix + "kernel," + csvField(k.name) + ",," + number(k.simNs) + ',' + std::to_string(k.bytesMoved) + ',' +
                   std::to_string(k.lxPeakBytes) + ",,,\n";
        for (const CircuitTiming& c : d->circuits)
            out += prefix + "circuit," + csvField(c.name) + ",,,,," + std::to_string(c.qubits) + ',' + std::to_string(c.gates) + ',' +
                   number(c.simMs) + '\n';
    }
    return out;
}

QJsonObject sessionInfoJson(const SessionInfo& s)
{
    QJsonObject o;
    o[QStringLiteral("id")] = static_cast<double>(s.id);
    o[QStringLiteral("name")] = qs(s.name);
    o[QStringLiteral("started")] = qs(s.startedAt);
    o[QStringLiteral("ended")] = nullable(s.endedAt);
    o[QStringLiteral("app_version")] = qs(s.appVersion);
    o[QStringLiteral("host")] = qs(s.host);
    o[QStringLiteral("runs")] = s.runCount;
    return o;
}

QJsonObject runJson(const RunDetail& d)
{
    const RunInfo& r = d.run;
    QJsonObject o;
    o[QStringLiteral("id")] = static_cast<double>(r.id);
    o[QStringLiteral("session_id")] = static_cast<double>(r.sessionId);
    o[QStringLiteral("kind")] = qs(r.kind);
    if (r.artifact.id) {
        QJsonObject a;
        a[QStringLiteral("id")] = static_cast<double>(r.artifact.id);
        a[QStringLiteral("path")] = qs(r.artifact.path);
        a[QStringLiteral("kind")] = qs(r.artifact.kind);
        a[QStringLiteral("sha256")] = qs(r.artifact.contentHash);
        o[QStringLiteral("artifact")] = a;
    } else {
        o[QStringLiteral("artifact")] = QJsonValue(QJsonValue::Null);
    }
    o[QStringLiteral("target_sha256")] = nullable(r.targetHash);
    o[QStringLiteral("options")] = parseObject(r.optionsJson);
    o[QStringLiteral("started")] = qs(r.startedAt);
    o[QStringLiteral("ended")] = qs(r.endedAt);
    o[QStringLiteral("status")] = QString::fromLatin1(runStatusName(r.status));
    o[QStringLiteral("error")] = nullable(r.errorText);
    o[QStringLiteral("sim_wall_ms")] = r.simWallMs ? QJsonValue(*r.simWallMs) : QJsonValue(QJsonValue::Null);
    o[QStringLiteral("result")] = parseObject(r.resultJson);
    QJsonArray passes, kernels, circuits;
    for (const PassTiming& p : d.passes)
        passes.append(QJsonObject{{QStringLiteral("name"), qs(p.name)}, {QStringLiteral("wall_ms"), p.wallMs}});
    for (const KernelTiming& k : d.kernels)
        kernels.append(QJsonObject{{QStringLiteral("name"), qs(k.name)},
                                   {QStringLiteral("sim_ns"), k.simNs},
                                   {QStringLiteral("bytes_moved"), static_cast<double>(k.bytesMoved)},
                                   {QStringLiteral("lx_peak_bytes"), static_cast<double>(k.lxPeakBytes)}});
    for (const CircuitTiming& c : d.circuits)
        circuits.append(QJsonObject{{QStringLiteral("name"), qs(c.name)},
                                    {QStringLiteral("qubits"), c.qubits},
                                    {QStringLiteral("gates"), c.gates},
                                    {QStringLiteral("sim_ms"), c.simMs}});
    o[QStringLiteral("passes")] = passes;
    o[QStringLiteral("kernels")] = kernels;
    o[QStringLiteral("circuits")] = circuits;
    return o;
}

QJsonObject sessionJson(SessionStore& store, RowId sessionId)
{
    const auto info = store.session(sessionId);
    if (!info)
        throw std::out_of_range("no session " + std::to_string(sessionId));
    QJsonArray runs;
    for (RowId runId : store.runIds(sessionId))
        if (const auto d = store.runDetail(runId))
            runs.append(runJson(*d));
    QJsonObject o;
    o[QStringLiteral("session")] = sessionInfoJson(*info);
    o[QStringLiteral("runs")] = runs;
    return o;
}

}  // namespace spyglass::session
