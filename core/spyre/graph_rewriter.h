#pragma once
// Small helpers for passes that rewrite the graph-level Program (decompose): new tensors, scalar constants, ops.

#include "core/spyre/loop_ir.h"

namespace spyglass::spyre {

class GraphRewriter {
public:
    explicit GraphRewriter(Program& p) : p_(p) {}

    int tensor(const std::string& name, const Shape& shape, const std::string& dtype = "float32");
    int scalar(double value);
    int constantVector(const std::string& name, const Shape& shape, std::vector<float> data);
    // Appends an op to `out` (the new op list) producing a fresh tensor of `shape`; returns the tensor.
    int op(std::vector<GraphOp>& out, const std::string& opType, const std::string& name, std::vector<int> inputs,
           const Shape& shape, const std::string& origin);

private:
    Program& p_;
    int counter_ = 0;
};

}  // namespace spyglass::spyre
