#pragma once
// A session's history as CSV (one row per measurement, for spreadsheets) or JSON (everything, for scripts).

#include "core/session/session_types.h"

#include <QJsonObject>

#include <string>

namespace spyglass::session {

class SessionStore;

// Columns: session_id,session_name,run_id,run_kind,artifact_path,artifact_hash,run_status,run_started,
// run_ended,run_error,run_sim_wall_ms,record,name,wall_ms,sim_ns,bytes_moved,lx_peak_bytes,qubits,gates,sim_ms.
// `record` is "pass", "kernel", "circuit", or "run" (one row per run with no measurement columns, so a run
// without timings still appears). RFC 4180 quoting.
std::string sessionCsv(SessionStore& store, RowId sessionId);

// {"session":{...},"runs":[{..., "options":{...}, "result":{...}, "passes":[...], "kernels":[...], "circuits":[...]}]}
QJsonObject sessionJson(SessionStore& store, RowId sessionId);
QJsonObject sessionInfoJson(const SessionInfo& s);
QJsonObject runJson(const RunDetail& d);

// Quotes a CSV field when it holds a comma, quote or line break.
std::string csvField(const std::string& s);

}  // namespace spyglass::session
