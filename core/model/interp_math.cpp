// Matrix products, softmax, normalisations and reductions of the reference interpreter.
// Accumulation is in double: the reference should be closer to the exact result than anything it checks.
#include "core/model/einsum.h"
#include "core/model/interp_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace spyglass::model::interp {

namespace {

void requireFloating(const OpContext& c, const HostTensor& t, const char* what)
{
    if (!t.isFloating())
        c.fail(std::string(what) + " of type " + dtypeName(t.dtype) + " is not supported (floating types only)");
}

std::vector<HostTensor> opMatMul(const OpContext& c)
{
    HostTensor a = c.input(0), b = c.input(1);
    requireFloating(c, a, "A");
    requireFloating(c, b, "B");
    if (a.shape.empty() || b.shape.empty())
        c.fail("operands must have rank >= 1");
    // numpy: a 1-D A is a row vector, a 1-D B a column vector; the added dimension is removed after.
    const bool aVec = a.shape.size() == 1, bVec = b.shape.size() == 1;
    if (aVec)
        a.shape.insert(a.shape.begin(), 1);
    if (bVec)
        b.shape.push_back(1);
    const int64_t M = a.shape[a.shape.size() - 2], K = a.shape.back();
    const int64_t K2 = b.shape[b.shape.size() - 2], N = b.shape.back();
    if (K != K2)
        c.fail("inner dimensions differ: " + shapeString(c.input(0).shape) + " x " + shapeString(c.input(1).shape));
    const Shape aBatch(a.shape.begin(), a.shape.end() - 2), bBatch(b.shape.begin(), b.shape.end() - 2);
    const Shape batch = broadcastShapes(c, {aBatch, bBatch});
    std::vector<int64_t> aStr = broadcastStrides(aBatch, batch), bStr = broadcastStrides(bBatch, batch);
    for (auto& s : aStr) s *= M * K;
    for (auto& s : bStr) s *= K * N;
    Shape outShape = batch;
    if (!aVec) outShape.push_back(M);
    if (!bVec) outShape.push_back(N);
    HostTensor y = makeLike(a.dtype, outShape);
    std::vector<double> row(static_cast<size_t>(N));
    forEachIndex(batch, {aStr, bStr}, [&](int64_t bi, const std::vector<int64_t>& off) {
        const float* A = a.f.data() + off[0];
        const float* B = b.f.data() + off[1];
        float* Y = y.f.data() + bi * M * N;
        for (int64_t i = 0; i < M; ++i) {
            std::fill(row.begin(), row.end(), 0.0);
            for (int64_t k = 0; k < K; ++k) {
                const double aik = A[i * K + k];
                const float* Bk = B + k * N;
                for (int64_t j = 0; j < N; ++j)
                    row[j] += aik * Bk[j];
            }
            for (int64_t j = 0; j < N; ++j)
                Y[i * N + j] = static_cast<float>(row[j]);
        }
    });
    return {y};
}

std::vector<HostTensor> opGemm(const OpContext& c)
{
    const HostTensor& a = c.input(0);
    const HostTensor& b = c.input(1);
    const HostTensor* cc = c.optionalInput(2);
    requireFloating(c, a, "A");
    requireFloating(c, b, "B");
    if (a.shape.size() != 2 || b.shape.size() != 2)
        c.fail("A and B must be 2-D");
    const bool ta = attrInt(c.node, "transA", 0) != 0, tb = attrInt(c.node, "transB", 0) != 0;
    const double alpha = attrFloat(c.node, "alpha", 1.0f), beta = attrFloat(c.node, "beta", 1.0f);
    const int64_t M = ta ? a.shape[1] : a.shape[0], K = ta ? a.shape[0] : a.shape[1];
    const int64_t K2 = tb ? b.shape[1] : b.shape[0], N = tb ? b.shape[0] : b.shape[1];
    if (K != K2)
        c.fail("inner dimensions differ: " + shapeString(a.shape) + " x " + shapeString(b.shape));
    const Shape shape{M, N};
    HostTensor y = makeLike(a.dtype, shape);
    std::vector<int64_t> cStr;
    if (cc) {
        if (broadcastShapes(c, {cc->shape, shape}) != shape)
            c.fail("C of shape " + shapeString(cc->shape) + " does not broadcast to " + shapeString(shape));
        cStr = broadcastStrides(cc->shape, shape);
    }
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
            double acc = 0;
            for (int64_t k = 0; k < K; ++k)
                acc += static_cast<double>(ta ? a.f[k * M + i] : a.f[i * K + k]) * (tb ? b.f[j * K + k] : b.f[k * N + j]);
            double v = alpha * acc;
            if (cc)
                v += beta * valueAt(*cc, i * cStr[0] + j * cStr[1]);
            y.f[i * N + j] = static_cast<float>(v);
        }
    return {y};
}

