// `spyglass-cli run` with the reference backend: exit codes 0/1/2, the worst element on a mismatch,
// wrong shape/dtype in test data named as such, and the --json object.
#include "common/testutil.h"
#include "model/node_tests.h"

#include "core/model/tensor_file.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace spyglass::test;
using namespace spyglass::model;

namespace {

// Copies a node test (model + test_data_set_0) into `dir` so a test can edit its data.
QString copyNodeTest(const QString& name, const QTemporaryDir& dir)
{
    const QString src = onnxNodeTest(name);
    QDir().mkpath(dir.filePath(QStringLiteral("test_data_set_0")));
    QFile::copy(src + QStringLiteral("/model.onnx"), dir.filePath(QStringLiteral("model.onnx")));
    for (const QString& f : QDir(src + QStringLiteral("/test_data_set_0")).entryList(QDir::Files))
        QFile::copy(src + QStringLiteral("/test_data_set_0/") + f, dir.filePath(QStringLiteral("test_data_set_0/") + f));
    return dir.path();
}

QJsonObject json(const CliResult& r) { return QJsonDocument::fromJson(r.out).object(); }

}  // namespace

class TestModelCli : public QObject {
    Q_OBJECT
private slots:
    void matchingTestDataExitsZero_data()
    {
        QTest::addColumn<QString>("test");
        QTest::newRow("matmul") << QStringLiteral("test_matmul_4d");
        QTest::newRow("reshape with shape input bound") << QStringLiteral("test_reshape_negative_dim");
        QTest::newRow("conv") << QStringLiteral("test_conv_with_strides_padding");
        QTest::newRow("layernorm") << QStringLiteral("test_layer_normalization_3d_axis1_epsilon");
    }
    void matchingTestDataExitsZero()
    {
        QFETCH(QString, test);
        const QString dir = onnxNodeTest(test);
        const CliResult r = runCli({QStringLiteral("run"), dir + QStringLiteral("/model.onnx"), QStringLiteral("--test-data"),
                                    dir + QStringLiteral("/test_data_set_0"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = json(r);
        QCOMPARE(o.value(QStringLiteral("ok")).toBool(), true);
        QCOMPARE(o.value(QStringLiteral("checked")).toBool(), true);
        QCOMPARE(o.value(QStringLiteral("backend")).toString(), QStringLiteral("reference"));
        QVERIFY(o.value(QStringLiteral("max_abs_err")).toDouble() <= 1e-4);
        // The reference backend measures no device time: these are null, never invented.
        for (const char* k : {"kernel_time_ns", "roofline_ns", "bytes_moved", "kernels"})
            QVERIFY2(o.value(QLatin1String(k)).isNull(), k);
    }

    void mismatchExitsOneWithWorstElement()
    {
        QTemporaryDir tmp;
        const QString dir = copyNodeTest(QStringLiteral("test_matmul_2d"), tmp);
        const std::string out0 = QString(dir + QStringLiteral("/test_data_set_0/output_0.pb")).toStdString();
        std::string name;
        HostTensor expected = readTensorFile(out0, &name);
        QCOMPARE(expected.shape, (Shape{3, 3}));
        expected.f[1 * 3 + 2] += 0.5f;   // element [1, 2]
        expected.f[0] += 1e-6f;          // within tolerance: must not be reported as the worst
        writeTensorFile(out0, expected, name);
        const QStringList args{QStringLiteral("run"), dir + QStringLiteral("/model.onnx"), QStringLiteral("--test-data"), dir + QStringLiteral("/test_data_set_0")};
        const CliResult r = runCli(args);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("worst at [1, 2]"), r.err.constData());
        QVERIFY2(r.out.contains("MISMATCH"), r.out.constData());
        const CliResult j = runCli(args + QStringList{QStringLiteral("--json")});
        QCOMPARE(j.exitCode, 1);
        const QJsonObject o = json(j);
        QCOMPARE(o.value(QStringLiteral("ok")).toBool(), false);
        QVERIFY(std::abs(o.value(QStringLiteral("max_abs_err")).toDouble() - 0.5) < 1e-3);
        const QJsonObject worst = o.value(QStringLiteral("outputs")).toArray().at(0).toObject().value(QStringLiteral("worst")).toObject();
        QCOMPARE(worst.value(QStringLiteral("index")).toArray(), (QJsonArray{1, 2}));
        QCOMPARE(o.value(QStringLiteral("outputs")).toArray().at(0).toObject().value(QStringLiteral("mismatches")).toInt(), 1);
        // A looser tolerance accepts it.
        QCOMPARE(runCli(args + QStringList{QStringLiteral("--atol"), QStringLiteral("0.6")}).exitCode, 0);
    }

    void wrongTestDataIsBadInput_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("dtype");
        QTest::addColumn<QString>("expect");
        QTest::newRow("input shape") << QStringLiteral("input_0.pb") << static_cast<int>(DType::Float32) << QStringLiteral("wrong shape");
        QTest::newRow("input dtype") << QStringLiteral("input_0.pb") << static_cast<int>(DType::Float64) << QStringLiteral("wrong dtype");
        QTest::newRow("output shape") << QStringLiteral("output_0.pb") << static_cast<int>(DType::Float32) << QStringLiteral("wrong shape");
    }
    void wrongTestDataIsBadInput()
    {
        QFETCH(QString, file);
        QFETCH(int, dtype);
        QFETCH(QString, expect);
        QTemporaryDir tmp;
        const QString dir = copyNodeTest(QStringLiteral("test_matmul_2d"), tmp);
        const std::string path = QString(dir + QStringLiteral("/test_data_set_0/") + file).toStdString();
        std::string name;
        HostTensor t = readTensorFile(path, &name);
        if (static_cast<DType>(dtype) == t.dtype)
            t = makeTensor(t.dtype, {t.shape[0] + 1, t.shape[1]});   // a different shape
        else
            t.dtype = static_cast<DType>(dtype);                      // same values, other dtype
        writeTensorFile(path, t, name);
        const CliResult r = runCli({QStringLiteral("run"), dir + QStringLiteral("/model.onnx"), QStringLiteral("--test-data"), dir + QStringLiteral("/test_data_set_0")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(expect.toUtf8()), r.err.constData());
        QVERIFY2(r.err.contains(file.toUtf8()), r.err.constData());
    }

    void unsupportedOpIsBadInputNamingIt()
    {
        const QString dir = onnxNodeTest(QStringLiteral("test_det_2d"));
        const CliResult r = runCli({QStringLiteral("run"), dir + QStringLiteral("/model.onnx"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("Det 'Det_0'"), r.err.constData());
        QCOMPARE(json(r).value(QStringLiteral("error_kind")).toString(), QStringLiteral("input"));
    }

    void withoutTestDataRunsOnGeneratedInputs()
    {
        const CliResult r = runCli({QStringLiteral("run"), sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt")), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = json(r);
        QCOMPARE(o.value(QStringLiteral("checked")).toBool(), false);
        QVERIFY(o.value(QStringLiteral("max_abs_err")).isNull());
        const QJsonObject out = o.value(QStringLiteral("outputs")).toArray().at(0).toObject();
        QCOMPARE(out.value(QStringLiteral("shape")).toArray(), (QJsonArray{256, 128}));
    }

    void badUsageExitsTwo_data()
    {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("expect");
        QTest::newRow("unknown backend") << QStringList{QStringLiteral("--backend"), QStringLiteral("gpu")} << QStringLiteral("unknown backend 'gpu'");
        QTest::newRow("plan on reference") << QStringList{QStringLiteral("--plan"), QStringLiteral("baseline")} << QStringLiteral("spyre backend only");
        QTest::newRow("negative rtol") << QStringList{QStringLiteral("--rtol"), QStringLiteral("-1")} << QStringLiteral("--rtol");
        QTest::newRow("missing test data") << QStringList{QStringLiteral("--test-data"), QStringLiteral("/nonexistent")} << QStringLiteral("not a directory");
    }
    void badUsageExitsTwo()
    {
        QFETCH(QStringList, extra);
        QFETCH(QString, expect);
        const CliResult r = runCli(QStringList{QStringLiteral("run"), sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt"))} + extra);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(expect.toUtf8()), r.err.constData());
    }

    void dimGivesDynamicAxesASize()
    {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("dyn.onnxtxt"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("<\n  ir_version: 8,\n  opset_import: [\"\" : 13]\n>\ng (float[batch, 3] x) => (float[batch, 3] y)\n{\n  y = Relu(x)\n}\n");
        f.close();
        const CliResult dynamic = runCli({QStringLiteral("run"), path});
        QCOMPARE(dynamic.exitCode, 2);
        QVERIFY2(dynamic.err.contains("--dim batch=1"), dynamic.err.constData());
        const CliResult r = runCli({QStringLiteral("run"), path, QStringLiteral("--dim"), QStringLiteral("batch=4"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(json(r).value(QStringLiteral("outputs")).toArray().at(0).toObject().value(QStringLiteral("shape")).toArray(), (QJsonArray{4, 3}));
        QCOMPARE(runCli({QStringLiteral("run"), path, QStringLiteral("--dim"), QStringLiteral("batch")}).exitCode, 2);
        // compile reads --dim with the same parser: the error's advice works there too.
        const CliResult compileDynamic = runCli({QStringLiteral("compile"), path});
        QCOMPARE(compileDynamic.exitCode, 2);
        QVERIFY2(compileDynamic.err.contains("--dim batch=1"), compileDynamic.err.constData());
        const CliResult compiled = runCli({QStringLiteral("compile"), path, QStringLiteral("--dim"), QStringLiteral("batch=4"), QStringLiteral("--json")});
        QCOMPARE(compiled.exitCode, 0);
        QVERIFY(json(compiled).value(QStringLiteral("kernels")).toInt() >= 1);
        for (const char* bad : {"batch", "=4", "batch=-1", "batch=4x"}) {
            const CliResult r2 = runCli({QStringLiteral("compile"), path, QStringLiteral("--dim"), QString::fromLatin1(bad)});
            QCOMPARE(r2.exitCode, 2);
            QVERIFY2(r2.err.contains("--dim expects NAME=SIZE"), r2.err.constData());
        }
    }

    void writtenTestDataChecksExactly()
    {
        // Generated inputs + reference outputs written as a test_data_set, then checked at zero tolerance.
        QTemporaryDir tmp;
        const QString model = dataPath(QStringLiteral("model/pytorch/encoder_layer_opset17.onnx"));
        const QString set = tmp.filePath(QStringLiteral("set"));
        QCOMPARE(runCli({QStringLiteral("run"), model, QStringLiteral("--write-test-data"), set}).exitCode, 0);
        QVERIFY(QFile::exists(set + QStringLiteral("/input_0.pb")));
        QVERIFY(QFile::exists(set + QStringLiteral("/output_0.pb")));
        const CliResult r = runCli({QStringLiteral("run"), model, QStringLiteral("--test-data"), set, QStringLiteral("--rtol"), QStringLiteral("0"),
                                    QStringLiteral("--atol"), QStringLiteral("0"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(json(r).value(QStringLiteral("max_abs_err")).toDouble(), 0.0);
        // With test data whose integer input was bound as a constant, that input is written too.
        const QString node = onnxNodeTest(QStringLiteral("test_reshape_negative_dim"));
        const QString set2 = tmp.filePath(QStringLiteral("set2"));
        QCOMPARE(runCli({QStringLiteral("run"), node + QStringLiteral("/model.onnx"), QStringLiteral("--test-data"), node + QStringLiteral("/test_data_set_0"),
                         QStringLiteral("--write-test-data"), set2})
                     .exitCode,
                 0);
        const HostTensor shape = readTensorFile(QString(set2 + QStringLiteral("/input_1.pb")).toStdString());
        QCOMPARE(shape.dtype, DType::Int64);
    }

    void sessionRecordsTheRun()
    {
        QTemporaryDir tmp;
        const QString db = tmp.filePath(QStringLiteral("s.db"));
        const QString dir = onnxNodeTest(QStringLiteral("test_matmul_2d"));
        const QStringList run{QStringLiteral("run"), dir + QStringLiteral("/model.onnx"), QStringLiteral("--test-data"), dir + QStringLiteral("/test_data_set_0"),
                              QStringLiteral("--session"), QStringLiteral("checks"), QStringLiteral("--db"), db};
        QCOMPARE(runCli(run).exitCode, 0);
        QCOMPARE(runCli(run + QStringList{QStringLiteral("--rtol"), QStringLiteral("0"), QStringLiteral("--atol"), QStringLiteral("0")}).exitCode, 1);
        const CliResult show = runCli({QStringLiteral("sessions"), QStringLiteral("show"), QStringLiteral("checks"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        QCOMPARE(show.exitCode, 0);
        const QJsonArray runs = json(show).value(QStringLiteral("runs")).toArray();
        QCOMPARE(runs.size(), 2);
        QStringList statuses;
        for (const QJsonValue& r : runs) {
            QCOMPARE(r.toObject().value(QStringLiteral("kind")).toString(), QStringLiteral("run"));
            QCOMPARE(r.toObject().value(QStringLiteral("result")).toObject().value(QStringLiteral("backend")).toString(), QStringLiteral("reference"));
            statuses << r.toObject().value(QStringLiteral("status")).toString();
        }
        statuses.sort();
        QCOMPARE(statuses, (QStringList{QStringLiteral("failed"), QStringLiteral("ok")}));
    }

    void missingModelIsBadInput()
    {
        const CliResult r = runCli({QStringLiteral("run"), QStringLiteral("/nonexistent/m.onnx")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("/nonexistent/m.onnx"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestModelCli)
#include "tst_model_cli.moc"
