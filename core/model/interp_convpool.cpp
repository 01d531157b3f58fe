// Convolution and pooling of the reference interpreter, for any number of spatial dimensions,
// written as direct loops over output positions and kernel taps (no im2col: that is the compiler's job).
#include "core/model/conv_transpose.h"
#include "core/model/interp_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace spyglass::model::interp {

namespace {

struct Window {
    std::vector<int64_t> kernel, strides, dilations, padBegin, padEnd;
    Shape inSpatial, outSpatial;
};

// Resolves kernel, strides, dilations, pads (explicit or auto_pad) and the output spatial shape.
Window window(const OpContext& c, const Shape& inSpatial, const std::vector<int64_t>& kernel, bool ceilMode)
{
    const size_t n = inSpatial.size();
    Window w;
    w.inSpatial = inSpatial;
    w.kernel = kernel;
    if (w.kernel.size() != n)
        c.fail("kernel has " + std::to_string(w.kernel.size()) + " dimensions but the input has " + std::to_string(n) + " spatial dimensions");
    w.strides = attrInts(c.node, "strides", std::vector<int64_t>(n, 1));
    w.dilations = attrInts(c.node, "dilations", std::vector<int64_t>(n, 1));
    std::vector<int64_t> pads = attrInts(c.node, "pads", std::vector<int64_t>(2 * n, 0));
    if (w.strides.size() != n || w.dilations.size() != n || pads.size() != 2 * n)
        c.fail("strides, dilations or pads do not match the number of spatial dimensions");
    // Bounds keep every size computation below far from overflow; real models are many orders smaller.
    constexpr int64_t kLimit = int64_t{1} << 24;
    for (size_t d = 0; d < n; ++d) {
        if (w.strides[d] < 1 || w.dilations[d] < 1 || w.kernel[d] < 1)
            c.fail("kernel, strides and dilations must be positive");
        if (w.strides[d] > kLimit || w.dilations[d] > kLimit || w.kernel[d] > kLimit || inSpatial[d] > kLimit)
            c.fail("kernel, strides, dilations or input size beyond 2^24");
    }
    for (int64_t p : pads)
        if (p < 0 || p > kLimit)
            c.fail("pads must be between 0 and 2^24");
    const std::string autoPad = attrString(c.node, "auto_pad", "NOTSET");
    w.padBegin.assign(n, 0);
    w.padEnd.assign(n, 0);
    w.outSpatial.assign(n, 0);
    for (size_t d = 0; d < n; ++d) {
        const int64_t in = inSpatial[d], dk = (w.kernel[d] - 1) * w.dilations[d] + 1, s = w.strides[d];
        if (autoPad == "VALID") {
            w.outSpatial[d] = (in - dk) / s + 1;
        } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
            w.outSpatial[d] = (in + s - 1) / s;
            const int64_t total = std::max<int64_t>(0, (w.outSpatial[d] - 1) * s + dk - in);
            w.padBegin[d] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
            w.padEnd[d] = total - w.padBegin[d];
        } else {
            w.padBegin[d] = pads[d];
            w.padEnd[d] = pads[d + n];
            const int64_t span = in + w.padBegin[d] + w.padEnd[d] - dk;
            if (span < 0)
                c.fail("kernel is larger than the padded input");
            w.outSpatial[d] = (ceilMode ? (span + s - 1) / s : span / s) + 1;
            // With ceil_mode the last window must start inside the input or its left padding.
            if (ceilMode && (w.outSpatial[d] - 1) * s >= in + w.padBegin[d])
                --w.outSpatial[d];
        }
        if (w.outSpatial[d] < 0)
            w.outSpatial[d] = 0;
    }
    return w;
}

std::vector<int64_t> unravel(int64_t flat, const Shape& shape)
{
    std::vector<int64_t> idx(shape.size());
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
        idx[d] = shape[d] ? flat % shape[d] : 0;
        flat = shape[d] ? flat / shape[d] : 0;
    }
    return idx;
}

