// `spyglass-cli compile` end to end on .onnxtxt models: JSON fields, dumps, export, pins, targets, bad input.
#include "common/testutil.h"

#include "core/session/session_store.h"
#include "core/spyre/json_schema.h"
#include "core/spyre/kernel_bundle.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace spyglass;

namespace {

QString model(const char* name) { return test::dataPath(QStringLiteral("spyre/models/") + QLatin1String(name)); }

QJsonObject compileJson(const QStringList& extra, int expectedExit = 0)
{
    const auto r = test::runCli(QStringList{QStringLiteral("compile")} + extra + QStringList{QStringLiteral("--json")});
    if (r.exitCode != expectedExit)
        qWarning() << r.err;
    [&] { QCOMPARE(r.exitCode, expectedExit); }();
    return QJsonDocument::fromJson(r.out).object();
}

const QStringList kPasses = {QStringLiteral("decompose"),         QStringLiteral("lower"),
                             QStringLiteral("fuse"),              QStringLiteral("propagate_layouts"),
                             QStringLiteral("optimize_layouts"),  QStringLiteral("insert_restickify"),
                             QStringLiteral("coarse_tiling"),     QStringLiteral("work_division"),
                             QStringLiteral("scratchpad_planning"), QStringLiteral("codegen")};

}  // namespace

