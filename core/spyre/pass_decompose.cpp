#include "core/spyre/pass_decompose.h"

#include "core/common/diagnostics.h"
#include "core/model/conv_transpose.h"
#include "core/model/einsum.h"
#include "core/model/resize_weights.h"
#include "core/spyre/graph_rewriter.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace spyglass::spyre {

namespace {

int normAxis(int64_t axis, size_t rank) { return static_cast<int>(axis < 0 ? axis + static_cast<int64_t>(rank) : axis); }

InputError opError(const Program& p, const GraphOp& g, const std::string& message)
{
    Diagnostic d;
    d.location = SourceLocation{p.sourcePath, 0, 0};
    d.node = g.label();
    d.message = message;
    return InputError(d);
}

// Constant integer data of an optional input (axes, starts, ...), empty when absent.
std::vector<int64_t> constInts(const Program& p, const GraphOp& g, size_t input)
{
    if (input >= g.inputs.size() || g.inputs[input] < 0)
        return {};
    const GraphTensor& t = p.tensors[g.inputs[input]];
    if (!t.isConstant)
        throw opError(p, g, "input " + std::to_string(input) + " ('" + t.name + "') must be a constant");
    if (t.i)
        return *t.i;
    std::vector<int64_t> out;
    if (t.f)
        for (float v : *t.f)
            out.push_back(static_cast<int64_t>(v));
    return out;
}

Shape reducedShape(const Shape& in, const std::vector<int>& axes, bool keep)
{
    Shape out;
    for (size_t d = 0; d < in.size(); ++d) {
        const bool reduced = std::find(axes.begin(), axes.end(), static_cast<int>(d)) != axes.end();
        if (!reduced)
            out.push_back(in[d]);
        else if (keep)
            out.push_back(1);
    }
    return out;
}

class Decomposer {
public:
    Decomposer(Program& p, int stickElements, int cores) : p_(p), rw_(p), stick_(stickElements), cores_(cores) {}

    std::vector<GraphOp> out;
    std::map<std::string, int> counts;

    void run()
    {
        std::vector<GraphOp> in = std::move(p_.graphOps);
        out.reserve(in.size() * 2);
        for (GraphOp& g : in)
            rewrite(std::move(g));
        for (GraphTensor& t : p_.tensors)
            t.producer = -1;
        for (size_t i = 0; i < out.size(); ++i)
            for (int o : out[i].outputs)
                if (o >= 0)
                    p_.tensors[o].producer = static_cast<int>(i);
        p_.graphOps = std::move(out);
    }

private:
    Program& p_;
    GraphRewriter rw_;
    int stick_ = 0;   // elements per stick (target)
    int cores_ = 0;

    const Shape& shapeOf(int t) const { return p_.tensors[t].shape; }

    // A new core op; when `into` >= 0 it writes that existing tensor (the composite op's own output).
    // `shape` by value: callers pass shapeOf(...) next to arguments that add tensors (rw_.scalar), which may move
    // p_.tensors and leave a reference dangling.
    int emit(const std::string& type, const GraphOp& from, const std::string& suffix, std::vector<int> inputs,
             Shape shape, int into = -1)
    {
        const std::string name = from.name + "/" + suffix;
        if (into < 0)
            return rw_.op(out, type, name, std::move(inputs), shape, from.label());
        GraphOp g;
        g.name = name;
        g.opType = type;
        g.inputs = std::move(inputs);
        g.outputs = {into};
        g.origin = from.label();
        out.push_back(std::move(g));
        return into;
    }
    int reduce(const std::string& type, const GraphOp& from, const std::string& suffix, int x, std::vector<int> axes,
               int into = -1)
    {
        const Shape shape = reducedShape(shapeOf(x), axes, true);
        const int t = emit(type, from, suffix, {x}, shape, into);
        std::vector<int64_t> a(axes.begin(), axes.end());
        out.back().ints["axes"] = a;
        out.back().ints["keepdims"] = {1};
        return t;
    }

    using Rewrite = void (*)(Decomposer&, GraphOp&);

    // The composite ops and their rewrite; any other op is already a core op and passes through.
    static const std::map<std::string, Rewrite>& rewrites()
    {
        static const std::map<std::string, Rewrite> table = [] {
            std::map<std::string, Rewrite> m;
            auto add = [&m](std::initializer_list<const char*> ops, Rewrite r) {
                for (const char* op : ops)
                    m[op] = r;
            };
            add({"Gemm"}, [](Decomposer& d, GraphOp& g) { d.gemm(g); });
            add({"MatMul"}, [](Decomposer& d, GraphOp& g) { d.matmul(g); });
            add({"LayerNormalization"}, [](Decomposer& d, GraphOp& g) { d.layerNorm(g); });
            add({"Softmax", "LogSoftmax"}, [](Decomposer& d, GraphOp& g) { d.softmax(g, g.opType == "LogSoftmax"); });
            add({"ReduceMean"}, [](Decomposer& d, GraphOp& g) { d.reduceMean(g); });
            add({"Gelu"}, [](Decomposer& d, GraphOp& g) { d.gelu(g); });
            add({"BatchNormalization"}, [](Decomposer& d, GraphOp& g) { d.batchNorm(g); });
            add({"Conv"}, [](Decomposer& d, GraphOp& g) { d.conv(g); });
            add({"ConvTranspose"}, [](Decomposer& d, GraphOp& g) { d.convTranspose(g); });
            add({"MaxPool", "AveragePool"}, [](Decomposer& d, GraphOp& g) { d.pool(g, g.opType == "MaxPool"); });
            add({"GlobalAveragePool", "GlobalMaxPool"}, [](Decomposer& d, GraphOp& g) { d.globalPool(g, g.opType == "GlobalMaxPool"); });
            add({"InstanceNormalization"}, [](Decomposer& d, GraphOp& g) { d.instanceNorm(g); });
            add({"Elu", "Celu", "Selu"}, [](Decomposer& d, GraphOp& g) { d.elu(g); });
            add({"Softplus", "Softsign", "ThresholdedRelu"}, [](Decomposer& d, GraphOp& g) { d.smoothActivation(g); });
            add({"Einsum"}, [](Decomposer& d, GraphOp& g) { d.einsum(g); });
            add({"QuantizeLinear", "DequantizeLinear"}, [](Decomposer& d, GraphOp& g) { d.quantize(g, g.opType == "QuantizeLinear"); });
            add({"DepthToSpace", "SpaceToDepth"}, [](Decomposer& d, GraphOp& g) { d.depthSpace(g, g.opType == "DepthToSpace"); });
            add({"RNN", "GRU", "LSTM"}, [](Decomposer& d, GraphOp& g) { d.recurrent(g); });
            add({"Resize", "Upsample"}, [](Decomposer& d, GraphOp& g) { d.resize(g); });
            add({"Split"}, [](Decomposer& d, GraphOp& g) { d.splitOp(g); });
            add({"Tile"}, [](Decomposer& d, GraphOp& g) { d.tile(g); });
            add({"Pad"}, [](Decomposer& d, GraphOp& g) { d.pad(g); });
            add({"ArgMax", "ArgMin"}, [](Decomposer& d, GraphOp& g) { d.argExtreme(g, g.opType == "ArgMax"); });
            add({"Xor"}, [](Decomposer& d, GraphOp& g) { d.xorOp(g); });
            add({"Hardmax"}, [](Decomposer& d, GraphOp& g) { d.hardmax(g); });
            add({"TopK"}, [](Decomposer& d, GraphOp& g) { d.topK(g); });
            add({"ScatterND"}, [](Decomposer& d, GraphOp& g) { d.scatterND(g); });
            add({"OneHot"}, [](Decomposer& d, GraphOp& g) { d.oneHot(g); });
            add({"EyeLike"}, [](Decomposer& d, GraphOp& g) { d.eyeLike(g); });
            add({"Shrink"}, [](Decomposer& d, GraphOp& g) { d.shrink(g); });
            add({"MeanVarianceNormalization"}, [](Decomposer& d, GraphOp& g) { d.meanVarianceNorm(g); });
            add({"HardSigmoid", "HardSwish"}, [](Decomposer& d, GraphOp& g) { d.hardSigmoid(g, g.opType == "HardSwish"); });
            add({"PRelu"}, [](Decomposer& d, GraphOp& g) { d.prelu(g); });
            add({"Sum", "Mean"}, [](Decomposer& d, GraphOp& g) { d.variadic(g); });
            // Two-input Max/Min are core ops; others a chain.
            add({"Max", "Min"}, [](Decomposer& d, GraphOp& g) {
                if (g.inputs.size() == 2)
                    d.out.push_back(std::move(g));
                else
                    d.variadic(g);
            });
            add({"Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout", "Reshape"}, [](Decomposer& d, GraphOp& g) { d.asView(std::move(g)); });
            add({"ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd"}, [](Decomposer& d, GraphOp& g) { d.normaliseReduce(std::move(g)); });
            add({"ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"},
                [](Decomposer& d, GraphOp& g) { d.reduceComposite(g); });
            return m;
        }();
        return table;
    }

    void rewrite(GraphOp g)
    {
        const auto it = rewrites().find(g.opType);
        if (it != rewrites().end())
            it->second(*this, g);
        else
            out.push_back(std::move(g));
    }

    void count(const GraphOp& g) { counts[g.opType]++; }

    void gemm(const GraphOp& g)
    {
        count(g);
        int a = g.inputs.at(0), b = g.inputs.at(1);
        const int y = g.outputs.at(0);
        auto transpose = [&](int x, const std::string& s) {
            const Shape sh = shapeOf(x);
            const int r = emit("Transpose", g, s, {x}, {sh.at(1), sh.at(0)});
            out.back().ints["perm"] = {1, 0};
            return r;
        };
        if (g.intAttr("transA", 0))
            a = transpose(a, "transA");
        if (g.intAttr("transB", 0))
            b = transpose(b, "transB");
        const double alpha = g.floatAttr("alpha", 1.0), beta = g.floatAttr("beta", 1.0);
        const bool hasC = g.inputs.size() > 2 && g.inputs[2] >= 0;
        const Shape ys = shapeOf(y);
        int acc = emit("MatMul", g, "mm", {a, b}, ys, (!hasC && alpha == 1.0) ? y : -1);
        if (alpha != 1.0)
            acc = emit("Mul", g, "alpha", {acc, rw_.scalar(alpha)}, ys, hasC ? -1 : y);
        if (hasC) {
            int c = g.inputs[2];
            if (beta != 1.0)
                c = emit("Mul", g, "beta", {c, rw_.scalar(beta)}, shapeOf(c));
            emit("Add", g, "bias", {acc, c}, ys, y);
        }
    }

    void layerNorm(const GraphOp& g)
    {
        count(g);
        const int x = g.inputs.at(0);
        const size_t rank = shapeOf(x).size();
        const int axis = normAxis(g.intAttr("axis", -1), rank);
        std::vector<int> axes;
        for (size_t d = axis; d < rank; ++d)
            axes.push_back(static_cast<int>(d));
        const int meanOut = g.outputs.size() > 1 ? g.outputs[1] : -1;
        const int invStdOut = g.outputs.size() > 2 ? g.outputs[2] : -1;
        int64_t n = 1;
        for (int d : axes)
            n *= shapeOf(x)[d];
        const Shape xs = shapeOf(x);
        const int sum = reduce("ReduceSum", g, "sum", x, axes);
        const int mean = emit("Div", g, "mean", {sum, rw_.scalar(static_cast<double>(n))}, shapeOf(sum), meanOut);
        const int d = emit("Sub", g, "centre", {x, mean}, xs);
        const int sq = emit("Mul", g, "square", {d, d}, xs);
        const int vsum = reduce("ReduceSum", g, "var_sum", sq, axes);
        const int var = emit("Div", g, "var", {vsum, rw_.scalar(static_cast<double>(n))}, shapeOf(vsum));
        const int ve = emit("Add", g, "eps", {var, rw_.scalar(g.floatAttr("epsilon", 1e-5))}, shapeOf(var));
        const int sd = emit("Sqrt", g, "std", {ve}, shapeOf(var));
        if (invStdOut >= 0)
            emit("Reciprocal", g, "inv_std", {sd}, shapeOf(var), invStdOut);
        const int y = g.outputs.at(0);
        const bool hasScale = g.inputs.size() > 1 && g.inputs[1] >= 0;
        const bool hasBias = g.inputs.size() > 2 && g.inputs[2] >= 0;
        const int norm = emit("Div", g, "normalise", {d, sd}, xs, (!hasScale && !hasBias) ? y : -1);
        int cur = norm;
        if (hasScale)
            cur = emit("Mul", g, "scale", {cur, g.inputs[1]}, xs, hasBias ? -1 : y);
        if (hasBias)
            emit("Add", g, "shift", {cur, g.inputs[2]}, xs, y);
    }