// For each output position and kernel tap, the flat spatial input offset (-1 when the tap falls in padding).
// Also the number of taps within [-padBegin, in + padEnd) per output position (for count_include_pad).
struct TapTable {
    std::vector<int64_t> offsets;   // outPositions x taps
    std::vector<int64_t> paddedCount;
    int64_t taps = 0;
};

TapTable taps(const Window& w)
{
    TapTable t;
    const Shape kernelShape(w.kernel.begin(), w.kernel.end());
    t.taps = elementCount(kernelShape);
    const int64_t outCount = elementCount(w.outSpatial);
    const auto inStrides = stridesOf(w.inSpatial);
    t.offsets.resize(static_cast<size_t>(outCount * t.taps));
    t.paddedCount.assign(static_cast<size_t>(outCount), 0);
    for (int64_t o = 0; o < outCount; ++o) {
        const auto oi = unravel(o, w.outSpatial);
        for (int64_t k = 0; k < t.taps; ++k) {
            const auto ki = unravel(k, kernelShape);
            int64_t off = 0;
            bool inside = true, insidePadded = true;
            for (size_t d = 0; d < oi.size(); ++d) {
                const int64_t pos = oi[d] * w.strides[d] - w.padBegin[d] + ki[d] * w.dilations[d];
                if (pos < 0 || pos >= w.inSpatial[d])
                    inside = false;
                if (pos < -w.padBegin[d] || pos >= w.inSpatial[d] + w.padEnd[d])
                    insidePadded = false;
                off += pos * inStrides[d];
            }
            t.offsets[o * t.taps + k] = inside ? off : -1;
            t.paddedCount[o] += insidePadded;
        }
    }
    return t;
}

std::vector<HostTensor> opConv(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    const HostTensor& wt = c.input(1);
    const HostTensor* bias = c.optionalInput(2);
    if (!x.isFloating() || !wt.isFloating())
        c.fail("X and W must be floating point");
    if (x.shape.size() < 3 || wt.shape.size() != x.shape.size())
        c.fail("X must be (N, C, spatial...) and W (M, C/group, kernel...) of the same rank");
    const int64_t N = x.shape[0], C = x.shape[1], M = wt.shape[0];
    const int64_t group = attrInt(c.node, "group", 1);
    if (group < 1 || C % group != 0 || M % group != 0 || wt.shape[1] != C / group)
        c.fail("channels do not match: X has C = " + std::to_string(C) + ", W is " + shapeString(wt.shape) + ", group = " + std::to_string(group));
    if (bias && bias->size() != M)
        c.fail("B must have M = " + std::to_string(M) + " elements");
    const Shape inSpatial(x.shape.begin() + 2, x.shape.end());
    const std::vector<int64_t> kernel = attrInts(c.node, "kernel_shape", std::vector<int64_t>(wt.shape.begin() + 2, wt.shape.end()));
    if (kernel != std::vector<int64_t>(wt.shape.begin() + 2, wt.shape.end()))
        c.fail("kernel_shape does not match W");
    const Window w = window(c, inSpatial, kernel, false);
    const TapTable t = taps(w);
    const int64_t inSize = elementCount(inSpatial), outSize = elementCount(w.outSpatial);
    const int64_t cPerGroup = C / group, mPerGroup = M / group;
    Shape outShape{N, M};
    outShape.insert(outShape.end(), w.outSpatial.begin(), w.outSpatial.end());
    HostTensor y = makeLike(x.dtype, outShape);
    for (int64_t n = 0; n < N; ++n)
        for (int64_t m = 0; m < M; ++m) {
            const int64_t g = m / mPerGroup;
            for (int64_t o = 0; o < outSize; ++o) {
                double acc = bias ? valueAt(*bias, m) : 0.0;
                for (int64_t ci = 0; ci < cPerGroup; ++ci) {
                    const float* X = x.f.data() + (n * C + g * cPerGroup + ci) * inSize;
                    const float* W = wt.f.data() + (m * cPerGroup + ci) * t.taps;
                    for (int64_t k = 0; k < t.taps; ++k) {
                        const int64_t off = t.offsets[o * t.taps + k];
                        if (off >= 0)
                            acc += static_cast<double>(X[off]) * W[k];
                    }
                }
                y.f[(n * M + m) * outSize + o] = static_cast<float>(acc);
            }
        }
    return {y};
}

