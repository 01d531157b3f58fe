// Files that are not Spyglass session databases, or come from a newer Spyglass, are refused with a clear
// InputError (exit 2 on the CLI) and left byte for byte as they were, with no -wal or -shm beside them.
#include "common/testutil.h"

#include "core/common/diagnostics.h"
#include "core/session/session_schema.h"
#include "core/session/session_store.h"
#include "core/session/sqlite_db.h"

#include <QCryptographicHash>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

using namespace spyglass;
using namespace spyglass::session;
using namespace spyglass::test;

namespace {

QByteArray sha256(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

void writeFile(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    if (f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        f.write(bytes);
}

}  // namespace

class TestSessionBadInput : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;

    // Makes the file for a row of the table below.
    QString make(const QString& kind)
    {
        const QString path = tmp_.filePath(kind + QStringLiteral(".db"));
        if (kind == QLatin1String("random")) {
            QByteArray bytes(8192, '\0');
            for (char& c : bytes)
                c = static_cast<char>(QRandomGenerator::global()->bounded(256));
            writeFile(path, bytes);
        } else if (kind == QLatin1String("text")) {
            writeFile(path, "name,runs\nmonday,3\n");
        } else if (kind == QLatin1String("truncated")) {
            writeFile(path, QByteArray("SQLite format 3\0", 16) + QByteArray(20, '\1'));
        } else if (kind == QLatin1String("unrelated")) {
            SqliteConnection db(path.toStdString(), SqliteConnection::Mode::Create);
            db.exec("CREATE TABLE sessions(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO sessions(name) VALUES ('not ours')");
        } else if (kind == QLatin1String("unrelated-wal")) {
            SqliteConnection db(path.toStdString(), SqliteConnection::Mode::Create);
            db.exec("PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1)");
        } else if (kind == QLatin1String("newer")) {
            createDatabaseAtVersion(path.toStdString(), currentSchemaVersion());
            SqliteConnection db(path.toStdString(), SqliteConnection::Mode::ReadWrite);
            db.exec("INSERT INTO sessions(name, started_at, app_version, host) VALUES ('future', 'x', '9.0', 'h')");
            db.exec("PRAGMA user_version = " + std::to_string(currentSchemaVersion() + 1));
        } else if (kind == QLatin1String("other-application")) {
            SqliteConnection db(path.toStdString(), SqliteConnection::Mode::Create);
            db.exec("CREATE TABLE x(y); PRAGMA application_id = 1234; PRAGMA user_version = 1");
        }
        return path;
    }

private slots:
    void refusedAndLeftUntouched_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("message");
        QTest::newRow("random bytes") << "random" << "not an SQLite file";
        QTest::newRow("text file") << "text" << "not an SQLite file";
        QTest::newRow("truncated header") << "truncated" << "not an SQLite file";
        QTest::newRow("unrelated SQLite database") << "unrelated" << "not a Spyglass session database";
        QTest::newRow("unrelated WAL database") << "unrelated-wal" << "not a Spyglass session database";
        QTest::newRow("another application's database") << "other-application" << "not a Spyglass session database";
        QTest::newRow("newer Spyglass") << "newer" << "newer Spyglass";
    }

    void refusedAndLeftUntouched()
    {
        QFETCH(QString, kind);
        QFETCH(QString, message);
        const QString path = make(kind);
        const QByteArray before = sha256(path);
        QVERIFY(!before.isEmpty());
        const bool hadWal = QFile::exists(path + QStringLiteral("-wal"));
        try {
            SessionStore store(path.toStdString());
            QFAIL("opened a file that is not a usable Spyglass database");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromStdString(e.what()).contains(message), e.what());
            QCOMPARE(QString::fromStdString(e.diagnostic().location.file), path);
        }
        QCOMPARE(sha256(path), before);
        if (!hadWal) {
            QVERIFY(!QFile::exists(path + QStringLiteral("-wal")));
            QVERIFY(!QFile::exists(path + QStringLiteral("-shm")));
        }

        // The CLI says the same and exits 2, still without touching the file.
        const CliResult r = runCli({QStringLiteral("sessions"), QStringLiteral("list"), QStringLiteral("--db"), path});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
        QVERIFY(r.out.isEmpty());
        QCOMPARE(sha256(path), before);
    }

    void emptyFileBecomesADatabase()
    {
        // A zero-byte file is what SQLite itself treats as an empty database: taking it over loses nothing.
        const QString path = tmp_.filePath(QStringLiteral("empty.db"));
        writeFile(path, {});
        SessionStore store(path.toStdString());
        QCOMPARE(store.schemaVersion(), currentSchemaVersion());
    }

    void folderAndMissingParentAreRefused()
    {
        QVERIFY_THROWS_EXCEPTION(InputError, SessionStore(tmp_.path().toStdString()));
        QVERIFY_THROWS_EXCEPTION(InputError, SessionStore(tmp_.filePath(QStringLiteral("no/such/dir/x.db")).toStdString()));
        QVERIFY(!QFile::exists(tmp_.filePath(QStringLiteral("no"))));
    }
};

QTEST_GUILESS_MAIN(TestSessionBadInput)
#include "tst_session_badinput.moc"
