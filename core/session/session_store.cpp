#include "core/session/session_store.h"

#include "core/common/diagnostics.h"
#include "core/common/versions.h"
#include "core/session/session_schema.h"
#include "core/session/sqlite_db.h"

#include <thread>
#include <chrono>
#include <QDateTime>
#include <QDir>
#include <QSysInfo>

#include <sqlite3.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <cerrno>
#include <unistd.h>

namespace spyglass::session {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void inputError(const std::string& path, const std::string& message)
{
    throw InputError(SourceLocation{path, 0, 0}, message);
}

std::uint32_t bigEndian32(const unsigned char* p)
{
    return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | std::uint32_t(p[3]);
}

// Decides from the 100-byte SQLite header alone whether we may open the file (see the class comment).
// Returns true when the file is new (missing or empty) and will be created.
bool checkFileBeforeOpening(const std::string& path)
{
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec || status.type() == fs::file_type::not_found) {
        const fs::path parent = fs::path(path).parent_path();
        if (!parent.empty() && !fs::is_directory(parent, ec))
            inputError(path, "cannot create the session database: folder '" + parent.string() + "' does not exist");
        return true;
    }
    if (status.type() == fs::file_type::directory)
        inputError(path, "is a folder, not a session database file");
    const auto size = fs::file_size(path, ec);
    if (ec)
        inputError(path, "cannot read: " + ec.message());
    if (size == 0)
        return true;
    std::array<unsigned char, 100> header{};
    std::ifstream in(path, std::ios::binary);
    if (!in)
        inputError(path, "cannot read the session database (permission denied?)");
    in.read(reinterpret_cast<char*>(header.data()), header.size());
    static const char kMagic[16] = "SQLite format 3";   // 15 characters and the terminating NUL
    if (in.gcount() < 100 || !std::equal(header.begin(), header.begin() + 16, reinterpret_cast<const unsigned char*>(kMagic)))
        inputError(path, "not a Spyglass session database (not an SQLite file); the file was left untouched");
    const std::uint32_t appId = bigEndian32(header.data() + 68);
    const std::uint32_t version = bigEndian32(header.data() + 60);
    const std::uint32_t pages = bigEndian32(header.data() + 28);
    // Another process creating the database right now: switching it to WAL wrote page 1 before its creation
    // transaction set the application id. One page holds no table, so nothing foreign is here; the schema check
    // inside SQLite (one snapshot, under the write lock) takes it from there.
    if (appId == 0 && version == 0 && pages <= 1)
        return true;
    if (appId != kSpyglassApplicationId)
        inputError(path, "an SQLite database, but not a Spyglass session database (application_id " + std::to_string(appId) +
                             "); the file was left untouched");
    if (version > static_cast<std::uint32_t>(currentSchemaVersion()))
        inputError(path, "written by a newer Spyglass (session schema version " + std::to_string(version) +
                             ", this build reads up to " + std::to_string(currentSchemaVersion()) +
                             "); the file was left untouched — upgrade Spyglass or use another --db");
    return false;
}

RunInfo readRun(SqliteStatement& st)
{
    RunInfo r;
    r.id = st.int64(0);
    r.sessionId = st.int64(1);
    r.artifact.id = st.isNull(2) ? 0 : st.int64(2);
    r.artifact.contentHash = st.text(3);
    r.artifact.path = st.text(4);
    r.artifact.kind = st.text(5);
    r.kind = st.text(6);
    r.targetHash = st.text(7);
    r.optionsJson = st.text(8);
    r.startedAt = st.text(9);
    r.endedAt = st.text(10);
    r.status = parseRunStatus(st.text(11)).value_or(RunStatus::Error);
    r.errorText = st.text(12);
    if (!st.isNull(13))
        r.simWallMs = st.real(13);
    r.resultJson = st.text(14);
    return r;
}

const char* const kRunColumns =
    "SELECT r.id, r.session_id, r.artifact_id, a.content_hash, a.path, a.kind, r.kind, r.target_hash, r.options_json,"
    " r.started_at, r.ended_at, r.status, r.error_text, r.sim_wall_ms, r.result_json"
    " FROM runs r LEFT JOIN artifacts a ON a.id = r.artifact_id ";

SessionInfo readSession(SqliteStatement& st)
{
    SessionInfo s;
    s.id = st.int64(0);
    s.name = st.text(1);
    s.startedAt = st.text(2);
    s.endedAt = st.text(3);
    s.appVersion = st.text(4);
    s.host = st.text(5);
    s.runCount = static_cast<int>(st.int64(6));
    return s;
}

