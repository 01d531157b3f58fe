// The ONNX loader: text and binary syntax, folding of shape arithmetic, static shapes, and the
// errors a user sees for bad or unsupported models.
#include "common/testutil.h"

#include "core/common/diagnostics.h"
#include "core/model/model_loader.h"
#include "core/model/op_support.h"
#include "core/model/reference_interpreter.h"
#include "core/model/tensor_file.h"

#include <onnx/defs/parser.h>

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

#include <fstream>
#include <random>

using namespace spyglass;
using namespace spyglass::model;

namespace {

// Runs `f` and returns the InputError message it throws ("" when it does not throw).
template <typename F>
std::string errorOf(F&& f)
{
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return {};
}

// Parses the textual syntax with libonnx, lets `mutate` edit the proto, and writes the binary form.
template <typename F>
void writeBinaryModel(const QString& path, const std::string& text, F&& mutate)
{
    onnx::ModelProto m;
    const auto status = onnx::OnnxParser::Parse(m, text.c_str());
    QVERIFY2(status.IsOK(), status.ErrorMessage().c_str());
    mutate(m);
    std::ofstream out(path.toStdString(), std::ios::binary);
    out << m.SerializeAsString();
}

const char* kAddModel = R"(<
  ir_version: 8,
  opset_import: ["" : 13]
>
g (float[2] x) => (float[2] y)
<float[2] w = {1.0, 2.0}>
{
  y = Add(x, w)
}
)";

// Moves initializer `w` to external data at `location` (and writes its bytes there when `bytesPath` is given).
void makeExternal(onnx::ModelProto& m, const std::string& location)
{
    auto* t = m.mutable_graph()->mutable_initializer(0);
    t->clear_float_data();
    t->clear_raw_data();
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* kv = t->add_external_data();
    kv->set_key("location");
    kv->set_value(location);
}

}  // namespace

