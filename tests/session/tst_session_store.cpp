// The session store: creating and opening databases, the migration list from every earlier schema version,
// recording runs with their timings, artifacts across sessions, deleting, and the chart queries
// (regressions flagged, runs compared, quantum points).
#include "common/testutil.h"

#include "core/common/diagnostics.h"
#include "core/session/content_hash.h"
#include "core/session/session_charts.h"
#include "core/session/session_export.h"
#include "core/session/session_recorder.h"
#include "core/session/session_schema.h"
#include "core/session/session_store.h"
#include "core/session/sqlite_db.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>

using namespace spyglass;
using namespace spyglass::session;

namespace {

// Every object of the schema as "type name: sql", sorted: two databases with equal lists have equal schemas.
QStringList schemaOf(SessionStore& store)
{
    SqliteStatement st(store.connection().handle(), "SELECT type, name, coalesce(sql, '') FROM sqlite_schema ORDER BY type, name");
    QStringList out;
    while (st.step())
        out << QString::fromStdString(st.text(0) + ' ' + st.text(1) + ": " + st.text(2));
    return out;
}

void writeFile(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

RowId recordRun(SessionStore& store, RowId session, const std::string& hash, std::vector<double> kernelNs,
                RunStatus status = RunStatus::Ok)
{
    SessionRecorder rec(store, session);
    rec.beginRun({.kind = "run", .artifactPath = "m.onnx", .artifactKind = "onnx", .artifactHash = hash});
    for (size_t i = 0; i < kernelNs.size(); ++i)
        rec.addKernelTiming("k" + std::to_string(i), kernelNs[i], 100, 200);
    return rec.finishRun(status);
}

}  // namespace

class TestSessionStore : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    int counter_ = 0;
    std::string freshPath() { return tmp_.filePath(QStringLiteral("db%1.sqlite").arg(++counter_)).toStdString(); }

private slots:
    void freshDatabaseHasPragmasAndCurrentVersion()
    {
        const std::string path = freshPath();
        SessionStore store(path);
        QCOMPARE(store.schemaVersion(), currentSchemaVersion());
        QCOMPARE(store.journalMode(), std::string("wal"));
        QCOMPARE(store.connection().queryInt("PRAGMA foreign_keys"), 1);
        QVERIFY(store.connection().queryInt("PRAGMA busy_timeout") >= 1000);
        QCOMPARE(store.connection().queryInt("PRAGMA synchronous"), 2);   // FULL
        QCOMPARE(static_cast<std::uint32_t>(store.connection().queryInt("PRAGMA application_id")), kSpyglassApplicationId);
        QCOMPARE(store.integrityCheck(), std::string("ok"));
        QVERIFY(store.listSessions().empty());
    }

    void defaultPathFollowsXdg()
    {
        const QByteArray saved = qgetenv("XDG_DATA_HOME");
        qputenv("XDG_DATA_HOME", "/some/where");
        QCOMPARE(SessionStore::defaultPath(), std::string("/some/where/spyglass/spyglass.db"));
        qputenv("XDG_DATA_HOME", "relative/ignored");
        QCOMPARE(SessionStore::defaultPath(), QString(QDir::homePath() + QStringLiteral("/.local/share/spyglass/spyglass.db")).toStdString());
        qunsetenv("XDG_DATA_HOME");
        QCOMPARE(SessionStore::defaultPath(), QString(QDir::homePath() + QStringLiteral("/.local/share/spyglass/spyglass.db")).toStdString());
        if (!saved.isEmpty())
            qputenv("XDG_DATA_HOME", saved);
    }

    void defaultPathFolderIsCreated()
    {
        const QByteArray saved = qgetenv("XDG_DATA_HOME");
        qputenv("XDG_DATA_HOME", tmp_.filePath(QStringLiteral("xdg")).toUtf8());
        {
            SessionStore store(SessionStore::defaultPath());
            QVERIFY(QFile::exists(tmp_.filePath(QStringLiteral("xdg/spyglass/spyglass.db"))));
        }
        if (saved.isEmpty())
            qunsetenv("XDG_DATA_HOME");
        else
            qputenv("XDG_DATA_HOME", saved);
    }

