#pragma once
// `--session NAME` and `--db FILE` for the commands that record runs (compile, run, qsim, vqe), and the store
// for the `sessions` command. Nothing is recorded on the CLI without --session.
//
// In a recording command, FIRST (before args.positional(), which would otherwise take the NAME after
// --session for a positional argument):
//
//   auto session = spyglass::cli::openSessionForCli(args);      // nullptr without --session
//   const std::string file = args.positional("FILE");
//   ...
//   if (session) {
//       auto& rec = session->recorder();
//       rec.beginRun({.kind = "compile", .artifactPath = file, .artifactKind = "onnx", .optionsJson = opts});
//       rec.addPassTimings(result.passes);
//       rec.finishRun(spyglass::session::RunStatus::Ok);
//   }
//
// A command that fails after beginRun() should call finishRun(RunStatus::Error or Failed, message) before it
// rethrows; if it does not, the recorder stores the run as "interrupted" when the CliSession is destroyed.

#include "app/cli/cli.h"
#include "core/session/session_recorder.h"
#include "core/session/session_store.h"

#include <memory>
#include <string>

namespace spyglass::cli {

class CliSession {
public:
    CliSession(std::unique_ptr<session::SessionStore> store, session::RowId sessionId);
    session::SessionStore& store() { return *store_; }
    session::RowId sessionId() const { return sessionId_; }
    session::SessionRecorder& recorder() { return recorder_; }

private:
    std::unique_ptr<session::SessionStore> store_;   // declared first: outlives the recorder
    session::RowId sessionId_;
    session::SessionRecorder recorder_;
};

// Consumes --session and --db. Returns nullptr without --session. The named session is the most recent one
// with that name (created when there is none), so repeated commands with one name build one history.
// Throws UsageError for --db without --session or an empty name, InputError for a database we cannot use.
std::unique_ptr<CliSession> openSessionForCli(Args& args);

// Consumes --db; opens that file or SessionStore::defaultPath().
std::unique_ptr<session::SessionStore> openStoreForCli(Args& args);

}  // namespace spyglass::cli
