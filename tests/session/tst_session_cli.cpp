// `spyglass-cli sessions ...` on a database filled through the recorder API: list (text and --json), show,
// export --csv/--json (stdout and --output), rename, delete, and the usage errors.
#include "common/testutil.h"

#include "core/session/session_recorder.h"
#include "core/session/session_store.h"
#include "core/session/sqlite_db.h"
#include "core/workbench/workbench.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace spyglass::session;
using namespace spyglass::test;

class TestSessionCli : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    QString db_;
    RowId monday_ = 0, tuesday_ = 0;

    CliResult cli(QStringList args)
    {
        args << QStringLiteral("--db") << db_;
        return runCli(args);
    }

private slots:
    void initTestCase()
    {
        db_ = tmp_.filePath(QStringLiteral("cli.db"));
        SessionStore store(db_.toStdString());
        monday_ = store.createSession("monday");
        tuesday_ = store.createSession("tuesday, late");
        SessionRecorder rec(store, monday_);
        for (int i = 0; i < 3; ++i) {
            rec.beginRun({.kind = "run", .artifactPath = "models/mlp.onnx", .artifactKind = "onnx", .artifactHash = "aa"});
            rec.addPassTiming("lower", 1.0 + i);
            rec.addKernelTiming("matmul_0", 1000.0 * (i + 1), 4096, 8192);
            rec.finishRun(RunStatus::Ok);
        }
        SessionRecorder rec2(store, tuesday_);
        rec2.beginRun({.kind = "qsim", .artifactPath = "ghz.qasm", .artifactKind = "qasm", .artifactHash = "bb"});
        rec2.addCircuitTiming(5, 12, 0.5);
        rec2.finishRun(RunStatus::Failed, "fidelity check failed");
    }

    void listsAsJsonArray()
    {
        const CliResult r = cli({QStringLiteral("sessions"), QStringLiteral("list"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        QJsonParseError err{};
        const QJsonDocument doc = QJsonDocument::fromJson(r.out, &err);
        QCOMPARE(err.error, QJsonParseError::NoError);
        QVERIFY(doc.isArray());
        const QJsonArray a = doc.array();
        QCOMPARE(a.size(), 2);
        const QJsonObject first = a.at(0).toObject();
        QCOMPARE(first.keys(), (QStringList{QStringLiteral("id"), QStringLiteral("name"), QStringLiteral("runs"), QStringLiteral("started")}));
        QCOMPARE(first[QStringLiteral("id")].toInteger(), monday_);
        QCOMPARE(first[QStringLiteral("name")].toString(), QStringLiteral("monday"));
        QCOMPARE(first[QStringLiteral("runs")].toInt(), 3);
        QVERIFY(first[QStringLiteral("started")].toString().endsWith(QLatin1Char('Z')));
        QCOMPARE(a.at(1)[QStringLiteral("runs")].toInt(), 1);
    }

    void listsAsText()
    {
        const CliResult r = cli({QStringLiteral("sessions"), QStringLiteral("list")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("monday"));
        QVERIFY(r.out.contains("tuesday, late"));
    }

    void showsRunsByIdOrName()
    {
        CliResult r = cli({QStringLiteral("sessions"), QStringLiteral("show"), QString::number(monday_)});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("'monday'"));
        QVERIFY(r.out.contains("3 runs"));
        QVERIFY(r.out.contains("models/mlp.onnx"));
        QVERIFY(r.out.contains("3.000"));   // 3000 ns of the third run shown as 3.000 us
        // 1000, 2000, 3000 ns: the second and third runs are flagged against the first.
        QCOMPARE(r.out.count("REGRESSION"), 2);
        QVERIFY(r.out.contains("simulated time +100.0% over the best earlier run"));
        QVERIFY(r.out.contains("simulated time +200.0% over the best earlier run"));
        r = cli({QStringLiteral("sessions"), QStringLiteral("show"), QStringLiteral("tuesday, late")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("fidelity check failed"));
        r = cli({QStringLiteral("sessions"), QStringLiteral("show"), QString::number(monday_), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o[QStringLiteral("runs")].toArray().size(), 3);
    }

    void exportsCsvAndJson()
    {
        CliResult r = cli({QStringLiteral("sessions"), QStringLiteral("export"), QString::number(monday_), QStringLiteral("--csv")});
        QCOMPARE(r.exitCode, 0);
        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 1 + 3 * 3);   // header + (run, pass, kernel) per run
        QVERIFY(lines[0].startsWith("session_id,session_name,run_id"));
        QVERIFY(r.out.contains(",kernel,matmul_0,,2000,4096,8192,,,"));

        const QString out = tmp_.filePath(QStringLiteral("tuesday.json"));
        r = cli({QStringLiteral("sessions"), QStringLiteral("export"), QString::number(tuesday_), QStringLiteral("--json"),
                 QStringLiteral("--output"), out});
        QCOMPARE(r.exitCode, 0);
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
        const QJsonObject run = o[QStringLiteral("runs")].toArray().at(0).toObject();
        QCOMPARE(run[QStringLiteral("status")].toString(), QStringLiteral("failed"));
        QCOMPARE(run[QStringLiteral("circuits")].toArray().at(0)[QStringLiteral("qubits")].toInt(), 5);
    }

    void usageAndInputErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("no action") << QStringList{} << "missing ACTION";
        QTest::newRow("unknown action") << QStringList{QStringLiteral("frobnicate")} << "unknown action";
        QTest::newRow("show without id") << QStringList{QStringLiteral("show")} << "missing session ID";
        QTest::newRow("no such session") << QStringList{QStringLiteral("show"), QStringLiteral("999")} << "no session '999'";
        QTest::newRow("no such name") << QStringList{QStringLiteral("delete"), QStringLiteral("sunday")} << "no session 'sunday'";
        QTest::newRow("export without format") << QStringList{QStringLiteral("export"), QStringLiteral("1")} << "exactly one of --csv or --json";
        QTest::newRow("export with both") << QStringList{QStringLiteral("export"), QStringLiteral("1"), QStringLiteral("--csv"), QStringLiteral("--json")}
                                          << "exactly one of --csv or --json";
        QTest::newRow("stray option") << QStringList{QStringLiteral("list"), QStringLiteral("--csv")} << "--csv only applies to 'sessions export'";
        QTest::newRow("unknown option") << QStringList{QStringLiteral("list"), QStringLiteral("--frob")} << "unknown option '--frob'";
    }

    void usageAndInputErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const CliResult r = cli(QStringList{QStringLiteral("sessions")} + args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    }

    void renamesAndDeletes()
    {
        CliResult r = cli({QStringLiteral("sessions"), QStringLiteral("rename"), QString::number(tuesday_), QStringLiteral("archived")});
        QCOMPARE(r.exitCode, 0);
        r = cli({QStringLiteral("sessions"), QStringLiteral("delete"), QStringLiteral("archived")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("1 runs"));
        r = cli({QStringLiteral("sessions"), QStringLiteral("list"), QStringLiteral("--json")});
        const QJsonArray a = QJsonDocument::fromJson(r.out).array();
        QCOMPARE(a.size(), 1);
        QCOMPARE(a.at(0)[QStringLiteral("name")].toString(), QStringLiteral("monday"));
        SessionStore store(db_.toStdString());
        QCOMPARE(store.integrityCheck(), std::string("ok"));
        QCOMPARE(store.connection().queryInt("SELECT COUNT(*) FROM circuit_timings"), 0);
    }

    void runRecordsWithSessionAndOnlyThen()
    {
        // End to end through a recording command: `run` (another subsystem's command) with --session.
        const QString model = dataPath(QStringLiteral("spyre/models/mlp.onnxtxt"));
        if (!QFile::exists(model) || !runCli({QStringLiteral("--help")}).out.contains("\n  run "))
            QSKIP("the run command or its example model is not in this build");
        const QString db = tmp_.filePath(QStringLiteral("e2e.db"));
        CliResult r = runCli({QStringLiteral("run"), model});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(!QFile::exists(db));
        for (int i = 0; i < 2; ++i) {
            r = runCli({QStringLiteral("run"), model, QStringLiteral("--session"), QStringLiteral("e2e"), QStringLiteral("--db"), db});
            QVERIFY2(r.exitCode == 0, r.err.constData());
        }
        SessionStore store(db.toStdString());
        const auto sessions = store.listSessions();
        QCOMPARE(sessions.size(), size_t(1));
        QCOMPARE(sessions[0].name, std::string("e2e"));
        QCOMPARE(sessions[0].runCount, 2);
        const auto runs = store.runs(sessions[0].id);
        QCOMPARE(runs[0].kind, std::string("run"));
        QCOMPARE(runs[0].status, RunStatus::Ok);
        QCOMPARE(runs[0].artifact.id, runs[1].artifact.id);   // same file, same artifact
        QVERIFY(runs[0].simWallMs.value_or(0) > 0);
    }

    void cliAndExplorerRecordTheSameRows()
    {
        // The explorer records its compile through the workbench; `run --backend spyre` and `qsim` through the same
        // workbench calls, so one file gives the same kernel rows, pass names, target and circuit row from either.
        const QString model = dataPath(QStringLiteral("spyre/models/mlp.onnxtxt"));
        const QString circuit = sourcePath(QStringLiteral("resources/examples/qft4.qasm"));
        const QString db = tmp_.filePath(QStringLiteral("same.db"));
        CliResult r = runCli({QStringLiteral("run"), model, QStringLiteral("--backend"), QStringLiteral("spyre"), QStringLiteral("--session"),
                              QStringLiteral("same"), QStringLiteral("--db"), db});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = runCli({QStringLiteral("qsim"), circuit, QStringLiteral("--seed"), QStringLiteral("7"), QStringLiteral("--session"), QStringLiteral("same"),
                    QStringLiteral("--db"), db});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        SessionStore store(db.toStdString());
        const RowId session = store.listSessions().at(0).id;
        {
            spyglass::JobControl control;
            const spyglass::CompiledDocument doc = spyglass::compileDocument(model, control);
            SessionRecorder rec(store, session);
            spyglass::recordRun(doc, rec, "compile");
            const spyglass::CompiledDocument qdoc = spyglass::compileDocument(circuit, control);
            spyglass::recordRun(qdoc, rec, "compile");
        }
        const auto runs = store.runs(session);   // newest first
        QCOMPARE(runs.size(), size_t(4));
        auto detailOf = [&](const char* kind, const char* artifactKind) {
            for (const RunInfo& run : runs)
                if (run.kind == kind && run.artifact.kind == artifactKind)
                    return *store.runDetail(run.id);
            qFatal("no %s run of a %s", kind, artifactKind);
        };
        const RunDetail cliRun = detailOf("run", "onnx"), guiRun = detailOf("compile", "onnx");
        QCOMPARE(cliRun.run.targetHash, guiRun.run.targetHash);
        QVERIFY(!cliRun.run.targetHash.empty());
        QCOMPARE(cliRun.run.artifact.id, guiRun.run.artifact.id);
        QVERIFY(!cliRun.kernels.empty());
        QCOMPARE(cliRun.kernels.size(), guiRun.kernels.size());
        for (size_t k = 0; k < cliRun.kernels.size(); ++k) {
            QCOMPARE(cliRun.kernels[k].name, guiRun.kernels[k].name);
            QCOMPARE(cliRun.kernels[k].simNs, guiRun.kernels[k].simNs);
            QCOMPARE(cliRun.kernels[k].bytesMoved, guiRun.kernels[k].bytesMoved);
            QCOMPARE(cliRun.kernels[k].lxPeakBytes, guiRun.kernels[k].lxPeakBytes);
        }
        // Every pass of the compile the run made is a pass of the explorer's (which also times reading the file).
        QVERIFY(!cliRun.passes.empty());
        QStringList cliPasses, guiPasses;
        for (const PassTiming& p : cliRun.passes)
            cliPasses << QString::fromStdString(p.name);
        for (const PassTiming& p : guiRun.passes)
            guiPasses << QString::fromStdString(p.name);
        for (const QString& p : cliPasses)
            QVERIFY2(guiPasses.contains(p), qPrintable(p + QStringLiteral(" not in ") + guiPasses.join(QLatin1Char(' '))));
        const RunDetail qsimRun = detailOf("qsim", "qasm"), qguiRun = detailOf("compile", "qasm");
        QCOMPARE(qsimRun.run.artifact.id, qguiRun.run.artifact.id);
        QCOMPARE(qsimRun.circuits.size(), size_t(1));
        QCOMPARE(qguiRun.circuits.size(), size_t(1));
        QCOMPARE(qsimRun.circuits[0].name, std::string("qft4.qasm"));
        QCOMPARE(qsimRun.circuits[0].name, qguiRun.circuits[0].name);
        QCOMPARE(qsimRun.circuits[0].qubits, qguiRun.circuits[0].qubits);
        QCOMPARE(QJsonDocument::fromJson(QByteArray::fromStdString(qsimRun.run.optionsJson)).object()[QStringLiteral("seed")].toInteger(), 7);
    }

    void defaultDatabaseFollowsXdgDataHome()
    {
        QTemporaryDir xdg;
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_DATA_HOME"), xdg.path());
        p.setProcessEnvironment(env);
        p.start(spyglass::test::cliPath(), {QStringLiteral("sessions"), QStringLiteral("list"), QStringLiteral("--json")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        QCOMPARE(p.readAllStandardOutput().trimmed(), QByteArray("[]"));
        // Reading history does not create a database.
        QVERIFY(!QFile::exists(xdg.filePath(QStringLiteral("spyglass/spyglass.db"))));
        // Once the default database exists, list reads it.
        {
            const QByteArray saved = qgetenv("XDG_DATA_HOME");
            qputenv("XDG_DATA_HOME", xdg.path().toUtf8());
            SessionStore store(SessionStore::defaultPath());
            if (saved.isEmpty())
                qunsetenv("XDG_DATA_HOME");
            else
                qputenv("XDG_DATA_HOME", saved);
            QVERIFY(QFile::exists(xdg.filePath(QStringLiteral("spyglass/spyglass.db"))));   // its folder was created
            store.createSession("from the default path");
        }
        p.start(spyglass::test::cliPath(), {QStringLiteral("sessions"), QStringLiteral("list"), QStringLiteral("--json")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(p.readAllStandardOutput().contains("from the default path"));
        p.start(spyglass::test::cliPath(), {QStringLiteral("sessions"), QStringLiteral("show"), QStringLiteral("3"),
                                                    QStringLiteral("--db"), xdg.filePath(QStringLiteral("missing.db"))});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(p.readAllStandardError().contains("does not exist yet"));
        QVERIFY(!QFile::exists(xdg.filePath(QStringLiteral("missing.db"))));
    }
};

QTEST_GUILESS_MAIN(TestSessionCli)
#include "tst_session_cli.moc"