// Splits `shape` around [axis, axisEnd) into outer x middle x inner.
struct Split3 {
    int64_t outer = 1, middle = 1, inner = 1;
};
Split3 split(const Shape& s, int64_t axis, int64_t axisEnd)
{
    Split3 r;
    for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d)
        (d < axis ? r.outer : d < axisEnd ? r.middle : r.inner) *= s[d];
    return r;
}

std::vector<HostTensor> softmaxLike(const OpContext& c, bool logarithm)
{
    const HostTensor& x = c.input(0);
    requireFloating(c, x, "input");
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    // Opset < 13 coerces the input to 2-D at `axis` (default 1); opset >= 13 normalises along one axis (default -1).
    // The legacy axis may also be `rank` (an empty inner block); a negative one still counts from `rank`.
    const bool legacy = c.opset < 13;
    int64_t axis = 0;
    if (legacy) {
        const int64_t given = attrInt(c.node, "axis", 1);
        axis = given < 0 ? given + rank : given;
        if (axis < 0 || axis > rank)
            c.fail("axis " + std::to_string(given) + " is out of range for rank " + std::to_string(rank));
    } else if (rank > 0) {
        axis = normalizeAxis(c, attrInt(c.node, "axis", -1), rank);
    }
    const Split3 s = split(x.shape, axis, legacy ? rank : axis + 1);
    HostTensor y = makeLike(x.dtype, x.shape);
    for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t in = 0; in < s.inner; ++in) {
            auto at = [&](int64_t m) { return (o * s.middle + m) * s.inner + in; };
            double mx = -std::numeric_limits<double>::infinity();
            for (int64_t m = 0; m < s.middle; ++m)
                mx = std::max(mx, static_cast<double>(x.f[at(m)]));
            double sum = 0;
            for (int64_t m = 0; m < s.middle; ++m)
                sum += std::exp(x.f[at(m)] - mx);
            for (int64_t m = 0; m < s.middle; ++m) {
                const double z = x.f[at(m)] - mx;
                y.f[at(m)] = static_cast<float>(logarithm ? z - std::log(sum) : std::exp(z) / sum);
            }
        }
    return {y};
}

std::vector<HostTensor> opSoftmax(const OpContext& c) { return softmaxLike(c, false); }
std::vector<HostTensor> opLogSoftmax(const OpContext& c) { return softmaxLike(c, true); }

