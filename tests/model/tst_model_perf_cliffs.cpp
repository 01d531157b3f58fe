// Performance cliffs real models hit (issue 14, item 5), through `spyglass-cli run --backend spyre`: GPT-2's
// vocabulary projection [128, 768] x [768, 50257], whose N is no whole number of sticks, must cost about what the
// stick-aligned N = 50304 costs (it took 66.7 ms and moved 9.9 GB, against 1.06 ms), and the padding that fixes it
// must not change the numbers; an embedding Gather of 128 rows from that [50257, 768] table must move the rows, not
// the table (5.34 ms and 77 MB before).
#include "common/testutil.h"

#include <onnx/onnx_pb.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <random>

using namespace spyglass::test;

namespace {

void addValue(onnx::ValueInfoProto* v, const std::string& name, std::initializer_list<int64_t> shape)
{
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : shape)
        t->mutable_shape()->add_dim()->set_dim_value(d);
}

// y = x W with W a constant [K, N] of small random weights (as a trained projection has), or with W a second
// input (a weight given at run time: a tied head fed its embedding, an adapter).
enum class Weight { Constant, Input };
QString writeMatMul(const QTemporaryDir& dir, int64_t m, int64_t k, int64_t n, Weight kind = Weight::Constant)
{
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.add_opset_import()->set_version(17);
    auto* g = model.mutable_graph();
    g->set_name("projection");
    addValue(g->add_input(), "x", {m, k});
    addValue(g->add_output(), "y", {m, n});
    if (kind == Weight::Input)
        addValue(g->add_input(), "w", {k, n});
    if (kind == Weight::Constant) {
        auto* w = g->add_initializer();
        w->set_name("w");
        w->set_data_type(onnx::TensorProto::FLOAT);
        w->add_dims(k);
        w->add_dims(n);
        std::mt19937 rng(1);
        std::normal_distribution<float> normal(0.0f, 0.02f);
        std::string raw(static_cast<size_t>(k * n) * sizeof(float), '\0');
        auto* f = reinterpret_cast<float*>(raw.data());
        for (int64_t e = 0; e < k * n; ++e)
            f[e] = normal(rng);
        w->set_raw_data(std::move(raw));
    }
    auto* node = g->add_node();
    node->set_op_type("MatMul");
    node->set_name("lm_head");
    node->add_input("x");
    node->add_input("w");
    node->add_output("y");
    const QString path = dir.filePath(QStringLiteral("projection_%1%2.onnx").arg(n).arg(kind == Weight::Input ? QStringLiteral("_input") : QString()));
    std::ofstream out(path.toStdString(), std::ios::binary);
    model.SerializeToOstream(&out);
    return path;
}

QJsonObject timingOnly(const QString& model)
{
    const CliResult r = runCli({QStringLiteral("run"), model, QStringLiteral("--backend"), QStringLiteral("spyre"), QStringLiteral("--no-numerics"), QStringLiteral("--json")});
    if (r.exitCode != 0)
        qWarning().noquote() << r.err;
    return QJsonDocument::fromJson(r.out).object();
}

}  // namespace

class TestModelPerfCliffs : public QObject {
    Q_OBJECT
private slots:
    void vocabularyProjectionCostsWhatTheAlignedOneCosts()
    {
        QTemporaryDir dir;
        const QJsonObject odd = timingOnly(writeMatMul(dir, 128, 768, 50257));
        const QJsonObject aligned = timingOnly(writeMatMul(dir, 128, 768, 50304));
        const double oddNs = odd.value(QStringLiteral("kernel_time_ns")).toDouble(), alignedNs = aligned.value(QStringLiteral("kernel_time_ns")).toDouble();
        QVERIFY(oddNs > 0 && alignedNs > 0);
        // Measured: 1.30 ms (the product 1.06 ms and the slice back to 50257 columns) against 1.06 ms aligned.
        QVERIFY2(oddNs < 1.5 * alignedNs, qPrintable(QStringLiteral("N = 50257: %1 us, N = 50304: %2 us").arg(oddNs / 1000).arg(alignedNs / 1000)));
        // The weight is read once, not once per row block (9.9 GB before).
        QVERIFY2(odd.value(QStringLiteral("bytes_moved")).toDouble() < 3 * 768.0 * 50304 * 2,
                 qPrintable(QStringLiteral("%1 B moved").arg(odd.value(QStringLiteral("bytes_moved")).toDouble())));
    }