// ConvTranspose as the scatter it is: input position i with tap k adds into output i * stride + k * dilation - pad.
std::vector<HostTensor> opConvTranspose(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    const HostTensor& wt = c.input(1);
    const HostTensor* bias = c.optionalInput(2);
    if (!x.isFloating() || !wt.isFloating())
        c.fail("X and W must be floating point");
    if (x.shape.size() < 3 || wt.shape.size() != x.shape.size())
        c.fail("X must be (N, C, spatial...) and W (C, M/group, kernel...) of the same rank");
    const int64_t N = x.shape[0], C = x.shape[1], group = attrInt(c.node, "group", 1);
    if (group < 1 || C % group != 0 || wt.shape[0] != C)
        c.fail("channels do not match: X has C = " + std::to_string(C) + ", W is " + shapeString(wt.shape) + ", group = " + std::to_string(group));
    const int64_t mPerGroup = wt.shape[1], M = mPerGroup * group, cPerGroup = C / group;
    if (bias && bias->size() != M)
        c.fail("B must have M = " + std::to_string(M) + " elements");
    const Shape inSpatial(x.shape.begin() + 2, x.shape.end());
    const std::vector<int64_t> kernel(wt.shape.begin() + 2, wt.shape.end());
    if (attrInts(c.node, "kernel_shape", kernel) != kernel)
        c.fail("kernel_shape does not match W");
    const ConvTransposeGeometry t = convTransposeGeometry(inSpatial, kernel, attrInts(c.node, "strides"), attrInts(c.node, "dilations"),
                                                          attrInts(c.node, "output_padding"), attrInts(c.node, "pads"),
                                                          attrString(c.node, "auto_pad", "NOTSET"), attrInts(c.node, "output_shape"));
    if (!t.error.empty())
        c.fail(t.error);
    checkDataShape(c, t.outSpatial, "output");
    Shape outShape{N, M};
    outShape.insert(outShape.end(), t.outSpatial.begin(), t.outSpatial.end());
    HostTensor y = makeLike(x.dtype, outShape);
    const int64_t inSize = elementCount(inSpatial), outSize = elementCount(t.outSpatial), taps = elementCount(Shape(kernel.begin(), kernel.end()));
    const auto outStrides = stridesOf(t.outSpatial);
    std::vector<double> acc(static_cast<size_t>(N * M * outSize), 0.0);
    for (int64_t i = 0; i < inSize; ++i) {
        const auto ii = unravel(i, inSpatial);
        for (int64_t k = 0; k < taps; ++k) {
            const auto ki = unravel(k, Shape(kernel.begin(), kernel.end()));
            int64_t o = 0;
            bool inside = true;
            for (size_t d = 0; d < ii.size() && inside; ++d) {
                const int64_t pos = ii[d] * t.strides[d] + ki[d] * t.dilations[d] - t.padBegin[d];
                inside = pos >= 0 && pos < t.outSpatial[d];
                o += pos * outStrides[d];
            }
            if (!inside)
                continue;
            for (int64_t n = 0; n < N; ++n)
                for (int64_t ch = 0; ch < C; ++ch) {
                    const double xv = x.f[(n * C + ch) * inSize + i];
                    const int64_t g = ch / cPerGroup;
                    for (int64_t m = 0; m < mPerGroup; ++m)
                        acc[(n * M + g * mPerGroup + m) * outSize + o] += xv * wt.f[(ch * mPerGroup + m) * taps + k];
                }
        }
    }
    for (int64_t n = 0; n < N; ++n)
        for (int64_t m = 0; m < M; ++m)
            for (int64_t o = 0; o < outSize; ++o) {
                const int64_t at = (n * M + m) * outSize + o;
                y.f[at] = static_cast<float>(acc[at] + (bias ? valueAt(*bias, m) : 0.0));
            }
    return {y};
}