    void migrationListIsContiguous()
    {
        const auto& all = migrations();
        QVERIFY(!all.empty());
        for (size_t i = 0; i < all.size(); ++i) {
            QCOMPARE(all[i].toVersion, static_cast<int>(i + 1));
            QVERIFY(all[i].sql && *all[i].sql);
        }
        QCOMPARE(currentSchemaVersion(), static_cast<int>(all.size()));
    }

    void upgradesFromEveryEarlierVersion_data()
    {
        QTest::addColumn<int>("version");
        for (int v = 0; v <= currentSchemaVersion(); ++v)   // 0 = an empty file; current = reopening
            QTest::addRow("from v%d", v) << v;
    }

    void upgradesFromEveryEarlierVersion()
    {
        QFETCH(int, version);
        const std::string reference = freshPath();
        QStringList expectedSchema;
        {
            SessionStore fresh(reference);
            expectedSchema = schemaOf(fresh);
        }
        const std::string path = freshPath();
        createDatabaseAtVersion(path, version);
        if (version >= 1) {
            // Data written by that version must survive the upgrade. sessions(id, name, started_at, app_version,
            // host) exist since v1; a migration that changes them must keep them readable.
            SqliteConnection raw(path, SqliteConnection::Mode::ReadWrite);
            raw.exec("INSERT INTO sessions(id, name, started_at, app_version, host) VALUES (7, 'old', '2026-01-01T00:00:00.000Z', '0.0.1', 'h')");
        }
        SessionStore store(path);
        QCOMPARE(store.schemaVersion(), currentSchemaVersion());
        QCOMPARE(schemaOf(store), expectedSchema);
        QCOMPARE(store.integrityCheck(), std::string("ok"));
        QCOMPARE(store.journalMode(), std::string("wal"));
        if (version >= 1) {
            const auto s = store.session(7);
            QVERIFY(s);
            QCOMPARE(s->name, std::string("old"));
            QCOMPARE(s->startedAt, std::string("2026-01-01T00:00:00.000Z"));
        }
        // The upgraded database takes new runs.
        QVERIFY(recordRun(store, store.createSession("new"), "ab", {1.0}) > 0);
    }

