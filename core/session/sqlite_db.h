#pragma once
// A thin RAII layer over libsqlite3 for the session store: one connection, prepared statements, and
// BEGIN IMMEDIATE transactions (a writer takes the write lock up front, so two writers queue on the busy
// timeout instead of one failing with SQLITE_BUSY half-way through a run).

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace spyglass::session {

// An SQLite failure while using an already opened store (disk full, lock held past the busy timeout).
class SqliteError : public std::runtime_error {
public:
    SqliteError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
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
    // Opens (creating when allowed) without running any statement; throws SqliteError.
    SqliteConnection(const std::string& path, bool create);
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
