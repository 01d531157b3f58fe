#pragma once
// The plan tuner's search in the session store, as `spyglass-cli run --plan tuned --session` and the explorer's
// Spyre > Tune Plan record it: one run of kind "tuning" per candidate, in the order the tuner simulated them, its
// result JSON naming the candidate (op, split, device orders, simulated time, kept) and the search it belongs to.
// The runs carry no pass or kernel timings, so the History chart does not take a candidate for a compile of the
// model (nor flag the slow ones); the Tuning chart reads them back with recordedTuning().

#include "core/common/job_control.h"
#include "core/session/session_types.h"
#include "core/spyresim/plan_tuner.h"

#include <QString>

#include <optional>
#include <string>
#include <vector>

namespace spyglass::session {
class SessionRecorder;
class SessionStore;
}

namespace spyglass {

struct CompileRequest;

constexpr const char* kTuningRunKind = "tuning";

// The model at `path` loaded as compileDocument loads it and tuned with the request's target, options and plugin
// passes. Throws what the loader and the compiler throw, Cancelled.
spyresim::TunedPlan tuneDocument(const QString& path, JobControl& control, const CompileRequest& request, double budgetMs);

void recordTuning(const spyresim::TunedPlan& plan, const std::string& artifactPath, session::SessionRecorder& recorder);
// The same into session `sessionId` of the store at `dbPath` with its own connection (safe on a worker thread).
// Returns why nothing was recorded, or nullopt.
std::optional<std::string> recordTuning(const spyresim::TunedPlan& plan, const std::string& artifactPath, const std::string& dbPath,
                                        session::RowId sessionId);

// One search as the Tuning chart draws it.
struct TuningPoint {
    session::RowId runId = 0;     // 0 when drawn from a plan not (yet) recorded
    std::string op, what, label;
    double simulatedNs = 0;
    double estimateUs = 0;
    bool kept = false;
};
struct TuningSearch {
    std::string artifactPath;
    double costModelNs = 0;
    std::vector<TuningPoint> points;   // in search order
};
TuningSearch tuningSearch(const spyresim::TunedPlan& plan, const std::string& artifactPath);
// The last search recorded in the session (empty points when there is none).
TuningSearch recordedTuning(session::SessionStore& store, session::RowId sessionId);

}  // namespace spyglass
