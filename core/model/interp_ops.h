#pragma once
// Internal to the reference interpreter: the context an op implementation gets, and small helpers
// for indexing and numpy broadcasting. Kept plain on purpose: correctness over speed.

#include "core/model/model_graph.h"
#include "core/model/node_attributes.h"

#include <map>
#include <string>
#include <vector>

namespace spyglass::model::interp {

struct OpContext {
    const Node& node;
    int64_t opset;
    const std::vector<const HostTensor*>& inputs;

    size_t inputCount() const { return inputs.size(); }
    const HostTensor* optionalInput(size_t k) const { return k < inputs.size() ? inputs[k] : nullptr; }
    const HostTensor& input(size_t k) const;   // throws naming the node when absent
    size_t outputCount() const { return node.outputs.size(); }
    [[noreturn]] void fail(const std::string& message) const { nodeError(node, message); }
};

using OpFn = std::vector<HostTensor> (*)(const OpContext&);
using OpTable = std::map<std::string, OpFn>;

const OpTable& elementwiseOps();   // interp_elementwise.cpp
const OpTable& tensorOps();        // interp_tensor.cpp
const OpTable& mathOps();          // interp_math.cpp (MatMul, Gemm, Softmax, norms, reductions)
const OpTable& convPoolOps();      // interp_convpool.cpp
const OpTable& recurrentOps();     // interp_recurrent.cpp (RNN, GRU, LSTM)

HostTensor makeLike(DType dtype, const Shape& shape);
std::vector<int64_t> stridesOf(const Shape& s);   // row-major element strides
Shape broadcastShapes(const OpContext& c, const std::vector<Shape>& shapes);
// Stride of `in` along each dimension of `out` (right-aligned), 0 where `in` is broadcast.
std::vector<int64_t> broadcastStrides(const Shape& in, const Shape& out);
int64_t normalizeAxis(const OpContext& c, int64_t axis, int64_t rank, const char* what = "axis");

// double -> int64 truncating toward zero, saturating out of range and mapping NaN to 0 (a plain cast is undefined there).
int64_t toInt64(double v);
inline double valueAt(const HostTensor& t, int64_t k) { return t.isFloating() ? t.f[k] : static_cast<double>(t.i[k]); }
inline void copyElement(HostTensor& dst, int64_t j, const HostTensor& src, int64_t k)
{
    if (dst.isFloating())
        dst.f[j] = src.isFloating() ? src.f[k] : static_cast<float>(src.i[k]);
    else
        dst.i[j] = src.isFloating() ? toInt64(src.f[k]) : src.i[k];
}
std::vector<int64_t> intValues(const OpContext& c, const HostTensor& t, const char* what);

// Integer arithmetic wraps around (two's complement, as numpy's int64 does) instead of being undefined.
inline int64_t wrapAdd(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
inline int64_t wrapSub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
inline int64_t wrapMul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }
// A shape computed from tensor data (Expand, ConstantOfShape, Range): refuses negative dimensions and
// more than 2^31 elements, which is an error in the model, not something to allocate.
void checkDataShape(const OpContext& c, const Shape& shape, const char* what);

// Steps a row-major multi-index over `shape` to the next element (wrapping to all zeros after the last).
inline void nextIndex(std::vector<int64_t>& idx, const Shape& shape)
{
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
        if (++idx[d] < shape[d])
            return;
        idx[d] = 0;
    }
}

// Calls f(outputFlatIndex, offsets) for every element of `out`, where offsets[s] is the flat offset
// into operand s given its per-dimension strides (see broadcastStrides).
template <typename F>
void forEachIndex(const Shape& out, const std::vector<std::vector<int64_t>>& strides, F&& f)
{
    const int64_t n = elementCount(out);
    const int rank = static_cast<int>(out.size());
    std::vector<int64_t> idx(out.size(), 0), off(strides.size(), 0);
    for (int64_t k = 0; k < n; ++k) {
        f(k, off);
        for (int d = rank - 1; d >= 0; --d) {
            ++idx[d];
            for (size_t s = 0; s < strides.size(); ++s)
                off[s] += strides[s][d];
            if (idx[d] < out[d])
                break;
            for (size_t s = 0; s < strides.size(); ++s)
                off[s] -= strides[s][d] * out[d];
            idx[d] = 0;
        }
    }
}

}  // namespace spyglass::model::interp
