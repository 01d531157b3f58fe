// Durability of the session store across processes: a writer SIGKILLed in the middle of recording leaves a
// database that passes integrity_check and holds every run it reported as committed, each one whole; two
// writers at once lose nothing.
#include "common/testutil.h"

#include "core/session/session_recorder.h"
#include "core/session/session_store.h"
#include "core/session/sqlite_db.h"

#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include <set>

using namespace spyglass::session;

namespace {

const QString kWriter = QStringLiteral(SESSION_WRITER_PATH);

// Run ids from the complete "committed N" lines (a line cut by the kill is not a report).
std::set<RowId> committedIds(const QByteArray& out)
{
    std::set<RowId> ids;
    QList<QByteArray> lines = out.split('\n');
    lines.removeLast();   // what follows the last newline: empty, or a line the kill cut short
    for (const QByteArray& line : lines) {
        if (!line.startsWith("committed "))
            continue;
        bool ok = false;
        const qlonglong id = line.mid(10).toLongLong(&ok);
        if (ok)
            ids.insert(id);
    }
    return ids;
}

// Every run stored must be whole: the writer gives each run 40 passes, 40 kernels and 4 circuits.
void verifyDatabase(const std::string& path, const std::set<RowId>& committed)
{
    SessionStore store(path);
    QCOMPARE(store.integrityCheck(), std::string("ok"));
    QCOMPARE(store.connection().queryInt("SELECT COUNT(*) FROM pragma_foreign_key_check"), 0);
    std::set<RowId> present;
    SqliteStatement st(store.connection().handle(),
                       "SELECT r.id, (SELECT COUNT(*) FROM pass_timings p WHERE p.run_id = r.id),"
                       " (SELECT COUNT(*) FROM kernel_timings k WHERE k.run_id = r.id),"
                       " (SELECT COUNT(*) FROM circuit_timings c WHERE c.run_id = r.id), length(r.result_json) FROM runs r");
    while (st.step()) {
        present.insert(st.int64(0));
        QCOMPARE(st.int64(1), 40);
        QCOMPARE(st.int64(2), 40);
        QCOMPARE(st.int64(3), 4);
        QVERIFY(st.int64(4) > 4096);
    }
    for (RowId id : committed)
        QVERIFY2(present.count(id), qPrintable(QStringLiteral("run %1 was reported committed but is missing").arg(id)));
}

}  // namespace

class TestSessionDurability : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;

