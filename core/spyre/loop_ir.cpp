#include "core/spyre/loop_ir.h"

#include <algorithm>

namespace spyglass::spyre {

int64_t shapeProduct(const Shape& s)
{
    int64_t n = 1;
    for (int64_t d : s)
        n *= d;
    return n;
}

Shape contiguousStrides(const Shape& s)
{
    Shape st(s.size(), 1);
    for (int i = static_cast<int>(s.size()) - 2; i >= 0; --i)
        st[i] = st[i + 1] * std::max<int64_t>(s[i + 1], 1);
    return st;
}

int64_t ceilDiv(int64_t a, int64_t b) { return b <= 0 ? 0 : (a + b - 1) / b; }

int64_t GraphOp::intAttr(const std::string& key, int64_t fallback) const
{
    const auto it = ints.find(key);
    return it == ints.end() || it->second.empty() ? fallback : it->second.front();
}

double GraphOp::floatAttr(const std::string& key, double fallback) const
{
    const auto it = floats.find(key);
    return it == floats.end() ? fallback : it->second;
}

int64_t AffineExpr::coeffOf(int var) const
{
    for (const auto& [v, c] : terms)
        if (v == var)
            return c;
    return 0;
}

void AffineExpr::add(int var, int64_t coeff)
{
    if (coeff == 0)
        return;
    auto it = std::lower_bound(terms.begin(), terms.end(), var, [](const auto& t, int v) { return t.first < v; });
    if (it != terms.end() && it->first == var) {
        it->second += coeff;
        if (it->second == 0)
            terms.erase(it);
    } else {
        terms.insert(it, {var, coeff});
    }
}

const char* opKindName(OpKind k)
{
    switch (k) {
    case OpKind::Pointwise: return "Pointwise";
    case OpKind::Reduction: return "Reduction";
    case OpKind::MatMul: return "MatMul";
    case OpKind::Restickify: return "Restickify";
    }
    return "?";
}

const char* bufferKindName(BufferKind k)
{
    switch (k) {
    case BufferKind::Input: return "InputBuffer";
    case BufferKind::Constant: return "ConstantBuffer";
    case BufferKind::Intermediate: return "ComputedBuffer";
    case BufferKind::Output: return "OutputBuffer";
    }
    return "?";
}

int64_t Op::varRange(int var) const
{
    const int n = static_cast<int>(ranges.size());
    if (var < n)
        return ranges[var];
    if (var - n < static_cast<int>(reductionRanges.size()))
        return reductionRanges[var - n];
    return 1;
}

std::string Op::varName(int var) const
{
    const int n = static_cast<int>(ranges.size());
    if (var >= kIndirectVar)
        return "indirect" + std::to_string(var - kIndirectVar);
    return var < n ? "p" + std::to_string(var) : "r" + std::to_string(var - n);
}

int64_t Op::iterationPoints() const { return shapeProduct(ranges) * shapeProduct(reductionRanges); }

std::string SpyreTensorLayout::text() const
{
    auto list = [](const auto& v) {
        std::string s = "[";
        for (size_t i = 0; i < v.size(); ++i)
            s += (i ? ", " : "") + std::to_string(v[i]);
        return s + "]";
    };
    return "SpyreTensorLayout(device_size=" + list(deviceSize) + ", dim_map=" + list(dimMap) +
           ", stride_map=" + list(strideMap) + ", device_dtype=" + deviceDtype + ")";
}

SpyreTensorLayout deviceLayout(const Shape& shape, const Shape& strides, int stickDim, DeviceOrder order,
                               int stickElements, const std::string& deviceDtype)
{
    SpyreTensorLayout l;
    l.deviceDtype = deviceDtype;
    const int rank = static_cast<int>(shape.size());
    if (rank == 0) {
        l.deviceSize = {1, stickElements};
        l.dimMap = {-1, -1};
        l.strideMap = {-1, -1};
        return l;
    }
    const int s = stickDim >= 0 && stickDim < rank ? stickDim : rank - 1;
    std::vector<int> others;
    for (int d = 0; d < rank; ++d)
        if (d != s)
            others.push_back(d);
    auto push = [&](int64_t size, int dim, int64_t stride) {
        l.deviceSize.push_back(size);
        l.dimMap.push_back(dim);
        l.strideMap.push_back(stride);
    };
    const int64_t sticks = ceilDiv(shape[s], stickElements);
    if (others.empty()) {
        push(sticks, s, strides[s] * stickElements);
    } else {
        // The one non-stick dim kept just outside the stick: host dim 0 by default, the innermost one otherwise.
        const int inner = order == DeviceOrder::Default ? others.front() : others.back();
        for (int d : others)
            if (d != inner)
                push(shape[d], d, strides[d]);
        push(sticks, s, strides[s] * stickElements);
        push(shape[inner], inner, strides[inner]);
    }
    push(stickElements, s, strides[s]);
    return l;
}

int Program::findBuffer(const std::string& nameOrOrigin) const
{
    for (size_t b = 0; b < buffers.size(); ++b)
        if (buffers[b].name == nameOrOrigin)
            return static_cast<int>(b);
    for (size_t b = 0; b < buffers.size(); ++b)
        if (buffers[b].origin == nameOrOrigin)
            return static_cast<int>(b);
    return -1;
}

int Program::findOp(const std::string& name) const
{
    for (size_t o = 0; o < ops.size(); ++o)
        if (ops[o].name == name)
            return static_cast<int>(o);
    for (size_t o = 0; o < ops.size(); ++o)
        if (std::find(ops[o].fusedFrom.begin(), ops[o].fusedFrom.end(), name) != ops[o].fusedFrom.end())
            return static_cast<int>(o);
    return -1;
}

std::vector<std::vector<int>> Program::consumersOfBuffers() const
{
    std::vector<std::vector<int>> out(buffers.size());
    for (size_t o = 0; o < ops.size(); ++o)
        for (const Access& a : ops[o].loads)
            if (a.buffer >= 0 && (out[a.buffer].empty() || out[a.buffer].back() != static_cast<int>(o)))
                out[a.buffer].push_back(static_cast<int>(o));
    return out;
}

WalkedDim walkedDim(const Buffer& b, int64_t coeff, int64_t varRange, int stickElements)
{
    WalkedDim w;
    if (coeff == 0 || varRange <= 1)
        return w;
    const int64_t c = coeff < 0 ? -coeff : coeff;
    const int rank = static_cast<int>(b.shape.size());
    for (int d = rank - 1; d >= 0; --d) {
        const int64_t sd = b.strides[d];
        if (b.shape[d] <= 1)
            continue;
        if (c >= sd && c < sd * b.shape[d]) {
            w.dim = d;
            w.unit = c == sd;
            // A var that runs past the end of its dim continues into the next outer dim: that is only
            // stick-clean when the dim is a whole number of sticks.
            if (w.unit && varRange > b.shape[d])
                w.aligned = b.shape[d] % stickElements == 0;
            return w;
        }
    }
    // Coefficient larger than every dim (walks the outermost dim with a stride): report the outermost.
    for (int d = 0; d < rank; ++d)
        if (b.shape[d] > 1) {
            w.dim = d;
            w.unit = false;
            return w;
        }
    return w;
}

}  // namespace spyglass::spyre
