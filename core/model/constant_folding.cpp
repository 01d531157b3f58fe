// Constant folding of shape arithmetic, so that PyTorch-exported graphs (Shape -> Gather -> Unsqueeze ->
// Concat -> Reshape and friends) become static. Values are computed by the reference interpreter, so
// folding and running agree by construction. Inference-time Dropout is rewritten to Identity here too.
#include "core/common/diagnostics.h"
#include "core/model/onnx_import.h"
#include "core/model/onnx_tensor.h"
#include "core/model/op_support.h"
#include "core/model/reference_interpreter.h"

#include <algorithm>

namespace spyglass::model::import {

namespace {

// Nodes whose inputs are all constant are folded when they are this small (shape arithmetic, scalar
// constants); bigger ones (e.g. a transposed weight) stay ops on constants for the compiler to see.
constexpr int64_t kMaxFoldElements = 65536;

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
            if (np.input_size() > 2 && !np.input(2).empty()) {
                const auto it = constants.find(np.input(2));
                if (it == constants.end() || it->second.size() != 1 || (it->second.isFloating() ? it->second.f[0] != 0 : it->second.i[0] != 0))
                    throw UnsupportedError(np.op_type(), np.name(), "training_mode",
                                           "input 'training_mode' must be a constant false (Spyglass runs inference only)");
            }
            onnx::NodeProto id;
            id.set_name(np.name());
            id.set_op_type("Identity");
            id.add_input(np.input(0));
            id.add_output(np.output(0));
            if (np.output_size() > 1 && !np.output(1).empty()) {
                const auto st = staticType(np.input(0));
                if (!st)
                    throw InputError(Diagnostic{Severity::Error, {}, "the mask output needs a static input shape", {}, node.label()});
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
    if (changed)
        g->mutable_node()->Swap(&kept);
    return changed;
}

}  // namespace spyglass::model::import
