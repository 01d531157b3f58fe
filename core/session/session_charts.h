#pragma once
// What the Charts dock draws, computed from the store without any widget: kernel bars of one run, one
// artifact's history with regressions flagged, two runs side by side, and quantum simulation time by qubit
// count. The views only turn these into Qt Charts series.

#include "core/session/session_types.h"

#include <optional>
#include <string>
#include <vector>

namespace spyglass::session {

class SessionStore;

// The one number per run that the history line follows.
enum class RunMetric {
    SimulatedTime,       // sum of the run's kernel simulated times, ns
    CompileWallTime,     // sum of the run's pass wall times, ms
    SimulationWallTime,  // the run's simulation wall time (or its circuits' sum), ms
};

const char* runMetricName(RunMetric m);    // "simulated time", ...
const char* runMetricUnit(RunMetric m);    // "ns" or "ms"

// nullopt when the run has no measurement of that kind.
std::optional<double> runMetricValue(const RunDetail& run, RunMetric m);

// A run is flagged when it is more than this fraction slower than the best earlier run of the same artifact.
constexpr double kRegressionThreshold = 0.05;

struct HistoryPoint {
    RowId runId = 0;
    RowId sessionId = 0;
    std::string startedAt;
    double value = 0.0;
    std::optional<double> bestEarlier;   // the lowest value of the runs before this one
    bool regression = false;             // value > bestEarlier * (1 + threshold)
    // A tagged run is an experiment, not a measurement of the artifact: drawn, but never flagged and not the
    // baseline later runs are measured against. The tag is the options' "tag" (the tuner records each candidate
    // plan with kTuningRunTag), or kWhatIfRunKind for a run of that kind (the explorer's pinned recompiles).
    std::string tag;
    bool whatIf = false;   // tag == kWhatIfRunKind
};

// The run kind the explorer records a what-if (pinned) recompile under.
constexpr const char* kWhatIfRunKind = "what-if";
// The tag (options JSON {"tag": ...}) of the runs `--plan tuned` times while it searches.
constexpr const char* kTuningRunTag = "tuning";

// Which runs count as "the same artifact": the same bytes (compiler or option changes on one model), or every
// version of the file at that path (edits to the model show up in its history too).
enum class ArtifactMatch { SameContent, SamePath };

// Every successful run of the artifact that has the metric, across all sessions, oldest first.
std::vector<HistoryPoint> artifactHistory(SessionStore& store, RowId artifactId, RunMetric metric,
                                          double threshold = kRegressionThreshold,
                                          ArtifactMatch match = ArtifactMatch::SameContent);

// The artifacts the session's runs used, most recently used first.
std::vector<ArtifactInfo> sessionArtifacts(SessionStore& store, RowId sessionId);

// Two runs side by side: kernels by name when either run has kernels, else passes by name; a name only one
// run has gets nullopt on the other side. Order: first run's order, then the second's extra names.
struct ComparisonRow {
    std::string name;
    std::optional<double> first;
    std::optional<double> second;
};
struct Comparison {
    std::string quantity;   // "simulated time (ns)" or "compile wall time (ms)"
    std::vector<ComparisonRow> rows;
};
Comparison compareRuns(const RunDetail& first, const RunDetail& second);

struct QuantumPoint {
    RowId runId = 0;
    std::string name;
    int qubits = 0;
    int gates = 0;
    double simMs = 0.0;
};
// Every circuit timing of the session's successful runs.
std::vector<QuantumPoint> quantumPoints(SessionStore& store, RowId sessionId);

}  // namespace spyglass::session