    void paddedProductIsTheProduct()
    {
        // 5000 columns: 79 sticks (more than the 32 cores), the last one 8 wide; checked against the reference.
        QTemporaryDir dir;
        const QString model = writeMatMul(dir, 16, 64, 5000);
        const CliResult r = runCli({QStringLiteral("run"), model, QStringLiteral("--backend"), QStringLiteral("spyre"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const CliResult c = runCli({QStringLiteral("compile"), model, QStringLiteral("--json")});
        QVERIFY(c.out.contains("decomposed 1 MatMul"));
    }

    void runtimeWeightProjectionIsNotStarved()
    {
        // The weight given at run time is not padded: a PadConstant kernel on the device moved the 77 MB once more
        // and needed a restickify (3.72 ms, 425 MB), while work_division's cost model already splits the unpadded
        // product over 24 cores (measured 0.84 ms, 90 MB, against 0.67 ms at N = 50304).
        QTemporaryDir dir;
        const QJsonObject odd = timingOnly(writeMatMul(dir, 128, 768, 50257, Weight::Input));
        const QJsonObject aligned = timingOnly(writeMatMul(dir, 128, 768, 50304, Weight::Input));
        const double oddNs = odd.value(QStringLiteral("kernel_time_ns")).toDouble(), alignedNs = aligned.value(QStringLiteral("kernel_time_ns")).toDouble();
        QVERIFY(oddNs > 0 && alignedNs > 0);
        QVERIFY2(oddNs < 1.5 * alignedNs, qPrintable(QStringLiteral("N = 50257: %1 us, N = 50304: %2 us").arg(oddNs / 1000).arg(alignedNs / 1000)));
        QVERIFY2(odd.value(QStringLiteral("bytes_moved")).toDouble() < 1.5 * (768.0 + 128) * 50304 * 2,
                 qPrintable(QStringLiteral("%1 B moved").arg(odd.value(QStringLiteral("bytes_moved")).toDouble())));
        QCOMPARE(odd.value(QStringLiteral("kernels")).toArray().size(), 1);
    }

    void runtimeWeightProductIsTheProduct()
    {
        // 5000 columns, 79 sticks with the last one 8 wide, the weight an input: checked against the reference
        // interpreter on the same generated inputs.
        QTemporaryDir dir;
        const QString model = writeMatMul(dir, 16, 64, 5000, Weight::Input);
        const CliResult r = runCli({QStringLiteral("run"), model, QStringLiteral("--backend"), QStringLiteral("spyre"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QVERIFY(o.value(QStringLiteral("checked")).toBool());
        QCOMPARE(o.value(QStringLiteral("checked_against")).toString(), QStringLiteral("reference interpreter"));
        QVERIFY(o.value(QStringLiteral("ok")).toBool());
    }

    void embeddingGatherMovesTheRows()
    {
        onnx::ModelProto model;
        model.set_ir_version(8);
        model.add_opset_import()->set_version(17);
        auto* g = model.mutable_graph();
        g->set_name("embedding");
        addValue(g->add_input(), "table", {50257, 768});
        auto* ids = g->add_input();
        ids->set_name("ids");
        ids->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
        for (int64_t d : {1, 128})
            ids->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
        addValue(g->add_output(), "e", {1, 128, 768});
        auto* node = g->add_node();
        node->set_op_type("Gather");
        node->set_name("wte");
        node->add_input("table");
        node->add_input("ids");
        node->add_output("e");
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("embedding.onnx"));
        {
            std::ofstream out(path.toStdString(), std::ios::binary);
            model.SerializeToOstream(&out);
        }
        const QJsonObject o = timingOnly(path);
        // 128 rows of 768 fp16 values read and written, 196 608 B each way; measured 393 728 B and 15.7 us.
        const double bytes = o.value(QStringLiteral("bytes_moved")).toDouble();
        QVERIFY2(bytes > 0 && bytes < 4 * 128 * 768 * 2, qPrintable(QStringLiteral("%1 B moved").arg(bytes)));
        QVERIFY(o.value(QStringLiteral("kernel_time_ns")).toDouble() < 100000);
    }
};

QTEST_GUILESS_MAIN(TestModelPerfCliffs)
#include "tst_model_perf_cliffs.moc"
