#pragma once
// A VQE run in the session store, as `spyglass-cli vqe --session` and the explorer's Quantum > Run VQE record it:
// kind "vqe", the Hamiltonian file (if any) as the artifact, the recipe as the options, the whole report
// (vqeReportJson, with the energy after every iteration) as the result, so the VQE view can redraw it later.

#include "core/quantum/vqe_report.h"
#include "core/session/session_types.h"

#include <optional>
#include <string>
#include <vector>

namespace spyglass::session {
class SessionRecorder;
class SessionStore;
}

namespace spyglass {

void recordVqeRun(const quantum::VqeReport& report, const std::string& hamiltonianFile, session::SessionRecorder& recorder);
// The same into session `sessionId` of the store at `dbPath`, with its own connection (safe on a worker thread). A
// store that cannot be written costs the history, not the run: returns why it was not recorded ("" when it was).
std::string recordVqeRun(const quantum::VqeReport& report, const std::string& hamiltonianFile, const std::string& dbPath, session::RowId sessionId);

// The recorded VQE runs of every session in the store, newest first (what the explorer offers to reopen).
struct RecordedVqeRun {
    session::RunInfo run;
    std::string sessionName;
};
std::vector<RecordedVqeRun> recordedVqeRuns(session::SessionStore& store);
// The report of run `runId`; InputError when it is not a VQE run or was recorded without the per-iteration energies.
quantum::VqeReport recordedVqeReport(session::SessionStore& store, session::RowId runId);

}  // namespace spyglass
