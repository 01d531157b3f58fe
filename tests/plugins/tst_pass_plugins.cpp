// Pass plugins end to end: the two example plugins (examples/plugins/, built here as users build theirs) join the
// Spyre and quantum pipelines at their named points through the real CLI and in-process, get snapshots, summaries,
// timings, --stop-after and --print-after like built-in passes; broken plugins are refused with a message naming
// the file and what is wrong (exit 2), never a crash.
#include "common/testutil.h"

#include "core/common/diagnostics.h"
#include "core/plugins/pass_plugin_loader.h"
#include "core/quantum/pipeline.h"
#include "core/quantum/qasm_parser.h"
#include "core/quantum/simulator.h"
#include "core/quantum/statevector.h"
#include "core/spyre/spyre_pipeline.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <complex>

using namespace spyglass;

namespace {

QString plugin(const char* name) { return test::binaryDir() + QStringLiteral("/tests/plugins/") + QLatin1String(name) + QStringLiteral(".so"); }
QString example(const char* name) { return test::sourcePath(QStringLiteral("resources/examples/") + QLatin1String(name)); }

QJsonArray passesOf(const test::CliResult& r) { return QJsonDocument::fromJson(r.out).object().value(QStringLiteral("passes")).toArray(); }

QStringList namesOf(const QJsonArray& passes)
{
    QStringList n;
    for (const auto& p : passes)
        n << p.toObject().value(QStringLiteral("name")).toString();
    return n;
}

// Two H-CX-H patterns on q[1] and q[2] (one with an op on the control in between), and one that must stay (an x on
// the target in between).
const char* kPatternCircuit = R"(OPENQASM 2.0;
include "qelib1.inc";
qreg q[3];
creg c[3];
h q[0];
rx(0.3) q[2];
h q[1];
cx q[0],q[1];
h q[1];
h q[2];
t q[0];
cx q[0],q[2];
h q[2];
h q[1];
x q[1];
cx q[0],q[1];
h q[1];
)";

}  // namespace

