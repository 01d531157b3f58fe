// loadModel: parse -> external data -> bind inputs -> checker -> support check -> (shape inference +
// folding) until nothing changes -> ModelGraph with static shapes everywhere.
#include "core/model/model_loader.h"

#include "core/common/diagnostics.h"
#include "core/common/input_file.h"
#include "core/model/node_attributes.h"
#include "core/model/onnx_import.h"
#include "core/model/onnx_tensor.h"
#include "core/model/op_support.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace spyglass::model {

namespace {

namespace fs = std::filesystem;
using import::ConstantMap;

[[noreturn]] void fail(const std::string& file, const std::string& message, const std::string& node = {})
{
    throw InputError(Diagnostic{Severity::Error, SourceLocation{file, 0, 0}, message, {}, node});
}

// The error names the file as well as the node; keep UnsupportedError's type so callers can tell it apart.
[[noreturn]] void rethrowWithFile(const InputError& e, const std::string& file)
{
    Diagnostic d = e.diagnostic();
    if (d.location.file.empty())
        d.location.file = file;
    if (const auto* u = dynamic_cast<const UnsupportedError*>(&e)) {
        throw UnsupportedError(u->opType(), u->nodeName(), u->attribute(), d.message, d.location);
    }
    throw InputError(d);
}

int64_t defaultOpset(const onnx::ModelProto& m, const std::string& file)
{
    for (const auto& o : m.opset_import())
        if (o.domain().empty() || o.domain() == "ai.onnx")
            return o.version();
    fail(file, "the model imports no default-domain (ai.onnx) opset");
}

// Unnamed nodes get "<OpType>_<index>"; a clash with an existing name gets a numeric suffix.
void nameNodes(onnx::GraphProto& g)
{
    std::set<std::string> used;
    for (const auto& n : g.node())
        if (!n.name().empty())
            used.insert(n.name());
    for (int k = 0; k < g.node_size(); ++k) {
        auto* n = g.mutable_node(k);
        if (!n->name().empty())
            continue;
        std::string name = n->op_type() + "_" + std::to_string(k);
        for (int s = 1; used.count(name); ++s)
            name = n->op_type() + "_" + std::to_string(k) + "_" + std::to_string(s);
        used.insert(name);
        n->set_name(name);
    }
}

// Whether every use of `name` reads it as data the device can take at run time (indices, a value to convert or
// reshape), not as a shape, axes or count the compiler must know.
bool readOnlyAsData(const onnx::GraphProto& g, const std::string& name)
{
    for (const auto& o : g.output())
        if (o.name() == name)
            return false;
    bool used = false;
    for (const auto& n : g.node())
        for (int k = 0; k < n.input_size(); ++k) {
            if (n.input(k) != name)
                continue;
            used = true;
            const bool data = (n.op_type() == "Gather" && k == 1) || (n.op_type() == "Cast" && k == 0) || (n.op_type() == "Unsqueeze" && k == 0);
            if (!data)
                return false;
        }
    return used;
}

void bindInputs(onnx::ModelProto& m, const LoadOptions& options, ConstantMap& constants, const std::string& file, bool integerDataAtRunTime)
{
    if (options.bindInputs.empty())
        return;
    auto* g = m.mutable_graph();
    std::set<std::string> initNames;
    for (const auto& t : g->initializer())
        initNames.insert(t.name());
    size_t position = 0;
    google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> kept;
    for (const auto& in : g->input()) {
        if (initNames.count(in.name())) {
            *kept.Add() = in;
            continue;
        }
        const auto it = options.bindInputs.find(position++);
        if (it == options.bindInputs.end()) {
            *kept.Add() = in;
            continue;
        }
        const HostTensor& t = it->second;
        const auto& tt = in.type().tensor_type();
        if (integerDataAtRunTime && !t.isFloating() && readOnlyAsData(*g, in.name())) {
            onnx::ValueInfoProto runtime = in;
            auto* shape = runtime.mutable_type()->mutable_tensor_type()->mutable_shape();
            if (shape->dim_size() == static_cast<int>(t.shape.size()))
                for (int d = 0; d < shape->dim_size(); ++d)
                    if (!shape->dim(d).has_dim_value())
                        shape->mutable_dim(d)->set_dim_value(t.shape[d]);
            *kept.Add() = std::move(runtime);
            continue;
        }
        const auto declared = dtypeFromOnnx(tt.elem_type());
        if (!declared || *declared != t.dtype)
            fail(file, "input '" + in.name() + "': wrong dtype " + dtypeName(t.dtype) + " for the value bound to it, the model declares " +
                           onnxTypeName(tt.elem_type()));
        if (tt.has_shape()) {
            bool ok = tt.shape().dim_size() == static_cast<int>(t.shape.size());
            for (int d = 0; ok && d < tt.shape().dim_size(); ++d)
                if (tt.shape().dim(d).has_dim_value() && tt.shape().dim(d).dim_value() != t.shape[d])
                    ok = false;
            if (!ok)
                fail(file, "input '" + in.name() + "': wrong shape " + shapeString(t.shape) + " for the value bound to it");
        }
        *g->add_initializer() = tensorToProto(t, in.name());
    }
    g->mutable_input()->Swap(&kept);
}

void setDimValues(onnx::GraphProto& g, const LoadOptions& options, const std::string& file)
{
    std::set<std::string> used;
    for (auto& in : *g.mutable_input()) {
        if (!in.type().has_tensor_type() || !in.type().tensor_type().has_shape())
            continue;
        for (auto& d : *in.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
            if (!d.has_dim_param())
                continue;
            const auto it = options.dimValues.find(d.dim_param());
            if (it == options.dimValues.end())
                continue;
            if (it->second < 0)
                fail(file, "dimension '" + it->first + "' cannot be set to " + std::to_string(it->second));
            used.insert(it->first);
            d.set_dim_value(it->second);   // replaces dim_param (a oneof)
        }
    }
    for (const auto& [name, value] : options.dimValues)
        if (!used.count(name))
            fail(file, "no graph input has a symbolic dimension named '" + name + "'");
}

std::string nodeLabel(const onnx::NodeProto& n) { return n.op_type() + " '" + n.name() + "'"; }

// The checker's and shape inference's messages span lines (they print the offending NodeProto); the Problems dock
// and "file: error: message" show one line, so fold every run of whitespace into one space.
std::string oneLine(const std::string& text)
{
    std::string out;
    bool space = false;
    for (char c : text) {
        if (std::isspace(static_cast<unsigned char>(c))) {
            space = !out.empty();
            continue;
        }
        if (space)
            out += ' ';
        space = false;
        out += c;
    }
    return out;
}

// Dangling inputs, values defined twice and cycles, named plainly before the ONNX checker reports them as an
// unsorted graph (the checker's message for all three).
void checkGraphStructure(const onnx::GraphProto& g, const std::string& file)
{
    std::map<std::string, int> producer;   // value -> node index; -1 for graph inputs and initializers
    for (const auto& in : g.input())
        producer.emplace(in.name(), -1);
    for (const auto& t : g.initializer())
        producer.emplace(t.name(), -1);
    for (int k = 0; k < g.node_size(); ++k)
        for (const auto& out : g.node(k).output()) {
            if (out.empty())
                continue;
            const auto [it, fresh] = producer.emplace(out, k);
            if (!fresh)
                fail(file, "value '" + out + "' is defined more than once" +
                               (it->second >= 0 ? " (also by " + nodeLabel(g.node(it->second)) + ")" : std::string(" (also a graph input or initializer)")),
                     nodeLabel(g.node(k)));
        }
    std::vector<std::vector<int>> preds(g.node_size());
    for (int k = 0; k < g.node_size(); ++k)
        for (const auto& in : g.node(k).input()) {
            if (in.empty())
                continue;
            const auto it = producer.find(in);
            if (it == producer.end())
                fail(file, "input '" + in + "' is not a graph input, an initializer or the output of any node", nodeLabel(g.node(k)));
            if (it->second >= 0)
                preds[k].push_back(it->second);
        }
    // Iterative depth-first search over producers (a deep chain must not overflow the stack).
    std::vector<int> state(g.node_size(), 0);   // 0 new, 1 on the current path, 2 done
    for (int root = 0; root < g.node_size(); ++root) {
        if (state[root])
            continue;
        std::vector<std::pair<int, size_t>> stack{{root, 0}};
        state[root] = 1;
        while (!stack.empty()) {
            auto& [n, next] = stack.back();
            if (next == preds[n].size()) {
                state[n] = 2;
                stack.pop_back();
                continue;
            }
            const int p = preds[n][next++];
            if (state[p] == 1) {
                // p is on the current path (each entry a producer of the one before): data flows from the end of
                // the path back to p, and from p into n.
                std::string path;
                for (size_t i = 0; i < stack.size(); ++i)
                    if (stack[i].first == p) {
                        for (size_t j = i; j < stack.size(); ++j)
                            path = "'" + g.node(stack[j].first).name() + "' -> " + path;
                        break;
                    }
                fail(file, "the graph has a cycle: " + path + "'" + g.node(n).name() + "'; ONNX graphs must be acyclic",
                     nodeLabel(g.node(p)));
            }
            if (state[p] == 0) {
                state[p] = 1;
                stack.emplace_back(p, 0);
            }
        }
    }
}

void checkSupport(const onnx::GraphProto& g, int64_t opset)
{
    for (const auto& np : g.node()) {
        if (!np.domain().empty() && np.domain() != "ai.onnx")
            throw UnsupportedError(np.op_type(), np.name(), {}, "ops of domain '" + np.domain() + "' are not supported");
        checkNodeSupported(import::nodeFromProto(np), opset);
    }
}

bool isWindowOp(const std::string& opType) { return opType == "Conv" || opType == "MaxPool" || opType == "AveragePool"; }

// Models before opset 7 carry attributes the support table does not list (broadcast, axis, consumed_inputs) until
// upgradeOpset6 rewrites them, and that rewrite first runs libonnx's shape inference to learn ranks. So before it,
// only what makes that inference safe is checked: every op type is one we know (an unknown op is refused by name
// anyway), and the window ops are checked whole, since libonnx divides by their strides (a MaxPool with strides
// [2, 0] at opset 3 killed the process with SIGFPE, found by fuzz/fuzz_onnx_text).
void checkSupportBeforeUpgrade(const onnx::GraphProto& g, int64_t opset)
{
    for (const auto& np : g.node()) {
        if (!np.domain().empty() && np.domain() != "ai.onnx")
            throw UnsupportedError(np.op_type(), np.name(), {}, "ops of domain '" + np.domain() + "' are not supported");
        const Node node = import::nodeFromProto(np);
        if (!findOpSupport(node.opType))
            throw UnsupportedError(node.opType, node.name, {}, "op type '" + node.opType + "' is not supported");
        if (isWindowOp(node.opType))
            checkNodeSupported(node, opset);
    }
}

// libonnx's shape inference for Conv and pooling (convPoolShapeInference) indexes its attribute vectors by the
// weight's spatial dimensions without checking them against the input's rank: a Conv whose input is rank 2 and
// whose weight is rank 4 reads past a vector and crashes the process (found by fuzz/fuzz_onnx_text). So before the
// real inference, these ops are checked against the ranks ONNX will see: infer with every unchecked one masked
// (an unknown domain, which inference skips), check those whose input rank is now known, unmask them, repeat.
// An op whose input rank stays unknown is safe: ONNX's inference returns before reading anything for it.
void checkWindowOps(const onnx::ModelProto& m, const std::string& file)
{
    onnx::ModelProto probe = m;
    std::vector<int> pending;
    for (int k = 0; k < probe.graph().node_size(); ++k)
        if (isWindowOp(probe.graph().node(k).op_type()) && (probe.graph().node(k).domain().empty() || probe.graph().node(k).domain() == "ai.onnx")) {
            pending.push_back(k);
            probe.mutable_graph()->mutable_node(k)->set_domain("spyglass.unchecked");
        }
    while (!pending.empty()) {
        onnx::ModelProto run = probe;
        try {
            onnx::ShapeInferenceOptions opts(/*check_type=*/false, /*error_mode=*/0, /*enable_data_propagation=*/true);
            import::runShapeInference(run, opts);
        } catch (const std::exception&) {
            // The real inference reports whatever went wrong here.
        }
        std::map<std::string, int> rank;
        auto note = [&](const onnx::ValueInfoProto& v) {
            if (v.type().has_tensor_type() && v.type().tensor_type().has_shape())
                rank[v.name()] = v.type().tensor_type().shape().dim_size();
        };
        for (const auto& v : run.graph().input())
            note(v);
        for (const auto& v : run.graph().value_info())
            note(v);
        for (const auto& v : run.graph().output())
            note(v);
        for (const auto& t : run.graph().initializer())
            rank[t.name()] = t.dims_size();
        std::vector<int> still;
        for (int k : pending) {
            const onnx::NodeProto& n = m.graph().node(k);
            const auto in = n.input_size() > 0 ? rank.find(n.input(0)) : rank.end();
            if (in == rank.end()) {
                still.push_back(k);
                continue;
            }
            const int r = in->second;
            if (r < 3)
                fail(file, "input '" + n.input(0) + "' has rank " + std::to_string(r) + "; " + n.op_type() +
                               " needs [batch, channels, spatial...] (rank 3 or more)", nodeLabel(n));
            const int spatial = r - 2;
            for (const auto& a : n.attribute()) {
                const size_t want = a.name() == "pads" ? 2 * spatial : spatial;
                if ((a.name() == "strides" || a.name() == "dilations" || a.name() == "kernel_shape" || a.name() == "pads") &&
                    a.ints_size() != static_cast<int>(want))
                    fail(file, "attribute '" + a.name() + "' has " + std::to_string(a.ints_size()) + " values; the input has " + std::to_string(spatial) +
                                   " spatial dimension(s), so it needs " + std::to_string(want), nodeLabel(n));
            }
            if (n.op_type() == "Conv" && n.input_size() > 1) {
                const auto w = rank.find(n.input(1));
                if (w != rank.end() && w->second != r)
                    fail(file, "weight '" + n.input(1) + "' has rank " + std::to_string(w->second) + " but input '" + n.input(0) + "' has rank " +
                                   std::to_string(r) + "; they must match", nodeLabel(n));
            }
            probe.mutable_graph()->mutable_node(k)->clear_domain();
        }
        if (still.size() == pending.size())
            break;
        pending = std::move(still);
    }
}

void inferShapes(onnx::ModelProto& m, const std::string& file)
{
    checkWindowOps(m, file);
    try {
        onnx::ShapeInferenceOptions opts(/*check_type=*/true, /*error_mode=*/1, /*enable_data_propagation=*/true);
        import::runShapeInference(m, opts);
    } catch (const std::exception& e) {
        fail(file, "shape inference failed: " + oneLine(e.what()));
    }
}

std::string dimText(const onnx::TensorShapeProto_Dimension& d)
{
    return d.has_dim_value() ? std::to_string(d.dim_value()) : d.has_dim_param() ? "'" + d.dim_param() + "'" : "unknown";
}

// The static dtype and shape of a value, or an error naming who has it.
std::pair<DType, Shape> staticType(const onnx::TypeProto* tp, const std::string& valueName, const std::string& owner, const std::string& file)
{
    if (!tp || !tp->has_tensor_type())
        fail(file, "value '" + valueName + "' has no known tensor type after shape inference", owner);
    const auto& tt = tp->tensor_type();
    const auto dt = dtypeFromOnnx(tt.elem_type());
    if (!dt) {
        Diagnostic d{Severity::Error, SourceLocation{file, 0, 0}, "value '" + valueName + "' has element type " + onnxTypeName(tt.elem_type()) + ", which is not supported", {}, owner};
        throw InputError(d);
    }
    if (!tt.has_shape())
        fail(file, "value '" + valueName + "' has no static shape after shape inference and constant folding (its rank is unknown)", owner);
    Shape shape;
    for (int k = 0; k < tt.shape().dim_size(); ++k) {
        const auto& d = tt.shape().dim(k);
        if (!d.has_dim_value())
            fail(file, "value '" + valueName + "' has no static shape after shape inference and constant folding (dimension " + std::to_string(k) + " is " +
                           dimText(d) + (d.has_dim_param() ? "; give it a value, e.g. --dim " + d.dim_param() + "=1" : std::string()) + ")",
                 owner);
        if (d.dim_value() < 0)
            fail(file, "value '" + valueName + "' has dimension " + std::to_string(k) + " = " + std::to_string(d.dim_value()) +
                           "; dimensions cannot be negative", owner);
        shape.push_back(d.dim_value());
    }
    return {*dt, shape};
}

ModelGraph buildGraph(const onnx::ModelProto& m, int64_t opset, const ConstantMap& constants, const std::vector<std::string>& declared,
                      const std::string& file)
{
    const auto& g = m.graph();
    ModelGraph graph;
    graph.name = g.name();
    graph.sourcePath = file;
    graph.opsetVersion = opset;
    graph.declaredInputs = declared;
    std::map<std::string, const onnx::TypeProto*> types;
    for (const auto& v : g.output())
        types[v.name()] = &v.type();
    for (const auto& v : g.value_info())
        types[v.name()] = &v.type();
    for (const auto& v : g.input())
        types[v.name()] = &v.type();
    std::map<std::string, int> index;
    auto addValue = [&](Value v) {
        const int id = static_cast<int>(graph.values.size());
        if (!index.emplace(v.name, id).second)
            fail(file, "value '" + v.name + "' is defined more than once");
        graph.values.push_back(std::move(v));
        return id;
    };
    for (const auto& in : g.input()) {
        if (constants.count(in.name()))
            continue;   // an initializer listed as an input (IR < 4 style) is a constant
        const auto it = types.find(in.name());
        auto [dt, shape] = staticType(it == types.end() ? nullptr : it->second, in.name(), "graph input '" + in.name() + "'", file);
        Value v;
        v.name = in.name();
        v.dtype = dt;
        v.shape = shape;
        v.isGraphInput = true;
        graph.inputs.push_back(addValue(std::move(v)));
    }
    // Constants in the order the graph uses them, then any left (e.g. a folded graph output).
    std::set<std::string> used;
    for (const auto& n : g.node())
        for (const auto& in : n.input())
            used.insert(in);
    for (const auto& o : g.output())
        used.insert(o.name());
    for (const auto& [name, t] : constants) {
        if (!used.count(name) || index.count(name))
            continue;
        Value v;
        v.name = name;
        v.dtype = t.dtype;
        v.shape = t.shape;
        v.constant = t;
        addValue(std::move(v));
    }
    for (const auto& np : g.node()) {
        Node node = import::nodeFromProto(np);
        node.inputs.clear();
        node.outputs.clear();
        const OpSupport* support = findOpSupport(node.opType);
        if (support && support->role == OpSupport::Role::FoldOnly) {
            std::string why;
            for (const auto& in : np.input())
                if (!in.empty() && !constants.count(in))
                    why = "input '" + in + "' is not constant" + (np.op_type() == "Shape" || np.op_type() == "Size" ? " and has no static shape" : "");
            fail(file, "could not be folded to a constant (" + (why.empty() ? std::string("inputs too large") : why) + "); Spyglass needs it resolved at load time",
                 node.label());
        }
        const int nodeId = static_cast<int>(graph.nodes.size());
        for (const auto& in : np.input()) {
            if (in.empty()) {
                node.inputs.push_back(-1);
                continue;
            }
            const auto it = index.find(in);
            if (it == index.end())
                fail(file, "input '" + in + "' is not a graph input, initializer or earlier node output", node.label());
            node.inputs.push_back(it->second);
            graph.values[it->second].consumers.push_back(nodeId);
        }
        for (const auto& out : np.output()) {
            if (out.empty()) {
                node.outputs.push_back(-1);
                continue;
            }
            const auto it = types.find(out);
            auto [dt, shape] = staticType(it == types.end() ? nullptr : it->second, out, node.label(), file);
            Value v;
            v.name = out;
            v.dtype = dt;
            v.shape = shape;
            v.producer = nodeId;
            node.outputs.push_back(addValue(std::move(v)));
        }
        graph.nodes.push_back(std::move(node));
    }
    for (const auto& o : g.output()) {
        const auto it = index.find(o.name());
        if (it == index.end())
            fail(file, "graph output '" + o.name() + "' is not produced by any node");
        graph.values[it->second].isGraphOutput = true;
        graph.outputs.push_back(it->second);
    }
    return graph;
}

// PRelu's slope must broadcast to X one way (ONNX's shape inference copies X's shape without looking at it): a
// [3] slope on a [2, 3, 4] input is refused here, as the reference interpreter refuses it, rather than compiled
// into a kernel that reads past the slope (found by libonnx-testdata's opset-6 PReLU tests, NaN on the device).
void checkSlopes(const ModelGraph& g, const std::string& file)
{
    for (const Node& n : g.nodes) {
        if (n.opType != "PRelu" || n.inputs.size() != 2 || n.inputs[0] < 0 || n.inputs[1] < 0)
            continue;
        const Shape& x = g.values[static_cast<size_t>(n.inputs[0])].shape;
        const Shape& slope = g.values[static_cast<size_t>(n.inputs[1])].shape;
        bool ok = slope.size() <= x.size();
        for (size_t d = 0; ok && d < slope.size(); ++d) {
            const int64_t sd = slope[slope.size() - 1 - d], xd = x[x.size() - 1 - d];
            ok = sd == xd || sd == 1;
        }
        if (!ok)
            fail(file, "slope '" + g.values[static_cast<size_t>(n.inputs[1])].name + "' of shape " + shapeString(slope) +
                           " does not broadcast to input '" + g.values[static_cast<size_t>(n.inputs[0])].name + "' of shape " + shapeString(x),
                 n.label());
    }
}

// An 'axis' attribute must name a dimension of the input it applies to (ONNX allows -rank..rank-1; Flatten
// also rank). ONNX's shape inference does not check every op's (LayerNormalization's axis 5 on a rank-2 input
// passed it), and a backend that folded it into a loop bound would compute nonsense.
void checkAxes(const ModelGraph& g, const std::string& file)
{
    // Every later size computation multiplies dims in int64: a --dim of 2^61 would wrap around to 0 elements.
    // 2^50 elements (4 PiB of float32) is far beyond any machine and keeps every byte count in range.
    for (const Value& v : g.values) {
        int64_t n = 1;
        for (int64_t d : v.shape)
            if (d > 0 && (__builtin_mul_overflow(n, d, &n) || n > (int64_t(1) << 50)))
                fail(file, "value '" + v.name + "' " + shapeString(v.shape) + " has more than 2^50 elements; no machine holds it");
    }
    static const std::set<std::string> kAxisOps = {"LayerNormalization", "Softmax", "LogSoftmax", "Concat", "Gather", "Flatten"};
    for (const Node& n : g.nodes) {
        if (!kAxisOps.count(n.opType) || !n.attributes.count("axis") || n.inputs.empty() || n.inputs[0] < 0)
            continue;
        const int64_t rank = static_cast<int64_t>(g.values[static_cast<size_t>(n.inputs[0])].shape.size());
        const int64_t axis = attrInt(n, "axis", 0);
        const int64_t hi = n.opType == "Flatten" ? rank : rank - 1;
        if (axis < -rank || axis > hi)
            fail(file, "attribute 'axis' is " + std::to_string(axis) + ", but input '" + g.values[static_cast<size_t>(n.inputs[0])].name +
                           "' has rank " + std::to_string(rank) + " (axis must be in [" + std::to_string(-rank) + ", " + std::to_string(hi) + "])",
                 n.label());
    }
}

ModelGraph importModelOnce(onnx::ModelProto m, const std::string& file, const std::string& baseDir, const LoadOptions& options, bool integerDataAtRunTime)
{
    if (!m.has_graph())
        fail(file, "the model has no graph");
    const int64_t opset = defaultOpset(m, file);
    bool rewrite18 = false;
    {
        // Op semantics change between opsets (e.g. ReduceMean's axes became an input in 18): a model newer
        // than the ONNX library we build with cannot be checked or inferred correctly, so refuse it.
        // Opset 18 one past the library is read by rewriting its changed ops to opset 17 (opset18.cpp).
        const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
        const auto it = ranges.find("");
        rewrite18 = it != ranges.end() && opset == 18 && it->second.second == 17;
        if (it != ranges.end() && opset > it->second.second && !rewrite18)
            fail(file, "opset " + std::to_string(opset) + " is newer than this build's ONNX library supports (up to opset " +
                           std::to_string(it->second.second) + (it->second.second == 17 ? ", and 18 by rewriting" : "") + ")");
    }
    import::resolveExternalData(m, baseDir, file, options.maxModelBytes);
    auto* g = m.mutable_graph();
    nameNodes(*g);
    if (opset < 7) {
        try {
            checkSupportBeforeUpgrade(*g, opset);
            checkWindowOps(m, file);
            import::upgradeOpset6(m);
        } catch (const InputError& e) {
            rethrowWithFile(e, file);
        }
    }
    if (rewrite18) {
        try {
            checkSupport(*g, opset);   // an unsupported op is named as such, before any rewriting
            import::downgradeOpset18(m);
        } catch (const InputError& e) {
            rethrowWithFile(e, file);
        }
    }
    std::vector<std::string> declared;
    {
        std::set<std::string> initNames;
        for (const auto& t : g->initializer())
            initNames.insert(t.name());
        for (const auto& in : g->input())
            if (!initNames.count(in.name()))
                declared.push_back(in.name());
    }
    ConstantMap constants;
    try {
        // Our own support check first: "op X is not supported" says more than the checker's schema errors.
        checkSupport(*g, opset);
        checkGraphStructure(*g, file);
        try {
            onnx::checker::check_model(m);
        } catch (const std::exception& e) {
            fail(file, "ONNX checker: " + oneLine(e.what()));
        }
        bindInputs(m, options, constants, file, integerDataAtRunTime);
        setDimValues(*g, options, file);
        if (m.ir_version() < 4)
            m.set_ir_version(4);   // so that shape inference sees initializers that are not inputs
        for (const auto& t : g->initializer())
            constants[t.name()] = tensorFromProto(t, "initializer '" + t.name() + "'");
        // Folding can make more shapes static and static shapes can make more Shape ops foldable.
        for (int round = 0; round < 16; ++round) {
            inferShapes(m, file);
            const bool folded = import::foldConstants(m, opset, constants);
            if (!import::completeShapes(m) && !folded)
                break;
        }
        ModelGraph graph = buildGraph(m, opset, constants, declared, file);
        checkAxes(graph, file);
        checkSlopes(graph, file);
        return graph;
    } catch (const InputError& e) {
        rethrowWithFile(e, file);
    }
}

std::string tooLargeText(uint64_t size, uint64_t limit)
{
    return "the model is " + byteSizeText(size) + ", more than the limit of " + byteSizeText(limit) +
           "; raise it (--max-model-bytes) if the model is genuine";
}

void checkSize(const std::string& file, uint64_t size, uint64_t limit)
{
    if (size > limit)
        fail(file, tooLargeText(size, limit));
}

std::string readFile(const std::string& path, uint64_t limit)
{
    return readInputFile(path, "a model file", limit, [limit](uint64_t size) { return tooLargeText(size, limit); });
}

// Whether bindInputs would leave an integer input to run time (readOnlyAsData).
bool keepsIntegerDataInputs(const onnx::ModelProto& m, const LoadOptions& options)
{
    std::set<std::string> initNames;
    for (const auto& t : m.graph().initializer())
        initNames.insert(t.name());
    size_t position = 0;
    for (const auto& in : m.graph().input()) {
        if (initNames.count(in.name()))
            continue;
        const auto it = options.bindInputs.find(position++);
        if (it != options.bindInputs.end() && !it->second.isFloating() && readOnlyAsData(m.graph(), in.name()))
            return true;
    }
    return false;
}

// Integer inputs read only as data first stay inputs (bindInputs); when the model then cannot be made static (the
// data was a size after all, e.g. a window length Cast and fed to Range), everything given is bound instead.
ModelGraph importModel(onnx::ModelProto m, const std::string& file, const std::string& baseDir, const LoadOptions& options)
{
    if (!options.bindInputs.empty() && keepsIntegerDataInputs(m, options)) {
        try {
            return importModelOnce(m, file, baseDir, options, true);
        } catch (const InputError&) {
            // the second load reports the error if it is not the binding's
        }
    }
    return importModelOnce(std::move(m), file, baseDir, options, false);
}

}  // namespace