std::vector<HostTensor> opLayerNorm(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    const HostTensor& scale = c.input(1);
    const HostTensor* bias = c.optionalInput(2);
    requireFloating(c, x, "X");
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    const int64_t axis = normalizeAxis(c, attrInt(c.node, "axis", -1), rank);
    const double eps = attrFloat(c.node, "epsilon", 1e-5f);
    const Split3 s = split(x.shape, axis, rank);
    const Shape normShape(x.shape.begin() + axis, x.shape.end());
    auto stridesFor = [&](const HostTensor& t, const char* what) {
        if (broadcastShapes(c, {t.shape, normShape}) != normShape)
            c.fail(std::string(what) + " of shape " + shapeString(t.shape) + " does not broadcast to " + shapeString(normShape));
        return broadcastStrides(t.shape, normShape);
    };
    // Flat offsets of scale and bias for every position of the normalised block.
    std::vector<int64_t> scaleOff(static_cast<size_t>(s.middle)), biasOff(static_cast<size_t>(s.middle));
    forEachIndex(normShape, {stridesFor(scale, "Scale")}, [&](int64_t k, const std::vector<int64_t>& off) { scaleOff[k] = off[0]; });
    if (bias)
        forEachIndex(normShape, {stridesFor(*bias, "B")}, [&](int64_t k, const std::vector<int64_t>& off) { biasOff[k] = off[0]; });
    Shape statShape = x.shape;
    for (int64_t d = axis; d < rank; ++d)
        statShape[d] = 1;
    HostTensor y = makeLike(x.dtype, x.shape);
    HostTensor mean = makeLike(DType::Float32, statShape), invStd = makeLike(DType::Float32, statShape);
    for (int64_t o = 0; o < s.outer; ++o) {
        const float* X = x.f.data() + o * s.middle;
        double sum = 0;
        for (int64_t m = 0; m < s.middle; ++m)
            sum += X[m];
        const double mu = sum / static_cast<double>(s.middle);
        double var = 0;
        for (int64_t m = 0; m < s.middle; ++m)
            var += (X[m] - mu) * (X[m] - mu);
        var /= static_cast<double>(s.middle);
        const double inv = 1.0 / std::sqrt(var + eps);
        for (int64_t m = 0; m < s.middle; ++m) {
            double v = (X[m] - mu) * inv * valueAt(scale, scaleOff[m]);
            if (bias)
                v += valueAt(*bias, biasOff[m]);
            y.f[o * s.middle + m] = static_cast<float>(v);
        }
        mean.f[o] = static_cast<float>(mu);
        invStd.f[o] = static_cast<float>(inv);
    }
    return {y, mean, invStd};
}

std::vector<HostTensor> opBatchNorm(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    requireFloating(c, x, "X");
    if (x.shape.size() < 2)
        c.fail("X must have rank >= 2 (N, C, ...)");
    const HostTensor& scale = c.input(1);
    const HostTensor& bias = c.input(2);
    const HostTensor& mean = c.input(3);
    const HostTensor& var = c.input(4);
    const int64_t C = x.shape[1];
    for (const HostTensor* t : {&scale, &bias, &mean, &var})
        if (t->size() != C)
            c.fail("scale, B, mean and var must have C = " + std::to_string(C) + " elements");
    const double eps = attrFloat(c.node, "epsilon", 1e-5f);
    const Split3 s = split(x.shape, 1, 2);
    HostTensor y = makeLike(x.dtype, x.shape);
    for (int64_t n = 0; n < s.outer; ++n)
        for (int64_t ch = 0; ch < C; ++ch) {
            const double a = valueAt(scale, ch) / std::sqrt(valueAt(var, ch) + eps);
            for (int64_t k = 0; k < s.inner; ++k) {
                const int64_t at = (n * C + ch) * s.inner + k;
                y.f[at] = static_cast<float>((x.f[at] - valueAt(mean, ch)) * a + valueAt(bias, ch));
            }
        }
    return {y};
}