    void softmax(const GraphOp& g, bool logarithm)
    {
        count(g);
        const int x = g.inputs.at(0);
        const Shape xs = shapeOf(x);
        // Before opset 13 the input is coerced to 2-D at `axis` (default 1): one softmax over all dims from
        // `axis` on, which may be the rank itself (nothing to normalise over: every output is 1).
        const bool legacy = p_.opsetVersion < 13;
        const int rank = static_cast<int>(xs.size());
        const int axis = normAxis(g.intAttr("axis", legacy ? 1 : -1), xs.size());
        if (axis < 0 || axis > rank || (!legacy && axis == rank))
            throw opError(p_, g, "attribute 'axis' is out of range for rank " + std::to_string(xs.size()));
        std::vector<int> axes;
        for (int d = axis; d < (legacy ? rank : axis + 1); ++d)
            axes.push_back(d);
        const int y = g.outputs.at(0);
        const int mx = reduce("ReduceMax", g, "max", x, axes);
        const int sh = emit("Sub", g, "shift", {x, mx}, xs);
        const int ex = emit("Exp", g, "exp", {sh}, xs);
        const int sum = reduce("ReduceSum", g, "sum", ex, axes);
        if (logarithm) {
            const int lg = emit("Log", g, "log", {sum}, shapeOf(sum));
            emit("Sub", g, "logsoftmax", {sh, lg}, xs, y);
        } else {
            emit("Div", g, "normalise", {ex, sum}, xs, y);
        }
    }

    std::vector<int> reduceAxes(const GraphOp& g)
    {
        const Shape xs = shapeOf(g.inputs.at(0));
        std::vector<int64_t> a;
        if (auto it = g.ints.find("axes"); it != g.ints.end())
            a = it->second;
        else
            a = constInts(p_, g, 1);
        std::vector<int> axes;
        if (a.empty()) {
            if (g.intAttr("noop_with_empty_axes", 0))
                return axes;
            for (size_t d = 0; d < xs.size(); ++d)
                axes.push_back(static_cast<int>(d));
        }
        for (int64_t v : a) {
            const int d = normAxis(v, xs.size());
            if (d < 0 || d >= static_cast<int>(xs.size()))
                throw opError(p_, g, "axis " + std::to_string(v) + " is out of range for rank " + std::to_string(xs.size()));
            axes.push_back(d);
        }
        std::sort(axes.begin(), axes.end());
        axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
        return axes;
    }

    void normaliseReduce(GraphOp g)
    {
        const std::vector<int> axes = reduceAxes(g);
        g.ints["axes"] = std::vector<int64_t>(axes.begin(), axes.end());
        g.ints["keepdims"] = {g.intAttr("keepdims", 1)};
        g.inputs.resize(1);
        out.push_back(std::move(g));
    }

    void reduceMean(const GraphOp& g)
    {
        count(g);
        const int x = g.inputs.at(0);
        const std::vector<int> axes = reduceAxes(g);
        const bool keep = g.intAttr("keepdims", 1) != 0;
        int64_t n = 1;
        for (int d : axes)
            n *= shapeOf(x)[d];
        const int y = g.outputs.at(0);
        const int sum = emit("ReduceSum", g, "sum", {x}, reducedShape(shapeOf(x), axes, keep));
        out.back().ints["axes"] = std::vector<int64_t>(axes.begin(), axes.end());
        out.back().ints["keepdims"] = {keep ? 1 : 0};
        emit("Div", g, "mean", {sum, rw_.scalar(static_cast<double>(n))}, shapeOf(y), y);
    }

    // ReduceL1 = sum |x|, ReduceL2 = sqrt(sum x^2), ReduceSumSquare = sum x^2, ReduceLogSum = log(sum x),
    // ReduceLogSumExp = log(sum exp(x - max)) + max (the max keeps exp finite, as in softmax).
    void reduceComposite(const GraphOp& g)
    {
        count(g);
        const std::string& t = g.opType;
        const int x = g.inputs.at(0), y = g.outputs.at(0);
        const Shape xs = shapeOf(x), ys = shapeOf(y);   // copies: emitting grows p_.tensors
        const std::vector<int> axes = reduceAxes(g);
        const bool keep = g.intAttr("keepdims", 1) != 0;
        const Shape kept = reducedShape(xs, axes, true);
        auto sumOf = [&](int v, bool last) {
            const int r = emit("ReduceSum", g, "sum", {v}, last ? ys : kept, last ? y : -1);
            out.back().ints["axes"] = std::vector<int64_t>(axes.begin(), axes.end());
            out.back().ints["keepdims"] = {last ? (keep ? 1 : 0) : 1};
            return r;
        };
        if (t == "ReduceL1") {
            sumOf(emit("Abs", g, "abs", {x}, xs), true);
        } else if (t == "ReduceSumSquare") {
            sumOf(emit("Mul", g, "square", {x, x}, xs), true);
        } else if (t == "ReduceL2") {
            const int s = sumOf(emit("Mul", g, "square", {x, x}, xs), false);
            emit("Sqrt", g, "sqrt", {viewAs(g, s, ys)}, ys, y);
        } else if (t == "ReduceLogSum") {
            emit("Log", g, "log", {viewAs(g, sumOf(x, false), ys)}, ys, y);
        } else {
            const int mx = reduce("ReduceMax", g, "max", x, axes);
            const int sh = emit("Sub", g, "shift", {x, mx}, xs);
            const int s = sumOf(emit("Exp", g, "exp", {sh}, xs), false);
            const int lg = emit("Log", g, "log", {s}, kept);
            emit("Add", g, "logsumexp", {viewAs(g, lg, ys), viewAs(g, mx, ys)}, ys, y);
        }
    }
    // `v` reshaped to `shape` (keepdims = 0 drops the reduced dims), or `v` itself when it already has it.
    int viewAs(const GraphOp& g, int v, const Shape& shape)
    {
        return shapeOf(v) == shape ? v : emit("Reshape", g, "view", {v}, shape);
    }

    void gelu(const GraphOp& g)
    {
        count(g);
        const int x = g.inputs.at(0);
        const Shape xs = shapeOf(x);
        const int y = g.outputs.at(0);
        auto it = g.strings.find("approximate");
        if (it != g.strings.end() && it->second == "tanh") {
            // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
            const int x2 = emit("Mul", g, "x2", {x, x}, xs);
            const int x3 = emit("Mul", g, "x3", {x2, x}, xs);
            const int c3 = emit("Mul", g, "c3", {x3, rw_.scalar(0.044715)}, xs);
            const int in = emit("Add", g, "inner", {x, c3}, xs);
            const int sc = emit("Mul", g, "scaled", {in, rw_.scalar(std::sqrt(2.0 / M_PI))}, xs);
            const int th = emit("Tanh", g, "tanh", {sc}, xs);
            const int one = emit("Add", g, "one_plus", {th, rw_.scalar(1.0)}, xs);
            const int hx = emit("Mul", g, "half_x", {x, rw_.scalar(0.5)}, xs);
            emit("Mul", g, "gelu", {hx, one}, xs, y);
            return;
        }
        const int sc = emit("Div", g, "scaled", {x, rw_.scalar(std::sqrt(2.0))}, xs);
        const int er = emit("Erf", g, "erf", {sc}, xs);
        const int one = emit("Add", g, "one_plus", {er, rw_.scalar(1.0)}, xs);
        const int hx = emit("Mul", g, "half_x", {x, rw_.scalar(0.5)}, xs);
        emit("Mul", g, "gelu", {hx, one}, xs, y);
    }

    void batchNorm(const GraphOp& g)
    {
        count(g);
        if (g.inputs.size() < 5)
            throw opError(p_, g, "needs inputs X, scale, B, input_mean, input_var");
        const int x = g.inputs[0];
        const Shape xs = shapeOf(x);
        if (xs.size() < 2)
            throw opError(p_, g, "input X must have rank >= 2");
        const int64_t c = xs[1];
        if (g.outputs.size() > 1)
            for (size_t o = 1; o < g.outputs.size(); ++o)
                if (g.outputs[o] >= 0 && p_.tensors[g.outputs[o]].isOutput)
                    throw opError(p_, g, "training mode (running mean/variance outputs) is not supported");
        std::vector<const GraphTensor*> params;
        bool folded = true;
        for (int k = 1; k <= 4; ++k) {
            const GraphTensor& t = p_.tensors[g.inputs[k]];
            folded = folded && t.isConstant && t.f && static_cast<int64_t>(t.f->size()) == c;
            params.push_back(&t);
        }
        Shape cs(xs.size() - 1, 1);
        cs[0] = c;
        if (!folded) {
            // Parameters known only at run time: (x - mean) / sqrt(var + eps) * scale + B, each [C] viewed as [C,1,..].
            auto asChannel = [&](int k, const std::string& s) {
                const int r = emit("Reshape", g, s, {g.inputs[k]}, cs);
                return r;
            };
            const int mean = asChannel(3, "mean_view");
            const int var = asChannel(4, "var_view");
            const int scale = asChannel(1, "scale_view");
            const int shift = asChannel(2, "shift_view");
            const int centred = emit("Sub", g, "centre", {x, mean}, xs);
            const int ve = emit("Add", g, "eps", {var, rw_.scalar(g.floatAttr("epsilon", 1e-5))}, cs);
            const int sd = emit("Sqrt", g, "std", {ve}, cs);
            const int norm = emit("Div", g, "normalise", {centred, sd}, xs);
            const int scaled = emit("Mul", g, "scale", {norm, scale}, xs);
            emit("Add", g, "shift", {scaled, shift}, xs, g.outputs.at(0));
            return;
        }
        // y = x * a + b with a = scale / sqrt(var + eps), b = B - mean * a, folded here.
        const double eps = g.floatAttr("epsilon", 1e-5);
        std::vector<float> a(c), b(c);
        for (int64_t i = 0; i < c; ++i) {
            a[i] = static_cast<float>((*params[0]->f)[i] / std::sqrt((*params[3]->f)[i] + eps));
            b[i] = static_cast<float>((*params[1]->f)[i] - (*params[2]->f)[i] * a[i]);
        }
        const int ta = rw_.constantVector(g.name + "/folded_scale", cs, std::move(a));
        const int tb = rw_.constantVector(g.name + "/folded_shift", cs, std::move(b));
        const int m = emit("Mul", g, "scale", {x, ta}, xs);
        emit("Add", g, "shift", {m, tb}, xs, g.outputs.at(0));
    }

    // Strides, dilations and (begin..., end...) pads of a sliding window over the spatial dims of x.
    struct Window {
        std::vector<int64_t> kernel, strides, dilations, pads;
    };
    Window window(const GraphOp& g, const Shape& xs, const std::vector<int64_t>& kernel)
    {
        const size_t d = xs.size() - 2;
        Window w;
        w.kernel = kernel;
        auto list = [&](const char* key, int64_t fallback, size_t n) {
            std::vector<int64_t> v = g.ints.count(key) ? g.ints.at(key) : std::vector<int64_t>(n, fallback);
            if (v.size() != n)
                throw opError(p_, g, std::string("attribute '") + key + "' has " + std::to_string(v.size()) +
                                         " entries, expected " + std::to_string(n));
            return v;
        };
        w.strides = list("strides", 1, d);
        w.dilations = list("dilations", 1, d);
        w.pads = list("pads", 0, 2 * d);
        const std::string autoPad = g.strings.count("auto_pad") ? g.strings.at("auto_pad") : "NOTSET";
        if (autoPad == "VALID") {
            w.pads.assign(2 * d, 0);
        } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
            for (size_t i = 0; i < d; ++i) {
                const int64_t in = xs[i + 2], out = (in + w.strides[i] - 1) / w.strides[i];
                const int64_t total =
                    std::max<int64_t>(0, (out - 1) * w.strides[i] + (w.kernel[i] - 1) * w.dilations[i] + 1 - in);
                const int64_t small = total / 2;
                w.pads[i] = autoPad == "SAME_UPPER" ? small : total - small;
                w.pads[i + d] = total - w.pads[i];
            }
        } else if (autoPad != "NOTSET") {
            throw opError(p_, g, "attribute 'auto_pad' value '" + autoPad + "' is not supported");
        }
        return w;
    }
    void setWindow(GraphOp& op, const Window& w)
    {
        op.ints["kernel"] = w.kernel;
        op.ints["strides"] = w.strides;
        op.ints["dilations"] = w.dilations;
        op.ints["pads"] = w.pads;
    }