class TestModelLoader : public QObject {
    Q_OBJECT
private slots:
    void loadsTextSyntaxWithStaticShapes()
    {
        // Initializer literals need every value: build them from a shorter model instead.
        const std::string text = R"(<
  ir_version: 8,
  opset_import: ["" : 13]
>
g (float[2, 3] x) => (float[2, 3] y)
<float[3] b = {1.0, 2.0, 3.0}>
{
  t = Add(x, b)
  y = Relu(t)
}
)";
        const ModelGraph g = loadModelFromText(text, "inline.onnxtxt");
        QCOMPARE(g.opsetVersion, int64_t{13});
        QCOMPARE(g.nodes.size(), size_t{2});
        QCOMPARE(g.inputs.size(), size_t{1});
        const int t = g.findValue("t");
        QVERIFY(t >= 0);
        QCOMPARE(g.values[t].shape, (Shape{2, 3}));
        QCOMPARE(g.values[t].producer, 0);
        QCOMPARE(g.values[t].consumers, (std::vector<int>{1}));
        const int b = g.findValue("b");
        QVERIFY(g.values[b].constant.has_value());
        QCOMPARE(g.values[b].constant->f, (std::vector<float>{1, 2, 3}));
        QVERIFY(g.values[g.outputs[0]].isGraphOutput);
        // Unnamed nodes get invented names.
        QCOMPARE(g.nodes[0].name, std::string("Add_0"));
        QCOMPARE(g.nodes[1].name, std::string("Relu_1"));
    }

    void foldsPyTorchStyleShapeArithmetic()
    {
        // x.view(x.size(0), -1) as torch.onnx.export writes it: Shape -> Gather -> Unsqueeze -> Concat -> Reshape.
        const std::string text = R"(<
  ir_version: 8,
  opset_import: ["" : 13]
>
g (float[2, 3, 4] x) => (float[2, 12] y)
{
  s = Shape(x)
  i0 = Constant<value = int64 {0}>()
  n = Gather<axis = 0>(s, i0)
  ax = Constant<value = int64[1] {0}>()
  nu = Unsqueeze(n, ax)
  m1 = Constant<value = int64[1] {-1}>()
  shape = Concat<axis = 0>(nu, m1)
  y = Reshape(x, shape)
}
)";
        const ModelGraph g = loadModelFromText(text, "view.onnxtxt");
        QCOMPARE(g.nodes.size(), size_t{1});
        QCOMPARE(g.nodes[0].opType, std::string("Reshape"));
        const Value& shape = g.values[g.nodes[0].inputs[1]];
        QVERIFY(shape.constant.has_value());
        QCOMPARE(shape.constant->i, (std::vector<int64_t>{2, -1}));
        QCOMPARE(g.values[g.outputs[0]].shape, (Shape{2, 12}));
    }

    void dropoutBecomesIdentity()
    {
        const std::string text = R"(<
  ir_version: 8,
  opset_import: ["" : 13]
>
g (float[2, 3] x) => (float[2, 3] y)
{
  y = Dropout(x)
}
)";
        const ModelGraph g = loadModelFromText(text, "dropout.onnxtxt");
        QCOMPARE(g.nodes.size(), size_t{1});
        QCOMPARE(g.nodes[0].opType, std::string("Identity"));
    }

    void unsupportedOpNamesOpAndNode()
    {
        const std::string text = R"(<
  ir_version: 8,
  opset_import: ["" : 13]
>
g (float[2, 3] x) => (float[2, 3] y)
{
  y = Det(x)
}
)";
        try {
            loadModelFromText(text, "hs.onnxtxt");
            QFAIL("expected UnsupportedError");
        } catch (const UnsupportedError& e) {
            QCOMPARE(e.opType(), std::string("Det"));
            QCOMPARE(e.nodeName(), std::string("Det_0"));
            const std::string msg = e.what();
            QVERIFY2(msg.find("Det 'Det_0'") != std::string::npos, msg.c_str());
            QVERIFY2(msg.find("hs.onnxtxt") != std::string::npos, msg.c_str());
        }
    }

    void unsupportedAttributeNamesIt()
    {
        const std::string text = R"(<
  ir_version: 8,
  opset_import: ["" : 13]
>
g (float[1, 1, 4, 4] x) => (float[1, 1, 2, 2] y, int64[1, 1, 2, 2] i)
{
  y, i = MaxPool<kernel_shape = [2, 2], strides = [2, 2]>(x)
}
)";
        const std::string msg = errorOf([&] { loadModelFromText(text, "mp.onnxtxt"); });
        QVERIFY2(msg.find("MaxPool 'MaxPool_0'") != std::string::npos, msg.c_str());
        QVERIFY2(msg.find("Indices") != std::string::npos, msg.c_str());

        const std::string cast = R"(<
  ir_version: 8,
  opset_import: ["" : 13]
>
g (float[2] x) => (string[2] y)
{
  y = Cast<to = 8>(x)
}
)";
        try {
            loadModelFromText(cast, "cast.onnxtxt");
            QFAIL("expected UnsupportedError");
        } catch (const UnsupportedError& e) {
            QCOMPARE(e.attribute(), std::string("to"));
            QVERIFY2(std::string(e.what()).find("Cast 'Cast_0'") != std::string::npos, e.what());
        }
    }

    void unknownAttributeOnSupportedOpIsNamed()
    {
        const std::string text = R"(<
  ir_version: 8,
  opset_import: ["" : 13]
>
g (float[1, 1, 4, 4] x, float[1, 1, 3, 3] w) => (float[1, 1, 2, 2] y)
{
  y = Conv<kernel_shape = [3, 3], frobnicate = 1>(x, w)
}
)";
        try {
            loadModelFromText(text, "conv.onnxtxt");
            QFAIL("expected UnsupportedError");
        } catch (const UnsupportedError& e) {
            QCOMPARE(e.attribute(), std::string("frobnicate"));
            QCOMPARE(e.nodeName(), std::string("Conv_0"));
            QVERIFY2(std::string(e.what()).find("conv.onnxtxt: error: Conv 'Conv_0': attribute 'frobnicate' is not supported") == 0, e.what());
        }
    }

    // ONNX's shape inference copies PRelu's input shape and never checks the slope; a [3] slope on [2, 3, 4]
    // compiled into a kernel that gave NaN. Opset 6's per-channel [C] slope is read as [C, 1] (opset6.cpp).
    void preluSlopeMustBroadcast()
    {
        const std::string bad = R"(<
  ir_version: 8,
  opset_import: ["" : 13]
>
g (float[2, 3, 4] x, float[3] s) => (float[2, 3, 4] y)
{
  y = PRelu (x, s)
}
)";
        const std::string msg = errorOf([&] { loadModelFromText(bad, "prelu.onnxtxt"); });
        QVERIFY2(msg.find("PRelu 'PRelu_0'") != std::string::npos && msg.find("does not broadcast") != std::string::npos, msg.c_str());
        const std::string legacy = R"(<
  ir_version: 3,
  opset_import: ["" : 6]
