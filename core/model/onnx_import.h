#pragma once
// The stages of ONNX import, on libonnx's ModelProto. Internal to core/model (pulls in protobuf).

#include "core/model/model_graph.h"

#include <onnx/defs/shape_inference.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <string>

namespace spyglass::model::import {

// Parses the textual syntax; a syntax error is an InputError at file:line:column with the source line.
onnx::ModelProto parseText(const std::string& text, const std::string& displayName);
// Parses binary protobuf; truncated or non-ONNX data is an InputError naming the file.
onnx::ModelProto parseBinary(const std::string& bytes, const std::string& displayName);

// Reads every external-data tensor (initializers and Constant attributes) into raw_data. Locations
// must be relative paths inside `baseDir` (no "..", no absolute paths, no symlinks leading out).
// Refuses more than `maxBytes` of external data in total, before reading it.
void resolveExternalData(onnx::ModelProto& model, const std::string& baseDir, const std::string& displayName,
                         uint64_t maxBytes = UINT64_MAX);

// libonnx's shape inference (onnx::shape_inference::InferShapes over the whole registry), with ONNX 1.12's crash on
// a Shape whose input has no type fixed (onnx_shape_inference.cpp). Every caller in core/model goes through it.
void runShapeInference(onnx::ModelProto& model, const onnx::ShapeInferenceOptions& options);

// ONNX attributes -> Node attributes (tensors converted to HostTensor); inputs and outputs are filled
// with -1 placeholders (one per proto input/output).
Node nodeFromProto(const onnx::NodeProto& proto);

// Constant tensors by value name (initializers and everything folded so far).
using ConstantMap = std::map<std::string, HostTensor>;

// One folding sweep over the graph in topological order: Constant nodes, Shape/Size of statically shaped
// values, and nodes whose inputs are all constant (shape arithmetic) become constants; Dropout becomes
// Identity. Folded values are added to `constants` and as initializers. Returns whether anything changed.
bool foldConstants(onnx::ModelProto& model, int64_t opset, ConstantMap& constants);

// Fills in output shapes libonnx's inference leaves unknown though the inputs determine them (Einsum); returns
// whether it set any (then inference runs again).
bool completeShapes(onnx::ModelProto& model);

// Rewrites an opset-18 model to opset 17 (opset18.cpp says which ops and how), for an ONNX library that stops at 17.
// A form that has no opset-17 equivalent is an UnsupportedError naming the node.
void downgradeOpset18(onnx::ModelProto& model);

// Rewrites the broadcast/axis/is_test attributes and PRelu's per-channel slope of opsets before 7 into the later
// numpy-broadcast form (opset6.cpp).
void upgradeOpset6(onnx::ModelProto& model);

}  // namespace spyglass::model::import
