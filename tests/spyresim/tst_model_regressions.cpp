// Issue 14's correctness bugs, each through every layer: the reference interpreter against a value computed here
// by hand, then the Spyre compiler's final IR (ir_evaluator.h) and the simulator against the reference.
//  - Softmax/LogSoftmax before opset 13 flatten the input to 2-D at `axis` (any axis, negative ones too);
//  - a MatMul with N = 1 ([96,288] x [288,1], a Conv with a 1x1 output) simulates;
//  - Dropout in training mode with ratio 0 is an identity;
//  - grouped and depthwise Conv (no ONNX node test has group > 1), checked against a hand computation;
//  - opset 18 (one past Debian's ONNX library) loads by rewriting the ops whose signature changed.
#include "common/testutil.h"
#include "core/common/diagnostics.h"
#include "core/common/job_control.h"
#include "core/model/model_loader.h"
#include "core/model/reference_interpreter.h"
#include "core/model/test_data.h"
#include "core/spyre/ir_evaluator.h"
#include "core/spyre/spyre_pipeline.h"
#include "core/spyresim/spyre_simulator.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>

using namespace spyglass;

namespace {

spyre::SpyreTarget target() { return spyre::SpyreTarget::load(test::sourcePath(QStringLiteral("resources/targets/spyre.json")).toStdString()); }

model::HostTensor randomTensor(const model::Value& v, unsigned seed, float lo = -2.0f, float hi = 2.0f)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(lo, hi);
    model::HostTensor t;
    t.dtype = v.dtype;
    t.shape = v.shape;
    t.f.resize(static_cast<size_t>(t.size()));
    for (float& x : t.f)
        x = u(rng);
    return t;
}

// Compiles `g`, runs the final IR and the simulator on `inputs`, and checks both against the reference's outputs
// (returned in `ref`). Returns what went wrong, "" when nothing did.
std::string checkAllLayers(const model::ModelGraph& g, const std::vector<model::HostTensor>& inputs, std::vector<model::HostTensor>& ref)
try {
    ref = model::runReference(g, inputs).outputs;
    JobControl job;
    spyre::CompileOptions o;
    o.keepIrText = false;
    const auto snaps = spyre::SpyrePipeline::run(g, target(), o, job);
    const spyre::Program& p = *snaps.back().ir;
    std::map<std::string, model::HostTensor> named;
    for (size_t k = 0; k < g.inputs.size(); ++k)
        named[g.values[g.inputs[k]].name] = inputs[k];
    const auto ir = spyre::evaluateProgram(p, named);
    spyresim::SimOptions so;
    so.hostThreads = 2;
    so.trace = false;
    const spyresim::SimResult sim = spyresim::simulate(*p.bundle, target(), named, so);
    for (size_t k = 0; k < g.outputs.size(); ++k) {
        const std::string& name = g.values[g.outputs[k]].name;
        const auto a = model::compareTensors(ir.at(name), ref[k], 1e-4, 1e-5);
        if (!a.ok)
            return "IR evaluator: " + a.summary(name);
        const auto b = model::compareTensors(sim.outputs.at(name), ref[k], spyresim::kDeviceRtol, spyresim::deviceAtol(ref[k]));
        if (!b.ok)
            return "simulator: " + b.summary(name);
    }
    return {};
} catch (const std::exception& e) {
    return e.what();
}

std::string softmaxModel(const char* op, int opset, int axis)
{
    return "<\n  ir_version: 7,\n  opset_import: [\"\" : " + std::to_string(opset) +
           "]\n>\ng (float[2, 3, 40] x) => (float[2, 3, 40] y)\n{\n  y = " + op + "<axis = " + std::to_string(axis) + ">(x)\n}\n";
}

}  // namespace

