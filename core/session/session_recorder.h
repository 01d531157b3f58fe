#pragma once
// SessionRecorder: how the compilers, simulators, the CLI and the GUI record a run.
//
//   SessionRecorder rec(store, sessionId);
//   rec.beginRun({.kind = "run", .artifactPath = "model.onnx", .artifactKind = "onnx", .optionsJson = opts});
//   for (const PassRecord& p : passes) rec.addPassTiming(p.name, p.wallMs);
//   rec.addKernelTiming("matmul_0", simNs, bytes, lxPeak);
//   rec.setSimulationWallMs(wallMs);
//   const RowId id = rec.finishRun(RunStatus::Ok);      // one transaction: the whole run, or nothing
//
// Nothing touches the database until finishRun(): a run is stored whole or not at all. A recorder destroyed
// with a run still open (an exception unwound past it) stores that run as "interrupted" with what it had.

#include "core/common/pass_record.h"
#include "core/session/session_types.h"

#include <optional>
#include <string>

namespace spyglass::session {

class SessionStore;

// Every member has a default so callers can name only what they know: {.kind = "qsim", .artifactPath = f}.
struct RunStart {
    std::string kind{};              // "compile", "run", "qsim", "vqe", ...
    std::string artifactPath{};      // the model/circuit/bundle; may be empty
    std::string artifactKind{};      // "onnx", "qasm", "bundle", ...
    std::string artifactHash{};      // computed from artifactPath when empty
    std::string targetPath{};        // the target description JSON; hashed when targetHash is empty
    std::string targetHash{};
    std::string optionsJson = "{}";  // pass options and pins; must be a JSON object
};

class SessionRecorder {
public:
    SessionRecorder(SessionStore& store, RowId sessionId);
    ~SessionRecorder();
    SessionRecorder(const SessionRecorder&) = delete;
    SessionRecorder& operator=(const SessionRecorder&) = delete;

    RowId sessionId() const { return sessionId_; }
    bool runOpen() const { return open_; }

    // Throws InputError when the artifact cannot be read to hash it, std::invalid_argument when optionsJson is
    // not a JSON object or a run is already open.
    void beginRun(const RunStart& start);
    void addPassTiming(const std::string& name, double wallMs);
    void addPassTimings(const PassRecords& passes);
    void addKernelTiming(const std::string& name, double simNs, std::int64_t bytesMoved, std::int64_t lxPeakBytes);
    void addCircuitTiming(int qubits, int gates, double simMs, const std::string& name = {});
    void setSimulationWallMs(double wallMs);
    // A JSON object with whatever the views need to redraw this run (histograms, energies, ...).
    void setResultJson(const std::string& json);
    // Stores the run in one transaction and returns its id.
    RowId finishRun(RunStatus status, const std::string& errorText = {});

private:
    SessionStore& store_;
    RowId sessionId_;
    bool open_ = false;
    RunDetail run_;
};

}  // namespace spyglass::session
