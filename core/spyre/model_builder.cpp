#include "core/spyre/model_builder.h"

#include <cmath>

namespace spyglass::spyre {

ModelGraphBuilder::ModelGraphBuilder(std::string name)
{
    g_.name = std::move(name);
    g_.sourcePath = g_.name + " (built in code)";
    g_.opsetVersion = 17;
}

int ModelGraphBuilder::value(const std::string& name, const model::Shape& shape)
{
    model::Value v;
    v.name = name;
    v.shape = shape;
    g_.values.push_back(std::move(v));
    return static_cast<int>(g_.values.size() - 1);
}

int ModelGraphBuilder::input(const std::string& name, const model::Shape& shape)
{
    const int v = value(name, shape);
    g_.values[v].isGraphInput = true;
    g_.inputs.push_back(v);
    return v;
}

int ModelGraphBuilder::constant(const std::string& name, const model::Shape& shape, std::vector<float> data)
{
    const int v = value(name, shape);
    model::HostTensor t;
    t.dtype = model::DType::Float32;
    t.shape = shape;
    t.f = std::move(data);
    g_.values[v].constant = std::move(t);
    return v;
}

int ModelGraphBuilder::scalar(const std::string& name, float x) { return constant(name, {}, {x}); }

int ModelGraphBuilder::constantInts(const std::string& name, const model::Shape& shape, std::vector<int64_t> data)
{
    const int v = value(name, shape);
    g_.values[v].dtype = model::DType::Int64;
    model::HostTensor t;
    t.dtype = model::DType::Int64;
    t.shape = shape;
    t.i = std::move(data);
    g_.values[v].constant = std::move(t);
    return v;
}

int ModelGraphBuilder::node(const std::string& opType, const std::string& name, const std::vector<int>& inputs,
                            const model::Shape& outShape, std::map<std::string, model::AttributeValue> attributes)
{
    const int out = value(name + "_out", outShape);
    model::Node n;
    n.name = name;
    n.opType = opType;
    n.inputs = inputs;
    n.outputs = {out};
    n.attributes = std::move(attributes);
    const int index = static_cast<int>(g_.nodes.size());
    for (int i : inputs)
        if (i >= 0)
            g_.values[i].consumers.push_back(index);
    g_.values[out].producer = index;
    g_.nodes.push_back(std::move(n));
    return out;
}

void ModelGraphBuilder::output(int v)
{
    g_.values[v].isGraphOutput = true;
    g_.outputs.push_back(v);
}

model::ModelGraph transformerEncoder(int layers, int seq, int width, int heads, int ffn, bool weights)
{
    if (ffn <= 0)
        ffn = 4 * width;
    const int64_t S = seq, D = width, H = heads, Dh = width / heads, F = ffn;
    ModelGraphBuilder b("transformer_encoder_" + std::to_string(layers) + "x" + std::to_string(seq) + "x" +
                        std::to_string(width));
    int x = b.input("input", {1, S, D});
    const int scale = b.scalar("attn_scale", std::sqrt(static_cast<float>(Dh)));
    const int sqrt2 = b.scalar("sqrt2", std::sqrt(2.0f));
    const int one = b.scalar("one", 1.0f);
    const int half = b.scalar("half", 0.5f);
    // A linear congruential sequence: the same data on every machine.
    uint32_t state = 12345;
    auto data = [&](int64_t n, float scale, float offset) {
        std::vector<float> v;
        if (!weights)
            return v;
        v.reserve(n);
        for (int64_t i = 0; i < n; ++i) {
            state = state * 1664525u + 1013904223u;
            v.push_back(offset + scale * (static_cast<float>(state >> 8) / 16777216.0f - 0.5f));
        }
        return v;
    };
    auto linear = [&](const std::string& name, int in, int64_t k, int64_t n) {
        const float scale = 2.0f / std::sqrt(static_cast<float>(k));
        const int w = b.constant(name + ".weight", {k, n}, data(k * n, scale, 0.0f));
        const int bias = b.constant(name + ".bias", {n}, data(n, 0.2f, 0.0f));
        const int mm = b.node("MatMul", name + "/MatMul", {in, w}, {1, S, n});
        return b.node("Add", name + "/Add", {mm, bias}, {1, S, n});
    };
    auto layerNorm = [&](const std::string& name, int in) {
        const int g = b.constant(name + ".weight", {D}, data(D, 0.5f, 1.0f));
        const int be = b.constant(name + ".bias", {D}, data(D, 0.2f, 0.0f));
        return b.node("LayerNormalization", name, {in, g, be}, {1, S, D},
                      {{"axis", int64_t{-1}}, {"epsilon", 1e-5f}});
    };
    for (int l = 0; l < layers; ++l) {
        const std::string p = "layers." + std::to_string(l);
        const int q = linear(p + ".self_attn.q_proj", x, D, D);
        const int k = linear(p + ".self_attn.k_proj", x, D, D);
        const int v = linear(p + ".self_attn.v_proj", x, D, D);
        auto heads4 = [&](int t, const std::string& n, std::vector<int64_t> perm, model::Shape outShape) {
            const int shape = b.constantInts(p + "/" + n + "/shape", {4}, {1, S, H, Dh});
            const int r = b.node("Reshape", p + "/" + n + "/Reshape", {t, shape}, {1, S, H, Dh});
            return b.node("Transpose", p + "/" + n + "/Transpose", {r}, outShape, {{"perm", perm}});
        };
        const int qh = heads4(q, "q", {0, 2, 1, 3}, {1, H, S, Dh});
        const int kh = heads4(k, "k", {0, 2, 3, 1}, {1, H, Dh, S});
        const int vh = heads4(v, "v", {0, 2, 1, 3}, {1, H, S, Dh});
        const int scores = b.node("MatMul", p + "/attn/QK", {qh, kh}, {1, H, S, S});
        const int scaled = b.node("Div", p + "/attn/scale", {scores, scale}, {1, H, S, S});
        const int probs = b.node("Softmax", p + "/attn/Softmax", {scaled}, {1, H, S, S}, {{"axis", int64_t{-1}}});
        const int ctx = b.node("MatMul", p + "/attn/PV", {probs, vh}, {1, H, S, Dh});
        const int ctxT = b.node("Transpose", p + "/attn/merge/Transpose", {ctx}, {1, S, H, Dh},
                                {{"perm", std::vector<int64_t>{0, 2, 1, 3}}});
        const int mergedShape = b.constantInts(p + "/attn/merge/shape", {3}, {1, S, D});
        const int merged = b.node("Reshape", p + "/attn/merge/Reshape", {ctxT, mergedShape}, {1, S, D});
        const int attn = linear(p + ".self_attn.out_proj", merged, D, D);
        const int res1 = b.node("Add", p + "/residual1", {x, attn}, {1, S, D});
        const int n1 = layerNorm(p + ".norm1", res1);
        const int h = linear(p + ".linear1", n1, D, F);
        const int hs = b.node("Div", p + "/gelu/Div", {h, sqrt2}, {1, S, F});
        const int he = b.node("Erf", p + "/gelu/Erf", {hs}, {1, S, F});
        const int h1 = b.node("Add", p + "/gelu/Add", {he, one}, {1, S, F});
        const int hm = b.node("Mul", p + "/gelu/Mul", {h, h1}, {1, S, F});
        const int g = b.node("Mul", p + "/gelu/Mul_1", {hm, half}, {1, S, F});
        const int f = linear(p + ".linear2", g, F, D);
        const int res2 = b.node("Add", p + "/residual2", {n1, f}, {1, S, D});
        x = layerNorm(p + ".norm2", res2);
    }
    b.output(x);
    return b.take();
}

}  // namespace spyglass::spyre