>
g (float[2, 3, 4] x, float[3] s) => (float[2, 3, 4] y)
{
  y = PRelu (x, s)
}
)";
        const ModelGraph g = loadModelFromText(legacy, "prelu6.onnxtxt");
        const auto prelu = std::find_if(g.nodes.begin(), g.nodes.end(), [](const Node& n) { return n.opType == "PRelu"; });
        QVERIFY(prelu != g.nodes.end());
        QCOMPARE(g.values[static_cast<size_t>(prelu->inputs.at(1))].shape, (Shape{3, 1}));
    }

    void trainingModeDropoutIsRefused()
    {
        const std::string text = R"(<
  ir_version: 8,
  opset_import: ["" : 13]
>
g (float[2, 3] x) => (float[2, 3] y)
{
  r = Constant<value = float {0.5}>()
  t = Constant<value = bool {1}>()
  y = Dropout(x, r, t)
}
)";
        try {
            loadModelFromText(text, "train.onnxtxt");
            QFAIL("expected UnsupportedError");
        } catch (const UnsupportedError& e) {
            QCOMPARE(e.opType(), std::string("Dropout"));
            QCOMPARE(e.attribute(), std::string("training_mode"));
        }
    }

    void syntaxErrorHasLineAndColumn()
    {
        const std::string text = "<\n  ir_version: 8,\n  opset_import: [\"\" : 13]\n>\ng (float[2] x) => (float[2] y)\n{\n  y = Relu(x\n}\n";
        try {
            loadModelFromText(text, "bad.onnxtxt");
            QFAIL("expected InputError");
        } catch (const InputError& e) {
            QVERIFY2(e.diagnostic().location.line >= 7, e.what());
            QVERIFY2(e.diagnostic().location.column > 0, e.what());
            QVERIFY2(std::string(e.what()).find("bad.onnxtxt:") == 0, e.what());
        }
    }

    void truncatedProtobufIsClearError()
    {
        QTemporaryDir dir;
        const QString good = dir.filePath(QStringLiteral("good.onnx"));
        writeBinaryModel(good, kAddModel, [](onnx::ModelProto&) {});
        QCOMPARE(loadModel(good.toStdString()).nodes.size(), size_t{1});   // the whole file loads
        QFile f(good);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        const QString cut = dir.filePath(QStringLiteral("cut.onnx"));
        QFile out(cut);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(bytes.left(bytes.size() - 7));
        out.close();
        const std::string msg = errorOf([&] { loadModel(cut.toStdString()); });
        QVERIFY2(!msg.empty(), "a truncated model must not load");
        QVERIFY2(msg.find("cut.onnx") != std::string::npos, msg.c_str());
        QVERIFY2(msg.find("truncated") != std::string::npos, msg.c_str());
    }

    void corruptedModelsNeverCrash()
    {
        // Truncations and byte flips of a real exported model: each one loads (and then runs) or is an
        // InputError; any other exception or a crash fails the test. Deterministic seed.
        const QString src = spyglass::test::dataPath(QStringLiteral("model/pytorch/encoder_layer_opset13.onnx"));
        QFile f(src);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray original = f.readAll();
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("m.onnx")).toStdString();
        std::mt19937 rng(12345);
        int loaded = 0, rejected = 0;
        for (int iter = 0; iter < 300; ++iter) {
            QByteArray bytes = original;
            if (iter % 3 == 0)
                bytes.truncate(static_cast<int>(rng() % static_cast<unsigned>(bytes.size())));
            else
                for (int k = 0, n = 1 + static_cast<int>(rng() % 4); k < n; ++k)
                    bytes[static_cast<int>(rng() % static_cast<unsigned>(bytes.size()))] = static_cast<char>(rng());
            {
                std::ofstream out(path, std::ios::binary);
                out.write(bytes.constData(), bytes.size());
            }
            try {
                const ModelGraph g = loadModel(path);
                std::vector<HostTensor> inputs;
                for (int v : g.inputs)
                    inputs.push_back(makeTensor(g.values[v].dtype, g.values[v].shape));
                runReference(g, inputs);
                ++loaded;
            } catch (const InputError&) {
                ++rejected;
            } catch (const std::exception& e) {
                QFAIL(qPrintable(QStringLiteral("mutation %1: not an InputError: %2").arg(iter).arg(QString::fromStdString(e.what()))));
            }
        }
        QVERIFY(rejected > 100);   // most mutations break the protobuf or the checker
        qInfo() << "corrupted models:" << loaded << "still loaded and ran," << rejected << "rejected with InputError";
    }

    void externalDataOutsideFolderRefused_data()
    {
        QTest::addColumn<QString>("location");
        QTest::addColumn<QString>("expect");
        QTest::newRow("dotdot") << QStringLiteral("../w.bin") << QStringLiteral("'..' is not allowed");
        QTest::newRow("absolute") << QStringLiteral("/etc/passwd") << QStringLiteral("absolute paths are not allowed");
        QTest::newRow("nested dotdot") << QStringLiteral("sub/../../w.bin") << QStringLiteral("'..' is not allowed");
    }
    void externalDataOutsideFolderRefused()
    {
        QFETCH(QString, location);
        QFETCH(QString, expect);
        QTemporaryDir dir;
        QDir().mkpath(dir.filePath(QStringLiteral("model")));
        const float w[2] = {1.5f, -2.0f};
        {   // the file exists outside the model's folder: it must still be refused
            std::ofstream out(dir.filePath(QStringLiteral("w.bin")).toStdString(), std::ios::binary);
            out.write(reinterpret_cast<const char*>(w), sizeof w);
        }
        const QString path = dir.filePath(QStringLiteral("model/ext.onnx"));
        writeBinaryModel(path, kAddModel, [&](onnx::ModelProto& m) { makeExternal(m, location.toStdString()); });
        const std::string msg = errorOf([&] { loadModel(path.toStdString()); });
        QVERIFY2(msg.find(expect.toStdString()) != std::string::npos, msg.c_str());
    }

    void externalDataInsideFolderLoads()
    {
        QTemporaryDir dir;
        const float w[2] = {1.5f, -2.0f};
        {
            std::ofstream out(dir.filePath(QStringLiteral("w.bin")).toStdString(), std::ios::binary);
            out.write(reinterpret_cast<const char*>(w), sizeof w);
        }
        const QString path = dir.filePath(QStringLiteral("ext.onnx"));
        writeBinaryModel(path, kAddModel, [&](onnx::ModelProto& m) { makeExternal(m, "w.bin"); });
        const ModelGraph g = loadModel(path.toStdString());
        const Value& wv = g.values[g.findValue("w")];
        QVERIFY(wv.constant.has_value());
        QCOMPARE(wv.constant->f, (std::vector<float>{1.5f, -2.0f}));
        // and the interpreter uses it
        HostTensor x = makeTensor(DType::Float32, {2});
        x.f = {1.0f, 1.0f};
        QCOMPARE(runReference(g, {x}).outputs.at(0).f, (std::vector<float>{2.5f, -1.0f}));
    }

    void dynamicShapeNamesTheInput()
    {
        const std::string text = R"(<
  ir_version: 8,
  opset_import: ["" : 13]
>
g (float[N, 3] x) => (float[N, 3] y)
{
  y = Relu(x)
}
)";
        const std::string msg = errorOf([&] { loadModelFromText(text, "dyn.onnxtxt"); });
        QVERIFY2(msg.find("graph input 'x'") != std::string::npos, msg.c_str());
        QVERIFY2(msg.find("'N'") != std::string::npos, msg.c_str());
        QVERIFY2(msg.find("--dim N=1") != std::string::npos, msg.c_str());
        // Giving the symbolic dimension a value makes the graph static.
        LoadOptions options;
        options.dimValues["N"] = 5;
        const ModelGraph g = loadModelFromText(text, "dyn.onnxtxt", {}, options);
        QCOMPARE(g.values[g.outputs[0]].shape, (Shape{5, 3}));
        options.dimValues["M"] = 2;
        const std::string unknown = errorOf([&] { loadModelFromText(text, "dyn.onnxtxt", {}, options); });
        QVERIFY2(unknown.find("no graph input has a symbolic dimension named 'M'") != std::string::npos, unknown.c_str());
    }

    void opsetNewerThanOnnxLibraryIsRefused()
    {
        const std::string text = "<\n  ir_version: 8,\n  opset_import: [\"\" : 99]\n>\ng (float[2] x) => (float[2] y)\n{\n  y = Relu(x)\n}\n";
        const std::string msg = errorOf([&] { loadModelFromText(text, "new.onnxtxt"); });
        QVERIFY2(msg.find("opset 99 is newer") != std::string::npos, msg.c_str());
    }

    void opSupportTableIsConsistent()
    {
        for (const OpSupport& op : supportedOps()) {
            QVERIFY(findOpSupport(op.opType) == &op);
            QCOMPARE(isComputeOp(op.opType), op.role == OpSupport::Role::Compute);
        }
        QVERIFY(isComputeOp("MatMul"));
        QVERIFY(!isComputeOp("Shape"));
        QVERIFY(findOpSupport("NoSuchOp") == nullptr);
    }

    void tensorFileRoundTrip_data()
    {
        QTest::addColumn<int>("dtype");
        QTest::newRow("float32") << static_cast<int>(DType::Float32);
        QTest::newRow("float16") << static_cast<int>(DType::Float16);
        QTest::newRow("int64") << static_cast<int>(DType::Int64);
        QTest::newRow("bool") << static_cast<int>(DType::Bool);
    }
    void tensorFileRoundTrip()
    {
        QFETCH(int, dtype);
        QTemporaryDir dir;
        HostTensor t = makeTensor(static_cast<DType>(dtype), {2, 3});
        for (int k = 0; k < 6; ++k) {
            if (t.isFloating())
                t.f[k] = 0.5f * static_cast<float>(k) - 1.0f;
            else
                t.i[k] = t.dtype == DType::Bool ? k % 2 : k * 7 - 3;
        }
        const std::string path = dir.filePath(QStringLiteral("t.pb")).toStdString();
        writeTensorFile(path, t, "t");
        std::string name;
        const HostTensor back = readTensorFile(path, &name);
        QCOMPARE(name, std::string("t"));
        QCOMPARE(back.dtype, t.dtype);
        QCOMPARE(back.shape, t.shape);
        QCOMPARE(back.f, t.f);
        QCOMPARE(back.i, t.i);
    }
};

QTEST_GUILESS_MAIN(TestModelLoader)
#include "tst_model_loader.moc"
