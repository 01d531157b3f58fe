// ONNX NodeProto attributes -> the ModelGraph Node's attribute map.
#include "core/model/onnx_import.h"
#include "core/model/onnx_tensor.h"
#include "core/model/op_support.h"

namespace spyglass::model::import {

Node nodeFromProto(const onnx::NodeProto& p)
{
    Node n;
    n.name = p.name();
    n.opType = p.op_type();
    // Placeholders so that input/output counts are known before values are indexed (the folder
    // evaluates nodes straight from the proto); the graph builder replaces them with value indices.
    n.inputs.assign(static_cast<size_t>(p.input_size()), -1);
    n.outputs.assign(static_cast<size_t>(p.output_size()), -1);
    for (const auto& a : p.attribute()) {
        switch (a.type()) {
        case onnx::AttributeProto::INT: n.attributes[a.name()] = static_cast<int64_t>(a.i()); break;
        case onnx::AttributeProto::FLOAT: n.attributes[a.name()] = a.f(); break;
        case onnx::AttributeProto::STRING: n.attributes[a.name()] = a.s(); break;
        case onnx::AttributeProto::INTS: n.attributes[a.name()] = std::vector<int64_t>(a.ints().begin(), a.ints().end()); break;
        case onnx::AttributeProto::FLOATS: n.attributes[a.name()] = std::vector<float>(a.floats().begin(), a.floats().end()); break;
        case onnx::AttributeProto::STRINGS: n.attributes[a.name()] = std::vector<std::string>(a.strings().begin(), a.strings().end()); break;
        case onnx::AttributeProto::TENSOR:
            try {
                n.attributes[a.name()] = tensorFromProto(a.t(), "attribute '" + a.name() + "'");
            } catch (const InputError& e) {
                throw UnsupportedError(n.opType, n.name, a.name(), e.diagnostic().message);
            }
            break;
        case onnx::AttributeProto::GRAPH:
            if (n.opType == "If")
                break;   // its branches: the loader inlines the taken one on the proto (constant_folding.cpp)
            [[fallthrough]];
        default:
            throw UnsupportedError(n.opType, n.name, a.name(),
                                   "attribute '" + a.name() + "' of kind " + onnx::AttributeProto_AttributeType_Name(a.type()) + " is not supported");
        }
    }
    return n;
}

}  // namespace spyglass::model::import