class TestModelRegressions : public QObject {
    Q_OBJECT

private slots:
    void legacySoftmaxFlattensAtAxis_data()
    {
        QTest::addColumn<QString>("op");
        QTest::addColumn<int>("opset");
        QTest::addColumn<int>("axis");
        QTest::addColumn<int>("from");   // the first dim of the normalised block (opset < 13: to the last dim)
        QTest::addColumn<int>("to");
        for (const char* op : {"Softmax", "LogSoftmax"}) {
            for (int axis : {0, 1, 2, -1, -2, -3})
                QTest::addRow("%s opset 11 axis %d", op, axis) << QString::fromLatin1(op) << 11 << axis << (axis < 0 ? axis + 3 : axis) << 3;
            QTest::addRow("%s opset 13 axis 1", op) << QString::fromLatin1(op) << 13 << 1 << 1 << 2;
            QTest::addRow("%s opset 13 axis -2", op) << QString::fromLatin1(op) << 13 << -2 << 1 << 2;
        }
    }
    void legacySoftmaxFlattensAtAxis()
    {
        QFETCH(QString, op);
        QFETCH(int, opset);
        QFETCH(int, axis);
        QFETCH(int, from);
        QFETCH(int, to);
        const model::ModelGraph g = model::loadModelFromText(softmaxModel(qPrintable(op), opset, axis), "softmax.onnxtxt");
        const model::HostTensor x = randomTensor(g.values[g.inputs[0]], 7);
        // By hand: normalise over dims [from, to) of [2, 3, 40], for each position of the others.
        int64_t outer = 1, block = 1, inner = 1;
        for (int d = 0; d < 3; ++d)
            (d < from ? outer : d < to ? block : inner) *= x.shape[d];
        std::vector<double> expected(240);
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t i = 0; i < inner; ++i) {
                auto at = [&](int64_t m) { return (o * block + m) * inner + i; };
                double mx = -INFINITY, sum = 0;
                for (int64_t m = 0; m < block; ++m)
                    mx = std::max(mx, static_cast<double>(x.f[at(m)]));
                for (int64_t m = 0; m < block; ++m)
                    sum += std::exp(x.f[at(m)] - mx);
                for (int64_t m = 0; m < block; ++m)
                    expected[at(m)] = op == QLatin1String("Softmax") ? std::exp(x.f[at(m)] - mx) / sum : x.f[at(m)] - mx - std::log(sum);
            }
        std::vector<model::HostTensor> ref;
        const std::string problem = checkAllLayers(g, {x}, ref);
        QVERIFY2(!ref.empty(), problem.c_str());
        for (int64_t k = 0; k < 240; ++k)
            QVERIFY2(std::fabs(ref[0].f[k] - expected[k]) <= 1e-5 + 1e-5 * std::fabs(expected[k]),
                     qPrintable(QStringLiteral("element %1: reference %2, by hand %3").arg(k).arg(ref[0].f[k]).arg(expected[k])));
        QVERIFY2(problem.empty(), problem.c_str());
    }

    void matmulWithOneColumnSimulates()
    {
        const model::ModelGraph g = model::loadModelFromText(R"(<
  ir_version: 7,
  opset_import: ["" : 13]
>
g (float[96, 288] a, float[288, 1] b) => (float[96, 1] y)
{
  y = MatMul(a, b)
}
)", "matvec.onnxtxt");
        std::vector<model::HostTensor> ref;
        const std::string problem = checkAllLayers(g, {randomTensor(g.values[g.inputs[0]], 1), randomTensor(g.values[g.inputs[1]], 2)}, ref);
        QVERIFY2(problem.empty(), problem.c_str());
        QCOMPARE(ref[0].shape, model::Shape({96, 1}));
    }

    void convWithOnePixelOutputSimulates()
    {
        // A 3x3 conv over a 3x3 input: the im2col matmul has N = 1 (one output position).
        const model::ModelGraph g = model::loadModelFromText(R"(<
  ir_version: 7,
  opset_import: ["" : 13]
>
g (float[2, 32, 3, 3] x, float[16, 32, 3, 3] w, float[16] b) => (float[2, 16, 1, 1] y)
{
  y = Conv(x, w, b)
}
)", "conv1x1out.onnxtxt");
        std::vector<model::HostTensor> in;
        for (size_t k = 0; k < g.inputs.size(); ++k)
            in.push_back(randomTensor(g.values[g.inputs[k]], 10 + static_cast<unsigned>(k), -0.5f, 0.5f));
        std::vector<model::HostTensor> ref;
        const std::string problem = checkAllLayers(g, in, ref);
        QVERIFY2(problem.empty(), problem.c_str());
    }

    void groupedAndDepthwiseConvMatchByHand()
    {
        // A MobileNetV3-style block: depthwise 3x3 (group = C), HardSwish, grouped 1x1 (group 2), with biases.
        const model::ModelGraph g = model::loadModelFromText(R"(<
  ir_version: 7,
  opset_import: ["" : 14]
>
g (float[2, 8, 6, 6] x, float[8, 1, 3, 3] wd, float[8] bd, float[6, 4, 1, 1] wg) => (float[2, 6, 6, 6] y, float[2, 8, 6, 6] d)
{
  d = Conv<group = 8, pads = [1, 1, 1, 1]>(x, wd, bd)
  h = HardSwish(d)
  y = Conv<group = 2>(h, wg)
}
)", "depthwise.onnxtxt");
        std::vector<model::HostTensor> in;
        for (size_t k = 0; k < g.inputs.size(); ++k)
            in.push_back(randomTensor(g.values[g.inputs[k]], 20 + static_cast<unsigned>(k), -1.0f, 1.0f));
        std::vector<model::HostTensor> ref;
        const std::string problem = checkAllLayers(g, in, ref);
        QVERIFY2(!ref.empty(), problem.c_str());
        const auto& x = in[0].f;
        const auto& wd = in[1].f;
        const auto& bd = in[2].f;
        const auto& wg = in[3].f;
        std::vector<double> d(2 * 8 * 36), h(d.size());
        for (int n = 0; n < 2; ++n)
            for (int c = 0; c < 8; ++c)
                for (int i = 0; i < 6; ++i)
                    for (int j = 0; j < 6; ++j) {
                        double acc = bd[c];
                        for (int a = 0; a < 3; ++a)
                            for (int b = 0; b < 3; ++b) {
                                const int yi = i + a - 1, xj = j + b - 1;
                                if (yi >= 0 && yi < 6 && xj >= 0 && xj < 6)
                                    acc += static_cast<double>(x[((n * 8 + c) * 6 + yi) * 6 + xj]) * wd[c * 9 + a * 3 + b];
                            }
                        const int at = ((n * 8 + c) * 6 + i) * 6 + j;
                        d[at] = acc;
                        h[at] = acc * std::clamp(acc / 6 + 0.5, 0.0, 1.0);
                    }
        for (int n = 0; n < 2; ++n)
            for (int m = 0; m < 6; ++m)
                for (int p = 0; p < 36; ++p) {
                    const int group = m / 3;   // 3 output channels per group, over input channels 4 * group ...
                    double acc = 0;
                    for (int c = 0; c < 4; ++c)
                        acc += h[(n * 8 + group * 4 + c) * 36 + p] * wg[m * 4 + c];
                    const float got = ref[0].f[(n * 6 + m) * 36 + p];
                    QVERIFY2(std::fabs(got - acc) <= 1e-4, qPrintable(QStringLiteral("y[%1,%2,%3]: %4, by hand %5").arg(n).arg(m).arg(p).arg(got).arg(acc)));
                }
        for (size_t k = 0; k < d.size(); ++k)
            QVERIFY(std::fabs(ref[1].f[k] - d[k]) <= 1e-5);
        QVERIFY2(problem.empty(), problem.c_str());
    }

    void convTransposeWithConstantGroupedWeights()
    {
        // A UNet-style 2x upsampling: stride 2, pads 1, output_padding 1, group 2, weights a constant (the node tests
        // feed W at run time, so this is the path that flips and regroups the weight at compile time).
        std::string w;
        for (int k = 0; k < 4 * 3 * 3 * 3; ++k)
            w += (k ? ", " : "") + std::to_string(((k * 37) % 17 - 8) / 16.0);
        const std::string text = R"(<
  ir_version: 7,
  opset_import: ["" : 13]
>
g (float[2, 4, 5, 6] x, float[6] b) => (float[2, 6, 10, 12] y)
{
  w = Constant<value = float[4, 3, 3, 3] {)" + w + R"(}>()
  y = ConvTranspose<group = 2, strides = [2, 2], pads = [1, 1, 1, 1], output_padding = [1, 1]>(x, w, b)
}
)";
        const model::ModelGraph g = model::loadModelFromText(text, "convtranspose.onnxtxt");
        std::vector<model::HostTensor> in;
        for (size_t k = 0; k < g.inputs.size(); ++k)
            in.push_back(randomTensor(g.values[g.inputs[k]], 30 + static_cast<unsigned>(k), -1.0f, 1.0f));
        std::vector<model::HostTensor> ref;
        const std::string problem = checkAllLayers(g, in, ref);
        QVERIFY2(problem.empty(), problem.c_str());
        // One output by hand: y[1, 4, 3, 7] (group 1: input channels 2, 3; its output channel 4 - 3 = 1).
        double acc = in[1].f[4];
        for (int c = 2; c < 4; ++c)
            for (int i = 0; i < 5; ++i)
                for (int j = 0; j < 6; ++j)
                    for (int a = 0; a < 3; ++a)
                        for (int bb = 0; bb < 3; ++bb)
                            if (i * 2 + a - 1 == 3 && j * 2 + bb - 1 == 7)
                                acc += static_cast<double>(in[0].f[((1 * 4 + c) * 5 + i) * 6 + j]) * (((((c * 3 + 1) * 3 + a) * 3 + bb) * 37) % 17 - 8) / 16.0;
        QVERIFY2(std::fabs(ref[0].f[((1 * 6 + 4) * 10 + 3) * 12 + 7] - acc) < 1e-5, qPrintable(QString::number(acc)));
    }

    void einsumAttentionPatterns()
    {
        // The two einsums of attention code, against the same computation written with MatMul and Transpose.
        const model::ModelGraph g = model::loadModelFromText(R"(<
  ir_version: 7,
  opset_import: ["" : 13]
>
g (float[2, 3, 5, 8] q, float[2, 3, 7, 8] k, float[2, 3, 7, 8] v) => (float[2, 3, 5, 8] o, float[2, 3, 5, 8] o2, float[2, 3, 5] s)
{
  scores = Einsum<equation = "bhid,bhjd->bhij">(q, k)
  o = Einsum<equation = "bhij,bhjd->bhid">(scores, v)
  kt = Transpose<perm = [0, 1, 3, 2]>(k)
  scores2 = MatMul(q, kt)
  o2 = MatMul(scores2, v)
  s = Einsum<equation = "...id->...i">(q)
}
)", "einsum.onnxtxt");
        std::vector<model::HostTensor> in;
        for (size_t k = 0; k < g.inputs.size(); ++k)
            in.push_back(randomTensor(g.values[g.inputs[k]], 40 + static_cast<unsigned>(k), -1.0f, 1.0f));
        std::vector<model::HostTensor> ref;
        const std::string problem = checkAllLayers(g, in, ref);
        QVERIFY2(ref.size() == 3, problem.c_str());
        const auto same = model::compareTensors(ref[0], ref[1], 1e-5, 1e-5);
        QVERIFY2(same.ok, same.summary("einsum vs matmul").c_str());
        for (int b = 0; b < 2; ++b)
            for (int h = 0; h < 3; ++h)
                for (int i = 0; i < 5; ++i) {
                    double sum = 0;
                    for (int d = 0; d < 8; ++d)
                        sum += in[0].f[((b * 3 + h) * 5 + i) * 8 + d];
                    QVERIFY(std::fabs(ref[2].f[(b * 3 + h) * 5 + i] - sum) < 1e-5);
                }
        QVERIFY2(problem.empty(), problem.c_str());
    }

    void recurrentNetsUnrollOnEveryLayer_data()
    {
        // The forms the ONNX node tests leave out: both directions, reverse, initial states, peepholes, clip, GRU's
        // linear_before_reset, batch-first Y_c. The spyre decomposition is checked against the reference's own loop.
        QTest::addColumn<QString>("graph");
        QTest::newRow("LSTM bidirectional, initial states, peepholes, clip") << QStringLiteral(R"(
g (float[5, 2, 3] x, float[2, 16, 3] w, float[2, 16, 4] r, float[2, 32] b, float[2, 2, 4] h0, float[2, 2, 4] c0, float[2, 12] p) => (float[5, 2, 2, 4] y, float[2, 2, 4] yh, float[2, 2, 4] yc)
{
  y, yh, yc = LSTM<hidden_size = 4, direction = "bidirectional", clip = 0.9>(x, w, r, b, , h0, c0, p)
})");
        QTest::newRow("LSTM batch-first") << QStringLiteral(R"(
g (float[2, 4, 3] x, float[1, 20, 3] w, float[1, 20, 5] r) => (float[2, 4, 1, 5] y, float[2, 1, 5] yh, float[2, 1, 5] yc)
{
  y, yh, yc = LSTM<hidden_size = 5, layout = 1>(x, w, r)
})");
        QTest::newRow("GRU linear_before_reset, bias, initial h, reverse") << QStringLiteral(R"(
g (float[4, 3, 2] x, float[1, 9, 2] w, float[1, 9, 3] r, float[1, 18] b, float[1, 3, 3] h0) => (float[4, 1, 3, 3] y, float[1, 3, 3] yh)
{
  y, yh = GRU<hidden_size = 3, linear_before_reset = 1, direction = "reverse">(x, w, r, b, , h0)
})");
        QTest::newRow("GRU bidirectional, bias, initial h") << QStringLiteral(R"(
g (float[3, 2, 2] x, float[2, 12, 2] w, float[2, 12, 4] r, float[2, 24] b, float[2, 2, 4] h0) => (float[3, 2, 2, 4] y, float[2, 2, 4] yh)
{
  y, yh = GRU<hidden_size = 4, direction = "bidirectional">(x, w, r, b, , h0)
})");
        // 64 steps with weights at PyTorch's init scale (|w| <= 1 / sqrt(hidden)): the unrolled chain stays in tolerance.
        QTest::newRow("LSTM 64 steps") << QStringLiteral(R"(
g (float[64, 2, 8] x, float[1, 64, 8] w, float[1, 64, 16] r, float[1, 128] b) => (float[64, 1, 2, 16] y, float[1, 2, 16] yh, float[1, 2, 16] yc)
{
  y, yh, yc = LSTM<hidden_size = 16>(x, w, r, b)
})");
        QTest::newRow("RNN reverse, Relu, initial h") << QStringLiteral(R"(
g (float[4, 2, 3] x, float[1, 5, 3] w, float[1, 5, 5] r, float[1, 10] b, float[1, 2, 5] h0) => (float[4, 1, 2, 5] y, float[1, 2, 5] yh)
{
  y, yh = RNN<hidden_size = 5, direction = "reverse", activations = ["Relu"]>(x, w, r, b, , h0)
})");
    }
    void recurrentNetsUnrollOnEveryLayer()
    {
        QFETCH(QString, graph);
        const model::ModelGraph g = model::loadModelFromText("<\n  ir_version: 7,\n  opset_import: [\"\" : 14]\n>" + graph.toStdString() + "\n",
                                                             "recurrent.onnxtxt");
        std::vector<model::HostTensor> in;
        const bool long64 = g.values[g.inputs[0]].shape[0] == 64;
        for (size_t k = 0; k < g.inputs.size(); ++k) {
            const float scale = long64 && k > 0 ? 0.25f : 0.7f;   // 1 / sqrt(16) for the long one's parameters
            in.push_back(randomTensor(g.values[g.inputs[k]], 50 + static_cast<unsigned>(k), -scale, scale));
        }
        std::vector<model::HostTensor> ref;
        const std::string problem = checkAllLayers(g, in, ref);
        QVERIFY2(problem.empty(), problem.c_str());
    }

    void ifWithAFoldedConditionIsInlined()
    {
        // The condition comes from shape arithmetic (as exporters write "if x.shape[1] == 4"); only the taken
        // branch's ops reach the graph. A data-dependent condition is refused naming the If.
        const std::string text = R"(<
  ir_version: 8,
  opset_import: ["" : 13]
>
g (float[2, 4] x) => (float[2, 4] y)
{
  s = Shape(x)
  i = Constant<value = int64 {1}>()
  d = Gather(s, i)
  four = Constant<value = int64 {4}>()
  c = Equal(d, four)
  y = If(c) <then_branch = then_g () => (float[2, 4] t) { t = Relu(x) },
             else_branch = else_g () => (float[2, 4] e) { e = Neg(x) }>
}
)";
        const model::ModelGraph g = model::loadModelFromText(text, "if.onnxtxt");
        for (const model::Node& n : g.nodes)
            QVERIFY2(n.opType != "If" && n.opType != "Neg", n.opType.c_str());
        const model::HostTensor x = randomTensor(g.values[g.inputs[0]], 60);
        std::vector<model::HostTensor> ref;
        const std::string problem = checkAllLayers(g, {x}, ref);
        QVERIFY2(problem.empty(), problem.c_str());
        for (int64_t k = 0; k < x.size(); ++k)
            QCOMPARE(ref[0].f[k], std::max(0.0f, x.f[k]));
        const std::string dynamic = R"(<
  ir_version: 8,
  opset_import: ["" : 13]
