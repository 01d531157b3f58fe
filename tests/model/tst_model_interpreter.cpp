// The reference interpreter on hand-computed cases, especially the opset-dependent semantics the ONNX
// node tests of ONNX 1.12 do not reach (they use the newest opset of each op): Softmax before opset 13
// (coerced to 2-D), Clip with min/max attributes, axes as attributes, Slice with attributes.
#include "common/testutil.h"

#include "core/common/diagnostics.h"
#include "core/model/model_loader.h"
#include "core/model/reference_interpreter.h"
#include "core/model/tensor_file.h"

#include <QtTest>

#include <cmath>

using namespace spyglass;
using namespace spyglass::model;

namespace {

HostTensor floats(const Shape& shape, std::vector<float> values)
{
    HostTensor t = makeTensor(DType::Float32, shape);
    t.f = std::move(values);
    return t;
}

// A one-node model "y = <body>" over float inputs of the given shapes, at `opset`.
std::vector<HostTensor> runModel(int opset, const std::string& signature, const std::string& body, const std::vector<HostTensor>& inputs)
{
    const std::string text = "<\n  ir_version: 8,\n  opset_import: [\"\" : " + std::to_string(opset) + "]\n>\ng " + signature + "\n{\n" + body + "\n}\n";
    const ModelGraph g = loadModelFromText(text, "case.onnxtxt");
    return runReference(g, inputs).outputs;
}

void compareFloats(const std::vector<float>& got, const std::vector<double>& want, double tol = 1e-6)
{
    QCOMPARE(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k)
        QVERIFY2(std::fabs(got[k] - want[k]) <= tol, qPrintable(QStringLiteral("element %1: got %2, want %3").arg(k).arg(got[k]).arg(want[k])));
}

}  // namespace

class TestModelInterpreter : public QObject {
    Q_OBJECT
private slots:
    void softmaxLegacyCoercesTo2D()
    {
        // Opset 11, axis = 1 on [2, 2, 2]: each batch row of 4 values is one softmax.
        const HostTensor x = floats({2, 2, 2}, {0, 1, 2, 3, 0, 0, 0, 0});
        const auto y = runModel(11, "(float[2, 2, 2] x) => (float[2, 2, 2] y)", "y = Softmax<axis = 1>(x)", {x});
        const double s = std::exp(0.0) + std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
        compareFloats(y[0].f, {1 / s, std::exp(1.0) / s, std::exp(2.0) / s, std::exp(3.0) / s, 0.25, 0.25, 0.25, 0.25});
    }

    void softmaxOpset13IsOneAxis()
    {
        const HostTensor x = floats({2, 2, 2}, {0, 1, 2, 3, 0, 0, 0, 0});
        const auto y = runModel(13, "(float[2, 2, 2] x) => (float[2, 2, 2] y)", "y = Softmax<axis = 1>(x)", {x});
        // Along axis 1 pairs are (0,2), (1,3), (0,0), (0,0).
        const double a = 1 / (1 + std::exp(2.0));
        compareFloats(y[0].f, {a, a, 1 - a, 1 - a, 0.5, 0.5, 0.5, 0.5});
    }

    void logSoftmaxLegacyDefaultAxisIsOne()
    {
        const HostTensor x = floats({1, 3}, {1, 2, 3});
        const auto y = runModel(11, "(float[1, 3] x) => (float[1, 3] y)", "y = LogSoftmax(x)", {x});
        const double lse = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
        compareFloats(y[0].f, {1 - lse, 2 - lse, 3 - lse});
    }

    void clipAttributesBeforeOpset11()
    {
        const HostTensor x = floats({4}, {-3, -0.5f, 0.5f, 3});
        const auto y = runModel(6, "(float[4] x) => (float[4] y)", "y = Clip<min = -1.0, max = 1.0>(x)", {x});
        compareFloats(y[0].f, {-1, -0.5, 0.5, 1});
    }

    void clipInputsFromOpset11()
    {
        const HostTensor x = floats({4}, {-3, -0.5f, 0.5f, 3});
        const auto y = runModel(13, "(float[4] x) => (float[4] y)", "lo = Constant<value = float {-1.0}>()\n  y = Clip(x, lo, )", {x});
        compareFloats(y[0].f, {-1, -0.5, 0.5, 3});
    }

    void reduceSumAxesAttributeBeforeOpset13()
    {
        const HostTensor x = floats({2, 3}, {1, 2, 3, 4, 5, 6});
        const auto y = runModel(11, "(float[2, 3] x) => (float[2] y)", "y = ReduceSum<axes = [1], keepdims = 0>(x)", {x});
        compareFloats(y[0].f, {6, 15});
    }

    void reduceMeanAndMaxAxesAttribute()
    {
        const HostTensor x = floats({2, 3}, {1, 2, 3, 4, 5, 9});
        const auto m = runModel(13, "(float[2, 3] x) => (float[1, 3] y)", "y = ReduceMean<axes = [0]>(x)", {x});
        compareFloats(m[0].f, {2.5, 3.5, 6});
        const auto mx = runModel(13, "(float[2, 3] x) => (float[2, 1] y)", "y = ReduceMax<axes = [-1]>(x)", {x});
        compareFloats(mx[0].f, {3, 9});
    }

