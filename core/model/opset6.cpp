// Models older than opset 7 (PyTorch's 2017 exports, e.g. libonnx-testdata's pytorch-converted and
// pytorch-operator folders) spell broadcasting and inference mode with attributes that opset 7 dropped. They are
// rewritten into the numpy-broadcast form every later opset uses, so the op table, the interpreter and the Spyre
// passes see one meaning:
//  - Add/Sub/Mul/Div/Pow/And/Or/Xor/Equal/Greater/Less with broadcast=1: B matches A's dimensions from `axis`
//    (default: A's trailing ones); B gets trailing 1s so numpy broadcasting lines it up the same way.
//  - Gemm's broadcast: C broadcasting is unconditional from opset 7.
//  - BatchNormalization's is_test=1: inference, which is all Spyglass runs; is_test=0 (training) stays and is refused.
//  - PRelu before 7 applies a [C] slope per channel (axis 1), not along the last axis.
#include "core/common/diagnostics.h"
#include "core/model/onnx_import.h"
#include "core/model/op_support.h"


#include <map>

namespace spyglass::model::import {

namespace {

const onnx::AttributeProto* attribute(const onnx::NodeProto& n, const char* name)
{
    for (const auto& a : n.attribute())
        if (a.name() == name)
            return &a;
    return nullptr;
}

void dropAttribute(onnx::NodeProto& n, const char* name)
{
    auto* attrs = n.mutable_attribute();
    for (int k = 0; k < attrs->size(); ++k)
        if (attrs->Get(k).name() == name) {
            attrs->DeleteSubrange(k, 1);
            return;
        }
}

bool isLegacyBroadcastOp(const std::string& op)
{
    for (const char* o : {"Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor", "Equal", "Greater", "Less"})
        if (op == o)
            return true;
    return false;
}

// Gives `input` of `node` `extra` trailing dimensions of size 1: a reshaped copy when it is an initializer, an
// Unsqueeze (opset 1's axes attribute) otherwise.
void appendUnitDims(onnx::GraphProto& g, onnx::NodeProto& node, int input, int rank, int extra,
                    google::protobuf::RepeatedPtrField<onnx::NodeProto>& out)
{
    const std::string name = node.input(input);
    const std::string renamed = name + "/" + node.name() + "/legacy_broadcast";
    for (const auto& t : g.initializer())
        if (t.name() == name) {
            onnx::TensorProto copy = t;
            copy.set_name(renamed);
            for (int k = 0; k < extra; ++k)
                copy.add_dims(1);
            // Before IR 4 an initializer must also be a graph input: the copy is declared like its original.
            for (const auto& in : g.input())
                if (in.name() == name) {
                    onnx::ValueInfoProto declared = in;
                    declared.set_name(renamed);
                    auto* shape = declared.mutable_type()->mutable_tensor_type()->mutable_shape();
                    for (int k = 0; k < extra; ++k)
                        shape->add_dim()->set_dim_value(1);
                    *g.add_input() = std::move(declared);
                    break;
                }
            *g.add_initializer() = std::move(copy);
            node.set_input(input, renamed);
            return;
        }
    onnx::NodeProto u;
    u.set_name(node.name() + "/legacy_broadcast");
    u.set_op_type("Unsqueeze");
    u.add_input(name);
    u.add_output(renamed);
    auto* axes = u.add_attribute();
    axes->set_name("axes");
    axes->set_type(onnx::AttributeProto::INTS);
    for (int k = 0; k < extra; ++k)
        axes->add_ints(rank + k);
    *out.Add() = std::move(u);
    node.set_input(input, renamed);
}

}  // namespace

void upgradeOpset6(onnx::ModelProto& model)
{
    auto* g = model.mutable_graph();
    // Ranks as libonnx infers them at the model's own opset (the legacy ops propagate their first input's shape).
    std::map<std::string, int> rank;
    {
        onnx::ModelProto probe = model;
        if (probe.ir_version() < 4)
            probe.set_ir_version(4);
        try {
            onnx::ShapeInferenceOptions opts(/*check_type=*/false, /*error_mode=*/0, /*enable_data_propagation=*/false);
            runShapeInference(probe, opts);
        } catch (const std::exception&) {
            // The real inference later reports what went wrong.
        }
        auto note = [&](const onnx::ValueInfoProto& v) {
            if (v.type().has_tensor_type() && v.type().tensor_type().has_shape())
                rank[v.name()] = v.type().tensor_type().shape().dim_size();
        };
        for (const auto& v : probe.graph().input())
            note(v);
        for (const auto& v : probe.graph().value_info())
            note(v);
        for (const auto& v : probe.graph().output())
            note(v);
        for (const auto& t : probe.graph().initializer())
            rank[t.name()] = t.dims_size();
    }
    auto rankOf = [&](const std::string& name) { const auto it = rank.find(name); return it == rank.end() ? -1 : it->second; };

    google::protobuf::RepeatedPtrField<onnx::NodeProto> out;
    for (onnx::NodeProto n : g->node()) {
        const std::string& op = n.op_type();
        if (isLegacyBroadcastOp(op) && n.input_size() == 2) {
            const auto* b = attribute(n, "broadcast");
            if (b && b->i() != 0) {
                const int ra = rankOf(n.input(0)), rb = rankOf(n.input(1));
                if (ra < 0 || rb < 0)
                    throw UnsupportedError(op, n.name(), "broadcast", "legacy broadcast needs the ranks of both inputs");
                const auto* ax = attribute(n, "axis");
                const int axis = ax ? static_cast<int>(ax->i() < 0 ? ax->i() + ra : ax->i()) : ra - rb;
                if (axis < 0 || axis + rb > ra)
                    throw UnsupportedError(op, n.name(), "axis", "B (rank " + std::to_string(rb) + ") does not fit A (rank " + std::to_string(ra) +
                                                                     ") from axis " + std::to_string(axis));
                if (const int extra = ra - axis - rb; extra > 0)
                    appendUnitDims(*g, n, 1, rb, extra, out);
            }
            dropAttribute(n, "broadcast");
            dropAttribute(n, "axis");
        } else if (op == "Gemm") {
            dropAttribute(n, "broadcast");
        } else if (op == "BatchNormalization") {
            if (const auto* t = attribute(n, "is_test"); t && t->i() != 0)
                dropAttribute(n, "is_test");
        } else if (op == "PRelu" && n.input_size() == 2) {
            const int rx = rankOf(n.input(0)), rs = rankOf(n.input(1));
            if (rx > 2 && rs == 1)
                appendUnitDims(*g, n, 1, 1, rx - 2, out);
        }
        *out.Add() = std::move(n);
    }
    g->mutable_node()->Swap(&out);
}

}  // namespace spyglass::model::import
