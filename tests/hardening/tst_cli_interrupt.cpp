// Long CLI jobs show progress on stderr (when it is a terminal; SPYGLASS_PROGRESS=1 stands in for one here) and
// honour Ctrl+C promptly: SIGINT cancels the job at its next checkpoint, and the command says so and exits 130. A quick job on a pipe prints no progress at all.
#include "common/testutil.h"

#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace spyglass;

namespace {

// 16 qubits with a measurement in the middle: every shot re-runs the circuit from there, so 200 000 shots take
// most of a minute (more under ASan) and report progress every 16 shots.
QString longCircuit(const QTemporaryDir& dir)
{
    QByteArray text = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[16];\ncreg c[16];\n";
    for (int q = 0; q < 16; ++q)
        text += "h q[" + QByteArray::number(q) + "];\n";
    text += "measure q[0] -> c[0];\n";
    for (int q = 1; q < 16; ++q)
        text += "cx q[0],q[" + QByteArray::number(q) + "];\n";
    text += "measure q -> c;\n";
    const QString path = dir.filePath(QStringLiteral("long.qasm"));
    QFile f(path);
    if (f.open(QIODevice::WriteOnly))
        f.write(text);
    return path;
}

}  // namespace

class TestCliInterrupt : public QObject {
    Q_OBJECT
private slots:
    void ctrlCStopsALongJobPromptly()
    {
        QTemporaryDir dir;
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SPYGLASS_PROGRESS"), QStringLiteral("1"));
        p.setProcessEnvironment(env);
        p.start(test::cliPath(), {QStringLiteral("qsim"), longCircuit(dir), QStringLiteral("--shots"), QStringLiteral("200000"),
                                  QStringLiteral("--force"), QStringLiteral("--json")});
        QVERIFY(p.waitForStarted());
        // Wait for the first progress line (the job is running), not for a fixed time.
        QByteArray err;
        QElapsedTimer waited;
        waited.start();
        while (!err.contains("simulating shots") && waited.elapsed() < 60000 && p.state() == QProcess::Running) {
            p.waitForReadyRead(1000);
            err += p.readAllStandardError();
        }
        QVERIFY2(err.contains("simulating shots") && err.contains("%"), err.constData());
        QElapsedTimer stopping;
        stopping.start();
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(20000));
        err += p.readAllStandardError();
        QVERIFY2(stopping.elapsed() < 10000, qPrintable(QString::number(stopping.elapsed())));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 130);
        QVERIFY2(err.contains("qsim: interrupted (Ctrl+C)"), err.constData());
        // --json still answers with one object saying why.
        QVERIFY(p.readAllStandardOutput().contains("\"error_kind\":\"interrupted\""));
    }

    void aQuickJobOnAPipePrintsNoProgress()
    {
        const test::CliResult r = test::runCli({QStringLiteral("qsim"), test::sourcePath(QStringLiteral("resources/examples/ghz5.qasm"))});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(!r.err.contains('\r') && !r.err.contains('%'), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliInterrupt)
#include "tst_cli_interrupt.moc"