class TestSpyreCli : public QObject {
    Q_OBJECT

private slots:
    void jsonHasTheIssueFields_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("matmul example") << test::sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt"));
        QTest::newRow("mlp") << model("mlp.onnxtxt");
        QTest::newRow("attention") << model("attention.onnxtxt");
        QTest::newRow("layernorm + gelu") << model("layernorm_gelu.onnxtxt");
        QTest::newRow("conv, pools") << model("convnet.onnxtxt");
    }

    void jsonHasTheIssueFields()
    {
        QFETCH(QString, file);
        const QJsonObject o = compileJson({file});
        const QJsonArray passes = o.value(QStringLiteral("passes")).toArray();
        QCOMPARE(passes.size(), kPasses.size());
        for (int i = 0; i < passes.size(); ++i) {
            const QJsonObject p = passes[i].toObject();
            QCOMPARE(p.value(QStringLiteral("name")).toString(), kPasses[i]);
            QVERIFY(p.value(QStringLiteral("changed")).isBool());
            QVERIFY(!p.value(QStringLiteral("summary")).toString().isEmpty());
            QVERIFY(p.value(QStringLiteral("wall_ms")).toDouble() >= 0);
        }
        const QJsonObject restick = o.value(QStringLiteral("restickify")).toObject();
        QVERIFY(restick.value(QStringLiteral("count")).isDouble());
        QVERIFY(restick.value(QStringLiteral("elements")).isDouble());
        QVERIFY(o.value(QStringLiteral("kernels")).toInt() >= 1);
        const int cores = o.value(QStringLiteral("cores_used")).toInt();
        QVERIFY(cores >= 1 && cores <= 32);
        QVERIFY(o.value(QStringLiteral("lx_peak_bytes")).toDouble() >= 0);
        QCOMPARE(o.value(QStringLiteral("layout_optimal")).toBool(), true);
    }

    void baselineAndScratchpadOptions()
    {
        const QString f = model("attention.onnxtxt");
        const QJsonObject base = compileJson({f, QStringLiteral("--baseline")});
        QCOMPARE(base.value(QStringLiteral("passes")).toArray()[7].toObject().value(QStringLiteral("summary")).toString().contains(
                     QStringLiteral("baseline")),
                 true);
        for (const char* policy : {"greedy", "first-fit", "best-fit"}) {
            const QJsonObject o = compileJson({f, QStringLiteral("--scratchpad"), QString::fromLatin1(policy)});
            QVERIFY(o.value(QStringLiteral("passes")).toArray()[8].toObject().value(QStringLiteral("summary")).toString().startsWith(
                QString::fromLatin1(policy)));
        }
        const auto bad = test::runCli({QStringLiteral("compile"), f, QStringLiteral("--scratchpad"), QStringLiteral("worst-fit")});
        QCOMPARE(bad.exitCode, 2);
    }

    // `run --plan tuned`: the tuner's note names its candidates and its gain over the cost-model plan, and the
    // simulated time it reports is the one the run prints; an unknown plan is a usage error.
    void runWithTheTunedPlan()
    {
        const auto r = test::runCli({QStringLiteral("run"), model("attention.onnxtxt"), QStringLiteral("--backend"), QStringLiteral("spyre"),
                                     QStringLiteral("--plan"), QStringLiteral("tuned"), QStringLiteral("--no-numerics")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString out = QString::fromUtf8(r.out);
        QVERIFY2(out.contains(QStringLiteral("plan tuned")) && out.contains(QStringLiteral("candidate splits and device orders simulated")) &&
                     out.contains(QStringLiteral("over the cost-model plan")),
                 qPrintable(out));
        // --json carries the search (and --session stores that object, then one "tuning" run per candidate): every
        // candidate with its split and times.
        QTemporaryDir home;
        const QString db = home.filePath(QStringLiteral("tuned.db"));
        const auto js = test::runCli({QStringLiteral("run"), model("attention.onnxtxt"), QStringLiteral("--backend"), QStringLiteral("spyre"),
                                      QStringLiteral("--plan"), QStringLiteral("tuned"), QStringLiteral("--no-numerics"), QStringLiteral("--json"),
                                      QStringLiteral("--session"), QStringLiteral("tuned"), QStringLiteral("--db"), db});
        QVERIFY2(js.exitCode == 0, js.err.constData());
        const QJsonObject tuning = QJsonDocument::fromJson(js.out).object().value(QStringLiteral("tuning")).toObject();
        const QJsonArray cands = tuning.value(QStringLiteral("candidates")).toArray();
        QVERIFY(!cands.isEmpty());
        QVERIFY(tuning.value(QStringLiteral("tuned_ns")).toDouble() <= tuning.value(QStringLiteral("cost_model_ns")).toDouble());
        for (const QJsonValue& c : cands)
            QVERIFY(c.toObject().value(QStringLiteral("simulated_ns")).toDouble() > 0 && !c.toObject().value(QStringLiteral("ways")).toObject().isEmpty());
        session::SessionStore store(db.toStdString());
        const auto sid = store.findSessionByName("tuned");
        QVERIFY(sid);
        qsizetype i = 0;
        for (const session::RunInfo& run : store.runs(*sid)) {
            if (run.kind != "tuning")
                continue;
            QVERIFY(i < cands.size());
            const QJsonObject rec = QJsonDocument::fromJson(QByteArray::fromStdString(run.resultJson)).object();
            QCOMPARE(rec.value(QStringLiteral("index")).toInt(), static_cast<int>(i));
            QCOMPARE(rec.value(QStringLiteral("label")).toString(), cands[i].toObject().value(QStringLiteral("label")).toString());
            QCOMPARE(rec.value(QStringLiteral("simulated_ns")).toDouble(), cands[i].toObject().value(QStringLiteral("simulated_ns")).toDouble());
            ++i;
        }
        QCOMPARE(i, cands.size());
        const auto bad = test::runCli({QStringLiteral("run"), model("attention.onnxtxt"), QStringLiteral("--backend"), QStringLiteral("spyre"),
                                       QStringLiteral("--plan"), QStringLiteral("fastest")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(QString::fromUtf8(bad.err).contains(QStringLiteral("optimized, baseline or tuned")), bad.err.constData());
    }

    void dumpDirHasOneFilePerPass()
    {
        QTemporaryDir dir;
        const auto r = test::runCli({QStringLiteral("compile"), model("attention.onnxtxt"), QStringLiteral("--dump-dir"), dir.path()});
        QCOMPARE(r.exitCode, 0);
        const QStringList files = QDir(dir.path()).entryList({QStringLiteral("*.txt")}, QDir::Files, QDir::Name);
        QCOMPARE(files.size(), kPasses.size() + 1);
        QCOMPARE(files.front(), QStringLiteral("00-import.txt"));
        for (int i = 0; i < kPasses.size(); ++i)
            QCOMPARE(files[i + 1], QStringLiteral("%1-%2.txt").arg(i + 1, 2, 10, QLatin1Char('0')).arg(kPasses[i]));
        QFile last(dir.filePath(files.back()));
        QVERIFY(last.open(QIODevice::ReadOnly));
        const QByteArray text = last.readAll();
        QVERIFY(text.contains("SpyreTensorLayout(device_size="));
        QVERIFY(text.contains("SchedulerNode(Restickify)"));
        QVERIFY(text.contains(".core_split = "));
        QVERIFY(text.contains("def body(self, ops):"));
    }

    void exportValidatesAndReloads()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("bundle"));
        compileJson({model("attention.onnxtxt"), QStringLiteral("--export"), out});
        QFile sf(test::sourcePath(QStringLiteral("resources/schemas/spyre-kernel-bundle.schema.json")));
        QVERIFY(sf.open(QIODevice::ReadOnly));
        const QJsonObject schema = QJsonDocument::fromJson(sf.readAll()).object();
        QFile mf(out + QStringLiteral("/manifest.json"));
        QVERIFY(mf.open(QIODevice::ReadOnly));
        const QJsonObject manifest = QJsonDocument::fromJson(mf.readAll()).object();
        QVERIFY(spyre::validateJsonSchema(manifest, schema).empty());
        const auto bundle = spyre::loadKernelBundle(out.toStdString());
        QCOMPARE(static_cast<qsizetype>(bundle.kernels.size()), manifest.value(QStringLiteral("kernels")).toArray().size());
        QCOMPARE(bundle.inputs.size(), size_t{4});
        QCOMPARE(bundle.outputs.size(), size_t{1});
        QVERIFY(!bundle.listing.empty());
        // `spyglass-cli info` recognises the folder as a kernel bundle.
        const auto info = test::runCli({QStringLiteral("info"), out});
        QCOMPARE(info.exitCode, 0);
        QVERIFY(info.out.contains("bundle"));
    }

    void pinShowsTheNewCost()
    {
        const QString mm = test::sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt"));
        const QJsonObject free = compileJson({mm});
        QCOMPARE(free.value(QStringLiteral("restickify")).toObject().value(QStringLiteral("count")).toInt(), 0);
        const QJsonObject pinned = compileJson({mm, QStringLiteral("--pin"), QStringLiteral("A=0")});
        const QJsonObject r = pinned.value(QStringLiteral("restickify")).toObject();
        QCOMPARE(r.value(QStringLiteral("count")).toInt(), 1);
        QCOMPARE(r.value(QStringLiteral("elements")).toInt(), 256 * 512);
        const QString summary = pinned.value(QStringLiteral("passes")).toArray()[4].toObject().value(QStringLiteral("summary")).toString();
        QVERIFY2(summary.contains(QStringLiteral("131 072")), qPrintable(summary));
    }

    void stopAfterStopsThere()
    {
        const QJsonObject o = compileJson({model("mlp.onnxtxt"), QStringLiteral("--stop-after"), QStringLiteral("optimize_layouts")});
        QCOMPARE(o.value(QStringLiteral("passes")).toArray().size(), 5);
        QCOMPARE(o.value(QStringLiteral("cores_used")).toInt(), 0);
        QTemporaryDir dir;
        const auto r = test::runCli({QStringLiteral("compile"), model("mlp.onnxtxt"), QStringLiteral("--stop-after"),
                                     QStringLiteral("fuse"), QStringLiteral("--export"), dir.path()});
        QCOMPARE(r.exitCode, 2);
    }

    void otherTargetChangesThePlan()
    {
        QTemporaryDir dir;
        QFile f(test::sourcePath(QStringLiteral("resources/targets/spyre.json")));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QJsonObject root = QJsonDocument::fromJson(f.readAll()).object();
        QJsonObject cores = root.value(QStringLiteral("cores")).toObject();
        cores[QStringLiteral("value")] = 8;
        root[QStringLiteral("cores")] = cores;
        const QString path = dir.filePath(QStringLiteral("eight.json"));
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(root).toJson());
        out.close();
        const QJsonObject base = compileJson({model("layernorm_gelu.onnxtxt")});
        const QJsonObject eight = compileJson({model("layernorm_gelu.onnxtxt"), QStringLiteral("--target"), path});
        QCOMPARE(base.value(QStringLiteral("cores_used")).toInt(), 32);
        QCOMPARE(eight.value(QStringLiteral("cores_used")).toInt(), 8);
    }

    void badInputExitsWithTwo_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QString mm = test::sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt"));
        QTest::newRow("missing file") << QStringList{QStringLiteral("no-such-model.onnxtxt")} << "no such file";
        QTest::newRow("pin syntax") << QStringList{mm, QStringLiteral("--pin"), QStringLiteral("A")} << "TENSOR=DIM";
        QTest::newRow("pin unknown tensor") << QStringList{mm, QStringLiteral("--pin"), QStringLiteral("Z=0")} << "no tensor";
        QTest::newRow("pin impossible") << QStringList{mm, QStringLiteral("--pin"), QStringLiteral("C=0")} << "can only produce";
        QTest::newRow("unknown pass") << QStringList{mm, QStringLiteral("--stop-after"), QStringLiteral("nope")} << "no pass named";
        QTest::newRow("bad target") << QStringList{mm, QStringLiteral("--target"), mm} << "target description";
    }

    void groupedConvRunsOnTheSpyreBackend()
    {
        // Refused before issue 14; now one batched MatMul over the groups, within the device tolerance.
        const auto r = test::runCli({QStringLiteral("run"), test::dataPath(QStringLiteral("spyre/models/conv_grouped.onnxtxt")),
                                     QStringLiteral("--backend"), QStringLiteral("spyre")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("all outputs match"), r.out.constData());
    }

    void badInputExitsWithTwo()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const auto r = test::runCli(QStringList{QStringLiteral("compile")} + args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestSpyreCli)
#include "tst_spyre_cli.moc"