namespace {

onnx::ModelProto parseModelFile(const std::string& path, uint64_t maxModelBytes)
{
    const std::string bytes = readFile(path, maxModelBytes);
    std::string ext = fs::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return ext == ".onnxtxt" || ext == ".txt" ? import::parseText(bytes, path) : import::parseBinary(bytes, path);
}

}  // namespace

ModelGraph loadModel(const std::string& path, const LoadOptions& options)
{
    const std::string base = fs::path(path).parent_path().empty() ? std::string(".") : fs::path(path).parent_path().string();
    return importModel(parseModelFile(path, options.maxModelBytes), path, base, options);
}

std::vector<std::string> symbolicInputDims(const std::string& path, uint64_t maxModelBytes)
{
    const onnx::ModelProto m = parseModelFile(path, maxModelBytes);
    std::set<std::string> initializers, seen;
    for (const auto& t : m.graph().initializer())
        initializers.insert(t.name());
    std::vector<std::string> names;
    for (const auto& in : m.graph().input()) {
        if (initializers.count(in.name()) || !in.type().has_tensor_type() || !in.type().tensor_type().has_shape())
            continue;
        for (const auto& d : in.type().tensor_type().shape().dim())
            if (d.has_dim_param() && seen.insert(d.dim_param()).second)
                names.push_back(d.dim_param());
    }
    return names;
}

ModelGraph loadModelFromText(const std::string& text, const std::string& displayName, const std::string& baseDir, const LoadOptions& options)
{
    checkSize(displayName, text.size(), options.maxModelBytes);
    return importModel(import::parseText(text, displayName), displayName, baseDir, options);
}

}  // namespace spyglass::model