>
g (float[2, 4] x, bool c) => (float[2, 4] y)
{
  y = If(c) <then_branch = then_g () => (float[2, 4] t) { t = Relu(x) },
             else_branch = else_g () => (float[2, 4] e) { e = Neg(x) }>
}
)";
        try {
            model::loadModelFromText(dynamic, "if_dynamic.onnxtxt");
            QFAIL("expected the data-dependent If to be refused");
        } catch (const InputError& e) {
            const std::string msg = e.what();
            QVERIFY2(msg.find("If 'If_0'") != std::string::npos && msg.find("'c' is not constant") != std::string::npos, msg.c_str());
        }
    }

    void classTokenShapeChainFolds()
    {
        // PyTorch's export of cls_token.expand(B, -1, -1) then torch.cat((cls, x), 1), as in vision transformers:
        // ConstantOfShape -> Mul -> Equal -> Where -> Expand must fold, leaving one Concat of the token and x.
        const model::ModelGraph g = model::loadModelFromText(R"(<
  ir_version: 8,
  opset_import: ["" : 13]
>
g (float[2, 4, 8] x) => (float[2, 5, 8] y)
{
  cls = Constant<value = float[1, 1, 8] {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8}>()
  shape_x = Shape(x)
  zero = Constant<value = int64[1] {0}>()
  batch = Gather(shape_x, zero)
  minus_one = Constant<value = int64[2] {-1, -1}>()
  wanted = Concat<axis = 0>(batch, minus_one)
  three = Constant<value = int64[1] {3}>()
  ones = ConstantOfShape<value = int64[1] {1}>(three)
  neg = Constant<value = int64 {-1}>()
  minus_ones = Mul(ones, neg)
  is_keep = Equal(wanted, minus_ones)
  target = Where(is_keep, ones, wanted)
  tokens = Expand(cls, target)
  y = Concat<axis = 1>(tokens, x)
}
)", "cls_token.onnxtxt");
        for (const model::Node& n : g.nodes)
            QVERIFY2(n.opType == "Concat" || n.opType == "Expand", n.opType.c_str());
        const model::HostTensor x = randomTensor(g.values[g.inputs[0]], 70);
        std::vector<model::HostTensor> ref;
        const std::string problem = checkAllLayers(g, {x}, ref);
        QVERIFY2(problem.empty(), problem.c_str());
        QCOMPARE(ref[0].f[(1 * 5 + 0) * 8 + 3], 0.4f);
        QCOMPARE(ref[0].f[(1 * 5 + 2) * 8 + 5], x.f[(1 * 4 + 1) * 8 + 5]);
    }

    void opset18LoadsByRewriting()
    {
        // Opset 18 forms: reduction axes as an input, noop_with_empty_axes, Split's num_outputs (uneven: 5 -> 3 + 2).
        const model::ModelGraph g = model::loadModelFromText(R"(<
  ir_version: 8,
  opset_import: ["" : 18]
>
g (float[4, 5, 6] x) => (float[4, 6] mean, float[4, 5, 6] same, float[4, 3, 6] a, float[4, 2, 6] b, float[4, 1, 1] mx)
{
  axes = Constant<value = int64[1] {1}>()
  mean = ReduceMean<keepdims = 0>(x, axes)
  same = ReduceMax<noop_with_empty_axes = 1>(x)
  a, b = Split<axis = 1, num_outputs = 2>(x)
  both = Constant<value = int64[2] {-1, -2}>()
  mx = ReduceMax(x, both)
}
)", "opset18.onnxtxt");
        // Resize's new attributes at their defaults load (and are dropped); antialias does not.
        const std::string resize18 = "<\n  ir_version: 8,\n  opset_import: [\"\" : 18]\n>\ng (float[1, 1, 2, 2] x) => (float[1, 1, 4, 4] y)\n{\n"
                                     "  s = Constant<value = float[4] {1, 1, 2, 2}>()\n  y = Resize<mode = \"linear\", antialias = ";
        QCOMPARE(model::loadModelFromText(resize18 + "0, keep_aspect_ratio_policy = \"stretch\">(x, , s)\n}\n", "resize18.onnxtxt").nodes.size(), size_t(1));
        try {
            model::loadModelFromText(resize18 + "1>(x, , s)\n}\n", "resize18.onnxtxt");
            QFAIL("expected antialias = 1 to be refused");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("Resize 'Resize_1': attribute 'antialias' = 1 is not supported") != std::string::npos, e.what());
        }
        QCOMPARE(g.opsetVersion, int64_t(18));
        const model::HostTensor x = randomTensor(g.values[g.inputs[0]], 5);
        std::vector<model::HostTensor> ref;
        const std::string problem = checkAllLayers(g, {x}, ref);
        QVERIFY2(ref.size() == 5, problem.c_str());
        for (int i = 0; i < 4; ++i)
            for (int k = 0; k < 6; ++k) {
                double sum = 0, mx = -INFINITY;
                for (int j = 0; j < 5; ++j)
                    sum += x.f[(i * 5 + j) * 6 + k];
                for (int j = 0; j < 5; ++j)
                    for (int kk = 0; kk < 6; ++kk)
                        mx = std::max(mx, static_cast<double>(x.f[(i * 5 + j) * 6 + kk]));
                QVERIFY(std::fabs(ref[0].f[i * 6 + k] - sum / 5) < 1e-5);
                QCOMPARE(static_cast<double>(ref[4].f[i]), mx);
                for (int j = 0; j < 5; ++j)
                    QCOMPARE(j < 3 ? ref[2].f[(i * 3 + j) * 6 + k] : ref[3].f[(i * 2 + j - 3) * 6 + k], x.f[(i * 5 + j) * 6 + k]);
            }
        QCOMPARE(ref[1].f, x.f);
        QVERIFY2(problem.empty(), problem.c_str());
        // What has no opset-17 form is refused naming the node; opset 19 is still beyond the library.
        auto errorOf = [](const std::string& body, int opset) {
            try {
                model::loadModelFromText("<\n  ir_version: 8,\n  opset_import: [\"\" : " + std::to_string(opset) +
                                             "]\n>\ng (float[4, 5] x, int64[1] ax) => (float[4, 1] y)\n{\n" + body + "\n}\n",
                                         "bad18.onnxtxt");
            } catch (const InputError& e) {
                return std::string(e.what());
            }
            return std::string();
        };
        const std::string runtimeAxes = errorOf("  y = ReduceMean(x, ax)", 18);
        QVERIFY2(runtimeAxes.find("ReduceMean 'ReduceMean_0'") != std::string::npos && runtimeAxes.find("must be a constant") != std::string::npos,
                 runtimeAxes.c_str());
        const std::string newer = errorOf("  y = ReduceMean<axes = [1]>(x)", 19);
        QVERIFY2(newer.find("opset 19 is newer") != std::string::npos, newer.c_str());
    }

    void badFormsOfTheNewOpsAreNamed_data()
    {
        // Each refused by the loader or the Spyre compiler with an InputError naming the node and what is wrong.
        QTest::addColumn<QString>("graph");
        QTest::addColumn<QString>("expected");
        QTest::newRow("reflect pad too wide") << QStringLiteral("g (float[2, 3] x) => (float[2, 9] y) { p = Constant<value = int64[4] {0, 3, 0, 3}>()\n y = Pad<mode = \"reflect\">(x, p) }")
                                              << QStringLiteral("Pad 'Pad_1': reflect pads of 3 do not fit a dimension of 3");
        QTest::newRow("einsum output label") << QStringLiteral("g (float[2, 3] x, float[3, 4] z) => (float[2, 4] y) { y = Einsum<equation = \"ij,jk->iq\">(x, z) }")
                                             << QStringLiteral("Einsum 'Einsum_0': equation: output label 'q'");
        QTest::newRow("einsum diagonal") << QStringLiteral("g (float[3, 3] x) => (float[3] y) { y = Einsum<equation = \"ii->i\">(x) }")
                                         << QStringLiteral("repeats label 'i' within one operand");
        QTest::newRow("lstm weights") << QStringLiteral("g (float[2, 1, 3] x, float[1, 12, 3] w, float[1, 12, 5] r) => (float[2, 1, 1, 3] y) { y = LSTM<hidden_size = 3>(x, w, r) }")
                                      << QStringLiteral("LSTM 'LSTM_0': W, R, B, P, initial_h or initial_c do not match hidden_size 3");
        QTest::newRow("rnn activation") << QStringLiteral("g (float[2, 1, 3] x, float[1, 4, 3] w, float[1, 4, 4] r) => (float[2, 1, 1, 4] y) { y = RNN<hidden_size = 4, activations = [\"Elu\"]>(x, w, r) }")
                                        << QStringLiteral("RNN 'RNN_0': attribute 'activations' contains 'Elu'");
        QTest::newRow("resize to nothing") << QStringLiteral("g (float[1, 1, 4, 4] x) => (float[1, 1, 0, 0] y) { s = Constant<value = int64[4] {1, 1, 0, 0}>()\n y = Resize(x, , , s) }")
                                           << QStringLiteral("Resize 'Resize_1': resizes axis 2 from 4 to 0 elements");
        QTest::newRow("cumsum axis at run time") << QStringLiteral("g (float[2, 3] x, int64 a) => (float[2, 3] y) { y = CumSum(x, a) }")
                                                 << QStringLiteral("CumSum 'CumSum_0': input 1 ('a') must be a constant");
        QTest::newRow("unsupported op in a folded If") << QStringLiteral("g (float[2] x) => (float[2] y) { c = Constant<value = bool {0}>()\n y = If(c) <then_branch = t () => (float[2] a) { a = Relu(x) }, else_branch = e () => (float[2] b) { b = Det(x) }> }")
                                                       << QStringLiteral("Det 'If_1/Det_0': op type 'Det' is not supported");
    }
    void badFormsOfTheNewOpsAreNamed()
    {
        QFETCH(QString, graph);
        QFETCH(QString, expected);
        try {
            const model::ModelGraph g = model::loadModelFromText("<\n  ir_version: 8,\n  opset_import: [\"\" : 17]\n>\n" + graph.toStdString() + "\n", "bad.onnxtxt");
            JobControl job;
            spyre::CompileOptions o;
            o.keepIrText = false;
            spyre::SpyrePipeline::run(g, target(), o, job);
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find(expected.toStdString()) != std::string::npos, e.what());
        }
    }

    void trainingDropoutWithRatioZeroIsIdentity()
    {
        const model::ModelGraph g = model::loadModelFromText(R"(<
  ir_version: 8,
  opset_import: ["" : 13]
>
g (float[4, 70] x) => (float[4, 70] y, bool[4, 70] mask)
{
  r = Constant<value = float {0.0}>()
  t = Constant<value = bool {1}>()
  d, mask = Dropout(x, r, t)
  y = Relu(d)
}
)", "dropout0.onnxtxt");
        const model::HostTensor x = randomTensor(g.values[g.inputs[0]], 3);
        std::vector<model::HostTensor> ref;
        const std::string problem = checkAllLayers(g, {x}, ref);
        QVERIFY2(problem.empty(), problem.c_str());
        for (int64_t k = 0; k < x.size(); ++k) {
            QCOMPARE(ref[0].f[k], std::max(0.0f, x.f[k]));
            QCOMPARE(ref[1].i[k], int64_t(1));
        }
        // A ratio that does drop is still refused, naming the node and the input.
        try {
            model::loadModelFromText(R"(<
  ir_version: 8,
  opset_import: ["" : 13]
>
g (float[4, 70] x) => (float[4, 70] y)
{
  r = Constant<value = float {0.1}>()
  t = Constant<value = bool {1}>()
  y = Dropout(x, r, t)
}
)", "dropout1.onnxtxt");
            QFAIL("expected the training-mode Dropout with ratio 0.1 to be refused");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("training_mode") != std::string::npos, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestModelRegressions)
#include "tst_model_regressions.moc"