    void recordsARunWithAllItsTimings()
    {
        SessionStore store(freshPath());
        const RowId session = store.createSession("exp");
        const QString model = tmp_.filePath(QStringLiteral("hello.onnx"));
        writeFile(model, "hello\n");
        const QString target = tmp_.filePath(QStringLiteral("target.json"));
        writeFile(target, "{}");

        SessionRecorder rec(store, session);
        rec.beginRun({.kind = "run", .artifactPath = model.toStdString(), .artifactKind = "onnx",
                      .targetPath = target.toStdString(), .optionsJson = R"({"pin":{"x":"dim1"}})"});
        QVERIFY(rec.runOpen());
        PassRecords passes(2);
        passes[0].name = "lower";
        passes[0].wallMs = 1.25;
        passes[1].name = "layout";
        passes[1].wallMs = 2.5;
        rec.addPassTimings(passes);
        rec.addKernelTiming("matmul_0", 1234.5, 1 << 20, 512 * 1024);
        rec.addKernelTiming("relu_1", 99.0, 4096, 8192);
        rec.addCircuitTiming(5, 40, 0.75, "ghz5");
        rec.setSimulationWallMs(17.0);
        rec.setResultJson(R"({"outputs":[1,2,3]})");
        const RowId id = rec.finishRun(RunStatus::Ok);
        QVERIFY(!rec.runOpen());

        const auto d = store.runDetail(id);
        QVERIFY(d);
        QCOMPARE(d->run.sessionId, session);
        QCOMPARE(d->run.kind, std::string("run"));
        QCOMPARE(d->run.status, RunStatus::Ok);
        // SHA-256 of "hello\n" and "{}", as sha256sum prints them.
        QCOMPARE(d->run.artifact.contentHash, std::string("5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"));
        QCOMPARE(d->run.targetHash, std::string("44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"));
        QCOMPARE(d->run.artifact.kind, std::string("onnx"));
        QCOMPARE(d->run.optionsJson, std::string(R"({"pin":{"x":"dim1"}})"));
        QCOMPARE(d->run.resultJson, std::string(R"({"outputs":[1,2,3]})"));
        QCOMPARE(d->run.simWallMs.value_or(-1), 17.0);
        QVERIFY(!d->run.startedAt.empty() && d->run.startedAt <= d->run.endedAt);
        QCOMPARE(d->passes.size(), size_t(2));
        QCOMPARE(d->passes[1].name, std::string("layout"));
        QCOMPARE(d->passes[1].wallMs, 2.5);
        QCOMPARE(d->kernels.size(), size_t(2));
        QCOMPARE(d->kernels[0].name, std::string("matmul_0"));
        QCOMPARE(d->kernels[0].simNs, 1234.5);
        QCOMPARE(d->kernels[0].bytesMoved, std::int64_t(1 << 20));
        QCOMPARE(d->kernels[0].lxPeakBytes, std::int64_t(512 * 1024));
        QCOMPARE(d->circuits.size(), size_t(1));
        QCOMPARE(d->circuits[0].qubits, 5);
        QCOMPARE(d->circuits[0].gates, 40);
        QCOMPARE(d->circuits[0].simMs, 0.75);
        QCOMPARE(d->circuits[0].name, std::string("ghz5"));
        // The session's last activity is its latest run's end.
        QCOMPARE(store.session(session)->endedAt, d->run.endedAt);
        QCOMPARE(store.session(session)->runCount, 1);
    }

    void failedAndInterruptedRunsKeepTheirError()
    {
        SessionStore store(freshPath());
        const RowId session = store.createSession("exp");
        SessionRecorder rec(store, session);
        rec.beginRun({.kind = "compile"});
        const RowId failed = rec.finishRun(RunStatus::Error, "m.onnx:3:7: error: unknown op 'Foo'");
        QCOMPARE(store.runDetail(failed)->run.status, RunStatus::Error);
        QCOMPARE(store.runDetail(failed)->run.errorText, std::string("m.onnx:3:7: error: unknown op 'Foo'"));
        QCOMPARE(store.runDetail(failed)->run.artifact.id, RowId(0));
        {
            SessionRecorder dying(store, session);
            dying.beginRun({.kind = "qsim"});
            dying.addCircuitTiming(3, 9, 0.1);
        }
        const auto ids = store.runIds(session);
        QCOMPARE(ids.size(), size_t(2));
        const auto interrupted = store.runDetail(ids.back());
        QCOMPARE(interrupted->run.status, RunStatus::Interrupted);
        QCOMPARE(interrupted->circuits.size(), size_t(1));
    }

