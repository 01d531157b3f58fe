#include "core/session/session_charts.h"

#include "core/session/session_store.h"
#include "core/session/sqlite_db.h"

#include <algorithm>

namespace spyglass::session {

const char* runMetricName(RunMetric m)
{
    switch (m) {
    case RunMetric::SimulatedTime: return "simulated time";
    case RunMetric::CompileWallTime: return "compile wall time";
    case RunMetric::SimulationWallTime: return "simulation wall time";
    }
    return "";
}

const char* runMetricUnit(RunMetric m) { return m == RunMetric::SimulatedTime ? "ns" : "ms"; }

std::optional<double> runMetricValue(const RunDetail& run, RunMetric m)
{
    double sum = 0.0;
    switch (m) {
    case RunMetric::SimulatedTime:
        if (run.kernels.empty())
            return std::nullopt;
        for (const KernelTiming& k : run.kernels)
            sum += k.simNs;
        return sum;
    case RunMetric::CompileWallTime:
        if (run.passes.empty())
            return std::nullopt;
        for (const PassTiming& p : run.passes)
            sum += p.wallMs;
        return sum;
    case RunMetric::SimulationWallTime:
        if (run.run.simWallMs)
            return run.run.simWallMs;
        if (run.circuits.empty())
            return std::nullopt;
        for (const CircuitTiming& c : run.circuits)
            sum += c.simMs;
        return sum;
    }
    return std::nullopt;
}

std::vector<HistoryPoint> artifactHistory(SessionStore& store, RowId artifactId, RunMetric metric, double threshold,
                                          ArtifactMatch match)
{
    // One query with per-run sums (weeks of history are thousands of runs); the sums follow runMetricValue():
    // SUM over no rows is NULL, which is "no measurement". Failed runs' timings say nothing about speed.
    const char* value = "";
    switch (metric) {
    case RunMetric::SimulatedTime: value = "(SELECT SUM(k.sim_ns) FROM kernel_timings k WHERE k.run_id = r.id)"; break;
    case RunMetric::CompileWallTime: value = "(SELECT SUM(p.wall_ms) FROM pass_timings p WHERE p.run_id = r.id)"; break;
    case RunMetric::SimulationWallTime:
        value = "coalesce(r.sim_wall_ms, (SELECT SUM(c.sim_ms) FROM circuit_timings c WHERE c.run_id = r.id))";
        break;
    }
    SqliteStatement st(store.connection().handle(),
                       std::string("SELECT r.id, r.session_id, r.started_at, ") + value + ", r.kind," +
                           " CASE WHEN json_valid(r.options_json) THEN json_extract(r.options_json, '$.tag') END" +
                           " FROM runs r WHERE " +
                           (match == ArtifactMatch::SameContent
                                ? std::string("r.artifact_id = ?")
                                : std::string("r.artifact_id IN (SELECT b.id FROM artifacts a JOIN artifacts b ON b.path = a.path"
                                              " AND b.kind = a.kind WHERE a.id = ?)")) +
                           " AND r.status = 'ok' ORDER BY r.started_at, r.id");
    st.bind(1, artifactId);
    std::vector<HistoryPoint> out;
    std::optional<double> best;
    while (st.step()) {
        if (st.isNull(3))
            continue;
        HistoryPoint p;
        p.runId = st.int64(0);
        p.sessionId = st.int64(1);
        p.startedAt = st.text(2);
        p.value = st.real(3);
        p.bestEarlier = best;
        p.tag = st.isNull(5) ? std::string() : st.text(5);
        if (p.tag.empty() && st.text(4) == kWhatIfRunKind)
            p.tag = kWhatIfRunKind;
        p.whatIf = p.tag == kWhatIfRunKind;
        p.regression = p.tag.empty() && best && p.value > *best * (1.0 + threshold);
        out.push_back(p);
        if (p.tag.empty())
            best = best ? std::min(*best, p.value) : p.value;
    }
    return out;
}

std::vector<ArtifactInfo> sessionArtifacts(SessionStore& store, RowId sessionId)
{
    SqliteStatement st(store.connection().handle(),
                       "SELECT a.id, a.content_hash, a.path, a.kind FROM artifacts a JOIN runs r ON r.artifact_id = a.id"
                       " WHERE r.session_id = ? GROUP BY a.id ORDER BY max(r.started_at) DESC, a.id DESC");
    st.bind(1, sessionId);
    std::vector<ArtifactInfo> out;
    while (st.step())
        out.push_back({st.int64(0), st.text(1), st.text(2), st.text(3)});
    return out;
}

Comparison compareRuns(const RunDetail& first, const RunDetail& second)
{
    Comparison c;
    auto merge = [&c](const auto& a, const auto& b, auto value) {
        for (const auto& x : a)
            c.rows.push_back({x.name, value(x), std::nullopt});
        for (const auto& y : b) {
            auto it = std::find_if(c.rows.begin(), c.rows.end(), [&](const ComparisonRow& r) { return r.name == y.name && !r.second; });
            if (it != c.rows.end())
                it->second = value(y);
            else
                c.rows.push_back({y.name, std::nullopt, value(y)});
        }
    };
    if (!first.kernels.empty() || !second.kernels.empty()) {
        c.quantity = "simulated time (ns)";
        merge(first.kernels, second.kernels, [](const KernelTiming& k) { return k.simNs; });
    } else {
        c.quantity = "compile wall time (ms)";
        merge(first.passes, second.passes, [](const PassTiming& p) { return p.wallMs; });
    }
    return c;
}

std::vector<QuantumPoint> quantumPoints(SessionStore& store, RowId sessionId)
{
    SqliteStatement st(store.connection().handle(),
                       "SELECT r.id, c.name, c.qubits, c.gates, c.sim_ms FROM circuit_timings c JOIN runs r ON r.id = c.run_id"
                       " WHERE r.session_id = ? AND r.status = 'ok' ORDER BY c.qubits, r.started_at, c.seq");
    st.bind(1, sessionId);
    std::vector<QuantumPoint> out;
    while (st.step())
        out.push_back({st.int64(0), st.text(1), static_cast<int>(st.int64(2)), static_cast<int>(st.int64(3)), st.real(4)});
    return out;
}

}  // namespace spyglass::session