// Einsum by its definition: every combination of the labels, the product of the operands summed into the output.
std::vector<HostTensor> opEinsum(const OpContext& c)
{
    std::vector<int64_t> ranks;
    for (size_t k = 0; k < c.inputCount(); ++k) {
        requireFloating(c, c.input(k), "operand");
        ranks.push_back(static_cast<int64_t>(c.input(k).shape.size()));
    }
    const EinsumSpec spec = parseEinsum(attrString(c.node, "equation", ""), ranks);
    if (!spec.error.empty())
        c.fail("equation: " + spec.error);
    std::string labels = spec.output;
    for (const std::string& s : spec.inputs)
        for (char l : s)
            if (labels.find(l) == std::string::npos)
                labels += l;
    std::map<char, int64_t> size;
    for (size_t k = 0; k < spec.inputs.size(); ++k)
        for (size_t d = 0; d < spec.inputs[k].size(); ++d) {
            const char l = spec.inputs[k][d];
            const int64_t n = c.input(k).shape[d];
            auto [it, fresh] = size.emplace(l, n);
            if (!fresh && it->second != n) {
                if (it->second != 1 && n != 1)
                    c.fail(std::string("label '") + l + "' has sizes " + std::to_string(it->second) + " and " + std::to_string(n));
                it->second = std::max(it->second, n);
            }
        }
    Shape outShape;
    for (char l : spec.output)
        outShape.push_back(size.at(l));
    checkDataShape(c, outShape, "output");
    // Strides of every label in every operand (0 where broadcast or absent) and in the output.
    const size_t L = labels.size();
    std::vector<int64_t> extent(L);
    for (size_t j = 0; j < L; ++j)
        extent[j] = size.at(labels[j]);
    int64_t points = 1;
    for (int64_t e : extent)
        points = e == 0 ? 0 : points * e;
    if (points > (int64_t{1} << 31))
        c.fail("more than 2^31 index combinations");
    std::vector<std::vector<int64_t>> stride(spec.inputs.size() + 1, std::vector<int64_t>(L, 0));
    for (size_t k = 0; k <= spec.inputs.size(); ++k) {
        const std::string& s = k < spec.inputs.size() ? spec.inputs[k] : spec.output;
        const Shape& shape = k < spec.inputs.size() ? c.input(k).shape : outShape;
        const auto st = stridesOf(shape);
        for (size_t d = 0; d < s.size(); ++d)
            if (shape[d] != 1)
                stride[k][labels.find(s[d])] += st[d];
    }
    std::vector<double> acc(static_cast<size_t>(elementCount(outShape)), 0.0);
    std::vector<int64_t> idx(L, 0), off(stride.size(), 0);
    for (int64_t p = 0; p < points; ++p) {
        double v = 1;
        for (size_t k = 0; k < spec.inputs.size(); ++k)
            v *= c.input(k).f[off[k]];
        acc[off.back()] += v;
        for (int j = static_cast<int>(L) - 1; j >= 0; --j) {
            for (size_t k = 0; k < stride.size(); ++k)
                off[k] += stride[k][j];
            if (++idx[j] < extent[j])
                break;
            for (size_t k = 0; k < stride.size(); ++k)
                off[k] -= stride[k][j] * extent[j];
            idx[j] = 0;
        }
    }
    HostTensor y = makeLike(c.input(0).dtype, outShape);
    for (size_t k = 0; k < acc.size(); ++k)
        y.f[k] = static_cast<float>(acc[k]);
    return {y};
}

// InstanceNormalization: per (n, c), normalise over the spatial dims, then scale[c] and B[c].
std::vector<HostTensor> opInstanceNorm(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    const HostTensor& scale = c.input(1);
    const HostTensor& bias = c.input(2);
    requireFloating(c, x, "input");
    if (x.shape.size() < 3)
        c.fail("input must be (N, C, spatial...)");
    const int64_t C = x.shape[1];
    if (scale.size() != C || bias.size() != C)
        c.fail("scale and B must have C = " + std::to_string(C) + " elements");
    const double eps = attrFloat(c.node, "epsilon", 1e-5f);
    const Split3 s = split(x.shape, 2, static_cast<int64_t>(x.shape.size()));
    HostTensor y = makeLike(x.dtype, x.shape);
    for (int64_t nc = 0; nc < s.outer; ++nc) {
        const float* X = x.f.data() + nc * s.middle;
        double sum = 0, var = 0;
        for (int64_t m = 0; m < s.middle; ++m)
            sum += X[m];
        const double mu = s.middle ? sum / static_cast<double>(s.middle) : 0.0;
        for (int64_t m = 0; m < s.middle; ++m)
            var += (X[m] - mu) * (X[m] - mu);
        const double inv = 1.0 / std::sqrt((s.middle ? var / static_cast<double>(s.middle) : 0.0) + eps);
        const int64_t ch = nc % C;
        for (int64_t m = 0; m < s.middle; ++m)
            y.f[nc * s.middle + m] = static_cast<float>((X[m] - mu) * inv * valueAt(scale, ch) + valueAt(bias, ch));
    }
    return {y};
}

enum class Reduce { Sum, Mean, Max, Min, Prod, L1, L2, SumSquare, LogSum, LogSumExp };