const char* const kSessionColumns =
    "SELECT s.id, s.name, s.started_at, s.ended_at, s.app_version, s.host,"
    " (SELECT COUNT(*) FROM runs r WHERE r.session_id = s.id) FROM sessions s ";

}  // namespace

const char* runStatusName(RunStatus s)
{
    switch (s) {
    case RunStatus::Ok: return "ok";
    case RunStatus::Failed: return "failed";
    case RunStatus::Error: return "error";
    case RunStatus::Cancelled: return "cancelled";
    case RunStatus::Interrupted: return "interrupted";
    }
    return "error";
}

std::optional<RunStatus> parseRunStatus(std::string_view name)
{
    for (RunStatus s : {RunStatus::Ok, RunStatus::Failed, RunStatus::Error, RunStatus::Cancelled, RunStatus::Interrupted})
        if (name == runStatusName(s))
            return s;
    return std::nullopt;
}

std::string nowUtcIso()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toStdString();
}

std::string SessionStore::defaultPath()
{
    QString base = qEnvironmentVariable("XDG_DATA_HOME");
    if (base.isEmpty() || !QDir::isAbsolutePath(base))   // the XDG spec says to ignore a relative value
        base = QDir::homePath() + QStringLiteral("/.local/share");
    return QString(base + QStringLiteral("/spyglass/spyglass.db")).toStdString();
}

namespace {

// Recording needs to write the file and, in WAL mode, to create <db>-wal and <db>-shm beside it: a read-only file,
// folder or file system is said up front, instead of SQLite's "unable to open database file" at the first query.
void checkWritable(const std::string& path, bool fileIsNew)
{
    const fs::path parent = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
    auto refuse = [&](const std::string& what, int err) {
        inputError(path, "cannot write to the session database: " +
                             (err == EROFS ? std::string("it is on a read-only file system") : what) +
                             "; reading it works (sessions list, show, export), or record into another --db");
    };
    if (!fileIsNew && ::access(path.c_str(), W_OK) != 0)
        refuse("the file is read-only", errno);
    if (::access(parent.c_str(), W_OK) != 0)
        refuse("its folder '" + parent.string() + "' is read-only (SQLite keeps its -wal and -shm files beside the database)", errno);
}

}  // namespace

SessionStore::SessionStore(std::string path, Access access) : path_(std::move(path)), readOnly_(access == Access::ReadOnly)
{
    if (path_.empty())
        inputError(path_, "no session database path given");
    if (path_ == defaultPath() && !readOnly_) {
        std::error_code ec;
        fs::create_directories(fs::path(path_).parent_path(), ec);
    }
    const bool isNew = checkFileBeforeOpening(path_);
    if (readOnly_ && isNew)
        inputError(path_, "the session database does not exist yet or is empty (record runs with --session NAME)");
    if (!readOnly_)
        checkWritable(path_, isNew);
    // A WAL database needs its -shm file even for reading. Where it cannot be written (a read-only file, folder or
    // file system, a full disk) SQLite fails, or leaves a read-only -shm behind that later stops every writer. With
    // no uncommitted log (-wal empty or absent) the main file holds every run: read it as immutable, no -shm.
    std::error_code ec;
    const auto wal = fs::file_size(path_ + "-wal", ec);
    const bool logEmpty = ec || wal == 0;
    const fs::path parent = fs::path(path_).parent_path().empty() ? fs::path(".") : fs::path(path_).parent_path();
    const bool cannotWrite = ::access(path_.c_str(), W_OK) != 0 || ::access(parent.c_str(), W_OK) != 0;
    try {
        openWithRetry(isNew, readOnly_ && logEmpty && cannotWrite);
    } catch (const SqliteError& e) {
        db_.reset();
        const int primary = e.code() & 0xff;
        if (readOnly_ && logEmpty && (primary == SQLITE_CANTOPEN || primary == SQLITE_IOERR || primary == SQLITE_READONLY)) {
            try {
                openAndUpgrade(false, true);
                return;
            } catch (const SqliteError&) {
                db_.reset();
            }
        }
        inputError(path_, "cannot open the session database: " + e.diagnostic().message);
    }
}

SessionStore::~SessionStore() = default;

