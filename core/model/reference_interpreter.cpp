#include "core/model/reference_interpreter.h"

#include "core/common/diagnostics.h"
#include "core/model/half_float.h"
#include "core/model/interp_ops.h"
#include "core/model/op_support.h"
#include "core/model/tensor_file.h"

#include <cmath>
#include <limits>

namespace spyglass::model {

namespace interp {

const HostTensor& OpContext::input(size_t k) const
{
    if (k >= inputs.size() || !inputs[k])
        fail("input " + std::to_string(k) + " is required but missing");
    return *inputs[k];
}

HostTensor makeLike(DType dtype, const Shape& shape) { return makeTensor(dtype, shape); }

std::vector<int64_t> stridesOf(const Shape& s)
{
    std::vector<int64_t> st(s.size(), 1);
    for (int d = static_cast<int>(s.size()) - 2; d >= 0; --d)
        st[d] = st[d + 1] * s[d + 1];
    return st;
}

Shape broadcastShapes(const OpContext& c, const std::vector<Shape>& shapes)
{
    size_t rank = 0;
    for (const Shape& s : shapes)
        rank = std::max(rank, s.size());
    Shape out(rank, 1);
    for (const Shape& s : shapes)
        for (size_t k = 0; k < s.size(); ++k) {
            int64_t& o = out[rank - s.size() + k];
            const int64_t d = s[k];
            if (d == o || d == 1)
                continue;
            if (o != 1) {
                std::string list;
                for (const Shape& t : shapes)
                    list += (list.empty() ? "" : ", ") + shapeString(t);
                c.fail("shapes " + list + " do not broadcast");
            }
            o = d;
        }
    return out;
}

std::vector<int64_t> broadcastStrides(const Shape& in, const Shape& out)
{
    const auto inStrides = stridesOf(in);
    std::vector<int64_t> st(out.size(), 0);
    const size_t lead = out.size() - in.size();
    for (size_t k = 0; k < in.size(); ++k)
        st[lead + k] = in[k] == 1 ? 0 : inStrides[k];
    return st;
}

int64_t normalizeAxis(const OpContext& c, int64_t axis, int64_t rank, const char* what)
{
    const int64_t a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= rank)
        c.fail(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    return a;
}

int64_t toInt64(double v)
{
    if (std::isnan(v))
        return 0;
    if (v >= 9223372036854775807.0)
        return std::numeric_limits<int64_t>::max();
    if (v <= -9223372036854775808.0)
        return std::numeric_limits<int64_t>::min();
    return static_cast<int64_t>(v);
}

void checkDataShape(const OpContext& c, const Shape& shape, const char* what)
{
    constexpr int64_t kMaxElements = int64_t{1} << 31;
    int64_t n = 1;
    for (int64_t d : shape) {
        if (d < 0)
            c.fail(std::string(what) + " " + shapeString(shape) + " has a negative dimension");
        if (d > 0 && n > kMaxElements / d)
            c.fail(std::string(what) + " " + shapeString(shape) + " has more than 2^31 elements");
        n *= d;
    }
}

std::vector<int64_t> intValues(const OpContext& c, const HostTensor& t, const char* what)
{
    if (t.isFloating())
        c.fail(std::string(what) + " must be an integer tensor");
    return t.i;
}

}  // namespace interp

namespace {

std::vector<HostTensor> evalDropout(const interp::OpContext& c)
{
    const HostTensor& x = c.input(0);
    // Training mode with ratio 0 drops nothing: the identity, as in inference.
    if (const HostTensor* training = c.optionalInput(2))
        if (training->size() != 1 || training->i.at(0) != 0) {
            const HostTensor* ratio = c.optionalInput(1);
            if (!ratio || ratio->size() != 1 || interp::valueAt(*ratio, 0) != 0)
                c.fail("training_mode = true with a ratio other than 0 is not supported (inference only)");
        }
    std::vector<HostTensor> out{x};
    if (c.outputCount() > 1) {
        HostTensor mask = makeTensor(DType::Bool, x.shape);
        std::fill(mask.i.begin(), mask.i.end(), 1);
        out.push_back(mask);
    }
    return out;
}

interp::OpFn findOp(const std::string& op)
{
    if (op == "Dropout")
        return evalDropout;
    for (const interp::OpTable* table : {&interp::elementwiseOps(), &interp::tensorOps(), &interp::mathOps(), &interp::convPoolOps(), &interp::recurrentOps()}) {
        const auto it = table->find(op);
        if (it != table->end())
            return it->second;
    }
    return nullptr;
}

}  // namespace

std::vector<HostTensor> evaluateNode(const Node& node, int64_t opset, const std::vector<const HostTensor*>& inputs)
{
    const interp::OpFn fn = findOp(node.opType);
    if (!fn)
        throw UnsupportedError(node.opType, node.name, {}, "op type '" + node.opType + "' is not implemented by the reference interpreter");
    const interp::OpContext ctx{node, opset, inputs};
    std::vector<HostTensor> out = fn(ctx);
    if (out.size() < node.outputs.size())
        throw UnsupportedError(node.opType, node.name, {}, "only " + std::to_string(out.size()) + " output(s) are implemented, the node has " + std::to_string(node.outputs.size()));
    out.resize(node.outputs.size());
    // fp16 results are stored as float: round them to what fp16 can hold, as a real fp16 tensor would.
    for (HostTensor& t : out)
        if (t.dtype == DType::Float16)
            for (float& v : t.f)
                v = roundToHalf(v);
    return out;
}

void checkInputMatches(const ModelGraph& graph, size_t index, const HostTensor& t, const std::string& origin)
{
    const Value& v = graph.values.at(graph.inputs.at(index));
    if (t.dtype != v.dtype)
        throw InputError(SourceLocation{origin, 0, 0}, "input '" + v.name + "': wrong dtype " + dtypeName(t.dtype) + ", the model expects " + dtypeName(v.dtype));
    if (t.shape != v.shape)
        throw InputError(SourceLocation{origin, 0, 0}, "input '" + v.name + "': wrong shape " + shapeString(t.shape) + ", the model expects " + shapeString(v.shape));
    const size_t n = static_cast<size_t>(t.size());
    if ((t.isFloating() ? t.f.size() : t.i.size()) != n)
        throw InputError(SourceLocation{origin, 0, 0}, "input '" + v.name + "': data does not match its shape");
}

ReferenceResult runReference(const ModelGraph& graph, const std::vector<HostTensor>& inputs, bool keepIntermediates)
{
    if (inputs.size() != graph.inputs.size())
        throw InputError(SourceLocation{graph.sourcePath, 0, 0}, "the model has " + std::to_string(graph.inputs.size()) + " input(s) but " +
                                                                     std::to_string(inputs.size()) + " were given");
    std::vector<std::optional<HostTensor>> live(graph.values.size());
    for (size_t k = 0; k < graph.values.size(); ++k)
        if (graph.values[k].constant)
            live[k] = *graph.values[k].constant;
    for (size_t k = 0; k < inputs.size(); ++k) {
        checkInputMatches(graph, k, inputs[k], graph.sourcePath);
        live[graph.inputs[k]] = inputs[k];
    }
    // Free an intermediate after its last consumer unless it is kept or is a graph output.
    std::vector<int> remaining(graph.values.size(), 0);
    for (const Node& n : graph.nodes)
        for (int v : n.inputs)
            if (v >= 0)
                ++remaining[v];
    ReferenceResult result;
    for (const Node& node : graph.nodes) {
        std::vector<const HostTensor*> in;
        for (int v : node.inputs) {
            if (v >= 0 && !live[v])
                nodeError(node, "input '" + graph.values[v].name + "' has not been computed");
            in.push_back(v >= 0 ? &*live[v] : nullptr);
        }
        std::vector<HostTensor> out = evaluateNode(node, graph.opsetVersion, in);
        for (size_t k = 0; k < node.outputs.size(); ++k) {
            const int v = node.outputs[k];
            if (v < 0)
                continue;
            const Value& val = graph.values[v];
            if (out[k].shape != val.shape || out[k].dtype != val.dtype)
                nodeError(node, "output '" + val.name + "' came out as " + dtypeName(out[k].dtype) + shapeString(out[k].shape) +
                                    " but shape inference said " + dtypeName(val.dtype) + shapeString(val.shape));
            live[v] = std::move(out[k]);
        }
        for (int v : node.inputs)
            if (v >= 0 && --remaining[v] == 0 && !keepIntermediates && !graph.values[v].isGraphOutput && !graph.values[v].constant)
                live[v].reset();
    }
    for (int v : graph.outputs)
        result.outputs.push_back(*live[v]);
    if (keepIntermediates)
        for (size_t k = 0; k < graph.values.size(); ++k)
            if (live[k])
                result.values[graph.values[k].name] = *live[k];
    return result;
}

}  // namespace spyglass::model
