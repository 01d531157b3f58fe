#pragma once
// SessionStore: the history of every compile and simulation run, in one SQLite file.
//
// Opening never harms a file that is not ours: the first 100 bytes (the SQLite header) are read by hand and
// the file must be empty, or an SQLite file whose application_id says Spyglass and whose user_version this build
// understands; otherwise InputError, and SQLite never opens it. Our files run in WAL mode with
// synchronous=FULL (a committed run survives a killed process and a power cut), foreign keys on and a busy
// timeout, so a GUI and several CLI processes can write at once.
//
// One SessionStore is one connection: use it from one thread at a time (open another store for a worker).

#include "core/session/session_types.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace spyglass::session {

class SqliteConnection;

class SessionStore {
public:
    // $XDG_DATA_HOME/spyglass/spyglass.db, or ~/.local/share/spyglass/spyglass.db.
    static std::string defaultPath();

    // Opens `path`, creating it (and, for the default path, its folder) when missing, and upgrading an
    // older schema. Throws InputError for a file that is not a Spyglass database, is from a newer Spyglass,
    // is damaged, or cannot be opened.
    // ReadOnly opens an existing file without creating, upgrading or writing anything (sessions list/show/export on
    // a read-only file, folder or file system); ReadWrite says up front when the file or its folder cannot be
    // written. Every later SQLite failure (disk full, read-only, damaged) is a SqliteError (an InputError) naming
    // the file.
    enum class Access { ReadWrite, ReadOnly };
    explicit SessionStore(std::string path, Access access = Access::ReadWrite);
    ~SessionStore();
    SessionStore(const SessionStore&) = delete;
    SessionStore& operator=(const SessionStore&) = delete;

    const std::string& path() const { return path_; }
    int schemaVersion();
    // Changes whenever another connection commits: cheap to poll for "refresh the charts".
    std::int64_t dataVersion();
    // Rows changed through this connection so far (with dataVersion(), catches every change to poll for).
    std::int64_t localChanges();
    std::string integrityCheck();   // "ok" when healthy
    std::string journalMode();

    // Sessions.
    RowId createSession(const std::string& name);
    // The most recent session called `name`, or a new one: `--session NAME` keeps adding to one history.
    RowId openOrCreateSession(const std::string& name);
    std::optional<RowId> findSessionByName(const std::string& name);
    void renameSession(RowId id, const std::string& name);
    void endSession(RowId id);             // sets ended_at to now
    bool deleteSession(RowId id);          // with its runs and timings; false when there was no such session
    std::vector<SessionInfo> listSessions();   // oldest first
    std::optional<SessionInfo> session(RowId id);

    // Runs.
    RowId internArtifact(const std::string& contentHash, const std::string& path, const std::string& kind);
    std::optional<ArtifactInfo> artifact(RowId id);
    // Writes a run and all its timings in one transaction and extends its session's end time.
    RowId insertRun(const RunDetail& run);
    std::vector<RunInfo> runs(RowId sessionId);          // in start order
    std::vector<RunInfo> runsOfArtifact(RowId artifactId);   // across all sessions, in start order
    std::optional<RunDetail> runDetail(RowId runId);
    std::vector<RowId> runIds(RowId sessionId);

    // For the rare caller that needs SQL (tests, future exporters).
    SqliteConnection& connection() { return *db_; }

private:
    void openWithRetry(bool fileIsNew, bool immutable);
    void openAndUpgrade(bool fileIsNew, bool immutable);
    std::vector<RunInfo> queryRuns(const char* where, RowId key);

    std::string path_;
    bool readOnly_ = false;
    std::unique_ptr<SqliteConnection> db_;
};

// Current UTC time as "2026-11-29T22:58:13.123Z".
std::string nowUtcIso();

}  // namespace spyglass::session
