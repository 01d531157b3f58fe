// Constant folding of shape arithmetic, so that PyTorch-exported graphs (Shape -> Gather -> Unsqueeze ->
// Concat -> Reshape and friends) become static. Values are computed by the reference interpreter, so
// folding and running agree by construction. Inference-time Dropout is rewritten to Identity here too, and an If
// whose condition is constant is replaced by its taken branch.
#include "core/common/diagnostics.h"
#include "core/model/onnx_import.h"
#include "core/model/onnx_tensor.h"
#include "core/model/op_support.h"
#include "core/model/reference_interpreter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace spyglass::model::import {

namespace {

// Nodes whose inputs are all constant are folded when they are this small (shape arithmetic, scalar
// constants); bigger ones (e.g. a transposed weight) stay ops on constants for the compiler to see.
constexpr int64_t kMaxFoldElements = 65536;
// Folding must not let a tiny file ask for gigabytes (Expand or a broadcast of constants to [40000, 50000], a
// ConstantOfShape or Range of billions, a Dropout mask of a huge input): outputs are sized before they are
// computed, and a constant that must exist (fold-only ops, masks) may hold at most this many elements (512 MiB).
constexpr int64_t kMaxConstantElements = int64_t{1} << 26;

// Elements of a shape, saturating at INT64_MAX (negative dimensions count as 0; the loader rejects them later).
int64_t elementsOf(const Shape& shape)
{
    int64_t n = 1;
    for (int64_t d : shape) {
        if (d <= 0)
            return 0;
        if (n > std::numeric_limits<int64_t>::max() / d)
            return std::numeric_limits<int64_t>::max();
        n *= d;
    }
    return n;
}

struct StaticType {
    DType dtype;
    Shape shape;
};

std::optional<StaticType> staticTypeOf(const onnx::TypeProto& tp)
{
    if (!tp.has_tensor_type() || !tp.tensor_type().has_shape())
        return std::nullopt;
    const auto dt = dtypeFromOnnx(tp.tensor_type().elem_type());
    if (!dt)
        return std::nullopt;
    StaticType st{*dt, {}};
    for (const auto& d : tp.tensor_type().shape().dim()) {
        if (!d.has_dim_value())
            return std::nullopt;
        st.shape.push_back(d.dim_value());
    }
    return st;
}

}  // namespace

