#pragma once
// Loading ONNX models (binary .onnx or the textual syntax .onnxtxt) into a static ModelGraph:
// checker, shape inference, constant folding of shape arithmetic, Dropout -> Identity, support check.

#include "core/model/model_graph.h"

#include <cstdint>
#include <map>
#include <string>

namespace spyglass::model {

struct LoadOptions {
    // Graph inputs (by position among the declared inputs) to treat as constants, e.g. the `shape`
    // input of a Reshape that a test feeds at run time. The tensor must match the declared type.
    // An integer input read only as data (token ids into a Gather, an attention mask that is Cast or
    // Unsqueezed) stays an input, with the bound tensor's shape: folding it would compute the whole model
    // at load time.
    std::map<size_t, HostTensor> bindInputs;
    // Values for symbolic dimensions of graph inputs, by dim_param name (e.g. {"batch", 1}): exported
    // models with dynamic axes become static. A symbolic dimension without a value is a load error.
    std::map<std::string, int64_t> dimValues;
    // Largest model accepted, in bytes: the model file, and separately the external data it reads. Checked
    // before anything is read. Protobuf cannot decode a message over 2 GiB, so that is the default.
    uint64_t maxModelBytes = kDefaultMaxModelBytes;
    static constexpr uint64_t kDefaultMaxModelBytes = (uint64_t(2) << 30) - 1;
};

// Throws InputError (file:line:column for text, op type and node name for model errors) on anything
// that cannot be loaded; UnsupportedError (an InputError) for ops, attributes or types Spyglass lacks.
ModelGraph loadModel(const std::string& path, const LoadOptions& options = {});

// The dim_param names of the graph inputs' symbolic dimensions (initializers excluded), in the order they first
// appear: what LoadOptions::dimValues must give before the model loads (the GUI asks for them). Reads and parses
// the file (binary or textual, by extension), no more; throws InputError as loadModel does for a file it cannot read.
std::vector<std::string> symbolicInputDims(const std::string& path, uint64_t maxModelBytes = LoadOptions::kDefaultMaxModelBytes);

// The textual syntax from memory; `displayName` is used in messages and as sourcePath. External
// data is resolved relative to `baseDir` (refused when empty).
ModelGraph loadModelFromText(const std::string& text, const std::string& displayName, const std::string& baseDir = {},
                             const LoadOptions& options = {});

}  // namespace spyglass::model