    // Conv -> Im2Col (the input windows as columns), MatMul with the weight viewed as [M, C*K...], bias add.
    void conv(const GraphOp& g)
    {
        count(g);
        const int x = g.inputs.at(0), w = g.inputs.at(1);
        const Shape xs = shapeOf(x), ws = shapeOf(w), ys = shapeOf(g.outputs.at(0));
        if (xs.size() < 3 || ws.size() != xs.size() || ys.size() != xs.size())
            throw opError(p_, g, "expects N x C x spatial input and M x C x kernel weight");
        const int64_t group = g.intAttr("group", 1);
        if (group < 1 || xs[1] % group != 0 || ws[0] % group != 0 || ws[1] * group != xs[1])
            throw opError(p_, g, "attribute 'group' = " + std::to_string(group) + " does not fit " + std::to_string(xs[1]) +
                                     " input and " + std::to_string(ws[0]) + " output channels");
        const std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
        const Window win = window(g, xs, kernel);
        int64_t kk = xs[1], spatial = 1;
        for (int64_t k : kernel)
            kk *= k;
        for (size_t i = 2; i < ys.size(); ++i)
            spatial *= ys[i];
        const int cols = emit("Im2Col", g, "im2col", {x}, {xs[0], kk, spatial});
        setWindow(out.back(), win);
        out.back().ints["out_spatial"] = std::vector<int64_t>(ys.begin() + 2, ys.end());
        // A constant weight becomes a constant of the matrix shape (the same data) rather than a view: a device
        // tensor has one stick dim, and a view [M, C*K...] of [M, C, kh, kw] can only stick along kw, 3 of 64
        // elements per stick for a 3x3 kernel (resnet18's layer4 weights moved 100 MB a kernel instead of 4.7 MB).
        auto weightAs = [&](const Shape& shape) {
            const GraphTensor& t = p_.tensors[w];
            if (!t.isConstant || !t.f)
                return emit("Reshape", g, "weight_view", {w}, shape);
            GraphTensor m = t;
            m.name = t.name + "/as_matrix";
            m.shape = shape;
            m.isInput = m.isOutput = false;
            m.producer = -1;
            p_.tensors.push_back(std::move(m));
            return static_cast<int>(p_.tensors.size() - 1);
        };
        int mm;
        if (group == 1) {
            const int wv = weightAs({ws[0], kk});
            mm = emit("MatMul", g, "mm", {wv, cols}, {xs[0], ws[0], spatial});
        } else {
            // Grouped (depthwise when each group has one channel): the columns are channel-major, so group k's are
            // the k-th block of C/group * kernel rows; one batched MatMul over [N, group].
            const int64_t kg = kk / group, mg = ws[0] / group;
            const int wv = weightAs({group, mg, kg});
            const int cv = emit("Reshape", g, "columns_view", {cols}, {xs[0], group, kg, spatial});
            const int gm = emit("MatMul", g, "mm", {wv, cv}, {xs[0], group, mg, spatial});
            mm = emit("Reshape", g, "groups_joined", {gm}, {xs[0], ws[0], spatial});
        }
        const bool hasBias = g.inputs.size() > 2 && g.inputs[2] >= 0;
        const int y = emit("Reshape", g, "unflatten", {mm}, ys, hasBias ? -1 : g.outputs.at(0));
        if (hasBias) {
            Shape bs(ys.size() - 1, 1);
            bs[0] = ws[0];
            const int bv = emit("Reshape", g, "bias_view", {g.inputs[2]}, bs);
            emit("Add", g, "bias", {y, bv}, ys, g.outputs.at(0));
        }
    }

    // ConvTranspose -> a Conv (stride 1) over x with stride - 1 zeros between its elements, padded by dilation
    // (kernel - 1) minus the transposed pads (plus output_padding at the end; negative pads crop), with the kernel
    // flipped and, per group, its two channel axes swapped.
    void convTranspose(const GraphOp& g)
    {
        const int x = g.inputs.at(0), w = g.inputs.at(1), y = g.outputs.at(0);
        const Shape xs = shapeOf(x), ws = shapeOf(w), ys = shapeOf(y);
        if (xs.size() < 3 || ws.size() != xs.size() || ys.size() != xs.size())
            throw opError(p_, g, "expects N x C x spatial input and C x M/group x kernel weight");
        const size_t n = xs.size() - 2;
        const int64_t group = g.intAttr("group", 1), N = xs[0], C = xs[1];
        if (group < 1 || C % group != 0 || ws[0] != C)
            throw opError(p_, g, "attribute 'group' = " + std::to_string(group) + " does not fit " + std::to_string(C) + " input channels");
        const int64_t mg = ws[1], M = mg * group, cg = C / group;
        const Shape inSpatial(xs.begin() + 2, xs.end());
        const std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
        auto ints = [&](const char* key) { return g.ints.count(key) ? g.ints.at(key) : std::vector<int64_t>{}; };
        const model::ConvTransposeGeometry t = model::convTransposeGeometry(
            inSpatial, kernel, ints("strides"), ints("dilations"), ints("output_padding"), ints("pads"),
            g.strings.count("auto_pad") ? g.strings.at("auto_pad") : "NOTSET", ints("output_shape"));
        if (!t.error.empty())
            throw opError(p_, g, t.error);
        if (t.outSpatial != Shape(ys.begin() + 2, ys.end()))
            throw opError(p_, g, "the output " + shapeText(ys) + " does not match the attributes (spatial " + shapeText(t.outSpatial) + ")");
        // 1. Zeros between the elements: [N, C, i1, 1, i2, 1, ...] padded to [N, C, i1, s1, ...], flattened, trimmed.
        int z = x;
        bool strided = false;
        for (int64_t s : t.strides)
            strided = strided || s > 1;
        if (strided) {
            Shape spread{N, C}, wide{N, C}, flat{N, C};
            std::vector<int64_t> pads(2 * (2 + 2 * n), 0);
            for (size_t d = 0; d < n; ++d) {
                spread.insert(spread.end(), {inSpatial[d], 1});
                wide.insert(wide.end(), {inSpatial[d], t.strides[d]});
                flat.push_back(inSpatial[d] * t.strides[d]);
                pads[(2 + 2 * n) + 3 + 2 * d] = t.strides[d] - 1;
            }
            const int v = emit("Reshape", g, "spread", {x}, spread);
            const int pc = emit("PadConstant", g, "zeros", {v}, wide);
            out.back().ints["pads"] = pads;
            out.back().floats["value"] = 0.0;
            z = emit("Reshape", g, "interleaved", {pc}, flat);
            for (size_t d = 0; d < n; ++d)
                if (t.strides[d] > 1)
                    z = sliceAlong(g, "trim" + std::to_string(d), z, static_cast<int>(d + 2), 0, (inSpatial[d] - 1) * t.strides[d] + 1, 1);
        }
        // 2. The conv's pads; a negative one crops z instead.
        std::vector<int64_t> convPads(2 * n, 0);
        for (size_t d = 0; d < n; ++d) {
            int64_t b = t.dilations[d] * (kernel[d] - 1) - t.padBegin[d];
            int64_t e = t.dilations[d] * (kernel[d] - 1) - t.padEnd[d] + t.outputPadding[d];
            if (b < 0 || e < 0) {
                const int64_t len = shapeOf(z)[d + 2];
                const int64_t cb = std::max<int64_t>(0, -b), ce = std::max<int64_t>(0, -e);
                z = sliceAlong(g, "crop" + std::to_string(d), z, static_cast<int>(d + 2), cb, len - cb - ce, 1);
                b = std::max<int64_t>(0, b);
                e = std::max<int64_t>(0, e);
            }
            convPads[d] = b;
            convPads[d + n] = e;
        }
        // 3. The kernel as a Conv weight [M, C/group, k...]: channel axes swapped per group, spatial axes reversed.
        Shape cw{M, cg};
        cw.insert(cw.end(), kernel.begin(), kernel.end());
        int wc;
        const GraphTensor& wt = p_.tensors[w];
        const int64_t taps = shapeProduct(Shape(kernel.begin(), kernel.end()));
        if (wt.isConstant && wt.f) {
            std::vector<float> data(static_cast<size_t>(M * cg * taps));
            for (int64_t c = 0; c < C; ++c)
                for (int64_t m = 0; m < mg; ++m)
                    for (int64_t k = 0; k < taps; ++k) {
                        const int64_t grp = c / cg;
                        data[((grp * mg + m) * cg + c % cg) * taps + (taps - 1 - k)] = (*wt.f)[(c * mg + m) * taps + k];
                    }
            wc = rw_.constantVector(g.name + "/conv_weight", cw, std::move(data));
        } else {
            Shape grouped{group, cg, mg}, swapped{group, mg, cg};
            grouped.insert(grouped.end(), kernel.begin(), kernel.end());
            swapped.insert(swapped.end(), kernel.begin(), kernel.end());
            const int gv = emit("Reshape", g, "weight_groups", {w}, grouped);
            const int tr = emit("Transpose", g, "weight_swap", {gv}, swapped);
            std::vector<int64_t> perm{0, 2, 1};
            for (size_t d = 0; d < n; ++d)
                perm.push_back(static_cast<int64_t>(3 + d));
            out.back().ints["perm"] = perm;
            wc = emit("Reshape", g, "weight_joined", {tr}, cw);
            for (size_t d = 0; d < n; ++d)
                wc = sliceAlong(g, "weight_flip" + std::to_string(d), wc, static_cast<int>(d + 2), kernel[d] - 1, kernel[d], -1);
        }
        // 4. The Conv itself, labelled as the ConvTranspose it comes from.
        GraphOp conv2 = g;
        conv2.inputs = {z, wc};
        if (g.inputs.size() > 2 && g.inputs[2] >= 0)
            conv2.inputs.push_back(g.inputs[2]);
        conv2.ints.clear();
        conv2.strings.clear();
        conv2.ints["group"] = {group};
        conv2.ints["dilations"] = t.dilations;
        conv2.ints["pads"] = convPads;
        conv2.ints["strides"] = std::vector<int64_t>(n, 1);
        conv(conv2);
    }

