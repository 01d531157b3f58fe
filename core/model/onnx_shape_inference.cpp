// libonnx's shape inference, with the one fix Spyglass needs for Debian 12's ONNX 1.12.
#include "core/model/onnx_import.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>
#include <onnx/shape_inference/implementation.h>

#include <mutex>

namespace spyglass::model::import {

namespace {

// Shape-15's data-propagation function reads its input's type without checking that there is one (ONNX 1.12,
// onnx/defs/tensor/defs.cc; fixed in 1.15 by onnx/onnx#5219). Inference goes on past a node it could not infer
// (error_mode collects the errors), so a Shape fed by that node's untyped output dereferenced null and took the
// process down: a MatMul of mismatched shapes followed by Shape was enough (found by fuzz/fuzz_onnx_binary).
// Every Shape schema's function is wrapped to do nothing then, which is what ONNX 1.15 does; the collected
// inference error is still reported.
void guardShapeDataPropagation()
{
    for (const onnx::OpSchema& copy : onnx::OpSchemaRegistry::get_all_schemas_with_history()) {
        if (copy.Name() != "Shape" || !copy.has_data_propagation_function())
            continue;
        // The registry hands out const schemas; its entries live for the whole process and are only read by
        // inference, and this runs once, before any inference (std::call_once in runShapeInference).
        auto* schema = const_cast<onnx::OpSchema*>(onnx::OpSchemaRegistry::Schema(copy.Name(), copy.SinceVersion(), copy.domain()));
        if (!schema)
            continue;
        schema->PartialDataPropagationFunction([original = schema->GetDataPropagationFunction()](onnx::DataPropagationContext& ctx) {
            if (ctx.getNumInputs() < 1 || !ctx.getInputType(0))
                return;
            original(ctx);
        });
    }
}

}  // namespace

void runShapeInference(onnx::ModelProto& model, const onnx::ShapeInferenceOptions& options)
{
    static std::once_flag guarded;
    std::call_once(guarded, guardShapeDataPropagation);
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
}

}  // namespace spyglass::model::import
