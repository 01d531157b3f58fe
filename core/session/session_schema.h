#pragma once
// The schema of the session database and how it grows. Version N of the schema is what migrations 1..N
// build from an empty file, in order; `PRAGMA user_version` says which have run. To change the schema, append
// a migration to the list in session_schema.cpp — never edit a released one — and the migration test
// (tests/session/tst_session_store.cpp) builds every earlier version and upgrades it.

#include <cstdint>
#include <string>
#include <vector>

namespace spyglass::session {

class SqliteConnection;

// "SPYG": written to the SQLite header's application_id so a Spyglass database can be told from any other
// SQLite file by reading 4 bytes, without opening it.
constexpr std::uint32_t kSpyglassApplicationId = 0x53505947u;

struct Migration {
    int toVersion;             // the user_version after this migration
    const char* description;   // one line, for the log and the tests
    const char* sql;           // statements run inside the upgrade transaction
};

// Every migration in order; migrations()[i].toVersion == i + 1.
const std::vector<Migration>& migrations();

// The version this build writes and reads (the last migration's).
int currentSchemaVersion();

// Runs migrations fromVersion+1 .. toVersion on an open connection inside the caller's transaction and sets
// application_id and user_version.
void applyMigrations(SqliteConnection& db, int fromVersion, int toVersion);

// Creates a database at `path` exactly as a build of schema `version` would have left it (rollback journal,
// no WAL yet): for the migration tests. version 0 is an empty file.
void createDatabaseAtVersion(const std::string& path, int version);

}  // namespace spyglass::session