    void pool(const GraphOp& g, bool max)
    {
        count(g);
        const int x = g.inputs.at(0);
        const Shape xs = shapeOf(x), ys = shapeOf(g.outputs.at(0));
        if (xs.size() < 3)
            throw opError(p_, g, "expects N x C x spatial input");
        if (g.outputs.size() > 1 && g.outputs[1] >= 0 && p_.tensors[g.outputs[1]].isOutput)
            throw opError(p_, g, "the Indices output is not supported");
        const std::vector<int64_t> kernel = g.ints.count("kernel_shape") ? g.ints.at("kernel_shape") : std::vector<int64_t>{};
        if (kernel.size() != xs.size() - 2)
            throw opError(p_, g, "attribute 'kernel_shape' must have one entry per spatial dim");
        const Window win = window(g, xs, kernel);
        const int y = g.outputs.at(0);
        if (max) {
            emit("WindowReduce", g, "max", {x}, ys, y);
            setWindow(out.back(), win);
            out.back().strings["mode"] = "max";
            return;
        }
        const int sum = emit("WindowReduce", g, "sum", {x}, ys);
        setWindow(out.back(), win);
        out.back().strings["mode"] = "sum";
        int64_t window = 1;
        for (int64_t k : kernel)
            window *= k;
        bool padded = false;
        for (int64_t pad : win.pads)
            padded = padded || pad != 0;
        const size_t d = kernel.size();
        // ceil_mode windows may run past the end even without pads.
        for (size_t i = 0; i < d; ++i)
            padded = padded || (ys[i + 2] - 1) * win.strides[i] + (kernel[i] - 1) * win.dilations[i] >= xs[i + 2] + win.pads[i];
        if (!padded || g.intAttr("count_include_pad", 0)) {
            emit("Div", g, "mean", {sum, rw_.scalar(static_cast<double>(window))}, ys, y);
            return;
        }
        // Divide by the number of in-bounds elements of each window, computed here once.
        Shape os(ys.begin() + 2, ys.end());
        std::vector<float> counts(shapeProduct(os));
        for (int64_t flat = 0; flat < static_cast<int64_t>(counts.size()); ++flat) {
            int64_t rest = flat, n = 1;
            for (int i = static_cast<int>(d) - 1; i >= 0; --i) {
                const int64_t o = rest % os[i];
                rest /= os[i];
                int64_t valid = 0;
                for (int64_t k = 0; k < kernel[i]; ++k) {
                    const int64_t pos = o * win.strides[i] + k * win.dilations[i] - win.pads[i];
                    valid += pos >= 0 && pos < xs[i + 2];
                }
                n *= valid;
            }
            counts[flat] = static_cast<float>(std::max<int64_t>(n, 1));
        }
        const int c = rw_.constantVector(g.name + "/window_counts", os, std::move(counts));
        emit("Div", g, "mean", {sum, c}, ys, y);
    }

    void globalPool(const GraphOp& g, bool max)
    {
        count(g);
        const int x = g.inputs.at(0);
        const Shape xs = shapeOf(x);
        std::vector<int> axes;
        int64_t n = 1;
        for (size_t d = 2; d < xs.size(); ++d) {
            axes.push_back(static_cast<int>(d));
            n *= xs[d];
        }
        if (max) {
            reduce("ReduceMax", g, "max", x, axes, g.outputs.at(0));
            return;
        }
        const int sum = reduce("ReduceSum", g, "sum", x, axes);
        emit("Div", g, "mean", {sum, rw_.scalar(static_cast<double>(n))}, shapeOf(sum), g.outputs.at(0));
    }

    // InstanceNormalization: LayerNorm's mean/variance over the spatial dims of each (n, c), then scale[c], B[c].
    void instanceNorm(const GraphOp& g)
    {
        count(g);
        const int x = g.inputs.at(0), y = g.outputs.at(0);
        const Shape xs = shapeOf(x);
        if (xs.size() < 3)
            throw opError(p_, g, "input must be N x C x spatial");
        std::vector<int> axes;
        int64_t n = 1;
        for (size_t d = 2; d < xs.size(); ++d) {
            axes.push_back(static_cast<int>(d));
            n *= xs[d];
        }
        Shape cs(xs.size() - 1, 1);
        cs[0] = xs[1];
        const int sum = reduce("ReduceSum", g, "sum", x, axes);
        const int mean = emit("Div", g, "mean", {sum, rw_.scalar(static_cast<double>(n))}, shapeOf(sum));
        const int d = emit("Sub", g, "centre", {x, mean}, xs);
        const int sq = emit("Mul", g, "square", {d, d}, xs);
        const int vsum = reduce("ReduceSum", g, "var_sum", sq, axes);
        const int var = emit("Div", g, "var", {vsum, rw_.scalar(static_cast<double>(n))}, shapeOf(vsum));
        const int ve = emit("Add", g, "eps", {var, rw_.scalar(g.floatAttr("epsilon", 1e-5))}, shapeOf(var));
        const int sd = emit("Sqrt", g, "std", {ve}, shapeOf(var));
        const int norm = emit("Div", g, "normalise", {d, sd}, xs);
        const int scale = emit("Reshape", g, "scale_view", {g.inputs.at(1)}, cs);
        const int shift = emit("Reshape", g, "shift_view", {g.inputs.at(2)}, cs);
        const int scaled = emit("Mul", g, "scale", {norm, scale}, xs);
        emit("Add", g, "shift", {scaled, shift}, xs, y);
    }

    // Elu: relu(x) + alpha (exp(min(x, 0)) - 1); Celu divides min(x, 0) by alpha inside exp; Selu is gamma Elu.
    void elu(const GraphOp& g)
    {
        count(g);
        const std::string& t = g.opType;
        const int x = g.inputs.at(0), y = g.outputs.at(0);
        const Shape xs = shapeOf(x);
        const double alpha = g.floatAttr("alpha", t == "Selu" ? 1.67326319217681884765625 : 1.0);
        const double gamma = t == "Selu" ? g.floatAttr("gamma", 1.05070102214813232421875) : 1.0;
        const int pos = emit("Relu", g, "positive", {x}, xs);
        int neg = emit("Min", g, "negative", {x, rw_.scalar(0.0)}, xs);
        if (t == "Celu")
            neg = emit("Div", g, "over_alpha", {neg, rw_.scalar(alpha)}, xs);
        const int ex = emit("Exp", g, "exp", {neg}, xs);
        const int em1 = emit("Sub", g, "minus_one", {ex, rw_.scalar(1.0)}, xs);
        const int sc = emit("Mul", g, "alpha", {em1, rw_.scalar(alpha)}, xs);
        const int sum = emit("Add", g, t == "Selu" ? "elu" : "sum", {pos, sc}, xs, t == "Selu" ? -1 : y);
        if (t == "Selu")
            emit("Mul", g, "gamma", {sum, rw_.scalar(gamma)}, xs, y);
    }

    // Softplus: relu(x) + log(1 + exp(-|x|)) (no overflow); Softsign: x / (1 + |x|); ThresholdedRelu: x where x > alpha.
    void smoothActivation(const GraphOp& g)
    {
        count(g);
        const std::string& t = g.opType;
        const int x = g.inputs.at(0), y = g.outputs.at(0);
        const Shape xs = shapeOf(x);
        if (t == "ThresholdedRelu") {
            const int above = emit("Greater", g, "above", {x, rw_.scalar(g.floatAttr("alpha", 1.0))}, xs);
            p_.tensors[above].dtype = "bool";
            emit("Where", g, "thresholded", {above, x, rw_.scalar(0.0)}, xs, y);
            return;
        }
        const int ab = emit("Abs", g, "abs", {x}, xs);
        if (t == "Softsign") {
            const int den = emit("Add", g, "one_plus", {ab, rw_.scalar(1.0)}, xs);
            emit("Div", g, "softsign", {x, den}, xs, y);
            return;
        }
        const int na = emit("Neg", g, "neg_abs", {ab}, xs);
        const int ex = emit("Exp", g, "exp", {na}, xs);
        const int op = emit("Add", g, "one_plus", {ex, rw_.scalar(1.0)}, xs);
        const int lg = emit("Log", g, "log", {op}, xs);
        const int pos = emit("Relu", g, "positive", {x}, xs);
        emit("Add", g, "softplus", {pos, lg}, xs, y);
    }

    // A strided window of x along `axis` as a Slice the lowering turns into a view: `count` elements from `start`
    // by `step` (negative steps walk backwards).
    int sliceAlong(const GraphOp& g, const std::string& suffix, int x, int axis, int64_t start, int64_t count, int64_t step,
                   int into = -1)
    {
        Shape shape = shapeOf(x);
        shape[axis] = count;
        const int r = emit("Slice", g, suffix, {x}, shape, into);
        out.back().ints["starts"] = {start};
        out.back().ints["ends"] = {start + count * step};
        out.back().ints["axes"] = {axis};
        out.back().ints["steps"] = {step};
        return r;
    }

