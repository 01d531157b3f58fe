// Models exported by torch.onnx.export (opset 13 and 17, PyTorch constant folding on and off): an MLP
// with GELU, nn.MultiheadAttention, nn.TransformerEncoderLayer and a view/flatten. They must load into a
// static graph with the shape arithmetic folded away and match PyTorch's outputs under the reference
// interpreter. Data: tests/data/model/pytorch (see its README for how it was made).
#include "common/testutil.h"

#include "core/model/model_loader.h"
#include "core/model/op_support.h"
#include "core/model/reference_interpreter.h"
#include "core/model/test_data.h"

#include <onnx/onnx_pb.h>

#include <QDir>
#include <QtTest>

#include <fstream>
#include <sstream>

using namespace spyglass;
using namespace spyglass::model;

namespace {

QString modelsDir() { return spyglass::test::dataPath(QStringLiteral("model/pytorch")); }
std::string modelFile(const QString& rel) { return QString(modelsDir() + QLatin1Char('/') + rel).toStdString(); }

int countOps(const std::string& path, const std::string& opType)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    onnx::ModelProto m;
    if (!m.ParseFromString(ss.str()))
        return -1;
    int n = 0;
    for (const auto& node : m.graph().node())
        n += node.op_type() == opType;
    return n;
}

}  // namespace

class TestModelPyTorch : public QObject {
    Q_OBJECT
private slots:
    void exportedModelsLoadAndMatch_data()
    {
        QTest::addColumn<QString>("stem");
        const QStringList files = QDir(modelsDir()).entryList({QStringLiteral("*.onnx")}, QDir::Files, QDir::Name);
        QVERIFY(files.size() >= 16);
        for (const QString& f : files)
            QTest::newRow(qPrintable(f)) << f.chopped(5);
    }
    void exportedModelsLoadAndMatch()
    {
        QFETCH(QString, stem);
        const std::string model = modelFile(stem + QStringLiteral(".onnx"));
        const TestDataSet data = readTestDataSet(modelFile(stem + QStringLiteral("/test_data_set_0")));
        const ModelGraph g = loadModel(model);
        for (const Node& n : g.nodes)
            QVERIFY2(isComputeOp(n.opType), (n.label() + " was left in the graph").c_str());
        for (const Value& v : g.values)
            for (int64_t d : v.shape)
                QVERIFY(d >= 0);
        const ReferenceResult r = runReference(g, graphInputsFromTestData(g, data));
        QCOMPARE(r.outputs.size(), data.outputs.size());
        for (size_t k = 0; k < r.outputs.size(); ++k) {
            const TensorComparison c = compareTensors(r.outputs[k], data.outputs[k], 1e-4, 1e-5);
            QVERIFY2(c.ok, c.summary("output " + std::to_string(k)).c_str());
        }
    }

    void shapeArithmeticIsFolded()
    {
        // Without PyTorch's own folding, multi-head attention carries Shape -> Gather -> Unsqueeze -> Concat
        // chains feeding Reshape; after loading, none remain and every Reshape has a constant shape.
        const std::string path = modelFile(QStringLiteral("multihead_attention_opset13.onnx"));
        QVERIFY(countOps(path, "Shape") > 0);
        QVERIFY(countOps(path, "Unsqueeze") > 0);
        const ModelGraph g = loadModel(path);
        int reshapes = 0;
        for (const Node& n : g.nodes) {
            QVERIFY2(n.opType != "Shape" && n.opType != "Unsqueeze" && n.opType != "Concat", n.label().c_str());
            if (n.opType == "Reshape") {
                ++reshapes;
                QVERIFY2(g.values[n.inputs[1]].constant.has_value(), n.label().c_str());
            }
        }
        QVERIFY(reshapes >= 3);
    }

    void encoderKeepsLayerNormalizationAsOneOp()
    {
        // Opset 17 exports nn.LayerNorm as LayerNormalization: it stays one op (decomposing it is the
        // compiler's decompose pass, not the loader's job), and the output shape is static.
        const ModelGraph g = loadModel(modelFile(QStringLiteral("encoder_layer_opset17.onnx")));
        bool hasLayerNorm = false;
        for (const Node& n : g.nodes)
            hasLayerNorm = hasLayerNorm || n.opType == "LayerNormalization";
        QVERIFY(hasLayerNorm);
        QCOMPARE(g.values[g.outputs[0]].shape, (Shape{2, 8, 16}));
    }
};

QTEST_GUILESS_MAIN(TestModelPyTorch)
#include "tst_model_pytorch.moc"
