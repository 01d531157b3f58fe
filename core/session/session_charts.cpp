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

std::vector<HistoryPoint> artifactHistory(SessionStore& store, RowId artifactId, RunMetric metric, double threshold)
{
    std::vector<HistoryPoint> out;
    std::optional<double> best;
    for (const RunInfo& r : store.runsOfArtifact(artifactId)) {
        if (r.status != RunStatus::Ok)
            continue;   // a failed run's timings say nothing about speed
        const auto d = store.runDetail(r.id);
        const auto v = d ? runMetricValue(*d, metric) : std::nullopt;
        if (!v)
            continue;
        HistoryPoint p;
        p.runId = r.id;
        p.sessionId = r.sessionId;
        p.startedAt = r.startedAt;
        p.value = *v;
        p.bestEarlier = best;
        p.regression = best && *v > *best * (1.0 + threshold);
        out.push_back(p);
        best = best ? std::min(*best, *v) : *v;
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