    // RNN/GRU/LSTM unrolled over the static sequence: x W^T (+ both biases) for every step in one MatMul, then per step
    // h R^T, the gates as column slices, their activations and the state update (ONNX's equations, gate order i o f c
    // for LSTM, z r h for GRU); Y concatenates the steps' h. In the IR each step is its own ops, named .../t<step>.
    void recurrent(const GraphOp& g)
    {
        count(g);
        const std::string& type = g.opType;
        const bool lstm = type == "LSTM", gru = type == "GRU";
        auto input = [&](size_t k) { return k < g.inputs.size() ? g.inputs[k] : -1; };
        int x = input(0);
        const int w = input(1), r = input(2), b = input(3), lens = input(4), h0 = input(5), c0 = lstm ? input(6) : -1, peep = lstm ? input(7) : -1;
        const bool batchFirst = g.intAttr("layout", 0) != 0;
        const Shape xs = shapeOf(x);
        const int64_t S = batchFirst ? xs[1] : xs[0], N = batchFirst ? xs[0] : xs[1], I = xs[2];
        const Shape rs = shapeOf(r);
        const int64_t H = g.intAttr("hidden_size", rs.at(2)), G = lstm ? 4 : gru ? 3 : 1;
        const std::string direction = g.strings.count("direction") ? g.strings.at("direction") : "forward";
        const int64_t D = direction == "bidirectional" ? 2 : 1;
        auto fits = [&](int v, const Shape& want) { return v < 0 || shapeOf(v) == want; };
        if (!fits(w, {D, G * H, I}) || !fits(r, {D, G * H, H}) || !fits(b, {D, 2 * G * H}) || !fits(h0, {D, N, H}) ||
            !fits(c0, {D, N, H}) || !fits(peep, {D, 3 * H}))
            throw opError(p_, g, "W, R, B, P, initial_h or initial_c do not match hidden_size " + std::to_string(H) +
                                     ", direction '" + direction + "'");
        if (lens >= 0) {
            for (int64_t v : constInts(p_, g, 4))
                if (v != S)
                    throw opError(p_, g, "sequence_lens other than the full sequence length " + std::to_string(S) + " are not supported");
        }
        std::vector<std::string> acts;
        if (g.strings.count("activations")) {
            std::string list = g.strings.at("activations");
            size_t start = 0;
            while (start <= list.size()) {
                const size_t comma = std::min(list.find(',', start), list.size());
                acts.push_back(list.substr(start, comma - start));
                start = comma + 1;
            }
        }
        const std::vector<std::string> defaults = lstm ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                                  : gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                        : std::vector<std::string>{"Tanh"};
        if (acts.empty())
            for (int64_t d = 0; d < D; ++d)
                acts.insert(acts.end(), defaults.begin(), defaults.end());
        if (acts.size() != defaults.size() * static_cast<size_t>(D))
            throw opError(p_, g, "attribute 'activations' has " + std::to_string(acts.size()) + " entries, expected " +
                                     std::to_string(defaults.size() * D));
        const bool hasClip = g.floats.count("clip") > 0;
        const double clip = g.floatAttr("clip", 0.0);
        const bool linearBeforeReset = g.intAttr("linear_before_reset", 0) != 0;
        const int y = g.outputs.size() > 0 ? g.outputs[0] : -1, yh = g.outputs.size() > 1 ? g.outputs[1] : -1,
                  yc = g.outputs.size() > 2 ? g.outputs[2] : -1;
        if (batchFirst)
            x = permuted(g, "time_major", x, "nsi", "sni");
        const int x2 = emit("Reshape", g, "x_rows", {x}, {S * N, I});
        auto act = [&](const std::string& name, int v, const std::string& tag) {
            if (hasClip) {
                v = emit("Clip", g, tag + "_clip", {v}, shapeOf(v));
                out.back().floats["min"] = -clip;
                out.back().floats["max"] = clip;
            }
            return emit(name, g, tag, {v}, shapeOf(v));
        };
        // [1, X, Y] slice k of a [D, X, Y] parameter, as [X, Y].
        auto ofDirection = [&](int param, int64_t d, const std::string& tag) {
            Shape ps = shapeOf(param);
            const int sl = sliceAlong(g, tag, param, 0, d, 1, 1);
            Shape flat(ps.begin() + 1, ps.end());
            return emit("Reshape", g, tag + "_2d", {sl}, flat);
        };
        auto columns = [&](int v, int64_t from, int64_t count, const std::string& tag) {
            return sliceAlong(g, tag, v, static_cast<int>(shapeOf(v).size() - 1), from, count, 1);
        };
        std::vector<std::vector<int>> hs(static_cast<size_t>(D), std::vector<int>(static_cast<size_t>(S), -1));
        std::vector<int> lastH(static_cast<size_t>(D)), lastC(static_cast<size_t>(D));
        for (int64_t d = 0; d < D; ++d) {
            const std::string dt = "d" + std::to_string(d);
            const bool reverse = direction == "reverse" || d == 1;
            const std::string* a = &acts[static_cast<size_t>(d) * defaults.size()];
            const int wd = ofDirection(w, d, dt + "_W"), rd = ofDirection(r, d, dt + "_R");
            const int wt = permuted(g, dt + "_Wt", wd, "gi", "ig"), rt = permuted(g, dt + "_Rt", rd, "gh", "hg");
            // x W^T + Wb + Rb for every step at once: [S * N, G H].
            int xw = emit("MatMul", g, dt + "_xW", {x2, wt}, {S * N, G * H});
            int rb = -1;
            if (b >= 0) {
                const int bd = emit("Reshape", g, dt + "_B", {sliceAlong(g, dt + "_Bd", b, 0, d, 1, 1)}, {2 * G * H});
                const int wb = columns(bd, 0, G * H, dt + "_Wb");
                rb = columns(bd, G * H, G * H, dt + "_Rb");
                xw = emit("Add", g, dt + "_xW_b", {xw, wb}, {S * N, G * H});
                xw = emit("Add", g, dt + "_xW_bb", {xw, rb}, {S * N, G * H});
            }
            const int xw3 = emit("Reshape", g, dt + "_xW_steps", {xw}, {S, N, G * H});
            int h = h0 >= 0 ? ofDirection(h0, d, dt + "_h0") : -1;
            int cst = c0 >= 0 ? ofDirection(c0, d, dt + "_c0") : -1;
            int pi = -1, po = -1, pf = -1;
            if (peep >= 0) {
                const int pd = emit("Reshape", g, dt + "_P", {sliceAlong(g, dt + "_Pd", peep, 0, d, 1, 1)}, {3 * H});
                pi = columns(pd, 0, H, dt + "_Pi");
                po = columns(pd, H, H, dt + "_Po");
                pf = columns(pd, 2 * H, H, dt + "_Pf");
            }
            const Shape nh{N, H};
            for (int64_t step = 0; step < S; ++step) {
                const int64_t t = reverse ? S - 1 - step : step;
                const std::string tag = dt + "/t" + std::to_string(t);
                const int xwt = emit("Reshape", g, tag + "_xW", {sliceAlong(g, tag + "_xW_row", xw3, 0, t, 1, 1)}, {N, G * H});
                int gates = xwt, hr = -1;   // hr = h R^T, absent while h is zero
                if (h >= 0) {
                    hr = emit("MatMul", g, tag + "_hR", {h, rt}, {N, G * H});
                    gates = emit("Add", g, tag + "_pre", {xwt, hr}, {N, G * H});
                }
                auto gate = [&](int64_t k, const std::string& name) { return columns(gates, k * H, H, tag + "_" + name); };
                int hNew;
                if (lstm) {
                    int ig = gate(0, "i"), og = gate(1, "o"), fg = gate(2, "f"), cg = gate(3, "c");
                    if (pi >= 0 && cst >= 0) {
                        ig = emit("Add", g, tag + "_i_peep", {ig, emit("Mul", g, tag + "_Pi_c", {pi, cst}, nh)}, nh);
                        fg = emit("Add", g, tag + "_f_peep", {fg, emit("Mul", g, tag + "_Pf_c", {pf, cst}, nh)}, nh);
                    }
                    const int i1 = act(a[0], ig, tag + "_i_act"), c1 = act(a[1], cg, tag + "_c_act");
                    int cn = emit("Mul", g, tag + "_ic", {i1, c1}, nh);
                    if (cst >= 0)   // the forget gate only matters once there is a cell state to forget
                        cn = emit("Add", g, tag + "_C", {emit("Mul", g, tag + "_fC", {act(a[0], fg, tag + "_f_act"), cst}, nh), cn}, nh);
                    if (po >= 0)
                        og = emit("Add", g, tag + "_o_peep", {og, emit("Mul", g, tag + "_Po_c", {po, cn}, nh)}, nh);
                    const int o1 = act(a[0], og, tag + "_o_act");
                    hNew = emit("Mul", g, tag + "_H", {o1, act(a[2], cn, tag + "_C_act")}, nh);
                    cst = cn;
                } else if (gru) {
                    const int z = act(a[0], gate(0, "z"), tag + "_z_act");
                    const int rg = act(a[0], gate(1, "r"), tag + "_r_act");
                    // The h gate: x W_h^T + Wb_h + Rb_h, plus (r h) R_h^T; with linear_before_reset r (h R_h^T + Rb_h)
                    // instead, so Rb_h moves inside the gating.
                    int pre = columns(xwt, 2 * H, H, tag + "_xh");
                    const int rbh = rb >= 0 ? columns(rb, 2 * H, H, tag + "_Rb_h") : -1;
                    if (linearBeforeReset) {
                        int inner = h >= 0 ? columns(hr, 2 * H, H, tag + "_hRh") : -1;
                        if (rbh >= 0) {
                            pre = emit("Sub", g, tag + "_xh_only", {pre, rbh}, nh);
                            inner = inner >= 0 ? emit("Add", g, tag + "_hRh_b", {inner, rbh}, nh) : rbh;
                        }
                        if (inner >= 0)
                            pre = emit("Add", g, tag + "_h_pre", {pre, emit("Mul", g, tag + "_r_hR", {rg, inner}, nh)}, nh);
                    } else if (h >= 0) {
                        const int rh = emit("Mul", g, tag + "_r_h", {rg, h}, nh);
                        pre = emit("Add", g, tag + "_h_pre", {pre, emit("MatMul", g, tag + "_rh_R", {rh, columns(rt, 2 * H, H, tag + "_Rh_t")}, nh)}, nh);
                    }
                    const int hh = act(a[1], pre, tag + "_h_act");
                    // H = (1 - z) hh + z h = hh + z (h - hh)
                    hNew = h >= 0 ? emit("Add", g, tag + "_H", {hh, emit("Mul", g, tag + "_z_dh", {z, emit("Sub", g, tag + "_dh", {h, hh}, nh)}, nh)}, nh)
                                  : emit("Sub", g, tag + "_H", {hh, emit("Mul", g, tag + "_z_hh", {z, hh}, nh)}, nh);
                } else {
                    hNew = act(a[0], gates, tag + "_H");
                }
                h = hNew;
                hs[d][t] = h;
            }
            lastH[d] = h;
            lastC[d] = cst;
        }
        // Outputs: Y [S, D, N, H] (batch first: [N, S, D, H]); Y_h, Y_c [D, N, H] ([N, D, H]).
        auto stack = [&](const std::vector<int>& parts, const Shape& each, int axis, const std::string& tag, int into) {
            std::vector<int> views;
            Shape one = each;
            one.insert(one.begin() + axis, 1);
            for (size_t k = 0; k < parts.size(); ++k)
                views.push_back(emit("Reshape", g, tag + "_part" + std::to_string(k), {parts[k]}, one));
            Shape all = each;
            all.insert(all.begin() + axis, static_cast<int64_t>(parts.size()));
            if (views.size() == 1)
                return emit("Reshape", g, tag, {views[0]}, all, into);
            const int cat = emit("Concat", g, tag, views, all, into);
            out.back().ints["axis"] = {axis};
            return cat;
        };
        auto finalState = [&](const std::vector<int>& states, int into, const std::string& tag) {
            if (into >= 0 && !states.empty() && states[0] >= 0)
                stack(states, {N, H}, batchFirst ? 1 : 0, tag, into);
        };
        if (y >= 0) {
            std::vector<int> perStep;
            for (int64_t t = 0; t < S; ++t) {
                std::vector<int> dirs;
                for (int64_t d = 0; d < D; ++d)
                    dirs.push_back(hs[d][t]);
                perStep.push_back(stack(dirs, {N, H}, batchFirst ? 1 : 0, "Y/t" + std::to_string(t), -1));
            }
            stack(perStep, batchFirst ? Shape{N, D, H} : Shape{D, N, H}, batchFirst ? 1 : 0, "Y", y);
        }
        finalState(lastH, yh, "Y_h");
        if (lstm)
            finalState(lastC, yc, "Y_c");
    }

    // QuantizeLinear: clip(round(x / scale) + zero_point) to the integer type, stored as it; DequantizeLinear:
    // (x - zero_point) * scale. A 1-D scale (and zero point) is viewed as [C, 1, ...] along the axis.
    void quantize(const GraphOp& g, bool toInteger)
    {
        count(g);
        const int x = g.inputs.at(0), y = g.outputs.at(0);
        const Shape xs = shapeOf(x), ys = shapeOf(y);
        const std::string outType = p_.tensors[y].dtype;
        auto alongAxis = [&](int v, const std::string& tag) {
            const Shape vs = shapeOf(v);
            if (shapeProduct(vs) == 1 && vs.size() != 1)
                return v;
            const int axis = normAxis(g.intAttr("axis", 1), xs.size());
            if (vs.size() != 1 || axis < 0 || axis >= static_cast<int>(xs.size()) || vs[0] != xs[axis])
                throw opError(p_, g, "scale must be a scalar or have one entry per element of the axis");
            Shape view(xs.size() - axis, 1);
            view[0] = vs[0];
            return emit("Reshape", g, tag, {v}, view);
        };
        const int scale = alongAxis(g.inputs.at(1), "scale_view");
        const int zp = g.inputs.size() > 2 && g.inputs[2] >= 0 ? alongAxis(g.inputs[2], "zero_point_view") : -1;
        if (!toInteger) {
            const int centred = zp >= 0 ? emit("Sub", g, "centre", {x, zp}, xs) : x;
            emit("Mul", g, "dequantize", {centred, scale}, ys, y);
            return;
        }
        const int q = emit("Round", g, "round", {emit("Div", g, "scale", {x, scale}, xs)}, xs);
        const int shifted = zp >= 0 ? emit("Add", g, "shift", {q, zp}, xs) : q;
        const int clipped = emit("Clip", g, "saturate", {shifted}, xs);
        out.back().floats["min"] = outType == "int8" ? -128.0 : 0.0;
        out.back().floats["max"] = outType == "int8" ? 127.0 : 255.0;
        emit("Cast", g, "to_integer", {clipped}, ys, y);
    }

    // DepthToSpace (DCR: channels as [b, b, C'], CRD: [C', b, b]) and SpaceToDepth: reshape, transpose, reshape.
    void depthSpace(const GraphOp& g, bool toSpace)
    {
        count(g);
        const int x = g.inputs.at(0), y = g.outputs.at(0);
        const Shape xs = shapeOf(x), ys = shapeOf(y);
        if (xs.size() != 4)
            throw opError(p_, g, "input must be N x C x H x W");
        const int64_t b = g.intAttr("blocksize", 1), N = xs[0], C = xs[1], H = xs[2], W = xs[3];
        const bool crd = g.strings.count("mode") && g.strings.at("mode") == "CRD";
        Shape split, perm6;
        std::vector<int64_t> perm;
        if (toSpace) {
            split = crd ? Shape{N, C / (b * b), b, b, H, W} : Shape{N, b, b, C / (b * b), H, W};
            perm = crd ? std::vector<int64_t>{0, 1, 4, 2, 5, 3} : std::vector<int64_t>{0, 3, 4, 1, 5, 2};
        } else {
            split = {N, C, H / b, b, W / b, b};
            perm = {0, 3, 5, 1, 2, 4};
        }
        for (int64_t p : perm)
            perm6.push_back(split[p]);
        const int v = emit("Reshape", g, "blocks", {x}, split);
        const int tr = emit("Transpose", g, "move_blocks", {v}, perm6);
        out.back().ints["perm"] = perm;
        emit("Reshape", g, "joined", {tr}, ys, y);
    }

