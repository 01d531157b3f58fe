#pragma once
// Builds ModelGraphs in code: the test suites' small hand-made graphs and the benchmark's generated transformer
// encoders (no ONNX file needed). Constants may carry no data (shape only): the compiler needs shapes, not weights.

#include "core/model/model_graph.h"

#include <string>
#include <vector>

namespace spyglass::spyre {

class ModelGraphBuilder {
public:
    explicit ModelGraphBuilder(std::string name);

    int input(const std::string& name, const model::Shape& shape);
    int constant(const std::string& name, const model::Shape& shape, std::vector<float> data = {});
    int scalar(const std::string& name, float value);
    int constantInts(const std::string& name, const model::Shape& shape, std::vector<int64_t> data);
    // One node with one output of `outShape`; returns the output value.
    int node(const std::string& opType, const std::string& name, const std::vector<int>& inputs,
             const model::Shape& outShape, std::map<std::string, model::AttributeValue> attributes = {});
    void output(int value);
    model::ModelGraph take() { return std::move(g_); }
    const model::ModelGraph& graph() const { return g_; }

private:
    model::ModelGraph g_;
    int value(const std::string& name, const model::Shape& shape);
};

// A post-LN transformer encoder like torch.nn.TransformerEncoderLayer exported to ONNX: per layer Q/K/V
// projections, multi-head attention (reshape, transpose, scaled QK^T, softmax, PV), output projection, residual,
// LayerNorm, GELU feed-forward (Erf form), residual, LayerNorm. Input [1, seq, width].
// With `weights`, every constant gets deterministic pseudo-random data (small models for numerical checks);
// without, constants are shape-only (what compile-time work needs).
model::ModelGraph transformerEncoder(int layers, int seq, int width, int heads, int ffn = 0, bool weights = false);

}  // namespace spyglass::spyre
