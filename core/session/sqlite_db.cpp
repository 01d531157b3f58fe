#include "core/session/sqlite_db.h"

#include <QString>
#include <QUrl>

#include <sqlite3.h>

#include <cerrno>


namespace spyglass::session {

namespace {

std::string meaning(int code, int systemErrno)
{
    switch (code & 0xff) {
    case SQLITE_FULL:
        return "the disk is full; this was not recorded (everything recorded before is kept)";
    case SQLITE_IOERR:
        if (systemErrno == ENOSPC)
            return "the disk is full; this was not recorded (everything recorded before is kept)";
        return "disk I/O error; this was not recorded (everything recorded before is kept)";
    case SQLITE_READONLY:
        return "the session database is read-only (the file, its folder or the file system): nothing can be recorded; "
               "reading it works (sessions list, show, export)";
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return "the session database is damaged";
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return "the session database is locked by another process (waited 10 s)";
    case SQLITE_CANTOPEN:
        return "cannot open the session database";
    case SQLITE_PERM:
    case SQLITE_AUTH:
        return "permission denied";
    case SQLITE_ERROR:
        // A statement of ours that the schema does not take: a table dropped or changed by another program.
        return "the session database does not have the tables this Spyglass wrote (damaged or changed by another program)";
    default:
        return sqlite3_errstr(code);
    }
}

}  // namespace

SqliteError::SqliteError(int code, const std::string& file, const std::string& detail, int systemErrno)
    : InputError(SourceLocation{file, 0, 0}, meaning(code, systemErrno) + " (SQLite: " + detail + ")"), code_(code)
{
}

void throwSqlite(sqlite3* db, int code, std::string_view what)
{
    std::string msg(what);
    msg += ": ";
    msg += db ? sqlite3_errmsg(db) : sqlite3_errstr(code);
    const char* file = db ? sqlite3_db_filename(db, "main") : nullptr;
    throw SqliteError(code, file ? file : "", msg, db ? sqlite3_system_errno(db) : 0);
}

SqliteStatement::SqliteStatement(sqlite3* db, std::string_view sql) : db_(db)
{
    const int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
    if (rc != SQLITE_OK)
        throwSqlite(db, rc, "preparing '" + std::string(sql.substr(0, 60)) + "'");
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt_); }

SqliteStatement& SqliteStatement::bind(int index, std::int64_t v)
{
    sqlite3_bind_int64(stmt_, index, v);
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double v)
{
    sqlite3_bind_double(stmt_, index, v);
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view v)
{
    sqlite3_bind_text(stmt_, index, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
}

SqliteStatement& SqliteStatement::bindNull(int index)
{
    sqlite3_bind_null(stmt_, index);
    return *this;
}

SqliteStatement& SqliteStatement::bindOptional(int index, const std::optional<double>& v)
{
    return v ? bind(index, *v) : bindNull(index);
}

SqliteStatement& SqliteStatement::bindTextOrNull(int index, const std::string& v)
{
    return v.empty() ? bindNull(index) : bind(index, v);
}

bool SqliteStatement::step()
{
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    throwSqlite(db_, rc, "running '" + std::string(sqlite3_sql(stmt_)).substr(0, 60) + "'");
}

void SqliteStatement::run()
{
    while (step()) {
    }
}

void SqliteStatement::reset()
{
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
}

bool SqliteStatement::isNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
std::int64_t SqliteStatement::int64(int col) const { return sqlite3_column_int64(stmt_, col); }
double SqliteStatement::real(int col) const { return sqlite3_column_double(stmt_, col); }

std::string SqliteStatement::text(int col) const
{
    const auto* p = sqlite3_column_text(stmt_, col);
    return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt_, col))) : std::string();
}

SqliteConnection::SqliteConnection(const std::string& path, Mode mode)
{
    int flags = SQLITE_OPEN_NOMUTEX;
    std::string name = path;
    if (mode == Mode::ReadOnly) {
        flags |= SQLITE_OPEN_READONLY;
    } else if (mode == Mode::Immutable) {
        flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
        name = "file:" + QUrl::toPercentEncoding(QString::fromStdString(path), "/").toStdString() + "?immutable=1";
    } else {
        flags |= SQLITE_OPEN_READWRITE | (mode == Mode::Create ? SQLITE_OPEN_CREATE : 0);
    }
    const int rc = sqlite3_open_v2(name.c_str(), &db_, flags, nullptr);
    if (rc != SQLITE_OK) {
        std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
        const int sysErr = db_ ? sqlite3_system_errno(db_) : 0;
        sqlite3_close(db_);
        db_ = nullptr;
        throw SqliteError(rc, path, msg, sysErr);
    }
    sqlite3_extended_result_codes(db_, 1);
}

SqliteConnection::~SqliteConnection() { sqlite3_close_v2(db_); }

void SqliteConnection::exec(std::string_view sql)
{
    const std::string s(sql);
    char* err = nullptr;
    const int rc = sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
        std::string msg = err ? err : sqlite3_errstr(rc);
        sqlite3_free(err);
        const char* file = sqlite3_db_filename(db_, "main");
        throw SqliteError(rc, file ? file : "", msg, sqlite3_system_errno(db_));
    }
}

std::int64_t SqliteConnection::queryInt(std::string_view sql)
{
    SqliteStatement st(db_, sql);
    return st.step() ? st.int64(0) : 0;
}

std::string SqliteConnection::queryText(std::string_view sql)
{
    SqliteStatement st(db_, sql);
    return st.step() ? st.text(0) : std::string();
}

std::int64_t SqliteConnection::lastInsertId() const { return sqlite3_last_insert_rowid(db_); }
int SqliteConnection::changes() const { return sqlite3_changes(db_); }

SqliteTransaction::SqliteTransaction(SqliteConnection& c) : c_(c) { c_.exec("BEGIN IMMEDIATE"); }

SqliteTransaction::~SqliteTransaction()
{
    if (!done_) {
        try {
            c_.exec("ROLLBACK");
        } catch (const SqliteError&) {
            // SQLite rolls back by itself after some errors (e.g. SQLITE_FULL); nothing is left to undo.
        }
    }
}

void SqliteTransaction::commit()
{
    c_.exec("COMMIT");
    done_ = true;
}

}  // namespace spyglass::session