    // `x` (labelled `labels`) with its dims reordered to `order`: a Transpose, or nothing when already in order.
    int permuted(const GraphOp& g, const std::string& suffix, int x, const std::string& labels, const std::string& order)
    {
        if (labels == order)
            return x;
        std::vector<int64_t> perm;
        Shape shape;
        for (char l : order) {
            perm.push_back(static_cast<int64_t>(labels.find(l)));
            shape.push_back(shapeOf(x)[perm.back()]);
        }
        const int r = emit("Transpose", g, suffix, {x}, shape);
        out.back().ints["perm"] = perm;
        return r;
    }

    // Einsum (einsum.h reads the equation): labels in one operand only and not in the output are summed first; one
    // operand is then a transpose; two are a batched MatMul [batch, left, K] x [batch, K, right] (batch: labels in
    // both and the output, K: in both only), reshaped and transposed to the output.
    void einsum(const GraphOp& g)
    {
        count(g);
        const int y = g.outputs.at(0);
        const Shape ys = shapeOf(y);
        std::vector<int> in;
        std::vector<int64_t> ranks;
        for (int v : g.inputs) {
            in.push_back(v);
            ranks.push_back(static_cast<int64_t>(shapeOf(v).size()));
        }
        const model::EinsumSpec spec = model::parseEinsum(g.strings.count("equation") ? g.strings.at("equation") : "", ranks);
        if (!spec.error.empty())
            throw opError(p_, g, "equation: " + spec.error);
        if (in.empty() || in.size() > 2)
            throw opError(p_, g, "has " + std::to_string(in.size()) + " operands; one or two are supported");
        std::vector<std::string> labels = spec.inputs;
        auto usedElsewhere = [&](char l, size_t k) {
            if (spec.output.find(l) != std::string::npos)
                return true;
            for (size_t j = 0; j < labels.size(); ++j)
                if (j != k && labels[j].find(l) != std::string::npos)
                    return true;
            return false;
        };
        for (size_t k = 0; k < in.size(); ++k) {
            std::vector<int> axes;
            std::string kept;
            for (size_t d = 0; d < labels[k].size(); ++d) {
                if (usedElsewhere(labels[k][d], k))
                    kept += labels[k][d];
                else
                    axes.push_back(static_cast<int>(d));
            }
            if (axes.empty())
                continue;
            const int r = emit("ReduceSum", g, "sum" + std::to_string(k), {in[k]}, reducedShape(shapeOf(in[k]), axes, false));
            out.back().ints["axes"] = std::vector<int64_t>(axes.begin(), axes.end());
            out.back().ints["keepdims"] = {0};
            in[k] = r;
            labels[k] = kept;
        }
        if (in.size() == 1) {
            const int t = permuted(g, "transpose", in[0], labels[0], spec.output);
            emit("Reshape", g, "einsum", {t}, ys, y);
            return;
        }
        const std::string& a = labels[0];
        const std::string& b = labels[1];
        std::string batch, left, right, contracted;
        for (char l : spec.output) {
            const bool inA = a.find(l) != std::string::npos, inB = b.find(l) != std::string::npos;
            (inA && inB ? batch : inA ? left : right) += l;
        }
        for (char l : a)
            if (b.find(l) != std::string::npos && spec.output.find(l) == std::string::npos)
                contracted += l;
        auto sizeOf = [&](int v, const std::string& ls, char l) { return shapeOf(v)[ls.find(l)]; };
        auto product = [&](int v, const std::string& ls, const std::string& which) {
            int64_t n = 1;
            for (char l : which)
                n *= sizeOf(v, ls, l);
            return n;
        };
        Shape aShape, bShape, mmShape;
        for (char l : batch) {
            aShape.push_back(sizeOf(in[0], a, l));
            bShape.push_back(sizeOf(in[1], b, l));
            mmShape.push_back(std::max(aShape.back(), bShape.back()));
        }
        const int64_t L = product(in[0], a, left), K = product(in[0], a, contracted), R = product(in[1], b, right);
        aShape.insert(aShape.end(), {L, K});
        bShape.insert(bShape.end(), {K, R});
        mmShape.insert(mmShape.end(), {L, R});
        const int av = emit("Reshape", g, "a_view", {permuted(g, "a_order", in[0], a, batch + left + contracted)}, aShape);
        const int bv = emit("Reshape", g, "b_view", {permuted(g, "b_order", in[1], b, batch + contracted + right)}, bShape);
        const int mm = emit("MatMul", g, "mm", {av, bv}, mmShape);
        Shape unflat(mmShape.begin(), mmShape.begin() + static_cast<long>(batch.size()));
        for (char l : left)
            unflat.push_back(sizeOf(in[0], a, l));
        for (char l : right)
            unflat.push_back(sizeOf(in[1], b, l));
        const int uv = emit("Reshape", g, "unflatten", {mm}, unflat);
        const int t = permuted(g, "out_order", uv, batch + left + right, spec.output);
        emit("Reshape", g, "einsum", {t}, ys, y);
    }

    // Resize/Upsample -> per resized axis one MatMul with the constant sampling matrix of resize_weights.h (the
    // reference's own definition): x @ W^T on the last axis, W @ x viewed as [outer, in, inner] on any other.
    void resize(const GraphOp& g)
    {
        count(g);
        const int x = g.inputs.at(0), y = g.outputs.at(0);
        const Shape xs = shapeOf(x), ys = shapeOf(y);
        const size_t rank = xs.size();
        const bool legacy = p_.opsetVersion < 11;
        std::vector<double> scales;   // Upsample-7's scales attribute: out / in below, the same for its whole scales
        const size_t scalesInput = legacy ? 1 : 2;
        if (g.inputs.size() > scalesInput && g.inputs[scalesInput] >= 0) {
            const GraphTensor& t = p_.tensors[g.inputs[scalesInput]];
            if (!t.isConstant)
                throw opError(p_, g, "input 'scales' must be a constant");
            if (t.f)
                scales.assign(t.f->begin(), t.f->end());
        }
        if (!scales.empty() && scales.size() != rank)
            throw opError(p_, g, "scales has " + std::to_string(scales.size()) + " entries for rank " + std::to_string(rank));
        const model::ResizeAxis base = model::resizeSampling(
            p_.opsetVersion, g.strings.count("mode") ? g.strings.at("mode") : "",
            g.strings.count("coordinate_transformation_mode") ? g.strings.at("coordinate_transformation_mode") : "",
            g.strings.count("nearest_mode") ? g.strings.at("nearest_mode") : "");
        int cur = x;
        Shape cs = xs;
        std::vector<size_t> resized;
        for (size_t d = 0; d < rank; ++d)
            if (xs[d] != ys[d] || (!scales.empty() && scales[d] != 1.0))
                resized.push_back(d);
        if (resized.empty()) {
            emit("Reshape", g, "view", {x}, ys, y);
            return;
        }
        for (size_t k = 0; k < resized.size(); ++k) {
            const size_t d = resized[k];
            model::ResizeAxis a = base;
            a.inSize = xs[d];
            a.outSize = ys[d];
            a.scale = scales.empty() ? static_cast<double>(a.outSize) / static_cast<double>(std::max<int64_t>(1, a.inSize)) : scales[d];
            if (a.inSize == 0 || a.outSize == 0)
                throw opError(p_, g, "resizes axis " + std::to_string(d) + " from " + std::to_string(a.inSize) + " to " +
                                         std::to_string(a.outSize) + " elements; an empty axis is not supported");
            const std::vector<double> w = model::resizeWeights(a);
            if (w.empty())
                throw opError(p_, g, "mode '" + a.mode + "' with coordinate_transformation_mode '" + a.coordinateMode + "' is not supported");
            const bool lastStep = k + 1 == resized.size();
            Shape next = cs;
            next[d] = a.outSize;
            const std::string tag = "axis" + std::to_string(d);
            if (d + 1 == rank) {
                std::vector<float> wt(static_cast<size_t>(a.inSize * a.outSize));
                for (int64_t o = 0; o < a.outSize; ++o)
                    for (int64_t i = 0; i < a.inSize; ++i)
                        wt[i * a.outSize + o] = static_cast<float>(w[o * a.inSize + i]);
                const int wc = rw_.constantVector(g.name + "/" + tag + "_weights", {a.inSize, a.outSize}, std::move(wt));
                cur = emit("MatMul", g, tag, {cur, wc}, next, lastStep ? y : -1);
            } else {
                int64_t outer = 1, inner = 1;
                for (size_t j = 0; j < d; ++j)
                    outer *= cs[j];
                for (size_t j = d + 1; j < rank; ++j)
                    inner *= cs[j];
                std::vector<float> wf(w.begin(), w.end());
                const int wc = rw_.constantVector(g.name + "/" + tag + "_weights", {a.outSize, a.inSize}, std::move(wf));
                const int v = emit("Reshape", g, tag + "_view", {cur}, {outer, a.inSize, inner});
                const int mm = emit("MatMul", g, tag, {wc, v}, {outer, a.outSize, inner});
                cur = emit("Reshape", g, tag + "_unview", {mm}, next, lastStep ? y : -1);
            }
            cs = next;
        }
    }

    // Split -> one Slice (a view) per output.
    void splitOp(const GraphOp& g)
    {
        count(g);
        const int x = g.inputs.at(0);
        const Shape xs = shapeOf(x);
        const int axis = normAxis(g.intAttr("axis", 0), xs.size());
        if (axis < 0 || axis >= static_cast<int>(xs.size()))
            throw opError(p_, g, "attribute 'axis' is out of range for rank " + std::to_string(xs.size()));
        int64_t start = 0;
        for (size_t k = 0; k < g.outputs.size(); ++k) {
            const int y = g.outputs[k];
            if (y < 0)
                continue;
            const int64_t size = shapeOf(y).at(axis);
            sliceAlong(g, "part" + std::to_string(k), x, axis, start, size, 1, y);
            start += size;
        }
    }

    // Tile -> x viewed as [1, d0, 1, d1, ...], expanded to [r0, d0, r1, d1, ...], reshaped to [r0 d0, r1 d1, ...].
    void tile(const GraphOp& g)
    {
        count(g);
        const int x = g.inputs.at(0), y = g.outputs.at(0);
        const Shape xs = shapeOf(x), ys = shapeOf(y);
        const std::vector<int64_t> repeats = constInts(p_, g, 1);
        if (repeats.size() != xs.size())
            throw opError(p_, g, "input 'repeats' has " + std::to_string(repeats.size()) + " entries for rank " + std::to_string(xs.size()));
        Shape spread, expanded;
        for (size_t d = 0; d < xs.size(); ++d) {
            spread.insert(spread.end(), {1, xs[d]});
            expanded.insert(expanded.end(), {repeats[d], xs[d]});
        }
        const int v = emit("Reshape", g, "spread", {x}, spread);
        const int e = emit("Expand", g, "repeat", {v}, expanded);
        emit("Reshape", g, "tile", {e}, ys, y);
    }

