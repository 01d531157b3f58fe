// Shapes libonnx 1.12's inference leaves unknown although the inputs' shapes determine them: Einsum (its inference
// there gives the rank only, so attention code written with einsum would stop at "no static shape"). Filled in from
// einsum.h's reading of the equation, as value_info, so that the next inference round propagates them.
#include "core/model/einsum.h"
#include "core/model/onnx_import.h"

#include <algorithm>
#include <map>
#include <optional>

namespace spyglass::model::import {

namespace {

std::optional<std::vector<int64_t>> staticShape(const onnx::TypeProto& tp)
{
    if (!tp.has_tensor_type() || !tp.tensor_type().has_shape())
        return std::nullopt;
    std::vector<int64_t> s;
    for (const auto& d : tp.tensor_type().shape().dim()) {
        if (!d.has_dim_value())
            return std::nullopt;
        s.push_back(d.dim_value());
    }
    return s;
}

}  // namespace

bool completeShapes(onnx::ModelProto& m)
{
    auto* g = m.mutable_graph();
    std::map<std::string, onnx::TypeProto*> types;
    for (auto& v : *g->mutable_input())
        types[v.name()] = v.mutable_type();
    for (auto& v : *g->mutable_value_info())
        types[v.name()] = v.mutable_type();
    for (auto& v : *g->mutable_output())
        types[v.name()] = v.mutable_type();
    std::map<std::string, std::vector<int64_t>> initializerShapes;
    for (const auto& t : g->initializer())
        initializerShapes[t.name()] = std::vector<int64_t>(t.dims().begin(), t.dims().end());
    bool changed = false;
    for (const auto& n : g->node()) {
        if (n.op_type() != "Einsum" || n.output_size() != 1 || (!n.domain().empty() && n.domain() != "ai.onnx"))
            continue;
        const auto out = types.find(n.output(0));
        if (out != types.end() && staticShape(*out->second))
            continue;
        std::vector<std::vector<int64_t>> shapes;
        for (const std::string& in : n.input()) {
            if (const auto it = initializerShapes.find(in); it != initializerShapes.end()) {
                shapes.push_back(it->second);
                continue;
            }
            const auto it = types.find(in);
            const auto s = it == types.end() ? std::nullopt : staticShape(*it->second);
            if (!s)
                break;
            shapes.push_back(*s);
        }
        if (shapes.size() != static_cast<size_t>(n.input_size()))
            continue;
        std::string equation;
        for (const auto& a : n.attribute())
            if (a.name() == "equation")
                equation = a.s();
        std::vector<int64_t> ranks;
        for (const auto& s : shapes)
            ranks.push_back(static_cast<int64_t>(s.size()));
        const EinsumSpec spec = parseEinsum(equation, ranks);
        if (!spec.error.empty())
            continue;   // the interpreter names the problem
        std::map<char, int64_t> size;
        for (size_t k = 0; k < shapes.size(); ++k)
            for (size_t d = 0; d < shapes[k].size(); ++d) {
                int64_t& s = size[spec.inputs[k][d]];
                s = std::max(s, shapes[k][d]);
            }
        onnx::TypeProto* tp = out != types.end() ? out->second : nullptr;
        if (!tp) {
            onnx::ValueInfoProto* vi = g->add_value_info();
            vi->set_name(n.output(0));
            tp = vi->mutable_type();
            const auto first = types.find(n.input(0));
            tp->mutable_tensor_type()->set_elem_type(first != types.end() && first->second->has_tensor_type()
                                                         ? first->second->tensor_type().elem_type()
                                                         : onnx::TensorProto::FLOAT);
            types[n.output(0)] = tp;
        }
        auto* shape = tp->mutable_tensor_type()->mutable_shape();
        shape->clear_dim();
        for (char l : spec.output)
            shape->add_dim()->set_dim_value(size[l]);
        changed = true;
    }
    return changed;
}

}  // namespace spyglass::model::import