std::vector<HostTensor> reduce(const OpContext& c, Reduce kind)
{
    const HostTensor& x = c.input(0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    // Axes moved from attribute to input: ReduceSum at opset 13, the others at opset 18. A node carries
    // one form or the other (the checker enforces its opset's schema), so take whichever is present.
    std::vector<int64_t> axes;
    if (hasAttribute(c.node, "axes"))
        axes = attrInts(c.node, "axes");
    else if (const HostTensor* a = c.optionalInput(1))
        axes = intValues(c, *a, "axes");
    const bool keepDims = attrInt(c.node, "keepdims", 1) != 0;
    if (axes.empty() && attrInt(c.node, "noop_with_empty_axes", 0) != 0)
        return {x};
    std::vector<bool> reduced(rank, axes.empty());
    for (int64_t a : axes)
        reduced[normalizeAxis(c, a, rank)] = true;
    Shape keptShape = x.shape, outShape;
    int64_t count = 1;
    for (int64_t d = 0; d < rank; ++d) {
        if (reduced[d]) {
            count *= x.shape[d];
            keptShape[d] = 1;
            if (keepDims)
                outShape.push_back(1);
        } else {
            outShape.push_back(x.shape[d]);
        }
    }
    constexpr double inf = std::numeric_limits<double>::infinity();
    const double init = kind == Reduce::Max ? -inf : kind == Reduce::Min ? inf : kind == Reduce::Prod ? 1.0 : 0.0;
    std::vector<double> acc(static_cast<size_t>(elementCount(keptShape)), init);
    std::vector<int64_t> outStr = stridesOf(keptShape);
    for (int64_t d = 0; d < rank; ++d)
        if (reduced[d])
            outStr[d] = 0;
    // LogSumExp subtracts each slice's maximum first, so that exp cannot overflow.
    std::vector<double> shift(acc.size(), 0.0);
    if (kind == Reduce::LogSumExp) {
        std::fill(shift.begin(), shift.end(), -inf);
        forEachIndex(x.shape, {outStr}, [&](int64_t k, const std::vector<int64_t>& off) { shift[off[0]] = std::max(shift[off[0]], valueAt(x, k)); });
        for (double& m : shift)
            if (!std::isfinite(m))
                m = 0;
    }
    forEachIndex(x.shape, {outStr}, [&](int64_t k, const std::vector<int64_t>& off) {
        const double v = valueAt(x, k);
        double& a = acc[off[0]];
        switch (kind) {
        case Reduce::Max: a = std::max(a, v); break;
        case Reduce::Min: a = std::min(a, v); break;
        case Reduce::Prod: a *= v; break;
        case Reduce::L1: a += std::fabs(v); break;
        case Reduce::L2:
        case Reduce::SumSquare: a += v * v; break;
        case Reduce::LogSumExp: a += std::exp(v - shift[off[0]]); break;
        default: a += v; break;
        }
    });
    HostTensor y = makeLike(x.dtype, outShape);
    for (size_t k = 0; k < acc.size(); ++k) {
        double v = acc[k];
        if (kind == Reduce::Mean)
            v /= static_cast<double>(count);
        else if (kind == Reduce::L2)
            v = std::sqrt(v);
        else if (kind == Reduce::LogSum)
            v = std::log(v);
        else if (kind == Reduce::LogSumExp)
            v = std::log(v) + shift[k];
        if (y.isFloating())
            y.f[k] = static_cast<float>(v);
        else
            y.i[k] = toInt64(v);
    }
    return {y};
}

std::vector<HostTensor> opReduceSum(const OpContext& c) { return reduce(c, Reduce::Sum); }
std::vector<HostTensor> opReduceMean(const OpContext& c) { return reduce(c, Reduce::Mean); }
std::vector<HostTensor> opReduceMax(const OpContext& c) { return reduce(c, Reduce::Max); }
std::vector<HostTensor> opReduceMin(const OpContext& c) { return reduce(c, Reduce::Min); }
std::vector<HostTensor> opReduceProd(const OpContext& c) { return reduce(c, Reduce::Prod); }
std::vector<HostTensor> opReduceL1(const OpContext& c) { return reduce(c, Reduce::L1); }
std::vector<HostTensor> opReduceL2(const OpContext& c) { return reduce(c, Reduce::L2); }
std::vector<HostTensor> opReduceSumSquare(const OpContext& c) { return reduce(c, Reduce::SumSquare); }
std::vector<HostTensor> opReduceLogSum(const OpContext& c) { return reduce(c, Reduce::LogSum); }
std::vector<HostTensor> opReduceLogSumExp(const OpContext& c) { return reduce(c, Reduce::LogSumExp); }

// ArgMax / ArgMin along one axis: the first extreme index, or the last with select_last_index.
std::vector<HostTensor> argExtreme(const OpContext& c, bool isMax)
{
    const HostTensor& x = c.input(0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    const int64_t axis = normalizeAxis(c, attrInt(c.node, "axis", 0), rank);
    const bool keep = attrInt(c.node, "keepdims", 1) != 0, last = attrInt(c.node, "select_last_index", 0) != 0;
    const Split3 s = split(x.shape, axis, axis + 1);
    if (s.middle == 0)
        c.fail("cannot take the arg" + std::string(isMax ? "max" : "min") + " of an empty axis");
    Shape shape = x.shape;
    if (keep)
        shape[axis] = 1;
    else
        shape.erase(shape.begin() + axis);
    HostTensor y = makeLike(DType::Int64, shape);
    for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t in = 0; in < s.inner; ++in) {
            int64_t best = 0;
            double bv = valueAt(x, o * s.middle * s.inner + in);
            for (int64_t m = 1; m < s.middle; ++m) {
                const double v = valueAt(x, (o * s.middle + m) * s.inner + in);
                if (isMax ? (v > bv || (last && v == bv)) : (v < bv || (last && v == bv))) {
                    bv = v;
                    best = m;
                }
            }
            y.i[o * s.inner + in] = best;
        }
    return {y};
}
std::vector<HostTensor> opArgMax(const OpContext& c) { return argExtreme(c, true); }
std::vector<HostTensor> opArgMin(const OpContext& c) { return argExtreme(c, false); }

// Hardmax: 1 at the first maximum of each slice, 0 elsewhere; the slice is one axis (opset >= 13) or, before 13,
// every dim from `axis` on (the 2-D coercion of Softmax).
std::vector<HostTensor> opHardmax(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    requireFloating(c, x, "input");
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    const bool legacy = c.opset < 13;
    const int64_t axis = normalizeAxis(c, attrInt(c.node, "axis", legacy ? 1 : -1), rank);
    const Split3 s = split(x.shape, axis, legacy ? rank : axis + 1);
    HostTensor y = makeLike(x.dtype, x.shape);
    for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t in = 0; in < s.inner; ++in) {
            auto at = [&](int64_t m) { return (o * s.middle + m) * s.inner + in; };
            int64_t best = 0;
            for (int64_t m = 1; m < s.middle; ++m)
                if (x.f[at(m)] > x.f[at(best)])
                    best = m;
            if (s.middle > 0)
                y.f[at(best)] = 1.0f;
        }
    return {y};
}

