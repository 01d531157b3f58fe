#pragma once
// Typed access to a Node's ONNX attributes with defaults. A present attribute of the wrong kind is
// an InputError naming the node and the attribute.

#include "core/model/model_graph.h"

#include <string>
#include <vector>

namespace spyglass::model {

bool hasAttribute(const Node& node, const std::string& name);
int64_t attrInt(const Node& node, const std::string& name, int64_t fallback);
float attrFloat(const Node& node, const std::string& name, float fallback);
std::string attrString(const Node& node, const std::string& name, const std::string& fallback);
std::vector<int64_t> attrInts(const Node& node, const std::string& name, const std::vector<int64_t>& fallback = {});
std::vector<float> attrFloats(const Node& node, const std::string& name, const std::vector<float>& fallback = {});
std::vector<std::string> attrStrings(const Node& node, const std::string& name);   // empty when absent
const HostTensor* attrTensor(const Node& node, const std::string& name);   // nullptr when absent

// Throws an InputError "<Op> '<name>': <message>" with the node recorded in the diagnostic.
[[noreturn]] void nodeError(const Node& node, const std::string& message);

}  // namespace spyglass::model
