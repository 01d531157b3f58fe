#include "core/spyre/graph_rewriter.h"

namespace spyglass::spyre {

int GraphRewriter::tensor(const std::string& name, const Shape& shape, const std::string& dtype)
{
    GraphTensor t;
    t.name = name;
    t.shape = shape;
    t.dtype = dtype;
    p_.tensors.push_back(std::move(t));
    return static_cast<int>(p_.tensors.size() - 1);
}

int GraphRewriter::scalar(double value)
{
    GraphTensor t;
    t.name = "scalar" + std::to_string(p_.tensors.size());
    t.isConstant = true;
    t.f = std::make_shared<const std::vector<float>>(std::vector<float>{static_cast<float>(value)});
    p_.tensors.push_back(std::move(t));
    return static_cast<int>(p_.tensors.size() - 1);
}

int GraphRewriter::constantVector(const std::string& name, const Shape& shape, std::vector<float> data)
{
    GraphTensor t;
    t.name = name;
    t.shape = shape;
    t.isConstant = true;
    t.f = std::make_shared<const std::vector<float>>(std::move(data));
    p_.tensors.push_back(std::move(t));
    return static_cast<int>(p_.tensors.size() - 1);
}

int GraphRewriter::op(std::vector<GraphOp>& out, const std::string& opType, const std::string& name,
                      std::vector<int> inputs, const Shape& shape, const std::string& origin)
{
    const int t = tensor(name + "_out", shape);
    GraphOp g;
    g.name = name;
    g.opType = opType;
    g.inputs = std::move(inputs);
    g.outputs = {t};
    g.origin = origin;
    p_.tensors[t].producer = static_cast<int>(out.size());
    out.push_back(std::move(g));
    return t;
}

}  // namespace spyglass::spyre
