#pragma once
// A thin RAII layer over libsqlite3 for the session store: one connection, prepared statements, and
// BEGIN IMMEDIATE transactions (a writer takes the write lock up front, so two writers queue on the busy
// timeout instead of one failing with SQLITE_BUSY half-way through a run).

#include "core/common/diagnostics.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace spyglass::session {

// An SQLite failure (disk full, read-only file, damaged file, lock held past the busy timeout). A fault of the
// database or the disk, not of the program: an InputError naming the database, with what it means for the user
// first ("the disk is full; this run was not recorded ...") and SQLite's own words after it.
class SqliteError : public InputError {
public:
    // `systemErrno` is sqlite3_system_errno() (ENOSPC tells a full disk behind an I/O error), 0 when unknown.
    SqliteError(int code, const std::string& file, const std::string& detail, int systemErrno = 0);
    int code() const { return code_; }

private:
    int code_;
};

class SqliteStatement {
public:
    SqliteStatement(sqlite3* db, std::string_view sql);
    ~SqliteStatement();
    SqliteStatement(const SqliteStatement&) = delete;
    SqliteStatement& operator=(const SqliteStatement&) = delete;

    SqliteStatement& bind(int index, std::int64_t v);
    SqliteStatement& bind(int index, int v) { return bind(index, static_cast<std::int64_t>(v)); }
    SqliteStatement& bind(int index, double v);
    SqliteStatement& bind(int index, std::string_view v);
    SqliteStatement& bind(int index, const char* v) { return bind(index, std::string_view(v)); }
    SqliteStatement& bind(int index, const std::string& v) { return bind(index, std::string_view(v)); }
    SqliteStatement& bindNull(int index);
    SqliteStatement& bindOptional(int index, const std::optional<double>& v);
    // Empty text is stored as NULL (an absent end time, error text or hash).
    SqliteStatement& bindTextOrNull(int index, const std::string& v);

    bool step();            // true while a row is available
    void run();             // step a statement that returns no rows
    void reset();

    bool isNull(int col) const;
    std::int64_t int64(int col) const;
    double real(int col) const;
    std::string text(int col) const;   // "" for NULL

private:
    sqlite3* db_;
    sqlite3_stmt* stmt_ = nullptr;
};

class SqliteConnection {
public:
    // Immutable: read-only, and SQLite assumes nobody changes the file, so it needs no -shm file (which a WAL
    // database cannot create on a read-only or full file system). Only exact while the -wal file is empty.
    enum class Mode { ReadWrite, Create, ReadOnly, Immutable };
    // Opens without running any statement; throws SqliteError.
    SqliteConnection(const std::string& path, Mode mode);
    ~SqliteConnection();
    SqliteConnection(const SqliteConnection&) = delete;
    SqliteConnection& operator=(const SqliteConnection&) = delete;

    sqlite3* handle() const { return db_; }
    void exec(std::string_view sql);                   // one or more statements, no results
    std::int64_t queryInt(std::string_view sql);        // first column of the first row
    std::string queryText(std::string_view sql);
    std::int64_t lastInsertId() const;
    int changes() const;

private:
    sqlite3* db_ = nullptr;
};

// BEGIN IMMEDIATE on construction; ROLLBACK unless commit() was called.
class SqliteTransaction {
public:
    explicit SqliteTransaction(SqliteConnection& c);
    ~SqliteTransaction();
    void commit();

private:
    SqliteConnection& c_;
    bool done_ = false;
};

[[noreturn]] void throwSqlite(sqlite3* db, int code, std::string_view what);

}  // namespace spyglass::session
