// The CLI contract every subcommand shares: help, version, exit codes, --json.
#include "common/testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QJsonObject>
#include <QtTest>

using namespace spyglass::test;

class TestCli : public QObject {
    Q_OBJECT
private slots:
    void helpListsCommandsAndExitsZero()
    {
        const CliResult r = runCli({QStringLiteral("--help")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("Commands:"));
        QVERIFY(r.out.contains("info"));
    }
    void versionExitsZero()
    {
        const CliResult r = runCli({QStringLiteral("--version")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.startsWith("spyglass-cli "));
        QVERIFY(r.out.contains("ONNX"));
    }
    void unknownCommandExitsTwo()
    {
        const CliResult r = runCli({QStringLiteral("bogus")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("unknown command 'bogus'"));
    }
    void noArgumentsExitsTwo() { QCOMPARE(runCli({}).exitCode, 2); }
    void unknownOptionExitsTwoWithUsage()
    {
        const CliResult r = runCli({QStringLiteral("info"), QStringLiteral("--frobnicate"), sourcePath(QStringLiteral("README.md"))});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("unknown option '--frobnicate'"));
        QVERIFY(r.err.contains("usage: spyglass-cli info"));
    }
    void infoDetectsKindsAsJson_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("kind");
        QTest::newRow("circuit") << sourcePath(QStringLiteral("resources/examples/qft4.qasm")) << QStringLiteral("circuit");
        QTest::newRow("model") << sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt")) << QStringLiteral("model");
    }
    void infoDetectsKindsAsJson()
    {
        QFETCH(QString, file);
        QFETCH(QString, kind);
        const CliResult r = runCli({QStringLiteral("info"), file, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o.value(QStringLiteral("kind")).toString(), kind);
    }
    void optionValuesBeforeTheFileAreNotTakenForIt()
    {
        // qsim's usage says --shots and --seed take values: the file is found wherever it stands.
        const QString qft = sourcePath(QStringLiteral("resources/examples/qft4.qasm"));
        const CliResult r = runCli({QStringLiteral("qsim"), QStringLiteral("--shots"), QStringLiteral("16"), QStringLiteral("--seed"),
                                    QStringLiteral("3"), qft, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(r.out).object().value(QStringLiteral("qubits")).toInt(), 4);
        const CliResult flagFirst = runCli({QStringLiteral("info"), QStringLiteral("--json"), qft});
        QCOMPARE(flagFirst.exitCode, 0);
    }
    void compileRecordsIntoANamedSessionOnlyWhenAsked()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("s.db"));
        const QString model = sourcePath(QStringLiteral("resources/examples/mlp.onnxtxt"));
        QCOMPARE(runCli({QStringLiteral("compile"), model, QStringLiteral("--json")}).exitCode, 0);
        QVERIFY(!QFile::exists(db));
        for (int i = 0; i < 2; ++i)
            QCOMPARE(runCli({QStringLiteral("compile"), QStringLiteral("--session"), QStringLiteral("nightly"), QStringLiteral("--db"), db, model}).exitCode, 0);
        const CliResult list = runCli({QStringLiteral("sessions"), QStringLiteral("list"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        QCOMPARE(list.exitCode, 0);
        const QJsonArray sessions = QJsonDocument::fromJson(list.out).array();
        QCOMPARE(sessions.size(), 1);
        QCOMPARE(sessions[0].toObject().value(QStringLiteral("name")).toString(), QStringLiteral("nightly"));
        QCOMPARE(sessions[0].toObject().value(QStringLiteral("runs")).toInt(), 2);
        // qsim and vqe record into the same named session.
        QCOMPARE(runCli({QStringLiteral("qsim"), sourcePath(QStringLiteral("resources/examples/qft4.qasm")), QStringLiteral("--session"),
                         QStringLiteral("nightly"), QStringLiteral("--db"), db}).exitCode, 0);
        QCOMPARE(runCli({QStringLiteral("vqe"), QStringLiteral("--qubits"), QStringLiteral("3"), QStringLiteral("--iterations"), QStringLiteral("5"),
                         QStringLiteral("--session"), QStringLiteral("nightly"), QStringLiteral("--db"), db}).exitCode, 0);
        const CliResult again = runCli({QStringLiteral("sessions"), QStringLiteral("list"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        QCOMPARE(QJsonDocument::fromJson(again.out).array()[0].toObject().value(QStringLiteral("runs")).toInt(), 4);
    }
    void missingFileIsBadInputNamingTheFile()
    {
        const CliResult r = runCli({QStringLiteral("info"), QStringLiteral("/nonexistent/x.qasm"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("/nonexistent/x.qasm"));
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o.value(QStringLiteral("ok")).toBool(true), false);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
