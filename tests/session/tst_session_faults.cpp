// The session store under faults, through the real spyglass-cli: a read-only database file, a read-only folder,
// a read-only file system and a full disk. Reading (sessions list/show/export) still works, writing says why it
// cannot (exit 2, the database named, never "internal error"), and no committed run is lost. CSV export keeps
// cells a spreadsheet would run as formulas as text.
//
// A non-root user sees a mode-444 file and a mode-555 folder as read-only; root writes through both, so as root
// the same is shown on a small tmpfs mounted read-only, and a full disk by filling that tmpfs to its last byte.
// Without root (or without mount) those cases are skipped.
#include "common/testutil.h"

#include "core/session/session_export.h"
#include "core/session/sqlite_db.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace spyglass;
using namespace spyglass::test;

namespace {

QString example(const char* name) { return sourcePath(QStringLiteral("resources/examples/") + QLatin1String(name)); }

CliResult record(const QString& db, const char* circuit = "ghz5.qasm")
{
    return runCli({QStringLiteral("qsim"), example(circuit), QStringLiteral("--session"), QStringLiteral("faults"), QStringLiteral("--db"), db});
}

CliResult sessions(const QString& db, QStringList args)
{
    args.prepend(QStringLiteral("sessions"));
    args << QStringLiteral("--db") << db;
    return runCli(args);
}

// Runs recorded in session 1, read through the CLI's JSON.
int runCount(const QString& db)
{
    const CliResult r = sessions(db, {QStringLiteral("list"), QStringLiteral("--json")});
    if (r.exitCode != 0)
        return -1;
    const QJsonArray list = QJsonDocument::fromJson(r.out).array();
    return list.size() == 1 ? list.first().toObject().value(QStringLiteral("runs")).toInt(-1) : -1;
}

void expectRefusal(const CliResult& r, const QString& db, const char* why)
{
    QVERIFY2(r.exitCode == 2, qPrintable(QStringLiteral("exit %1: %2").arg(r.exitCode).arg(QString::fromUtf8(r.err))));
    QVERIFY2(r.err.contains((db + QStringLiteral(": error: ")).toUtf8()), r.err.constData());
    QVERIFY2(r.err.contains(why), r.err.constData());
    QVERIFY2(!r.err.contains("internal error"), r.err.constData());
}

// Reading works on a store that cannot be written: list, show and export.
void expectReadable(const QString& db, int runs)
{
    QCOMPARE(runCount(db), runs);
    CliResult r = sessions(db, {QStringLiteral("show"), QStringLiteral("1")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    r = sessions(db, {QStringLiteral("export"), QStringLiteral("1"), QStringLiteral("--csv")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(r.out.count("\n1,faults,"), runs * 2);   // a run row and a circuit row per qsim run
}

// A tmpfs of `kib` KiB at `dir` (root only); false when it cannot be mounted here.
bool mountTmpfs(const QString& dir, int kib)
{
    if (geteuid() != 0)
        return false;
    const QByteArray opts = "size=" + QByteArray::number(kib) + "k";
    return ::mount("tmpfs", dir.toLocal8Bit().constData(), "tmpfs", 0, opts.constData()) == 0;
}

// Unmounts on every way out of a test, a failed check included.
struct Unmount {
    QString dir;
    ~Unmount() { ::umount(dir.toLocal8Bit().constData()); }
};

bool remount(const QString& dir, bool readOnly, int kib)
{
    const QByteArray opts = "size=" + QByteArray::number(kib) + "k";
    return ::mount("tmpfs", dir.toLocal8Bit().constData(), "tmpfs", MS_REMOUNT | (readOnly ? MS_RDONLY : 0), opts.constData()) == 0;
}

}  // namespace

class TestSessionFaults : public QObject {
    Q_OBJECT

private slots:
    void readOnlyFileAndFolder()
    {
        if (geteuid() == 0)
            QSKIP("root writes through file modes; readOnlyFileSystem shows the same as root");
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("s.db"));
        QVERIFY2(record(db).exitCode == 0, "recording into a writable store");
        QVERIFY2(record(db).exitCode == 0, "recording into a writable store");

        QVERIFY(QFile::setPermissions(db, QFileDevice::ReadOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther));   // 444
        expectReadable(db, 2);
        expectRefusal(record(db), db, "cannot write to the session database: the file is read-only");
        expectRefusal(sessions(db, {QStringLiteral("delete"), QStringLiteral("1")}), db, "the file is read-only");
        QVERIFY(QFile::setPermissions(db, QFileDevice::ReadOwner | QFileDevice::WriteOwner));

        QVERIFY(QFile::setPermissions(dir.path(), QFileDevice::ReadOwner | QFileDevice::ExeOwner));   // 500
        expectReadable(db, 2);
        expectRefusal(record(db), db, "is read-only (SQLite keeps its -wal and -shm files beside the database)");
        QVERIFY(QFile::setPermissions(dir.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner));
        QVERIFY2(record(db).exitCode == 0, "recording again once writable");
        QCOMPARE(runCount(db), 3);
    }

    void readOnlyFileSystem()
    {
        QTemporaryDir dir;
        constexpr int kib = 4096;
        if (!mountTmpfs(dir.path(), kib))
            QSKIP("needs root and mount (a tmpfs remounted read-only)");
        const Unmount unmount{dir.path()};
        const QString db = dir.filePath(QStringLiteral("s.db"));
        QVERIFY2(record(db).exitCode == 0, "recording into a writable store");
        QVERIFY2(record(db).exitCode == 0, "recording into a writable store");
        QVERIFY(remount(dir.path(), true, kib));
        expectReadable(db, 2);
        expectRefusal(record(db), db, "cannot write to the session database: it is on a read-only file system");
        expectRefusal(sessions(db, {QStringLiteral("rename"), QStringLiteral("1"), QStringLiteral("x")}), db, "read-only file system");
        QVERIFY(remount(dir.path(), false, kib));
        QVERIFY2(record(db).exitCode == 0, "recording again once writable");
        QCOMPARE(runCount(db), 3);
    }

    // A tmpfs filled to its last byte: recording says the disk is full, every committed run stays, reading works,
    // and recording resumes once there is space.
    void fullDisk()
    {
        QTemporaryDir dir;
        constexpr int kib = 1024;
        if (!mountTmpfs(dir.path(), kib))
            QSKIP("needs root and mount (a 1 MiB tmpfs filled to the last byte)");
        const Unmount unmount{dir.path()};
        const QString db = dir.filePath(QStringLiteral("s.db"));
        for (int i = 0; i < 3; ++i)
            QVERIFY2(record(db).exitCode == 0, "recording into a store with space");
        {
            QFile fill(dir.filePath(QStringLiteral("fill")));
            QVERIFY(fill.open(QIODevice::WriteOnly));
            const QByteArray block(4096, 'x');
            while (fill.write(block) == block.size() && fill.flush()) {
            }
            const QByteArray byte(1, 'x');   // the last partial block
            while (fill.write(byte) == 1 && fill.flush()) {
            }
        }
        expectRefusal(record(db, "qft8.qasm"), db, "the disk is full");
        expectReadable(db, 3);
        QVERIFY(QFile::remove(dir.filePath(QStringLiteral("fill"))));
        QVERIFY2(record(db, "qft8.qasm").exitCode == 0, "recording again once there is space");
        QCOMPARE(runCount(db), 4);
    }

    // A table dropped by another program: recording and reading say so, naming the database (exit 2, never
    // "internal error"), and the runs in the tables that are left stay readable.
    void droppedTableIsAFaultNotAnInternalError()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("s.db"));
        QVERIFY2(record(db).exitCode == 0, "recording");
        {
            session::SqliteConnection raw(db.toStdString(), session::SqliteConnection::Mode::ReadWrite);
            raw.exec("PRAGMA foreign_keys = OFF; DROP TABLE kernel_timings;");
        }
        expectRefusal(record(db), db, "the session database does not have the tables this Spyglass wrote");
        expectRefusal(sessions(db, {QStringLiteral("show"), QStringLiteral("1")}), db, "no such table: kernel_timings");
        QCOMPARE(runCount(db), 1);
    }

    // Cells a spreadsheet would evaluate (= + - @, or a tab/CR first) are exported as text: quoted, with a
    // leading apostrophe. Ordinary cells are unchanged.
    void csvExportEscapesFormulas()
    {
        QCOMPARE(session::csvField("=HYPERLINK(\"http://x\")"), std::string("\"'=HYPERLINK(\"\"http://x\"\")\""));
        QCOMPARE(session::csvField("+1"), std::string("\"'+1\""));
        QCOMPARE(session::csvField("-2+3"), std::string("\"'-2+3\""));
        QCOMPARE(session::csvField("@SUM(A1)"), std::string("\"'@SUM(A1)\""));
        QCOMPARE(session::csvField("\t=1"), std::string("\"'\t=1\""));
        QCOMPARE(session::csvField("ghz5"), std::string("ghz5"));
        QCOMPARE(session::csvField("a,b"), std::string("\"a,b\""));

        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("s.db"));
        QVERIFY2(runCli({QStringLiteral("qsim"), example("ghz5.qasm"), QStringLiteral("--session"), QStringLiteral("=1+1"),
                         QStringLiteral("--db"), db}).exitCode == 0, "recording");
        const CliResult r = sessions(db, {QStringLiteral("export"), QStringLiteral("1"), QStringLiteral("--csv")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("\n1,\"'=1+1\",1,qsim,"), r.out.constData());
        QVERIFY(!r.out.contains(",=1+1,"));
    }
};

QTEST_GUILESS_MAIN(TestSessionFaults)
#include "tst_session_faults.moc"
