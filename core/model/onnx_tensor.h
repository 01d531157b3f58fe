#pragma once
// Conversions between libonnx protobuf types and the ModelGraph types. Internal to core/model and
// to code that already works with onnx::*Proto (it pulls in the protobuf headers).

#include "core/model/model_graph.h"

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>

namespace spyglass::model {

std::optional<DType> dtypeFromOnnx(int32_t elemType);   // nullopt for types Spyglass does not hold
int32_t onnxFromDtype(DType t);
std::string onnxTypeName(int32_t elemType);              // "float", "string", "bfloat16", ...

// `what` names the tensor in error messages (e.g. "initializer 'W'"). The data must be inline
// (external data is resolved by the loader before this is called).
HostTensor tensorFromProto(const onnx::TensorProto& t, const std::string& what);
onnx::TensorProto tensorToProto(const HostTensor& t, const std::string& name);

}  // namespace spyglass::model
