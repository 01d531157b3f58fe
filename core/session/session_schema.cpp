#include "core/session/session_schema.h"

#include "core/session/sqlite_db.h"

#include <fstream>
#include <stdexcept>

namespace spyglass::session {

namespace {

// Version 1: sessions, artifacts, runs and their timings. Deleting a session deletes its runs and their
// timings (ON DELETE CASCADE); artifacts are shared across sessions and stay.
const char* const kSchemaV1 = R"sql(
CREATE TABLE sessions (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    started_at  TEXT NOT NULL,
    ended_at    TEXT,
    app_version TEXT NOT NULL,
    host        TEXT NOT NULL
);
CREATE INDEX sessions_by_name ON sessions(name, started_at);

CREATE TABLE artifacts (
    id           INTEGER PRIMARY KEY,
    content_hash TEXT NOT NULL,
    path         TEXT NOT NULL,
    kind         TEXT NOT NULL,
    UNIQUE (content_hash, path, kind)
);

CREATE TABLE runs (
    id           INTEGER PRIMARY KEY,
    session_id   INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    artifact_id  INTEGER REFERENCES artifacts(id),
    kind         TEXT NOT NULL,
    target_hash  TEXT,
    options_json TEXT NOT NULL DEFAULT '{}',
    started_at   TEXT NOT NULL,
    ended_at     TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'error', 'cancelled', 'interrupted')),
    error_text   TEXT,
    sim_wall_ms  REAL,
    result_json  TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX runs_by_session ON runs(session_id, started_at);
CREATE INDEX runs_by_artifact ON runs(artifact_id, started_at);

CREATE TABLE pass_timings (
    run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq     INTEGER NOT NULL,
    name    TEXT NOT NULL,
    wall_ms REAL NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

CREATE TABLE kernel_timings (
    run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL,
    name          TEXT NOT NULL,
    sim_ns        REAL NOT NULL,
    bytes_moved   INTEGER NOT NULL,
    lx_peak_bytes INTEGER NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

CREATE TABLE circuit_timings (
    run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq     INTEGER NOT NULL,
    name    TEXT NOT NULL DEFAULT '',
    qubits  INTEGER NOT NULL,
    gates   INTEGER NOT NULL,
    sim_ms  REAL NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
)sql";

}  // namespace

const std::vector<Migration>& migrations()
{
    static const std::vector<Migration> all = {
        {1, "sessions, artifacts, runs, pass/kernel/circuit timings", kSchemaV1},
        // {2, "...", "ALTER TABLE ..."},   next versions go here, in order
    };
    return all;
}

int currentSchemaVersion() { return static_cast<int>(migrations().size()); }

void applyMigrations(SqliteConnection& db, int fromVersion, int toVersion)
{
    if (fromVersion < 0 || toVersion > currentSchemaVersion() || fromVersion > toVersion)
        throw std::logic_error("no migration path from schema " + std::to_string(fromVersion) + " to " + std::to_string(toVersion));
    for (const Migration& m : migrations())
        if (m.toVersion > fromVersion && m.toVersion <= toVersion)
            db.exec(m.sql);
    db.exec("PRAGMA application_id = " + std::to_string(static_cast<std::int32_t>(kSpyglassApplicationId)));
    db.exec("PRAGMA user_version = " + std::to_string(toVersion));
}

void createDatabaseAtVersion(const std::string& path, int version)
{
    if (version == 0) {
        std::ofstream(path, std::ios::binary | std::ios::trunc);
        return;
    }
    SqliteConnection db(path, SqliteConnection::Mode::Create);
    SqliteTransaction tx(db);
    applyMigrations(db, 0, version);
    tx.commit();
}

}  // namespace spyglass::session
