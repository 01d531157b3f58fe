// Opset 18 on an ONNX library that stops at 17 (Debian's 1.12): the ops whose signature changed at 18 and that the
// op table supports are rewritten to their opset-17 form, so that libonnx's checker and shape inference see a model
// they know. Every other op is the same at 17 and 18 (or new at 18, and then not in the op table: refused by name).
//  - ReduceMax/Min/Mean/Prod/L1/L2/LogSum/LogSumExp/SumSquare: `axes` became an optional input; a constant one
//    becomes the attribute again, and noop_with_empty_axes (new for them) with no axes is an Identity.
//  - Split: `num_outputs` (equal parts) is what opset 17 does without `split` when the parts are equal; uneven parts
//    (the last one smaller) need the input's size, so they are computed here when the input's shape is declared.
//  - Resize: the new antialias, axes and keep_aspect_ratio_policy only at their defaults (then dropped).
//  - Pad: the new optional `axes` input is accepted only when absent.
#include "core/common/diagnostics.h"
#include "core/model/onnx_import.h"
#include "core/model/onnx_tensor.h"
#include "core/model/op_support.h"

#include <algorithm>
#include <optional>
#include <set>

namespace spyglass::model::import {

namespace {

[[noreturn]] void refuse(const onnx::NodeProto& n, const std::string& what, const std::string& message)
{
    throw UnsupportedError(n.op_type(), n.name(), what, message);
}

// The integer data of a constant value: an initializer or the output of a Constant node.
std::optional<std::vector<int64_t>> constantInts(const onnx::GraphProto& g, const std::string& name)
{
    for (const auto& t : g.initializer())
        if (t.name() == name) {
            const HostTensor h = tensorFromProto(t, "initializer '" + name + "'");
            if (h.isFloating())
                return std::nullopt;
            return h.i;
        }
    for (const auto& n : g.node())
        if (n.op_type() == "Constant" && n.output_size() == 1 && n.output(0) == name)
            for (const auto& a : n.attribute()) {
                if (a.name() == "value" && a.has_t()) {
                    const HostTensor h = tensorFromProto(a.t(), "Constant '" + n.name() + "'");
                    if (!h.isFloating())
                        return h.i;
                }
                if (a.name() == "value_ints")
                    return std::vector<int64_t>(a.ints().begin(), a.ints().end());
            }
    return std::nullopt;
}

// The declared size of `axis` of a graph input, initializer or value_info, if static.
std::optional<int64_t> declaredDim(const onnx::GraphProto& g, const std::string& name, int64_t axis)
{
    for (const auto& t : g.initializer())
        if (t.name() == name) {
            const int64_t rank = t.dims_size();
            const int64_t a = axis < 0 ? axis + rank : axis;
            if (a >= 0 && a < rank)
                return t.dims(static_cast<int>(a));
            return std::nullopt;
        }
    auto fromInfo = [&](const onnx::ValueInfoProto& v) -> std::optional<int64_t> {
        if (v.name() != name || !v.type().has_tensor_type() || !v.type().tensor_type().has_shape())
            return std::nullopt;
        const auto& shape = v.type().tensor_type().shape();
        const int64_t a = axis < 0 ? axis + shape.dim_size() : axis;
        if (a < 0 || a >= shape.dim_size() || !shape.dim(static_cast<int>(a)).has_dim_value())
            return std::nullopt;
        return shape.dim(static_cast<int>(a)).dim_value();
    };
    for (const auto& v : g.input())
        if (const auto d = fromInfo(v))
            return d;
    for (const auto& v : g.value_info())
        if (const auto d = fromInfo(v))
            return d;
    return std::nullopt;
}

const std::set<std::string>& reductionsWithAxesInput()
{
    static const std::set<std::string> ops = {"ReduceMax", "ReduceMin", "ReduceMean", "ReduceProd", "ReduceL1",
                                              "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"};
    return ops;
}

void removeAttribute(onnx::NodeProto& n, const std::string& name)
{
    auto* attrs = n.mutable_attribute();
    for (int k = attrs->size() - 1; k >= 0; --k)
        if (attrs->Get(k).name() == name)
            attrs->DeleteSubrange(k, 1);
}

const onnx::AttributeProto* attribute(const onnx::NodeProto& n, const std::string& name)
{
    for (const auto& a : n.attribute())
        if (a.name() == name)
            return &a;
    return nullptr;
}

}  // namespace

void downgradeOpset18(onnx::ModelProto& m)
{
    auto* g = m.mutable_graph();
    for (auto& n : *g->mutable_node()) {
        if (!n.domain().empty() && n.domain() != "ai.onnx")
            continue;
        if (reductionsWithAxesInput().count(n.op_type())) {
            const onnx::AttributeProto* noop = attribute(n, "noop_with_empty_axes");
            const bool noopIfEmpty = noop && noop->i() != 0;
            removeAttribute(n, "noop_with_empty_axes");
            if (n.input_size() < 2 || n.input(1).empty()) {
                if (noopIfEmpty) {
                    n.set_op_type("Identity");
                    n.clear_attribute();
                }
                n.mutable_input()->DeleteSubrange(1, std::max(0, n.input_size() - 1));
                continue;
            }
            const auto axes = constantInts(*g, n.input(1));
            if (!axes)
                refuse(n, "axes", "input 'axes' must be a constant (opset 18 is read by rewriting it to opset 17)");
            n.mutable_input()->DeleteSubrange(1, n.input_size() - 1);
            if (axes->empty() && noopIfEmpty) {
                n.set_op_type("Identity");
                n.clear_attribute();
                continue;
            }
            if (!axes->empty()) {
                onnx::AttributeProto* a = n.add_attribute();
                a->set_name("axes");
                a->set_type(onnx::AttributeProto::INTS);
                for (int64_t v : *axes)
                    a->add_ints(v);
            }
        } else if (n.op_type() == "Split") {
            const onnx::AttributeProto* num = attribute(n, "num_outputs");
            if (!num)
                continue;
            const int64_t parts = num->i();
            if (parts != n.output_size())
                refuse(n, "num_outputs", "attribute 'num_outputs' = " + std::to_string(parts) + " but the node has " +
                                             std::to_string(n.output_size()) + " outputs");
            removeAttribute(n, "num_outputs");
            const onnx::AttributeProto* ax = attribute(n, "axis");
            const auto dim = declaredDim(*g, n.input(0), ax ? ax->i() : 0);
            if (!dim || parts < 1 || *dim % parts == 0)
                continue;   // equal parts: opset 17's Split without sizes (an unknown size is checked by inference)
            // Uneven: ceil-sized parts, the last one smaller, as an explicit sizes input.
            const int64_t each = (*dim + parts - 1) / parts;
            onnx::TensorProto* sizes = g->add_initializer();
            sizes->set_name(n.name() + "/split_sizes");
            sizes->set_data_type(onnx::TensorProto::INT64);
            sizes->add_dims(parts);
            for (int64_t k = 0; k < parts; ++k)
                sizes->add_int64_data(std::max<int64_t>(0, std::min(each, *dim - k * each)));
            while (n.input_size() < 2)
                n.add_input();
            n.set_input(1, sizes->name());
        } else if (n.op_type() == "Resize") {
            // New at 18: antialias, axes, keep_aspect_ratio_policy; their defaults are opset 17's behaviour.
            if (const onnx::AttributeProto* a = attribute(n, "antialias"); a && a->i() != 0)
                refuse(n, "antialias", "attribute 'antialias' = 1 is not supported");
            if (attribute(n, "axes"))
                refuse(n, "axes", "attribute 'axes' (new in opset 18) is not supported; give scales or sizes for every axis");
            if (const onnx::AttributeProto* a = attribute(n, "keep_aspect_ratio_policy"); a && a->s() != "stretch")
                refuse(n, "keep_aspect_ratio_policy", "attribute 'keep_aspect_ratio_policy' = \"" + a->s() + "\" is not supported (stretch is)");
            for (const char* name : {"antialias", "axes", "keep_aspect_ratio_policy"})
                removeAttribute(n, name);
        } else if (n.op_type() == "Pad") {
            if (n.input_size() > 3 && !n.input(3).empty())
                refuse(n, "axes", "input 'axes' (new in opset 18) is not supported; give pads for every axis");
        }
    }
    for (auto& o : *m.mutable_opset_import())
        if (o.domain().empty() || o.domain() == "ai.onnx")
            o.set_version(17);
}

}  // namespace spyglass::model::import
