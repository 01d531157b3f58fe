// ModelGraph -> graph-level Program: the compiler's own copy of the ONNX graph, with constant data shared.
#include "core/spyre/spyre_pipeline.h"

#include "core/common/diagnostics.h"
#include "core/model/model_graph.h"

namespace spyglass::spyre {

namespace {

const char* hostDtypeName(model::DType t)
{
    switch (t) {
    case model::DType::Float32: return "float32";
    case model::DType::Float16: return "float16";
    case model::DType::Float64: return "float64";
    case model::DType::Int64: return "int64";
    case model::DType::Int32: return "int32";
    case model::DType::Int8: return "int8";
    case model::DType::UInt8: return "uint8";
    case model::DType::Bool: return "bool";
    }
    return "float32";
}

void setConstant(GraphTensor& t, const model::HostTensor& h)
{
    t.isConstant = true;
    t.dtype = hostDtypeName(h.dtype);
    t.shape = h.shape;
    if (h.isFloating())
        t.f = std::make_shared<const std::vector<float>>(h.f);
    else
        t.i = std::make_shared<const std::vector<int64_t>>(h.i);
}

}  // namespace

Program importModel(const model::ModelGraph& graph, const SpyreTarget& target)
{
    Program p;
    p.modelName = graph.name.empty() ? "model" : graph.name;
    p.sourcePath = graph.sourcePath;
    p.stickElements = target.stickElements();
    p.deviceDtypeBytes = target.deviceDtypeBytes;
    p.deviceDtype = target.deviceDtype;
    p.opsetVersion = graph.opsetVersion;
    p.tensors.reserve(graph.values.size());
    for (const model::Value& v : graph.values) {
        GraphTensor t;
        t.name = v.name;
        t.dtype = hostDtypeName(v.dtype);
        t.shape = v.shape;
        t.isInput = v.isGraphInput && !v.constant;
        t.isOutput = v.isGraphOutput;
        for (int64_t d : v.shape)
            if (d < 0)
                throw InputError(SourceLocation{graph.sourcePath, 0, 0},
                                 "tensor '" + v.name + "' has a dynamic shape " + shapeText(v.shape) +
                                     "; the Spyre compiler needs static shapes");
        if (v.constant)
            setConstant(t, *v.constant);
        p.tensors.push_back(std::move(t));
    }
    for (int o : graph.outputs)
        if (o >= 0 && o < static_cast<int>(p.tensors.size()))
            p.tensors[o].isOutput = true;
    for (const model::Node& n : graph.nodes) {
        if (n.opType == "Constant" && n.outputs.size() == 1) {
            const auto it = n.attributes.find("value");
            if (it != n.attributes.end() && std::holds_alternative<model::HostTensor>(it->second)) {
                setConstant(p.tensors[n.outputs[0]], std::get<model::HostTensor>(it->second));
                continue;
            }
        }
        GraphOp op;
        op.name = n.name;
        op.opType = n.opType;
        op.inputs = n.inputs;
        op.outputs = n.outputs;
        for (const auto& [key, value] : n.attributes) {
            if (const auto* i = std::get_if<int64_t>(&value))
                op.ints[key] = {*i};
            else if (const auto* f = std::get_if<float>(&value))
                op.floats[key] = *f;
            else if (const auto* s = std::get_if<std::string>(&value))
                op.strings[key] = *s;
            else if (const auto* iv = std::get_if<std::vector<int64_t>>(&value))
                op.ints[key] = *iv;
            else if (const auto* fv = std::get_if<std::vector<float>>(&value); fv && fv->size() == 1)
                op.floats[key] = fv->front();
            else if (const auto* sv = std::get_if<std::vector<std::string>>(&value)) {
                // A list of names (a recurrent op's activations): comma-joined, as no ONNX name holds a comma.
                std::string joined;
                for (const std::string& e : *sv)
                    joined += (joined.empty() ? "" : ",") + e;
                op.strings[key] = joined;
            }
        }
        const int index = static_cast<int>(p.graphOps.size());
        for (int o : op.outputs)
            if (o >= 0)
                p.tensors[o].producer = index;
        p.graphOps.push_back(std::move(op));
    }
    return p;
}

}  // namespace spyglass::spyre
