#include "core/model/node_attributes.h"

#include "core/common/diagnostics.h"

namespace spyglass::model {

namespace {

template <typename T>
const T* typed(const Node& node, const std::string& name, const char* kind)
{
    const auto it = node.attributes.find(name);
    if (it == node.attributes.end())
        return nullptr;
    if (const T* v = std::get_if<T>(&it->second))
        return v;
    nodeError(node, "attribute '" + name + "' should be " + kind);
}

}  // namespace

void nodeError(const Node& node, const std::string& message)
{
    Diagnostic d;
    d.node = node.label();
    d.message = message;
    throw InputError(d);
}

bool hasAttribute(const Node& node, const std::string& name) { return node.attributes.count(name) != 0; }

int64_t attrInt(const Node& node, const std::string& name, int64_t fallback)
{
    const int64_t* v = typed<int64_t>(node, name, "an int");
    return v ? *v : fallback;
}

float attrFloat(const Node& node, const std::string& name, float fallback)
{
    const float* v = typed<float>(node, name, "a float");
    return v ? *v : fallback;
}

std::string attrString(const Node& node, const std::string& name, const std::string& fallback)
{
    const std::string* v = typed<std::string>(node, name, "a string");
    return v ? *v : fallback;
}

std::vector<std::string> attrStrings(const Node& node, const std::string& name)
{
    const auto* v = typed<std::vector<std::string>>(node, name, "a list of strings");
    return v ? *v : std::vector<std::string>{};
}

std::vector<int64_t> attrInts(const Node& node, const std::string& name, const std::vector<int64_t>& fallback)
{
    const auto* v = typed<std::vector<int64_t>>(node, name, "a list of ints");
    return v ? *v : fallback;
}

std::vector<float> attrFloats(const Node& node, const std::string& name, const std::vector<float>& fallback)
{
    const auto* v = typed<std::vector<float>>(node, name, "a list of floats");
    return v ? *v : fallback;
}

const HostTensor* attrTensor(const Node& node, const std::string& name)
{
    return typed<HostTensor>(node, name, "a tensor");
}

}  // namespace spyglass::model
