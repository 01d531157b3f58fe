#pragma once
// The fp32 reference interpreter: plain, obviously correct implementations of every supported op
// (numpy broadcasting semantics, ONNX opset-dependent semantics). It is the yardstick the Spyre
// simulator is checked against, and the loader uses it to fold shape arithmetic to constants.

#include "core/model/model_graph.h"

#include <map>
#include <string>
#include <vector>

namespace spyglass::model {

// Evaluates one node. inputs[k] is nullptr for an omitted optional input. Throws InputError (naming
// the node) on shapes or values the op does not accept, UnsupportedError on an op it does not implement.
std::vector<HostTensor> evaluateNode(const Node& node, int64_t opset, const std::vector<const HostTensor*>& inputs);

struct ReferenceResult {
    std::vector<HostTensor> outputs;            // in the order of ModelGraph::outputs
    std::map<std::string, HostTensor> values;   // every intermediate, when keepIntermediates was set
};

// Runs the graph on `inputs` (in the order of ModelGraph::inputs). Throws InputError when an input's
// count, dtype or shape does not match the graph, naming the input.
ReferenceResult runReference(const ModelGraph& graph, const std::vector<HostTensor>& inputs, bool keepIntermediates = false);

// Checks that `t` fits graph input `index` (dtype and shape); throws InputError naming it otherwise.
void checkInputMatches(const ModelGraph& graph, size_t index, const HostTensor& t, const std::string& origin);

}  // namespace spyglass::model