// MeanVarianceNormalization: (x - mean) / (sqrt(variance) + 1e-9) over `axes` (default 0, 2, 3), ONNX's function body.
std::vector<HostTensor> opMeanVarianceNormalization(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    requireFloating(c, x, "input");
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    std::vector<bool> reduced(static_cast<size_t>(rank), false);
    for (int64_t a : attrInts(c.node, "axes", {0, 2, 3}))
        reduced[normalizeAxis(c, a, rank)] = true;
    Shape kept = x.shape;
    int64_t count = 1;
    for (int64_t d = 0; d < rank; ++d)
        if (reduced[d]) {
            count *= x.shape[d];
            kept[d] = 1;
        }
    std::vector<int64_t> str = stridesOf(kept);
    for (int64_t d = 0; d < rank; ++d)
        if (reduced[d])
            str[d] = 0;
    std::vector<double> mean(static_cast<size_t>(elementCount(kept)), 0.0), var(mean.size(), 0.0);
    forEachIndex(x.shape, {str}, [&](int64_t k, const std::vector<int64_t>& off) { mean[off[0]] += x.f[k]; });
    for (double& m : mean)
        m /= static_cast<double>(std::max<int64_t>(count, 1));
    forEachIndex(x.shape, {str}, [&](int64_t k, const std::vector<int64_t>& off) { var[off[0]] += (x.f[k] - mean[off[0]]) * (x.f[k] - mean[off[0]]); });
    HostTensor y = makeLike(x.dtype, x.shape);
    forEachIndex(x.shape, {str}, [&](int64_t k, const std::vector<int64_t>& off) {
        y.f[k] = static_cast<float>((x.f[k] - mean[off[0]]) / (std::sqrt(var[off[0]] / static_cast<double>(std::max<int64_t>(count, 1))) + 1e-9));
    });
    return {y};
}