    void recorderRejectsMisuse()
    {
        SessionStore store(freshPath());
        SessionRecorder rec(store, store.createSession("s"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, rec.beginRun({.kind = "run", .optionsJson = "not json"}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, rec.beginRun({.kind = "run", .optionsJson = "[1]"}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, rec.finishRun(RunStatus::Ok));
        QVERIFY_THROWS_EXCEPTION(InputError, rec.beginRun({.kind = "run", .artifactPath = "/no/such/model.onnx"}));
        QVERIFY(!rec.runOpen());
        rec.beginRun({.kind = "run"});
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, rec.beginRun({.kind = "run"}));
        rec.finishRun(RunStatus::Cancelled);
        // A run in a session that does not exist is refused by the foreign key, not stored as an orphan.
        SessionRecorder orphan(store, 9999);
        orphan.beginRun({.kind = "run"});
        QVERIFY_THROWS_EXCEPTION(SqliteError, orphan.finishRun(RunStatus::Ok));
        QCOMPARE(store.connection().queryInt("SELECT COUNT(*) FROM runs"), 1);
    }

    void sameContentIsTheSameArtifactAcrossSessions()
    {
        SessionStore store(freshPath());
        const QString model = tmp_.filePath(QStringLiteral("m2.onnx"));
        writeFile(model, "version 1");
        auto record = [&](RowId s) {
            SessionRecorder rec(store, s);
            rec.beginRun({.kind = "run", .artifactPath = model.toStdString(), .artifactKind = "onnx"});
            return store.runDetail(rec.finishRun(RunStatus::Ok))->run.artifact.id;
        };
        const RowId a1 = record(store.createSession("monday"));
        const RowId a2 = record(store.createSession("tuesday"));
        QCOMPARE(a1, a2);
        QCOMPARE(store.runsOfArtifact(a1).size(), size_t(2));
        writeFile(model, "version 2");
        const RowId a3 = record(store.createSession("wednesday"));
        QVERIFY(a3 != a1);
    }

    void folderHashCoversNamesAndBytes()
    {
        const QString dir = tmp_.filePath(QStringLiteral("bundle"));
        QDir().mkpath(dir + QStringLiteral("/sub"));
        writeFile(dir + QStringLiteral("/manifest.json"), "{}");
        writeFile(dir + QStringLiteral("/sub/k0.json"), "abc");
        const std::string h1 = contentHashOfPath(dir.toStdString());
        QCOMPARE(h1.size(), size_t(64));
        QCOMPARE(contentHashOfPath(dir.toStdString()), h1);
        QFile::rename(dir + QStringLiteral("/sub/k0.json"), dir + QStringLiteral("/sub/k1.json"));
        QVERIFY(contentHashOfPath(dir.toStdString()) != h1);
    }

    void openOrCreateReusesTheLatestSessionOfThatName()
    {
        SessionStore store(freshPath());
        const RowId a = store.openOrCreateSession("nightly");
        QCOMPARE(store.openOrCreateSession("nightly"), a);
        const RowId b = store.openOrCreateSession("other");
        QVERIFY(b != a);
        store.renameSession(b, "renamed");
        QCOMPARE(store.session(b)->name, std::string("renamed"));
        QCOMPARE(store.findSessionByName("renamed").value_or(0), b);
        QVERIFY(!store.findSessionByName("other"));
        store.endSession(a);
        QVERIFY(!store.session(a)->endedAt.empty());
    }

    void deleteRemovesRunsTimingsAndUnusedArtifacts()
    {
        SessionStore store(freshPath());
        const RowId keep = store.createSession("keep");
        const RowId drop = store.createSession("drop");
        recordRun(store, keep, "shared", {1, 2});
        recordRun(store, drop, "shared", {3, 4});
        recordRun(store, drop, "only-in-drop", {5});
        QVERIFY(store.deleteSession(drop));
        QVERIFY(!store.deleteSession(drop));
        QVERIFY(!store.session(drop));
        QCOMPARE(store.connection().queryInt("SELECT COUNT(*) FROM runs"), 1);
        QCOMPARE(store.connection().queryInt("SELECT COUNT(*) FROM kernel_timings"), 2);
        QCOMPARE(store.connection().queryText("SELECT group_concat(content_hash) FROM artifacts"), std::string("shared"));
        QCOMPARE(store.session(keep)->runCount, 1);
        QCOMPARE(store.integrityCheck(), std::string("ok"));
        QCOMPARE(store.connection().queryInt("SELECT COUNT(*) FROM pragma_foreign_key_check"), 0);
    }

    void historyFlagsRunsSlowerThanTheBestEarlierOne_data()
    {
        QTest::addColumn<QList<double>>("values");
        QTest::addColumn<QList<bool>>("flags");
        QTest::newRow("steady") << QList<double>{100, 100, 100} << QList<bool>{false, false, false};
        QTest::newRow("exactly 5% is not flagged") << QList<double>{100, 105} << QList<bool>{false, false};
        QTest::newRow("just over 5%") << QList<double>{100, 105.01} << QList<bool>{false, true};
        QTest::newRow("best so far moves") << QList<double>{100, 104, 106, 90, 95, 94.4}
                                           << QList<bool>{false, false, true, false, true, false};
        QTest::newRow("slow first run never flagged") << QList<double>{500, 100, 104} << QList<bool>{false, false, false};
    }

    void historyFlagsRunsSlowerThanTheBestEarlierOne()
    {
        QFETCH(QList<double>, values);
        QFETCH(QList<bool>, flags);
        SessionStore store(freshPath());
        const RowId s1 = store.createSession("one");
        const RowId s2 = store.createSession("two");
        std::vector<RowId> ids;
        for (qsizetype i = 0; i < values.size(); ++i)
            ids.push_back(recordRun(store, i % 2 ? s2 : s1, "art", {values[i] - 10, 10}));   // sums to values[i]
        recordRun(store, s1, "art", {1}, RunStatus::Failed);   // a failed run is not a point
        recordRun(store, s1, "other", {1});                    // nor is another artifact's run
        const RowId artifact = store.runDetail(ids.front())->run.artifact.id;
        const auto history = artifactHistory(store, artifact, RunMetric::SimulatedTime);
        QCOMPARE(history.size(), static_cast<size_t>(values.size()));
        for (qsizetype i = 0; i < values.size(); ++i) {
            QCOMPARE(history[i].runId, ids[i]);
            QCOMPARE(history[i].value, values[i]);
            QCOMPARE(history[i].regression, flags[i]);
        }
        QVERIFY(artifactHistory(store, artifact, RunMetric::CompileWallTime).empty());   // these runs have no passes
    }

    void historyByPathFollowsEditsOfTheFile()
    {
        SessionStore store(freshPath());
        const RowId s = store.createSession("edits");
        auto record = [&](const std::string& hash, const std::string& path, double ns) {
            SessionRecorder rec(store, s);
            rec.beginRun({.kind = "run", .artifactPath = path, .artifactKind = "onnx", .artifactHash = hash});
            rec.addKernelTiming("k", ns, 0, 0);
            return rec.finishRun(RunStatus::Ok);
        };
        const RowId v1 = record("v1", "model.onnx", 100);
        record("v1", "model.onnx", 101);
        const RowId v2 = record("v2", "model.onnx", 130);   // the edit made it slower
        record("v1", "elsewhere/model.onnx", 90);          // another file with the same bytes
        const RowId a1 = store.runDetail(v1)->run.artifact.id;
        const RowId a2 = store.runDetail(v2)->run.artifact.id;
        QCOMPARE(artifactHistory(store, a1, RunMetric::SimulatedTime).size(), size_t(2));
        const auto byPath = artifactHistory(store, a2, RunMetric::SimulatedTime, kRegressionThreshold, ArtifactMatch::SamePath);
        QCOMPARE(byPath.size(), size_t(3));
        QCOMPARE(byPath[2].runId, v2);
        QVERIFY(byPath[2].regression);
        QCOMPARE(byPath[2].bestEarlier.value_or(0), 100.0);
    }

    void comparesTwoRunsByKernelOrPass()
    {
        RunDetail a, b;
        a.kernels = {{"mm", 10, 0, 0}, {"add", 2, 0, 0}};
        b.kernels = {{"add", 3, 0, 0}, {"restick", 7, 0, 0}};
        Comparison c = compareRuns(a, b);
        QCOMPARE(c.quantity, std::string("simulated time (ns)"));
        QCOMPARE(c.rows.size(), size_t(3));
        QCOMPARE(c.rows[0].name, std::string("mm"));
        QVERIFY(!c.rows[0].second);
        QCOMPARE(c.rows[1].first.value_or(-1), 2.0);
        QCOMPARE(c.rows[1].second.value_or(-1), 3.0);
        QCOMPARE(c.rows[2].name, std::string("restick"));
        QVERIFY(!c.rows[2].first);
        RunDetail p, q;
        p.passes = {{"lower", 1.5}};
        q.passes = {{"lower", 2.5}};
        c = compareRuns(p, q);
        QCOMPARE(c.quantity, std::string("compile wall time (ms)"));
        QCOMPARE(c.rows.size(), size_t(1));
        QCOMPARE(c.rows[0].second.value_or(-1), 2.5);
    }

    void quantumPointsAndArtifactsOfASession()
    {
        SessionStore store(freshPath());
        const RowId s = store.createSession("q");
        for (int qubits : {10, 4, 7}) {
            SessionRecorder rec(store, s);
            rec.beginRun({.kind = "qsim", .artifactPath = "c.qasm", .artifactKind = "qasm", .artifactHash = std::to_string(qubits)});
            rec.addCircuitTiming(qubits, qubits * 3, qubits * 0.5);
            rec.finishRun(RunStatus::Ok);
        }
        const auto points = quantumPoints(store, s);
        QCOMPARE(points.size(), size_t(3));
        QCOMPARE(points[0].qubits, 4);
        QCOMPARE(points[0].simMs, 2.0);
        QCOMPARE(points[2].qubits, 10);
        QCOMPARE(points[2].gates, 30);
        const auto artifacts = sessionArtifacts(store, s);
        QCOMPARE(artifacts.size(), size_t(3));
        QCOMPARE(artifacts.front().contentHash, std::string("7"));   // most recently used first
    }

    void exportsCsvAndJson()
    {
        SessionStore store(freshPath());
        const RowId s = store.createSession("csv, \"quoted\"");
        SessionRecorder rec(store, s);
        rec.beginRun({.kind = "run", .artifactPath = "m.onnx", .artifactKind = "onnx", .artifactHash = "h"});
        rec.addPassTiming("lower", 1.5);
        rec.addKernelTiming("mm", 2048, 10, 20);
        rec.addCircuitTiming(3, 4, 0.5, "c");
        const RowId run = rec.finishRun(RunStatus::Failed, "check failed, max error 0.1");
        const QStringList lines = QString::fromStdString(sessionCsv(store, s)).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 5);   // header, run, pass, kernel, circuit
        const int columns = lines[0].count(QLatin1Char(',')) + 1;
        QCOMPARE(columns, 20);
        QVERIFY(lines[1].contains(QStringLiteral("\"csv, \"\"quoted\"\"\"")));
        QVERIFY(lines[1].contains(QStringLiteral("\"check failed, max error 0.1\"")));
        QVERIFY(lines[2].endsWith(QStringLiteral(",pass,lower,1.5,,,,,,")));
        QVERIFY(lines[3].endsWith(QStringLiteral(",kernel,mm,,2048,10,20,,,")));
        QVERIFY(lines[4].endsWith(QStringLiteral(",circuit,c,,,,,3,4,0.5")));
        const QJsonObject json = sessionJson(store, s);
        QCOMPARE(json[QStringLiteral("session")][QStringLiteral("runs")].toInt(), 1);
        const QJsonObject r = json[QStringLiteral("runs")].toArray().at(0).toObject();
        QCOMPARE(r[QStringLiteral("id")].toInteger(), run);
        QCOMPARE(r[QStringLiteral("status")].toString(), QStringLiteral("failed"));
        QCOMPARE(r[QStringLiteral("kernels")].toArray().at(0)[QStringLiteral("sim_ns")].toDouble(), 2048.0);
        QCOMPARE(r[QStringLiteral("artifact")][QStringLiteral("sha256")].toString(), QStringLiteral("h"));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, sessionCsv(store, 12345));
    }
};

QTEST_GUILESS_MAIN(TestSessionStore)
#include "tst_session_store.moc"