// SQLite answers BUSY at once, without its busy handler, where waiting could deadlock (connections that each hold
// a read lock and want the write lock, as when several processes create one file at the same moment). Its
// documented remedy is to start again; this does, until the busy timeout would have passed.
void SessionStore::openWithRetry(bool fileIsNew, bool immutable)
{
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        try {
            openAndUpgrade(fileIsNew, immutable);
            return;
        } catch (const SqliteError& e) {
            const int primary = e.code() & 0xff;
            db_.reset();
            if ((primary != SQLITE_BUSY && primary != SQLITE_LOCKED) || std::chrono::steady_clock::now() - start > std::chrono::seconds(10))
                throw;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
}

void SessionStore::openAndUpgrade(bool fileIsNew, bool immutable)
{
    db_ = std::make_unique<SqliteConnection>(path_, immutable ? SqliteConnection::Mode::Immutable
                                                    : readOnly_ ? SqliteConnection::Mode::ReadOnly
                                                    : fileIsNew ? SqliteConnection::Mode::Create
                                                                : SqliteConnection::Mode::ReadWrite);
    db_->exec("PRAGMA busy_timeout = 10000");
    db_->exec("PRAGMA foreign_keys = ON");

    // The header check above read the main file; these read through the WAL, which may hold a newer page 1.
    auto checkIdentity = [&] {
        // One statement, so one snapshot: read separately, another process creating the schema in between
        // would make a new file look like a foreign database.
        SqliteStatement st(db_->handle(),
                           "SELECT (SELECT application_id FROM pragma_application_id), (SELECT user_version FROM pragma_user_version),"
                           " (SELECT COUNT(*) FROM sqlite_schema)");
        st.step();
        const auto appId = static_cast<std::uint32_t>(st.int64(0));
        const int version = static_cast<int>(st.int64(1));
        const bool empty = st.int64(2) == 0;
        if (!(appId == kSpyglassApplicationId || (appId == 0 && version == 0 && empty)))
            inputError(path_, "not a Spyglass session database (application_id " + std::to_string(appId) + ")");
        if (version > currentSchemaVersion())
            inputError(path_, "written by a newer Spyglass (session schema version " + std::to_string(version) +
                                  ", this build reads up to " + std::to_string(currentSchemaVersion()) + ")");
        return version;
    };
    try {
        if (readOnly_) {
            // Nothing is created, upgraded or switched to WAL: the file is read as it is.
            const int version = checkIdentity();
            if (version < currentSchemaVersion())
                inputError(path_, "written by an older Spyglass (session schema version " + std::to_string(version) +
                                      "); it is upgraded the first time it is opened for writing, which this read-only open cannot do");
            return;
        }
        if (checkIdentity() < currentSchemaVersion()) {
            // Creation and upgrades happen under the write lock, and the version is read again inside it:
            // two processes opening a new file at once must not both create the tables.
            SqliteTransaction tx(*db_);
            const int version = checkIdentity();
            if (version < currentSchemaVersion())
                applyMigrations(*db_, version, currentSchemaVersion());
            tx.commit();
        }
    } catch (const InputError&) {
        db_.reset();
        throw;
    }
    // WAL only after the schema exists, so the main file's header always carries our application_id.
    db_->exec("PRAGMA journal_mode = WAL");
    db_->exec("PRAGMA synchronous = FULL");
}

int SessionStore::schemaVersion() { return static_cast<int>(db_->queryInt("PRAGMA user_version")); }
std::int64_t SessionStore::dataVersion() { return db_->queryInt("PRAGMA data_version"); }
std::int64_t SessionStore::localChanges() { return sqlite3_total_changes64(db_->handle()); }
std::string SessionStore::integrityCheck() { return db_->queryText("PRAGMA integrity_check"); }
std::string SessionStore::journalMode() { return db_->queryText("PRAGMA journal_mode"); }

RowId SessionStore::createSession(const std::string& name)
{
    SqliteStatement st(db_->handle(),
                       "INSERT INTO sessions(name, started_at, app_version, host) VALUES (?, ?, ?, ?)");
    st.bind(1, name).bind(2, nowUtcIso()).bind(3, spyglassVersion()).bind(4, QSysInfo::machineHostName().toStdString());
    st.run();
    return db_->lastInsertId();
}

std::optional<RowId> SessionStore::findSessionByName(const std::string& name)
{
    SqliteStatement st(db_->handle(), "SELECT id FROM sessions WHERE name = ? ORDER BY started_at DESC, id DESC LIMIT 1");
    st.bind(1, name);
    if (st.step())
        return st.int64(0);
    return std::nullopt;
}

RowId SessionStore::openOrCreateSession(const std::string& name)
{
    SqliteTransaction tx(*db_);   // two CLI processes with the same --session must end up in one session
    const auto existing = findSessionByName(name);
    const RowId id = existing ? *existing : createSession(name);
    tx.commit();
    return id;
}

void SessionStore::renameSession(RowId id, const std::string& name)
{
    SqliteStatement st(db_->handle(), "UPDATE sessions SET name = ? WHERE id = ?");
    st.bind(1, name).bind(2, id);
    st.run();
}

void SessionStore::endSession(RowId id)
{
    SqliteStatement st(db_->handle(), "UPDATE sessions SET ended_at = ? WHERE id = ?");
    st.bind(1, nowUtcIso()).bind(2, id);
    st.run();
}

bool SessionStore::deleteSession(RowId id)
{
    SqliteTransaction tx(*db_);
    SqliteStatement st(db_->handle(), "DELETE FROM sessions WHERE id = ?");   // runs and timings cascade
    st.bind(1, id);
    st.run();
    const bool deleted = db_->changes() > 0;
    // Artifacts no run refers to any more would only clutter the artifact pickers.
    db_->exec("DELETE FROM artifacts WHERE id NOT IN (SELECT artifact_id FROM runs WHERE artifact_id IS NOT NULL)");
    tx.commit();
    return deleted;
}

std::vector<SessionInfo> SessionStore::listSessions()
{
    SqliteStatement st(db_->handle(), std::string(kSessionColumns) + "ORDER BY s.started_at, s.id");
    std::vector<SessionInfo> out;
    while (st.step())
        out.push_back(readSession(st));
    return out;
}

std::optional<SessionInfo> SessionStore::session(RowId id)
{
    SqliteStatement st(db_->handle(), std::string(kSessionColumns) + "WHERE s.id = ?");
    st.bind(1, id);
    if (st.step())
        return readSession(st);
    return std::nullopt;
}

RowId SessionStore::internArtifact(const std::string& contentHash, const std::string& path, const std::string& kind)
{
    SqliteStatement ins(db_->handle(), "INSERT OR IGNORE INTO artifacts(content_hash, path, kind) VALUES (?, ?, ?)");
    ins.bind(1, contentHash).bind(2, path).bind(3, kind);
    ins.run();
    SqliteStatement sel(db_->handle(), "SELECT id FROM artifacts WHERE content_hash = ? AND path = ? AND kind = ?");
    sel.bind(1, contentHash).bind(2, path).bind(3, kind);
    if (!sel.step())
        throw SqliteError(SQLITE_INTERNAL, path_, "artifact row vanished after insert");
    return sel.int64(0);
}

std::optional<ArtifactInfo> SessionStore::artifact(RowId id)
{
    SqliteStatement st(db_->handle(), "SELECT id, content_hash, path, kind FROM artifacts WHERE id = ?");
    st.bind(1, id);
    if (!st.step())
        return std::nullopt;
    return ArtifactInfo{st.int64(0), st.text(1), st.text(2), st.text(3)};
}

RowId SessionStore::insertRun(const RunDetail& d)
{
    const RunInfo& r = d.run;
    SqliteTransaction tx(*db_);
    RowId artifactId = r.artifact.id;
    if (artifactId == 0 && !r.artifact.contentHash.empty())
        artifactId = internArtifact(r.artifact.contentHash, r.artifact.path, r.artifact.kind);
    SqliteStatement st(db_->handle(),
                       "INSERT INTO runs(session_id, artifact_id, kind, target_hash, options_json, started_at, ended_at,"
                       " status, error_text, sim_wall_ms, result_json) VALUES (?,?,?,?,?,?,?,?,?,?,?)");
    st.bind(1, r.sessionId);
    if (artifactId)
        st.bind(2, artifactId);
    else
        st.bindNull(2);
    st.bind(3, r.kind).bindTextOrNull(4, r.targetHash).bind(5, r.optionsJson.empty() ? std::string("{}") : r.optionsJson);
    st.bind(6, r.startedAt).bind(7, r.endedAt.empty() ? nowUtcIso() : r.endedAt).bind(8, runStatusName(r.status));
    st.bindTextOrNull(9, r.errorText).bindOptional(10, r.simWallMs).bind(11, r.resultJson.empty() ? std::string("{}") : r.resultJson);
    st.run();
    const RowId runId = db_->lastInsertId();

    SqliteStatement pass(db_->handle(), "INSERT INTO pass_timings(run_id, seq, name, wall_ms) VALUES (?,?,?,?)");
    for (size_t i = 0; i < d.passes.size(); ++i) {
        pass.bind(1, runId).bind(2, static_cast<std::int64_t>(i)).bind(3, d.passes[i].name).bind(4, d.passes[i].wallMs);
        pass.run();
        pass.reset();
    }
    SqliteStatement kernel(db_->handle(), "INSERT INTO kernel_timings(run_id, seq, name, sim_ns, bytes_moved, lx_peak_bytes) VALUES (?,?,?,?,?,?)");
    for (size_t i = 0; i < d.kernels.size(); ++i) {
        const KernelTiming& k = d.kernels[i];
        kernel.bind(1, runId).bind(2, static_cast<std::int64_t>(i)).bind(3, k.name).bind(4, k.simNs).bind(5, k.bytesMoved).bind(6, k.lxPeakBytes);
        kernel.run();
        kernel.reset();
    }
    SqliteStatement circuit(db_->handle(), "INSERT INTO circuit_timings(run_id, seq, name, qubits, gates, sim_ms) VALUES (?,?,?,?,?,?)");
    for (size_t i = 0; i < d.circuits.size(); ++i) {
        const CircuitTiming& c = d.circuits[i];
        circuit.bind(1, runId).bind(2, static_cast<std::int64_t>(i)).bind(3, c.name).bind(4, c.qubits).bind(5, c.gates).bind(6, c.simMs);
        circuit.run();
        circuit.reset();
    }
    // A CLI session has no window to close: its end is the end of its latest run.
    SqliteStatement end(db_->handle(), "UPDATE sessions SET ended_at = max(coalesce(ended_at, ''), ?) WHERE id = ?");
    end.bind(1, r.endedAt.empty() ? nowUtcIso() : r.endedAt).bind(2, r.sessionId);
    end.run();
    tx.commit();
    return runId;
}

std::vector<RunInfo> SessionStore::queryRuns(const char* where, RowId key)
{
    SqliteStatement st(db_->handle(), std::string(kRunColumns) + where + " ORDER BY r.started_at, r.id");
    st.bind(1, key);
    std::vector<RunInfo> out;
    while (st.step())
        out.push_back(readRun(st));
    return out;
}

std::vector<RunInfo> SessionStore::runs(RowId sessionId) { return queryRuns("WHERE r.session_id = ?", sessionId); }
std::vector<RunInfo> SessionStore::runsOfArtifact(RowId artifactId) { return queryRuns("WHERE r.artifact_id = ?", artifactId); }

std::vector<RowId> SessionStore::runIds(RowId sessionId)
{
    SqliteStatement st(db_->handle(), "SELECT id FROM runs WHERE session_id = ? ORDER BY id");
    st.bind(1, sessionId);
    std::vector<RowId> out;
    while (st.step())
        out.push_back(st.int64(0));
    return out;
}

std::optional<RunDetail> SessionStore::runDetail(RowId runId)
{
    auto found = queryRuns("WHERE r.id = ?", runId);
    if (found.empty())
        return std::nullopt;
    RunDetail d;
    d.run = std::move(found.front());
    SqliteStatement pass(db_->handle(), "SELECT name, wall_ms FROM pass_timings WHERE run_id = ? ORDER BY seq");
    pass.bind(1, runId);
    while (pass.step())
        d.passes.push_back({pass.text(0), pass.real(1)});
    SqliteStatement kernel(db_->handle(), "SELECT name, sim_ns, bytes_moved, lx_peak_bytes FROM kernel_timings WHERE run_id = ? ORDER BY seq");
    kernel.bind(1, runId);
    while (kernel.step())
        d.kernels.push_back({kernel.text(0), kernel.real(1), kernel.int64(2), kernel.int64(3)});
    SqliteStatement circuit(db_->handle(), "SELECT name, qubits, gates, sim_ms FROM circuit_timings WHERE run_id = ? ORDER BY seq");
    circuit.bind(1, runId);
    while (circuit.step())
        d.circuits.push_back({circuit.text(0), static_cast<int>(circuit.int64(1)), static_cast<int>(circuit.int64(2)), circuit.real(3)});
    return d;
}

}  // namespace spyglass::session