class TestPassPlugins : public QObject {
    Q_OBJECT

private slots:
    void spyrePluginJoinsThePipelineWhereItSays()
    {
        const auto plain = test::runCli({QStringLiteral("compile"), example("mlp.onnxtxt"), QStringLiteral("--json")});
        QCOMPARE(plain.exitCode, 0);
        QTemporaryDir dumps;
        const auto r = test::runCli({QStringLiteral("compile"), example("mlp.onnxtxt"), QStringLiteral("--pass-plugin"), plugin("pin_weight_sticks"),
                                     QStringLiteral("--dump-dir"), dumps.path(), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QStringList names = namesOf(passesOf(r));
        const QStringList builtIn = namesOf(passesOf(plain));
        QCOMPARE(names.size(), builtIn.size() + 1);
        const int at = static_cast<int>(names.indexOf(QStringLiteral("pin_weight_sticks")));
        QCOMPARE(names.value(at - 1), QStringLiteral("propagate_layouts"));
        const QJsonObject pass = passesOf(r).at(at).toObject();
        QVERIFY(pass.value(QStringLiteral("changed")).toBool());
        QVERIFY2(pass.value(QStringLiteral("summary")).toString().startsWith(QStringLiteral("pinned 2 weights to stick dim 0 (w1, w2)")),
                 qPrintable(pass.value(QStringLiteral("summary")).toString()));
        QVERIFY(pass.value(QStringLiteral("wall_ms")).toDouble() >= 0);
        // The pins cost restickifies the plain compile did not need: the plugin's IR change reached the later passes.
        const auto restick = [](const test::CliResult& x) {
            return QJsonDocument::fromJson(x.out).object().value(QStringLiteral("restickify")).toObject().value(QStringLiteral("count")).toInt();
        };
        QVERIFY2(restick(r) > restick(plain), qPrintable(QStringLiteral("%1 vs %2").arg(restick(r)).arg(restick(plain))));
        // Its snapshot is dumped like any other (index = position in the list; +1 for the import).
        QFile dump(dumps.filePath(QStringLiteral("%1-pin_weight_sticks.txt").arg(at + 1, 2, 10, QLatin1Char('0'))));
        QVERIFY2(dump.open(QIODevice::ReadOnly), qPrintable(dump.fileName()));
        QVERIFY(dump.readAll().contains("[pinned]"));
    }

    void stopAfterAndPrintAfterReachPluginPasses()
    {
        const auto r = test::runCli({QStringLiteral("compile"), example("mlp.onnxtxt"), QStringLiteral("--pass-plugin"), plugin("pin_weight_sticks"),
                                     QStringLiteral("--stop-after"), QStringLiteral("pin_weight_sticks"), QStringLiteral("--print-after"),
                                     QStringLiteral("pin_weight_sticks"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(namesOf(passesOf(r)).last(), QStringLiteral("pin_weight_sticks"));
        QVERIFY(r.err.contains("IR after pin_weight_sticks"));
        QVERIFY(r.err.contains("[pinned]"));
    }

    void quantumPluginRewritesAndKeepsTheState()
    {
        const plugins::LoadedPlugin& p = plugins::loadPassPlugin(plugin("hcxh_to_cz").toStdString());
        QCOMPARE(p.name, std::string("hcxh-to-cz"));
        QCOMPARE(p.quantumPasses.size(), size_t(1));
        const quantum::Circuit c = quantum::parseQasmString(kPatternCircuit, "pattern.qasm").circuit;
        quantum::PipelineOptions plainOptions;
        quantum::PipelineOptions withPlugin;
        withPlugin.extraPasses = plugins::quantumInsertions({&p});
        JobControl job;
        const auto plain = quantum::QuantumPipeline::run(c, plainOptions, job);
        const auto snaps = quantum::QuantumPipeline::run(c, withPlugin, job);
        QCOMPARE(snaps.size(), plain.size() + 1);
        QCOMPARE(snaps[1].record.name, std::string("inline_gates"));
        QCOMPARE(snaps[2].record.name, std::string("hcxh_to_cz"));
        QCOMPARE(snaps[2].record.summary, std::string("rewrote 2 h-cx-h into cz"));
        QCOMPARE(snaps[2].ir->gateCount(), snaps[1].ir->gateCount() - 4);
        QVERIFY(!snaps[2].record.irText.empty());
        // Same state as the built-in pipeline alone (the rewrite is exact, not up to a phase).
        const auto a = quantum::finalState(*plain.back().ir, quantum::Precision::Double)->amplitudes();
        const auto b = quantum::finalState(*snaps.back().ir, quantum::Precision::Double)->amplitudes();
        QCOMPARE(a.size(), b.size());
        for (size_t i = 0; i < a.size(); ++i)
            QVERIFY2(std::abs(a[i] - b[i]) < 1e-12, qPrintable(QString::number(i)));
    }

    void qcompileLoadsQuantumPlugins()
    {
        const auto r = test::runCli({QStringLiteral("qcompile"), example("bernstein_vazirani6.qasm"), QStringLiteral("--pass-plugin"),
                                     plugin("hcxh_to_cz"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QStringList names = namesOf(passesOf(r));
        QCOMPARE(names.value(static_cast<int>(names.indexOf(QStringLiteral("hcxh_to_cz"))) - 1), QStringLiteral("inline_gates"));
        // A Spyre-only plugin adds nothing to the quantum pipeline, and the reverse.
        const auto spyreOnly = test::runCli({QStringLiteral("qcompile"), example("qft4.qasm"), QStringLiteral("--pass-plugin"),
                                             plugin("pin_weight_sticks"), QStringLiteral("--json")});
        QCOMPARE(spyreOnly.exitCode, 0);
        QVERIFY(!namesOf(passesOf(spyreOnly)).contains(QStringLiteral("pin_weight_sticks")));
    }

    void brokenPluginsAreRefused_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("message");
        QTest::newRow("other Spyglass version") << plugin("plugin_other_version") << QStringLiteral("built against Spyglass 0.0.0-other");
        QTest::newRow("other plugin API") << plugin("plugin_other_api") << QStringLiteral("no entry point spyglass_pass_plugin_v1");
        QTest::newRow("not a plugin") << plugin("plugin_no_entry") << QStringLiteral("no entry point spyglass_pass_plugin_v1");
        QTest::newRow("unknown insertion point") << plugin("plugin_unknown_point") << QStringLiteral("no pass named 'no_such_pass'");
        QTest::newRow("not a shared library") << example("qft4.qasm") << QStringLiteral("cannot load it as a shared library");
        QTest::newRow("missing") << test::binaryDir() + QStringLiteral("/no-such-plugin.so") << QStringLiteral("no such file");
        QTest::newRow("a folder") << test::binaryDir() << QStringLiteral("not a regular file");
    }

    void brokenPluginsAreRefused()
    {
        QFETCH(QString, file);
        QFETCH(QString, message);
        const auto r = test::runCli({QStringLiteral("compile"), example("mlp.onnxtxt"), QStringLiteral("--pass-plugin"), file});
        QCOMPARE(r.exitCode, 2);
        const QString err = QString::fromUtf8(r.err);
        QVERIFY2(err.contains(message), qPrintable(err));
        QVERIFY2(err.contains(file), qPrintable(err));
    }

    void helpListsThePipelinesPasses()
    {
        const auto r = test::runCli({QStringLiteral("compile"), QStringLiteral("--help")});
        QCOMPARE(r.exitCode, 0);
        for (const std::string& n : spyre::spyrePassNames())
            QVERIFY2(r.out.contains(QByteArray(" ").append(n.c_str())), n.c_str());
        const auto q = test::runCli({QStringLiteral("qcompile"), QStringLiteral("--help")});
        QVERIFY(q.out.contains("Passes: inline_gates, decompose, cancel_inverses"));
    }
};

QTEST_GUILESS_MAIN(TestPassPlugins)
#include "tst_pass_plugins.moc"