bool foldConstants(onnx::ModelProto& model, int64_t opset, ConstantMap& constants)
{
    auto* g = model.mutable_graph();
    std::map<std::string, const onnx::TypeProto*> types;
    for (const auto& v : g->input())
        types[v.name()] = &v.type();
    for (const auto& v : g->value_info())
        types[v.name()] = &v.type();
    for (const auto& v : g->output())
        types.emplace(v.name(), &v.type());
    auto staticType = [&](const std::string& name) -> std::optional<StaticType> {
        if (auto it = constants.find(name); it != constants.end())
            return StaticType{it->second.dtype, it->second.shape};
        if (auto it = types.find(name); it != types.end())
            return staticTypeOf(*it->second);
        return std::nullopt;
    };
    auto addConstant = [&](const std::string& name, HostTensor t) {
        *g->add_initializer() = tensorToProto(t, name);
        constants[name] = std::move(t);
    };

    google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
    bool changed = false;
    for (const onnx::NodeProto& np : g->node()) {
        const Node node = nodeFromProto(np);
        if (np.op_type() == "Dropout") {
            // A constant scalar input, when given and constant.
            auto constantScalar = [&](int input) -> std::optional<double> {
                if (np.input_size() <= input || np.input(input).empty())
                    return std::nullopt;
                const auto it = constants.find(np.input(input));
                if (it == constants.end() || it->second.size() != 1)
                    return std::nullopt;
                return it->second.isFloating() ? static_cast<double>(it->second.f[0]) : static_cast<double>(it->second.i[0]);
            };
            if (np.input_size() > 2 && !np.input(2).empty()) {
                // Training mode drops nothing when the ratio is 0 (PyTorch exports nn.Dropout(p=0) this way).
                const auto training = constantScalar(2), ratio = constantScalar(1);
                if (!training || (*training != 0 && (!ratio || *ratio != 0)))
                    throw UnsupportedError(np.op_type(), np.name(), "training_mode",
                                           "input 'training_mode' must be a constant false, or the ratio a constant 0 "
                                           "(Spyglass runs inference only)");
            }
            onnx::NodeProto id;
            id.set_name(np.name());
            id.set_op_type("Identity");
            id.add_input(np.input(0));
            id.add_output(np.output(0));
            if (np.output_size() > 1 && !np.output(1).empty()) {
                const auto st = staticType(np.input(0));
                if (!st) {
                    // Folding may make the input static in a later round (Swin's attention after its window
                    // reshapes); if it never does, the value without a static shape is named when the graph is built.
                    *kept.Add() = np;
                    continue;
                }
                if (elementsOf(st->shape) > kMaxConstantElements)
                    throw InputError(Diagnostic{Severity::Error, {}, "the mask output would be a constant of " + std::to_string(elementsOf(st->shape)) +
                                                                         " elements, more than the " + std::to_string(kMaxConstantElements) + " Spyglass folds", {}, node.label()});
                HostTensor mask;
                mask.dtype = DType::Bool;
                mask.shape = st->shape;
                mask.i.assign(static_cast<size_t>(elementCount(st->shape)), 1);   // inference: nothing dropped
                addConstant(np.output(1), std::move(mask));
            }
            *kept.Add() = std::move(id);
            changed = true;
            continue;
        }
        if (np.op_type() == "If" && np.input_size() == 1) {
            // A condition known at load time: the taken branch's nodes replace the If (its outputs via Identity).
            const auto cond = constants.find(np.input(0));
            if (cond == constants.end()) {
                *kept.Add() = np;   // data-dependent: buildGraph refuses it, naming the node
                continue;
            }
            if (cond->second.size() != 1)
                throw InputError(Diagnostic{Severity::Error, {}, "the condition must have exactly one element", {}, node.label()});
            const bool taken = cond->second.isFloating() ? cond->second.f[0] != 0 : cond->second.i[0] != 0;
            const onnx::GraphProto* branch = nullptr;
            for (const auto& a : np.attribute())
                if (a.name() == (taken ? "then_branch" : "else_branch") && a.has_g())
                    branch = &a.g();
            if (!branch || branch->output_size() != np.output_size())
                throw InputError(Diagnostic{Severity::Error, {}, std::string("the ") + (taken ? "then" : "else") +
                                                                     " branch is missing or has the wrong number of outputs", {}, node.label()});
            for (const auto& t : branch->initializer()) {
                *g->add_initializer() = t;
                constants[t.name()] = tensorFromProto(t, "initializer '" + t.name() + "' of " + node.label());
            }
            int k = 0;
            for (onnx::NodeProto inner : branch->node()) {
                if (inner.name().empty())
                    inner.set_name(np.name() + "/" + inner.op_type() + "_" + std::to_string(k));
                ++k;
                checkNodeSupported(nodeFromProto(inner), opset);
                *kept.Add() = std::move(inner);
            }
            for (int o = 0; o < np.output_size(); ++o) {
                onnx::NodeProto id;
                id.set_name(np.name() + "/" + (taken ? "then" : "else") + "_output_" + std::to_string(o));
                id.set_op_type("Identity");
                id.add_input(branch->output(o).name());
                id.add_output(np.output(o));
                *kept.Add() = std::move(id);
            }
            changed = true;
            continue;
        }
        const OpSupport* support = findOpSupport(np.op_type());
        const bool foldOnly = support && support->role == OpSupport::Role::FoldOnly;
        std::vector<HostTensor> shapeOnly;   // stand-ins for Shape/Size inputs that are not constant
        std::vector<const HostTensor*> inputs;
        bool allConstant = true;
        int64_t inputElements = 0;
        shapeOnly.reserve(1);
        for (const std::string& in : np.input()) {
            if (in.empty()) {
                inputs.push_back(nullptr);
                continue;
            }
            const auto it = constants.find(in);
            if (it != constants.end()) {
                inputs.push_back(&it->second);
                inputElements += it->second.size();
                continue;
            }
            if ((np.op_type() == "Shape" || np.op_type() == "Size") && np.input_size() == 1) {
                if (const auto st = staticType(in)) {
                    HostTensor t;   // Shape and Size read only the shape, never the data
                    t.dtype = st->dtype;
                    t.shape = st->shape;
                    shapeOnly.push_back(std::move(t));
                    inputs.push_back(&shapeOnly.back());
                    continue;
                }
            }
            allConstant = false;
            break;
        }
        if (!allConstant || !support || (!foldOnly && inputElements > kMaxFoldElements)) {
            *kept.Add() = np;
            continue;
        }
        // Size the outputs before computing them: from the ops that make shapes out of values, else from shape
        // inference, else a bound from the inputs. A compute op whose outputs may be large is not folded.
        int64_t outputElements = -1;   // -1: unknown
        if (np.op_type() == "ConstantOfShape" && inputs.size() == 1 && inputs[0] && !inputs[0]->isFloating())
            outputElements = elementsOf(inputs[0]->i);
        else if (np.op_type() == "Range" && inputs.size() == 3 && inputs[0] && inputs[1] && inputs[2] && inputs[0]->size() == 1 &&
                 inputs[1]->size() == 1 && inputs[2]->size() == 1) {
            auto scalar = [](const HostTensor* t) { return t->isFloating() ? static_cast<double>(t->f[0]) : static_cast<double>(t->i[0]); };
            const double count = std::ceil((scalar(inputs[1]) - scalar(inputs[0])) / scalar(inputs[2]));
            outputElements = !std::isfinite(count) ? std::numeric_limits<int64_t>::max() : count <= 0 ? 0 : count >= 9e18 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(count);
        } else {
            for (const std::string& out : np.output()) {
                if (out.empty())
                    continue;
                const auto st = staticType(out);
                if (!st) {
                    outputElements = -1;
                    break;
                }
                outputElements = std::max(outputElements, elementsOf(st->shape));
            }
        }
        if (outputElements < 0) {
            // Shape inference left an output unknown: bound it from the inputs. No supported op makes more elements
            // than the product of its inputs' sizes plus their sum (broadcasting, MatMul, Concat, Gather), except
            // Expand, bounded by its data times the shape it expands to.
            double bound = 1, sum = 0;
            for (const HostTensor* t : inputs)
                if (t) {
                    bound *= static_cast<double>(std::max<int64_t>(1, t->size()));
                    sum += static_cast<double>(t->size());
                }
            if (np.op_type() == "Expand" && inputs.size() == 2 && inputs[1] && !inputs[1]->isFloating())
                bound *= static_cast<double>(std::max<int64_t>(1, elementsOf(inputs[1]->i)));
            bound += sum;
            if (bound > static_cast<double>(kMaxConstantElements))
                outputElements = bound >= 9e18 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(bound);
        }
        if (foldOnly && outputElements > kMaxConstantElements)
            throw InputError(Diagnostic{Severity::Error, {}, "the output would be a constant of " + std::to_string(outputElements) +
                                                                 " elements, more than the " + std::to_string(kMaxConstantElements) + " Spyglass folds", {}, node.label()});
        if (!foldOnly && outputElements > kMaxFoldElements) {
            *kept.Add() = np;
            continue;
        }
        std::vector<HostTensor> outs = evaluateNode(node, opset, inputs);
        bool small = true;
        for (const HostTensor& t : outs)
            small = small && t.size() <= kMaxFoldElements;
        if (!foldOnly && !small) {
            *kept.Add() = np;
            continue;
        }
        for (int k = 0; k < np.output_size(); ++k)
            if (!np.output(k).empty())
                addConstant(np.output(k), std::move(outs[k]));
        changed = true;
    }
    if (changed) {
        g->mutable_node()->Swap(&kept);
        // A folded value's value_info is what inference guessed before it was known (e.g. an Expand to a computed
        // shape: [1, unk, unk]); left in place, the next round keeps the guess over the initializer's real shape.
        auto* infos = g->mutable_value_info();
        infos->erase(std::remove_if(infos->begin(), infos->end(), [&](const onnx::ValueInfoProto& v) { return constants.count(v.name()) > 0; }),
                     infos->end());
    }
    return changed;
}

}  // namespace spyglass::model::import