std::vector<HostTensor> pool(const OpContext& c, bool isMax)
{
    const HostTensor& x = c.input(0);
    if (!x.isFloating() && !isMax)
        c.fail("X must be floating point");   // MaxPool also takes int8/uint8 (only compares)
    if (x.shape.size() < 3)
        c.fail("X must be (N, C, spatial...)");
    const Shape inSpatial(x.shape.begin() + 2, x.shape.end());
    const std::vector<int64_t> kernel = attrInts(c.node, "kernel_shape");
    if (kernel.empty())
        c.fail("kernel_shape is required");
    const Window w = window(c, inSpatial, kernel, attrInt(c.node, "ceil_mode", 0) != 0);
    const TapTable t = taps(w);
    const bool includePad = attrInt(c.node, "count_include_pad", 0) != 0;
    const int64_t NC = x.shape[0] * x.shape[1], inSize = elementCount(inSpatial), outSize = elementCount(w.outSpatial);
    Shape outShape{x.shape[0], x.shape[1]};
    outShape.insert(outShape.end(), w.outSpatial.begin(), w.outSpatial.end());
    HostTensor y = makeLike(x.dtype, outShape);
    for (int64_t nc = 0; nc < NC; ++nc) {
        const int64_t base = nc * inSize;
        for (int64_t o = 0; o < outSize; ++o) {
            double acc = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
            int64_t count = 0;
            for (int64_t k = 0; k < t.taps; ++k) {
                const int64_t off = t.offsets[o * t.taps + k];
                if (off < 0)
                    continue;
                const double v = valueAt(x, base + off);
                acc = isMax ? std::max(acc, v) : acc + v;
                ++count;
            }
            if (!isMax)
                acc /= static_cast<double>(includePad ? t.paddedCount[o] : std::max<int64_t>(count, 1));
            if (y.isFloating())
                y.f[nc * outSize + o] = static_cast<float>(acc);
            else
                y.i[nc * outSize + o] = toInt64(acc);
        }
    }
    return {y};
}

std::vector<HostTensor> opMaxPool(const OpContext& c) { return pool(c, true); }
std::vector<HostTensor> opAveragePool(const OpContext& c) { return pool(c, false); }

std::vector<HostTensor> globalPool(const OpContext& c, bool isMax)
{
    const HostTensor& x = c.input(0);
    if (!x.isFloating() || x.shape.size() < 3)
        c.fail("X must be floating point (N, C, spatial...)");
    const int64_t NC = x.shape[0] * x.shape[1];
    const int64_t inSize = elementCount(Shape(x.shape.begin() + 2, x.shape.end()));
    Shape outShape = x.shape;
    std::fill(outShape.begin() + 2, outShape.end(), 1);
    HostTensor y = makeLike(x.dtype, outShape);
    for (int64_t nc = 0; nc < NC; ++nc) {
        double acc = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
        for (int64_t k = 0; k < inSize; ++k)
            acc = isMax ? std::max(acc, static_cast<double>(x.f[nc * inSize + k])) : acc + x.f[nc * inSize + k];
        y.f[nc] = static_cast<float>(isMax ? acc : acc / static_cast<double>(inSize));
    }
    return {y};
}
std::vector<HostTensor> opGlobalAveragePool(const OpContext& c) { return globalPool(c, false); }
std::vector<HostTensor> opGlobalMaxPool(const OpContext& c) { return globalPool(c, true); }

}  // namespace

const OpTable& convPoolOps()
{
    static const OpTable ops = {
        {"Conv", opConv}, {"ConvTranspose", opConvTranspose}, {"MaxPool", opMaxPool}, {"AveragePool", opAveragePool}, {"GlobalAveragePool", opGlobalAveragePool}, {"GlobalMaxPool", opGlobalMaxPool},
    };
    return ops;
}

}  // namespace spyglass::model::interp