private slots:
    void survivesSigkillMidWrite_data()
    {
        QTest::addColumn<int>("killAfter");
        // Kill after different numbers of commits, so the kill lands at different points of a transaction.
        for (int n : {1, 7, 23, 40})
            QTest::addRow("after %d commits", n) << n;
    }

    void survivesSigkillMidWrite()
    {
        QFETCH(int, killAfter);
        const std::string db = tmp_.filePath(QStringLiteral("kill%1.db").arg(killAfter)).toStdString();
        std::set<RowId> allCommitted;
        // Three writers in a row on the same file, each killed; later ones must open what the earlier left.
        for (int round = 0; round < 3; ++round) {
            QProcess writer;
            writer.start(kWriter, {QString::fromStdString(db), QStringLiteral("durability"), QStringLiteral("0")});
            QVERIFY2(writer.waitForStarted(), qPrintable(writer.errorString()));
            QByteArray out;
            const int target = killAfter + round * 3;
            QVERIFY(QTest::qWaitFor([&] {
                writer.waitForReadyRead(50);
                out += writer.readAllStandardOutput();
                return out.count("committed ") >= target || writer.state() == QProcess::NotRunning;
            }, 30000));
            QCOMPARE(writer.state(), QProcess::Running);   // it must still be writing when it dies
            // A random extra pause lands the kill anywhere inside the next run's transaction.
            QThread::usleep(QRandomGenerator::global()->bounded(3000));
            writer.kill();   // SIGKILL on Unix
            QVERIFY(writer.waitForFinished(10000));
            QCOMPARE(writer.exitStatus(), QProcess::CrashExit);
            out += writer.readAllStandardOutput();
            const auto ids = committedIds(out);
            QVERIFY(static_cast<int>(ids.size()) >= target);
            allCommitted.insert(ids.begin(), ids.end());
            verifyDatabase(db, allCommitted);
        }
    }

    void twoWritersAtOnceLoseNothing()
    {
        const std::string db = tmp_.filePath(QStringLiteral("two.db")).toStdString();
        constexpr int kRuns = 60;
        // The same session name from both: they must also agree on one session rather than create two.
        QProcess a, b;
        const QStringList args = {QString::fromStdString(db), QStringLiteral("shared"), QString::number(kRuns)};
        a.start(kWriter, args);
        b.start(kWriter, args);
        QVERIFY(a.state() == QProcess::NotRunning || a.waitForFinished(60000));
        QVERIFY(b.state() == QProcess::NotRunning || b.waitForFinished(60000));
        QVERIFY2(a.exitCode() == 0, a.readAllStandardError().constData());
        QVERIFY2(b.exitCode() == 0, b.readAllStandardError().constData());
        const auto idsA = committedIds(a.readAllStandardOutput());
        const auto idsB = committedIds(b.readAllStandardOutput());
        QCOMPARE(static_cast<int>(idsA.size()), kRuns);
        QCOMPARE(static_cast<int>(idsB.size()), kRuns);
        std::set<RowId> all = idsA;
        all.insert(idsB.begin(), idsB.end());
        QCOMPARE(static_cast<int>(all.size()), 2 * kRuns);
        verifyDatabase(db, all);
        SessionStore store(db);
        const auto sessions = store.listSessions();
        QCOMPARE(sessions.size(), size_t(1));
        QCOMPARE(sessions[0].runCount, 2 * kRuns);
    }

    void newFileCreatedByThreeAtOnce()
    {
        // Three processes opening a file that does not exist yet: exactly one creates the schema, none mistakes
        // the half-created file for a foreign database. Repeated, because the window is small.
        for (int round = 0; round < 8; ++round) {
            const std::string db = tmp_.filePath(QStringLiteral("race%1.db").arg(round)).toStdString();
            std::vector<std::unique_ptr<QProcess>> writers;
            for (int w = 0; w < 3; ++w) {
                writers.push_back(std::make_unique<QProcess>());
                writers.back()->start(kWriter, {QString::fromStdString(db), QStringLiteral("race"), QStringLiteral("3")});
            }
            std::set<RowId> all;
            for (auto& w : writers) {
                QVERIFY(w->state() == QProcess::NotRunning || w->waitForFinished(30000));
                QVERIFY2(w->exitCode() == 0, w->readAllStandardError().constData());
                const auto ids = committedIds(w->readAllStandardOutput());
                QCOMPARE(ids.size(), size_t(3));
                all.insert(ids.begin(), ids.end());
            }
            QCOMPARE(all.size(), size_t(9));
            verifyDatabase(db, all);
        }
    }

    void guiAndCliWritingAtOnceLoseNothing()
    {
        // This process plays the GUI: its own connection records runs while a writer process does the same.
        const std::string db = tmp_.filePath(QStringLiteral("guicli.db")).toStdString();
        constexpr int kRuns = 40;
        SessionStore gui(db);
        const RowId guiSession = gui.createSession("window");
        QProcess cli;
        cli.start(kWriter, {QString::fromStdString(db), QStringLiteral("cli"), QString::number(kRuns)});
        QVERIFY(cli.waitForStarted());
        std::set<RowId> guiIds;
        for (int i = 0; i < kRuns; ++i) {
            SessionRecorder rec(gui, guiSession);
            rec.beginRun({.kind = "compile", .artifactHash = "gui"});
            for (int p = 0; p < 40; ++p)
                rec.addPassTiming("pass", 1.0);
            for (int k = 0; k < 40; ++k)
                rec.addKernelTiming("k", 1.0, 1, 1);
            for (int c = 0; c < 4; ++c)
                rec.addCircuitTiming(2, 2, 0.1);
            rec.setResultJson("{\"blob\":\"" + std::string(4200, 'y') + "\"}");
            guiIds.insert(rec.finishRun(RunStatus::Ok));
            QCoreApplication::processEvents();
        }
        // waitForFinished() is false for a process already reaped (processEvents() above may have seen it end).
        QVERIFY(cli.state() == QProcess::NotRunning || cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 0);
        const auto cliIds = committedIds(cli.readAllStandardOutput());
        QCOMPARE(static_cast<int>(cliIds.size()), kRuns);
        std::set<RowId> all = guiIds;
        all.insert(cliIds.begin(), cliIds.end());
        QCOMPARE(static_cast<int>(all.size()), 2 * kRuns);
        verifyDatabase(db, all);
        QCOMPARE(gui.session(guiSession)->runCount, kRuns);
    }
};

QTEST_GUILESS_MAIN(TestSessionDurability)
#include "tst_session_durability.moc"