    // Pad: crops (negative pads) are slices; constant padding is one masked copy (lower's PadConstant); reflect and
    // edge concatenate mirrored or repeated slices, one dim at a time.
    void pad(const GraphOp& g)
    {
        count(g);
        const int x = g.inputs.at(0), y = g.outputs.at(0);
        const Shape xs = shapeOf(x), ys = shapeOf(y);
        const size_t rank = xs.size();
        const std::vector<int64_t> pads = g.ints.count("pads") ? g.ints.at("pads") : constInts(p_, g, 1);
        if (pads.size() != 2 * rank)
            throw opError(p_, g, "pads has " + std::to_string(pads.size()) + " entries for rank " + std::to_string(rank));
        const std::string mode = g.strings.count("mode") ? g.strings.at("mode") : "constant";
        double value = g.floatAttr("value", 0.0);
        int runtimeValue = -1;   // a constant_value known only at run time
        if (g.inputs.size() > 2 && g.inputs[2] >= 0) {
            const GraphTensor& v = p_.tensors[g.inputs[2]];
            if (shapeProduct(v.shape) != 1)
                throw opError(p_, g, "input 'constant_value' must be a scalar");
            if (v.isConstant && (v.f || v.i))
                value = v.f ? (*v.f)[0] : static_cast<double>((*v.i)[0]);
            else
                runtimeValue = g.inputs[2];
        }
        int cur = x;
        std::vector<int64_t> grow(2 * rank, 0);
        for (size_t d = 0; d < rank; ++d) {
            grow[d] = std::max<int64_t>(0, pads[d]);
            grow[d + rank] = std::max<int64_t>(0, pads[d + rank]);
            const int64_t cropBegin = std::max<int64_t>(0, -pads[d]), cropEnd = std::max<int64_t>(0, -pads[d + rank]);
            if (cropBegin || cropEnd)
                cur = sliceAlong(g, "crop" + std::to_string(d), cur, static_cast<int>(d), cropBegin, shapeOf(cur)[d] - cropBegin - cropEnd, 1);
        }
        bool any = false;
        for (int64_t v : grow)
            any = any || v > 0;
        if (!any) {
            emit("Reshape", g, "view", {cur}, ys, y);
            return;
        }
        if (mode == "constant") {
            emit("PadConstant", g, "pad", runtimeValue >= 0 ? std::vector<int>{cur, runtimeValue} : std::vector<int>{cur}, ys, y);
            out.back().ints["pads"] = grow;
            out.back().floats["value"] = value;
            return;
        }
        if (mode != "reflect" && mode != "edge")
            throw opError(p_, g, "attribute 'mode' = \"" + mode + "\" is not supported");
        std::vector<size_t> dims;
        for (size_t d = 0; d < rank; ++d)
            if (grow[d] || grow[d + rank])
                dims.push_back(d);
        for (size_t k = 0; k < dims.size(); ++k) {
            const int d = static_cast<int>(dims[k]);
            const int64_t n = shapeOf(cur)[d], before = grow[d], after = grow[d + rank];
            if (n == 0 || (mode == "reflect" && (before >= n || after >= n)))
                throw opError(p_, g, mode + " pads of " + std::to_string(std::max(before, after)) + " do not fit a dimension of " + std::to_string(n));
            std::vector<int> parts;
            auto side = [&](bool left, int64_t count) {
                const std::string tag = (left ? "before" : "after") + std::to_string(d);
                if (mode == "reflect")
                    return sliceAlong(g, tag, cur, d, left ? count : n - 2, count, -1);
                const int edge = sliceAlong(g, tag + "_edge", cur, d, left ? 0 : n - 1, 1, 1);
                Shape wide = shapeOf(edge);
                wide[d] = count;
                return emit("Expand", g, tag, {edge}, wide);
            };
            if (before)
                parts.push_back(side(true, before));
            parts.push_back(cur);
            if (after)
                parts.push_back(side(false, after));
            Shape joined = shapeOf(cur);
            joined[d] = n + before + after;
            cur = emit("Concat", g, "pad" + std::to_string(d), parts, joined, k + 1 == dims.size() ? y : -1);
            out.back().ints["axis"] = {d};
        }
    }

    // ArgMax/ArgMin: the extreme along the axis, where x equals it the index (an int64 iota) else a sentinel, and the
    // smallest such index (the largest with select_last_index).
    void argExtreme(const GraphOp& g, bool isMax)
    {
        count(g);
        const int x = g.inputs.at(0), y = g.outputs.at(0);
        const Shape xs = shapeOf(x), ys = shapeOf(y);
        const int axis = normAxis(g.intAttr("axis", 0), xs.size());
        if (axis < 0 || axis >= static_cast<int>(xs.size()))
            throw opError(p_, g, "attribute 'axis' is out of range for rank " + std::to_string(xs.size()));
        const bool last = g.intAttr("select_last_index", 0) != 0;
        const int64_t n = xs[axis];
        const int ext = reduce(isMax ? "ReduceMax" : "ReduceMin", g, isMax ? "max" : "min", x, {axis});
        const int eq = emit("Equal", g, "is_extreme", {x, ext}, xs);
        p_.tensors[eq].dtype = "bool";
        Shape is(xs.size(), 1);
        is[axis] = n;
        std::vector<int64_t> iota(static_cast<size_t>(n));
        for (int64_t k = 0; k < n; ++k)
            iota[k] = k;
        const int idx = rw_.tensor(g.name + "/iota", is, "int64");
        p_.tensors[idx].isConstant = true;
        p_.tensors[idx].i = std::make_shared<const std::vector<int64_t>>(std::move(iota));
        const int cand = emit("Where", g, "index", {eq, idx, rw_.scalar(last ? -1.0 : static_cast<double>(n))}, xs);
        p_.tensors[cand].dtype = "int64";
        emit(last ? "ReduceMax" : "ReduceMin", g, last ? "last" : "first", {cand}, ys, y);
        out.back().ints["axes"] = {axis};
        out.back().ints["keepdims"] = {g.intAttr("keepdims", 1)};
    }

    // An int64 constant of `shape` holding each element's row-major index within dims [from, rank) (0 outside them
    // is impossible: the other dims of `shape` are 1).
    int flatIota(const GraphOp& g, const std::string& suffix, const Shape& shape)
    {
        std::vector<int64_t> v(static_cast<size_t>(shapeProduct(shape)));
        for (size_t k = 0; k < v.size(); ++k)
            v[k] = static_cast<int64_t>(k);
        const int t = rw_.tensor(g.name + "/" + suffix, shape, "int64");
        p_.tensors[t].isConstant = true;
        p_.tensors[t].i = std::make_shared<const std::vector<int64_t>>(std::move(v));
        return t;
    }

    // Hardmax: the first maximum of each slice (one axis; before opset 13 every dim from `axis` on) as in ArgMax,
    // then 1 where the slice's flat index equals it.
    void hardmax(const GraphOp& g)
    {
        count(g);
        const int x = g.inputs.at(0), y = g.outputs.at(0);
        const Shape xs = shapeOf(x);
        const bool legacy = p_.opsetVersion < 13;
        const int rank = static_cast<int>(xs.size());
        const int axis = normAxis(g.intAttr("axis", legacy ? 1 : -1), xs.size());
        if (axis < 0 || axis >= rank)
            throw opError(p_, g, "attribute 'axis' is out of range for rank " + std::to_string(rank));
        std::vector<int> axes;
        Shape block(xs.size(), 1);
        int64_t n = 1;
        for (int d = axis; d < (legacy ? rank : axis + 1); ++d) {
            axes.push_back(d);
            block[d] = xs[d];
            n *= xs[d];
        }
        const int mx = reduce("ReduceMax", g, "max", x, axes);
        const int eq = emit("Equal", g, "is_max", {x, mx}, xs);
        p_.tensors[eq].dtype = "bool";
        const int idx = flatIota(g, "iota", block);
        const int cand = emit("Where", g, "index", {eq, idx, rw_.scalar(static_cast<double>(n))}, xs);
        p_.tensors[cand].dtype = "int64";
        const int first = reduce("ReduceMin", g, "first", cand, axes);
        p_.tensors[first].dtype = "int64";
        const int hit = emit("Equal", g, "is_first", {idx, first}, xs);
        p_.tensors[hit].dtype = "bool";
        emit("Cast", g, "hardmax", {hit}, xs, y);
    }

    // ScatterND with constant indices: one Where per index tuple, selecting (or adding, multiplying) its update slice
    // where a compile-time mask of the tuple's position is set, in the tuples' order.
    void scatterND(const GraphOp& g)
    {
        count(g);
        const int data = g.inputs.at(0), updates = g.inputs.at(2), y = g.outputs.at(0);
        const Shape ds = shapeOf(data), is = shapeOf(g.inputs.at(1));
        const std::vector<int64_t> idx = constInts(p_, g, 1);
        const int64_t q = is.empty() ? 0 : is.back(), rank = static_cast<int64_t>(ds.size());
        if (q < 1 || q > rank)
            throw opError(p_, g, "the last dimension of indices must be between 1 and the rank of data");
        const std::string reduction = g.strings.count("reduction") ? g.strings.at("reduction") : "none";
        if (reduction != "none" && reduction != "add" && reduction != "mul")
            throw opError(p_, g, "attribute 'reduction' = \"" + reduction + "\" is not supported");
        const int64_t count = static_cast<int64_t>(idx.size()) / q;
        const Shape sliceShape(ds.begin() + q, ds.end());
        Shape maskShape(ds.begin(), ds.begin() + q);
        maskShape.insert(maskShape.end(), sliceShape.size(), 1);
        const Shape flatUpdates = [&] {
            Shape s{count};
            s.insert(s.end(), sliceShape.begin(), sliceShape.end());
            return s;
        }();
        const int uv = emit("Reshape", g, "updates_rows", {updates}, flatUpdates);
        int cur = data;
        if (count == 0) {
            emit("Reshape", g, "copy", {data}, ds, y);
            return;
        }
        for (int64_t u = 0; u < count; ++u) {
            std::vector<float> mask(static_cast<size_t>(shapeProduct(maskShape)), 0.0f);
            int64_t at = 0;
            for (int64_t d = 0; d < q; ++d) {
                int64_t v = idx[u * q + d];
                if (v < 0)
                    v += ds[d];
                if (v < 0 || v >= ds[d])
                    throw opError(p_, g, "index " + std::to_string(idx[u * q + d]) + " is out of range for dimension " + std::to_string(d));
                at = at * ds[d] + v;
            }
            mask[at] = 1.0f;
            const std::string tag = "u" + std::to_string(u);
            const int m = rw_.constantVector(g.name + "/" + tag + "_mask", maskShape, std::move(mask));
            Shape one = sliceShape;
            const int upd = emit("Reshape", g, tag + "_update", {sliceAlong(g, tag + "_row", uv, 0, u, 1, 1)}, one);
            int value = upd;
            if (reduction == "add")
                value = emit("Add", g, tag + "_sum", {cur, upd}, ds);
            else if (reduction == "mul")
                value = emit("Mul", g, tag + "_product", {cur, upd}, ds);
            cur = emit("Where", g, tag + "_write", {m, value, cur}, ds, u + 1 == count ? y : -1);
        }
    }

    // TopK unrolled over k: each round takes the extreme of what is left and its first index (as ArgMax), then
    // masks that position out with the opposite extreme; values and indices are the rounds concatenated.
    void topK(const GraphOp& g)
    {
        count(g);
        const int x = g.inputs.at(0);
        const Shape xs = shapeOf(x);
        const int axis = normAxis(g.intAttr("axis", -1), xs.size());
        if (axis < 0 || axis >= static_cast<int>(xs.size()))
            throw opError(p_, g, "attribute 'axis' is out of range");
        const std::vector<int64_t> kv = g.inputs.size() > 1 ? constInts(p_, g, 1) : std::vector<int64_t>{g.intAttr("k", -1)};
        if (kv.size() != 1 || kv[0] < 1 || kv[0] > xs[axis])
            throw opError(p_, g, "K must be one constant between 1 and " + std::to_string(xs[axis]));
        const int64_t k = kv[0], n = xs[axis];
        const bool largest = g.intAttr("largest", 1) != 0;
        Shape line(xs.size(), 1);
        line[axis] = n;
        const int iota = flatIota(g, "iota", line);
        std::vector<int> vals, idxs;
        int rest = x;
        for (int64_t j = 0; j < k; ++j) {
            const std::string tag = "k" + std::to_string(j);
            const int ext = reduce(largest ? "ReduceMax" : "ReduceMin", g, tag + "_extreme", rest, {axis});
            const int eq = emit("Equal", g, tag + "_is_extreme", {rest, ext}, xs);
            p_.tensors[eq].dtype = "bool";
            const int cand = emit("Where", g, tag + "_index", {eq, iota, rw_.scalar(static_cast<double>(n))}, xs);
            p_.tensors[cand].dtype = "int64";
            const int first = reduce("ReduceMin", g, tag + "_first", cand, {axis});
            p_.tensors[first].dtype = "int64";
            vals.push_back(ext);
            idxs.push_back(first);
            if (j + 1 < k) {
                // The lowest finite float: below anything the device holds (DL16 has no infinity).
                const int taken = emit("Equal", g, tag + "_taken", {iota, first}, xs);
                p_.tensors[taken].dtype = "bool";
                rest = emit("Where", g, tag + "_rest", {taken, rw_.scalar(largest ? -3.0e38 : 3.0e38), rest}, xs);
            }
        }
        auto join = [&](const std::vector<int>& parts, int into, const std::string& tag) {
            if (into < 0)
                return;
            if (parts.size() == 1) {
                emit("Reshape", g, tag, {parts[0]}, shapeOf(into), into);
                return;
            }
            emit("Concat", g, tag, parts, shapeOf(into), into);
            out.back().ints["axis"] = {axis};
        };
        join(vals, g.outputs.at(0), "values");
        join(idxs, g.outputs.size() > 1 ? g.outputs[1] : -1, "indices");
    }