    void sliceAttributesBeforeOpset10()
    {
        const HostTensor x = floats({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
        const auto y = runModel(9, "(float[3, 4] x) => (float[2, 2] y)", "y = Slice<starts = [1, 1], ends = [1000, 3]>(x)", {x});
        compareFloats(y[0].f, {5, 6, 9, 10});
    }

    void sliceNegativeStepWithInputs()
    {
        const HostTensor x = floats({5}, {0, 1, 2, 3, 4});
        const auto y = runModel(13, "(float[5] x) => (float[3] y)",
                                "s = Constant<value = int64[1] {-1}>()\n  e = Constant<value = int64[1] {-9223372036854775807}>()\n"
                                "  a = Constant<value = int64[1] {0}>()\n  st = Constant<value = int64[1] {-2}>()\n  y = Slice(x, s, e, a, st)",
                                {x});
        compareFloats(y[0].f, {4, 2, 0});
    }

    void unsqueezeAndSqueezeAxesAttributeBeforeOpset13()
    {
        const HostTensor x = floats({3}, {1, 2, 3});
        const auto u = runModel(11, "(float[3] x) => (float[1, 3, 1] y)", "y = Unsqueeze<axes = [0, -1]>(x)", {x});
        QCOMPARE(u[0].shape, (Shape{1, 3, 1}));
        const auto s = runModel(11, "(float[1, 3, 1] x) => (float[3] y)", "y = Squeeze<axes = [0, 2]>(x)", {u[0]});
        QCOMPARE(s[0].shape, (Shape{3}));
    }

    void matMulBroadcastsBatchAndVectors()
    {
        // [2, 1, 2, 3] x [3, 3, 2] -> [2, 3, 2, 2]; check one block by hand.
        HostTensor a = makeTensor(DType::Float32, {2, 1, 2, 3});
        HostTensor b = makeTensor(DType::Float32, {3, 3, 2});
        for (size_t k = 0; k < a.f.size(); ++k) a.f[k] = static_cast<float>(k);
        for (size_t k = 0; k < b.f.size(); ++k) b.f[k] = static_cast<float>(k % 5) - 2;
        const auto y = runModel(13, "(float[2, 1, 2, 3] a, float[3, 3, 2] b) => (float[2, 3, 2, 2] y)", "y = MatMul(a, b)", {a, b});
        QCOMPARE(y[0].shape, (Shape{2, 3, 2, 2}));
        // Block [1, 2]: A batch 1 (values 6..11), B batch 2 (elements 12..17).
        const float* A = a.f.data() + 6;
        const float* B = b.f.data() + 12;
        const float* Y = y[0].f.data() + (1 * 3 + 2) * 4;
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) {
                double acc = 0;
                for (int k = 0; k < 3; ++k) acc += A[i * 3 + k] * B[k * 2 + j];
                QCOMPARE(Y[i * 2 + j], static_cast<float>(acc));
            }
        // 1-D x 2-D: the vector's dimension is removed.
        const HostTensor v = floats({3}, {1, 0, -1});
        const HostTensor m = floats({3, 2}, {1, 2, 3, 4, 5, 6});
        const auto r = runModel(13, "(float[3] v, float[3, 2] m) => (float[2] y)", "y = MatMul(v, m)", {v, m});
        compareFloats(r[0].f, {-4, -4});
    }

    void whereBroadcastsThreeWays()
    {
        const auto y = runModel(13, "(float[2, 1] x, float[3] z) => (float[2, 3] y)",
                                "c = Constant<value = bool[3] {1, 0, 1}>()\n  y = Where(c, x, z)", {floats({2, 1}, {10, 20}), floats({3}, {1, 2, 3})});
        compareFloats(y[0].f, {10, 2, 10, 20, 2, 20});
    }

    void castToFloat16Rounds()
    {
        const auto y = runModel(13, "(float[2] x) => (float16[2] y)", "y = Cast<to = 10>(x)", {floats({2}, {1.0f + 1.0f / 4096, 65519.0f})});
        QCOMPARE(y[0].dtype, DType::Float16);
        compareFloats(y[0].f, {1.0, 65504.0}, 0);   // 1 + 2^-12 rounds to 1 (fp16 has 10 mantissa bits)
    }

    void erfAndPow()
    {
        const auto y = runModel(13, "(float[3] x) => (float[3] y)", "e = Erf(x)\n  two = Constant<value = float {2.0}>()\n  y = Pow(e, two)",
                                {floats({3}, {0, 0.5f, -1})});
        compareFloats(y[0].f, {0, std::pow(std::erf(0.5), 2), std::pow(std::erf(-1.0), 2)});
    }

    void gatherNegativeIndexAndOutOfRange()
    {
        const auto y = runModel(13, "(float[3, 2] x) => (float[2, 2] y)", "i = Constant<value = int64[2] {-1, 0}>()\n  y = Gather(x, i)",
                                {floats({3, 2}, {1, 2, 3, 4, 5, 6})});
        compareFloats(y[0].f, {5, 6, 1, 2});
        // An index out of range is an InputError naming the node (x is a run-time input, so it is not folded).
        bool threw = false;
        try {
            runModel(13, "(float[3, 2] x) => (float[1, 2] y)", "i = Constant<value = int64[1] {3}>()\n  y = Gather(x, i)", {floats({3, 2}, {1, 2, 3, 4, 5, 6})});
        } catch (const InputError& e) {
            threw = true;
            QVERIFY2(std::string(e.what()).find("Gather") != std::string::npos, e.what());
        }
        QVERIFY(threw);
    }

    void wrongInputShapeIsNamed()
    {
        const std::string text = "<\n  ir_version: 8,\n  opset_import: [\"\" : 13]\n>\ng (float[2] x) => (float[2] y)\n{\n  y = Relu(x)\n}\n";
        const ModelGraph g = loadModelFromText(text, "relu.onnxtxt");
        try {
            runReference(g, {floats({3}, {1, 2, 3})});
            QFAIL("expected InputError");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("input 'x': wrong shape [3]") != std::string::npos, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestModelInterpreter)
#include "tst_model_interpreter.moc"