// TopK (opset >= 10: k an input; before, an attribute): the k largest (smallest) along the axis, in order, equal
// values by lower index first.
std::vector<HostTensor> opTopK(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    const int64_t axis = normalizeAxis(c, attrInt(c.node, "axis", -1), rank);
    int64_t k = attrInt(c.node, "k", -1);
    if (c.opset >= 10) {
        const std::vector<int64_t> kv = intValues(c, c.input(1), "K");
        if (kv.size() != 1)
            c.fail("K must have one element");
        k = kv[0];
    }
    const bool largest = attrInt(c.node, "largest", 1) != 0;
    const Split3 s = split(x.shape, axis, axis + 1);
    if (k < 0 || k > s.middle)
        c.fail("K = " + std::to_string(k) + " is outside [0, " + std::to_string(s.middle) + "]");
    Shape shape = x.shape;
    shape[axis] = k;
    HostTensor values = makeLike(x.dtype, shape), indices = makeLike(DType::Int64, shape);
    std::vector<int64_t> order(static_cast<size_t>(s.middle));
    for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t in = 0; in < s.inner; ++in) {
            auto at = [&](int64_t m) { return (o * s.middle + m) * s.inner + in; };
            for (int64_t m = 0; m < s.middle; ++m)
                order[m] = m;
            std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
                return largest ? valueAt(x, at(a)) > valueAt(x, at(b)) : valueAt(x, at(a)) < valueAt(x, at(b));
            });
            for (int64_t j = 0; j < k; ++j) {
                const int64_t dst = (o * k + j) * s.inner + in;
                copyElement(values, dst, x, at(order[j]));
                indices.i[dst] = order[j];
            }
        }
    return {values, indices};
}

// CumSum along the axis given as a scalar input; exclusive leaves out the element itself, reverse sums from the end.
std::vector<HostTensor> opCumSum(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    const std::vector<int64_t> a = intValues(c, c.input(1), "axis");
    if (a.size() != 1)
        c.fail("axis must be a scalar");
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    const int64_t axis = normalizeAxis(c, a[0], rank);
    const bool exclusive = attrInt(c.node, "exclusive", 0) != 0, reverse = attrInt(c.node, "reverse", 0) != 0;
    const Split3 s = split(x.shape, axis, axis + 1);
    HostTensor y = makeLike(x.dtype, x.shape);
    for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t in = 0; in < s.inner; ++in) {
            double acc = 0;
            for (int64_t step = 0; step < s.middle; ++step) {
                const int64_t m = reverse ? s.middle - 1 - step : step;
                const int64_t at = (o * s.middle + m) * s.inner + in;
                const double v = valueAt(x, at);
                if (!exclusive)
                    acc += v;
                if (y.isFloating())
                    y.f[at] = static_cast<float>(acc);
                else
                    y.i[at] = toInt64(acc);
                if (exclusive)
                    acc += v;
            }
        }
    return {y};
}

}  // namespace

const OpTable& mathOps()
{
    static const OpTable ops = {
        {"MatMul", opMatMul}, {"Gemm", opGemm}, {"Softmax", opSoftmax}, {"LogSoftmax", opLogSoftmax},
        {"LayerNormalization", opLayerNorm}, {"BatchNormalization", opBatchNorm}, {"ReduceSum", opReduceSum},
        {"ReduceMean", opReduceMean}, {"ReduceMax", opReduceMax}, {"ReduceMin", opReduceMin}, {"ReduceProd", opReduceProd},
        {"ReduceL1", opReduceL1}, {"ReduceL2", opReduceL2}, {"ReduceSumSquare", opReduceSumSquare},
        {"ReduceLogSum", opReduceLogSum}, {"ReduceLogSumExp", opReduceLogSumExp}, {"ArgMax", opArgMax}, {"ArgMin", opArgMin},
        {"CumSum", opCumSum}, {"InstanceNormalization", opInstanceNorm}, {"Einsum", opEinsum}, {"Hardmax", opHardmax}, {"TopK", opTopK},
        {"MeanVarianceNormalization", opMeanVarianceNormalization},
    };
    return ops;
}

}  // namespace spyglass::model::interp
