#pragma once
// ONNX TensorProto files (the `input_N.pb` / `output_N.pb` of an ONNX test_data_set_N folder) <-> HostTensor.

#include "core/model/model_graph.h"

#include <string>

namespace spyglass::model {

// Reads one serialized TensorProto. Throws InputError naming the file on unreadable, truncated or
// unsupported-dtype data. `name` (optional) receives the tensor's name as stored.
HostTensor readTensorFile(const std::string& path, std::string* name = nullptr);

// Writes `t` as a TensorProto with the given name (float16 values are rounded to fp16).
void writeTensorFile(const std::string& path, const HostTensor& t, const std::string& name = {});

// A zero-filled tensor of the given dtype and shape, with the right storage vector sized.
HostTensor makeTensor(DType dtype, const Shape& shape);

}  // namespace spyglass::model
