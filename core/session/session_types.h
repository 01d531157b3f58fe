#pragma once
// Plain records of the session store: what a session, an artifact, a run and its timings are.
// Times are ISO 8601 UTC strings with milliseconds ("2026-11-29T22:58:13.123Z"): sortable as text and
// readable in a CSV without conversion.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace spyglass::session {

using RowId = std::int64_t;

// How a run ended. Interrupted is what a run becomes when its recorder is destroyed before finishRun()
// (an exception unwound past it); a process killed outright records nothing for that run.
enum class RunStatus { Ok, Failed, Error, Cancelled, Interrupted };

const char* runStatusName(RunStatus s);
std::optional<RunStatus> parseRunStatus(std::string_view name);

struct SessionInfo {
    RowId id = 0;
    std::string name;
    std::string startedAt;
    std::string endedAt;      // empty while the session is open (or its process died)
    std::string appVersion;
    std::string host;
    int runCount = 0;
};

// A model, circuit or kernel bundle, identified by its content: the same bytes at the same path is the same
// artifact across sessions, so "this model's runs over weeks" is one query.
struct ArtifactInfo {
    RowId id = 0;
    std::string contentHash;   // SHA-256, lower-case hex
    std::string path;
    std::string kind;          // "onnx", "qasm", "bundle", ...
};

struct PassTiming {
    std::string name;
    double wallMs = 0.0;
};

struct KernelTiming {
    std::string name;
    double simNs = 0.0;              // simulated time on the modelled chip
    std::int64_t bytesMoved = 0;
    std::int64_t lxPeakBytes = 0;    // peak scratchpad (LX) use of any core
};

struct CircuitTiming {
    std::string name;    // e.g. the circuit file or "vqe iteration 7"; may be empty
    int qubits = 0;
    int gates = 0;
    double simMs = 0.0;  // measured wall time of the state-vector simulation
};

struct RunInfo {
    RowId id = 0;
    RowId sessionId = 0;
    ArtifactInfo artifact;        // id 0 when the run has no artifact
    std::string kind;             // "compile", "run", "qsim", "vqe", ...
    std::string targetHash;       // SHA-256 of the target description used, or empty
    std::string optionsJson = "{}";   // pass options and pins, a JSON object
    std::string startedAt;
    std::string endedAt;
    RunStatus status = RunStatus::Ok;
    std::string errorText;
    std::optional<double> simWallMs;   // wall time of the whole simulation, when the run simulated
    std::string resultJson = "{}";     // what the views need to redraw this run's charts without recomputing
};

struct RunDetail {
    RunInfo run;
    std::vector<PassTiming> passes;
    std::vector<KernelTiming> kernels;
    std::vector<CircuitTiming> circuits;
};

}  // namespace spyglass::session