    // OneHot: Where(indices (negative ones + depth) == iota along the new axis, on, off); depth from the output shape.
    void oneHot(const GraphOp& g)
    {
        count(g);
        const int indices = g.inputs.at(0), values = g.inputs.at(2), y = g.outputs.at(0);
        const Shape is = shapeOf(indices), ys = shapeOf(y);
        const int axis = normAxis(g.intAttr("axis", -1), ys.size());
        if (axis < 0 || axis >= static_cast<int>(ys.size()))
            throw opError(p_, g, "attribute 'axis' is out of range");
        const int64_t depth = ys[axis];
        Shape spread = ys;
        spread[axis] = 1;
        const int iv = emit("Reshape", g, "indices_view", {indices}, spread);
        // A negative index counts from the end: i + depth where i < 0.
        const int neg = emit("Less", g, "negative", {iv, rw_.scalar(0.0)}, spread);
        p_.tensors[neg].dtype = "bool";
        const int wrapped = emit("Where", g, "wrapped", {neg, emit("Add", g, "plus_depth", {iv, rw_.scalar(static_cast<double>(depth))}, spread), iv}, spread);
        Shape line(ys.size(), 1);
        line[axis] = depth;
        const int eq = emit("Equal", g, "hit", {wrapped, flatIota(g, "iota", line)}, ys);
        p_.tensors[eq].dtype = "bool";
        const int off = emit("Reshape", g, "off", {sliceAlong(g, "off_value", values, 0, 0, 1, 1)}, Shape{});
        const int on = emit("Reshape", g, "on", {sliceAlong(g, "on_value", values, 0, 1, 1, 1)}, Shape{});
        emit("Where", g, "one_hot", {eq, on, off}, ys, y);
    }

    // EyeLike: its output depends on the input's shape only, so it is a constant.
    void eyeLike(const GraphOp& g)
    {
        count(g);
        const int y = g.outputs.at(0);
        const Shape ys = shapeOf(y);
        if (ys.size() != 2)
            throw opError(p_, g, "input must be 2-D");
        const int64_t k = g.intAttr("k", 0);
        std::vector<float> v(static_cast<size_t>(shapeProduct(ys)), 0.0f);
        for (int64_t i = 0; i < ys[0]; ++i)
            if (i + k >= 0 && i + k < ys[1])
                v[i * ys[1] + i + k] = 1.0f;
        emit("Reshape", g, "eye", {rw_.constantVector(g.name + "/eye", ys, std::move(v))}, ys, y);
    }

    // Shrink: x + bias below -lambd, x - bias above lambd, 0 between.
    void shrink(const GraphOp& g)
    {
        count(g);
        const int x = g.inputs.at(0), y = g.outputs.at(0);
        const Shape xs = shapeOf(x);
        const double lambd = g.floatAttr("lambd", 0.5), bias = g.floatAttr("bias", 0.0);
        const int below = emit("Less", g, "below", {x, rw_.scalar(-lambd)}, xs);
        const int above = emit("Greater", g, "above", {x, rw_.scalar(lambd)}, xs);
        p_.tensors[below].dtype = "bool";
        p_.tensors[above].dtype = "bool";
        const int hi = emit("Where", g, "upper", {above, emit("Sub", g, "minus_bias", {x, rw_.scalar(bias)}, xs), rw_.scalar(0.0)}, xs);
        emit("Where", g, "shrink", {below, emit("Add", g, "plus_bias", {x, rw_.scalar(bias)}, xs), hi}, xs, y);
    }

    // MeanVarianceNormalization: (x - mean) / (sqrt(mean((x - mean)^2)) + 1e-9) over `axes` (ONNX's function body).
    void meanVarianceNorm(const GraphOp& g)
    {
        count(g);
        const int x = g.inputs.at(0), y = g.outputs.at(0);
        const Shape xs = shapeOf(x);
        std::vector<int> axes;
        for (int64_t a : g.ints.count("axes") ? g.ints.at("axes") : std::vector<int64_t>{0, 2, 3}) {
            const int d = normAxis(a, xs.size());
            if (d < 0 || d >= static_cast<int>(xs.size()))
                throw opError(p_, g, "axis " + std::to_string(a) + " is out of range");
            axes.push_back(d);
        }
        std::sort(axes.begin(), axes.end());
        int64_t n = 1;
        for (int d : axes)
            n *= xs[d];
        const int sum = reduce("ReduceSum", g, "sum", x, axes);
        const int mean = emit("Div", g, "mean", {sum, rw_.scalar(static_cast<double>(n))}, shapeOf(sum));
        const int d = emit("Sub", g, "centre", {x, mean}, xs);
        const int sq = emit("Mul", g, "square", {d, d}, xs);
        const int vsum = reduce("ReduceSum", g, "var_sum", sq, axes);
        const int var = emit("Div", g, "var", {vsum, rw_.scalar(static_cast<double>(n))}, shapeOf(vsum));
        const int sd = emit("Add", g, "std_eps", {emit("Sqrt", g, "std", {var}, shapeOf(var)), rw_.scalar(1e-9)}, shapeOf(var));
        emit("Div", g, "normalise", {d, sd}, xs, y);
    }

    // Xor of bools: not equal.
    void xorOp(const GraphOp& g)
    {
        count(g);
        const Shape ys = shapeOf(g.outputs.at(0));
        const int eq = emit("Equal", g, "same", {g.inputs.at(0), g.inputs.at(1)}, ys);
        p_.tensors[eq].dtype = "bool";
        emit("Not", g, "xor", {eq}, ys, g.outputs.at(0));
    }

    // HardSigmoid: min(max(alpha x + beta, 0), 1); HardSwish: x HardSigmoid(x) with alpha 1/6, beta 1/2.
    void hardSigmoid(const GraphOp& g, bool swish)
    {
        count(g);
        const int x = g.inputs.at(0), y = g.outputs.at(0);
        const Shape xs = shapeOf(x);
        const double alpha = swish ? 1.0 / 6.0 : g.floatAttr("alpha", 0.2), beta = swish ? 0.5 : g.floatAttr("beta", 0.5);
        const int ax = emit("Mul", g, "alpha", {x, rw_.scalar(alpha)}, xs);
        const int axb = emit("Add", g, "beta", {ax, rw_.scalar(beta)}, xs);
        const int lo = emit("Max", g, "clip_low", {axb, rw_.scalar(0.0)}, xs);
        const int hs = emit("Min", g, "clip_high", {lo, rw_.scalar(1.0)}, xs, swish ? -1 : y);
        if (swish)
            emit("Mul", g, "hardswish", {x, hs}, xs, y);
    }

    // A MatMul by a constant [K, N] weight whose N is wide (more sticks than cores) but not a whole number of sticks:
    // no split of N is even, and the work division falls back to splits that re-read the whole weight per row
    // block ([128, 768] x [768, 50257]: 66.7 ms, 9.9 GB moved; at N = 50304, 1.06 ms). The weight is padded with
    // zero columns to whole sticks at compile time and the product sliced back; every other MatMul passes through.
    void matmul(GraphOp& g)
    {
        const int b = g.inputs.size() == 2 ? g.inputs[1] : -1;
        const GraphTensor* w = b >= 0 ? &p_.tensors[b] : nullptr;
        if (!w || !w->isConstant || !w->f || w->shape.size() != 2 || stick_ <= 0) {
            out.push_back(std::move(g));
            return;
        }
        const int64_t k = w->shape[0], n = w->shape[1];
        const int64_t padded = (n + stick_ - 1) / stick_ * stick_;
        if (padded == n || padded / stick_ <= cores_) {
            out.push_back(std::move(g));
            return;
        }
        count(g);
        std::vector<float> data(static_cast<size_t>(k * padded), 0.0f);
        for (int64_t r = 0; r < k; ++r)
            std::copy_n(w->f->begin() + r * n, n, data.begin() + r * padded);
        const int wp = rw_.constantVector(w->name + "/padded_to_sticks", {k, padded}, std::move(data));
        const int y = g.outputs.at(0);
        Shape ps = shapeOf(y);
        ps.back() = padded;
        const int product = emit("MatMul", g, "padded", {g.inputs[0], wp}, ps);
        sliceAlong(g, "unpad", product, static_cast<int>(ps.size() - 1), 0, n, 1, y);
    }

    // PRelu: relu(x) + slope min(x, 0), the slope broadcast to x.
    void prelu(const GraphOp& g)
    {
        count(g);
        const int x = g.inputs.at(0), slope = g.inputs.at(1), y = g.outputs.at(0);
        const Shape xs = shapeOf(y);
        const int pos = emit("Relu", g, "positive", {x}, xs);
        const int neg = emit("Min", g, "negative", {x, rw_.scalar(0.0)}, xs);
        const int sn = emit("Mul", g, "slope", {neg, slope}, xs);
        emit("Add", g, "prelu", {pos, sn}, xs, y);
    }

    // Variadic Max/Min/Sum/Mean -> a chain of binary ops (each result broadcast over the inputs so far), Mean
    // then divides by the count. One input is a view of it.
    void variadic(const GraphOp& g)
    {
        count(g);
        const int y = g.outputs.at(0);
        const std::string& t = g.opType;
        const std::string binary = t == "Sum" || t == "Mean" ? "Add" : t;
        const std::string dtype = p_.tensors[y].dtype;   // a copy: emitting grows p_.tensors
        std::vector<int> in;
        for (int v : g.inputs)
            if (v >= 0)
                in.push_back(v);
        if (in.empty())
            throw opError(p_, g, "needs at least one input");
        if (in.size() == 1) {
            emit("Reshape", g, "copy", {in[0]}, shapeOf(y), y);
            return;
        }
        int acc = in[0];
        Shape shape = shapeOf(acc);
        for (size_t k = 1; k < in.size(); ++k) {
            const Shape& next = shapeOf(in[k]);
            Shape both(std::max(shape.size(), next.size()), 1);
            for (size_t d = 0; d < both.size(); ++d) {
                const int64_t a = d + shape.size() >= both.size() ? shape[d + shape.size() - both.size()] : 1;
                const int64_t b = d + next.size() >= both.size() ? next[d + next.size() - both.size()] : 1;
                if (a != b && a != 1 && b != 1)
                    throw opError(p_, g, "input shapes " + shapeText(shape) + " and " + shapeText(next) + " do not broadcast");
                both[d] = a == 1 ? b : a;
            }
            shape = both;
            const bool last = k + 1 == in.size() && t != "Mean";
            acc = emit(binary, g, binary == "Add" ? "add" + std::to_string(k) : t + std::to_string(k), {acc, in[k]}, shape,
                       last ? y : -1);
            if (!last)
                p_.tensors[acc].dtype = dtype;
        }
        if (t == "Mean")
            emit("Div", g, "mean", {acc, rw_.scalar(static_cast<double>(in.size()))}, shapeOf(y), y);
    }

    void asView(GraphOp g)
    {
        if (g.opType != "Reshape")
            counts[g.opType]++;
        g.opType = "Reshape";
        g.inputs.resize(1);
        g.ints.clear();
        out.push_back(std::move(g));
    }
};

}  // namespace

PassResult DecomposePass::run(Program& program, PassContext& ctx)
{
    if (program.stage != Stage::Graph)
        return {false, "nothing to do: already lowered"};
    const size_t before = program.graphOps.size();
    Decomposer d(program, ctx.target.stickElements(), ctx.target.cores);
    d.run();
    PassResult r;
    int composite = 0;
    std::string what;
    for (const auto& [type, n] : d.counts) {
        composite += n;
        what += (what.empty() ? "" : ", ") + std::to_string(n) + " " + type;
    }
    r.changed = composite > 0;
    r.summary = composite == 0 ? "no composite ops"
                               : "decomposed " + what + "; " + std::to_string(before) + " -> " +
                                     std::to_string(program.graphOps.size()) + " ops";
    return r;
}

}  // namespace spyglass::spyre
