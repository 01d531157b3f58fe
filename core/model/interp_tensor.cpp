// Data-movement and shape ops of the reference interpreter: Reshape, Flatten, Squeeze, Unsqueeze,
// Transpose, Concat, Slice, Gather, Expand, and the shape-arithmetic ops the loader folds
// (Constant, Shape, Size, ConstantOfShape, Range).
#include "core/model/interp_ops.h"
#include "core/model/onnx_tensor.h"
#include "core/model/resize_weights.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace spyglass::model::interp {

namespace {

HostTensor withShape(const HostTensor& x, const Shape& shape)
{
    HostTensor y = x;
    y.shape = shape;
    return y;
}

std::vector<HostTensor> opReshape(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    const std::vector<int64_t> req = intValues(c, c.input(1), "shape");
    const bool allowZero = attrInt(c.node, "allowzero", 0) != 0;
    Shape shape;
    int inferred = -1;
    int64_t known = 1;
    for (size_t d = 0; d < req.size(); ++d) {
        int64_t v = req[d];
        if (v == 0 && !allowZero) {
            if (d >= x.shape.size())
                c.fail("shape entry 0 at position " + std::to_string(d) + " has no input dimension to copy");
            v = x.shape[d];
        }
        if (v == -1) {
            if (inferred >= 0)
                c.fail("more than one -1 in the requested shape");
            inferred = static_cast<int>(d);
            shape.push_back(1);
            continue;
        }
        if (v < 0)
            c.fail("invalid dimension " + std::to_string(v) + " in the requested shape");
        shape.push_back(v);
    }
    checkDataShape(c, shape, "requested shape");
    known = elementCount(shape);   // the -1 slot counts as 1 here
    if (inferred >= 0) {
        if (known == 0 || x.size() % known != 0)
            c.fail("cannot reshape " + shapeString(x.shape) + " to " + shapeString(req));
        shape[inferred] = x.size() / known;
    }
    if (elementCount(shape) != x.size())
        c.fail("cannot reshape " + shapeString(x.shape) + " (" + std::to_string(x.size()) + " elements) to " + shapeString(shape));
    return {withShape(x, shape)};
}

std::vector<HostTensor> opFlatten(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    int64_t axis = attrInt(c.node, "axis", 1);
    if (axis < 0)
        axis += rank;
    if (axis < 0 || axis > rank)
        c.fail("axis " + std::to_string(attrInt(c.node, "axis", 1)) + " is out of range for rank " + std::to_string(rank));
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d)
        outer *= x.shape[d];
    return {withShape(x, {outer, outer ? x.size() / outer : 0})};
}

std::vector<int64_t> axesFromAttrOrInput(const OpContext& c, size_t inputIndex)
{
    if (c.opset < 13 || hasAttribute(c.node, "axes"))
        return attrInts(c.node, "axes");
    if (const HostTensor* a = c.optionalInput(inputIndex))
        return intValues(c, *a, "axes");
    return {};
}

std::vector<HostTensor> opSqueeze(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    std::vector<int64_t> axes = axesFromAttrOrInput(c, 1);
    std::vector<bool> drop(x.shape.size(), false);
    if (axes.empty()) {
        for (int64_t d = 0; d < rank; ++d)
            drop[d] = x.shape[d] == 1;
    } else {
        for (int64_t a : axes) {
            const int64_t d = normalizeAxis(c, a, rank);
            if (x.shape[d] != 1)
                c.fail("cannot squeeze axis " + std::to_string(a) + " of size " + std::to_string(x.shape[d]));
            drop[d] = true;
        }
    }
    Shape shape;
    for (int64_t d = 0; d < rank; ++d)
        if (!drop[d])
            shape.push_back(x.shape[d]);
    return {withShape(x, shape)};
}

std::vector<HostTensor> opUnsqueeze(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    std::vector<int64_t> axes = axesFromAttrOrInput(c, 1);
    const int64_t outRank = static_cast<int64_t>(x.shape.size() + axes.size());
    std::vector<bool> inserted(outRank, false);
    for (int64_t a : axes) {
        const int64_t d = normalizeAxis(c, a, outRank);
        if (inserted[d])
            c.fail("axis " + std::to_string(a) + " given twice");
        inserted[d] = true;
    }
    Shape shape;
    size_t src = 0;
    for (int64_t d = 0; d < outRank; ++d)
        shape.push_back(inserted[d] ? 1 : x.shape[src++]);
    return {withShape(x, shape)};
}

std::vector<HostTensor> opTranspose(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    const size_t rank = x.shape.size();
    std::vector<int64_t> perm = attrInts(c.node, "perm");
    if (perm.empty())
        for (size_t d = 0; d < rank; ++d)
            perm.push_back(static_cast<int64_t>(rank - 1 - d));
    if (perm.size() != rank)
        c.fail("perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(rank));
    std::vector<bool> seen(rank, false);
    for (int64_t& p : perm) {
        p = normalizeAxis(c, p, static_cast<int64_t>(rank), "perm entry");
        if (seen[p])
            c.fail("perm is not a permutation");
        seen[p] = true;
    }
    Shape shape;
    const auto inStrides = stridesOf(x.shape);
    std::vector<int64_t> strides;   // input stride along each output dimension
    for (int64_t p : perm) {
        shape.push_back(x.shape[p]);
        strides.push_back(inStrides[p]);
    }
    HostTensor y = makeLike(x.dtype, shape);
    forEachIndex(shape, {strides}, [&](int64_t k, const std::vector<int64_t>& off) { copyElement(y, k, x, off[0]); });
    return {y};
}

std::vector<HostTensor> opConcat(const OpContext& c)
{
    if (c.inputCount() == 0)
        c.fail("needs at least one input");
    const HostTensor& first = c.input(0);
    const int64_t rank = static_cast<int64_t>(first.shape.size());
    const int64_t axis = normalizeAxis(c, attrInt(c.node, "axis", 0), rank);
    Shape shape = first.shape;
    shape[axis] = 0;
    for (size_t k = 0; k < c.inputCount(); ++k) {
        const HostTensor& t = c.input(k);
        if (static_cast<int64_t>(t.shape.size()) != rank || t.dtype != first.dtype)
            c.fail("input " + std::to_string(k) + " has a different rank or type");
        for (int64_t d = 0; d < rank; ++d)
            if (d != axis && t.shape[d] != first.shape[d])
                c.fail("input " + std::to_string(k) + " shape " + shapeString(t.shape) + " does not match " + shapeString(first.shape) + " outside the axis");
        shape[axis] += t.shape[axis];
    }
    HostTensor y = makeLike(first.dtype, shape);
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d)
        outer *= shape[d];
    const int64_t inner = elementCount(Shape(shape.begin() + axis + 1, shape.end()));
    int64_t dst = 0;
    for (int64_t o = 0; o < outer; ++o)
        for (size_t k = 0; k < c.inputCount(); ++k) {
            const HostTensor& t = c.input(k);
            const int64_t block = t.shape[axis] * inner;
            for (int64_t e = 0; e < block; ++e)
                copyElement(y, dst++, t, o * block + e);
        }
    return {y};
}

std::vector<HostTensor> opSlice(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    std::vector<int64_t> starts, ends, axes, steps;
    if (c.opset < 10) {
        starts = attrInts(c.node, "starts");
        ends = attrInts(c.node, "ends");
        axes = attrInts(c.node, "axes");
    } else {
        starts = intValues(c, c.input(1), "starts");
        ends = intValues(c, c.input(2), "ends");
        if (const HostTensor* a = c.optionalInput(3))
            axes = intValues(c, *a, "axes");
        if (const HostTensor* s = c.optionalInput(4))
            steps = intValues(c, *s, "steps");
    }
    if (axes.empty())
        for (size_t k = 0; k < starts.size(); ++k)
            axes.push_back(static_cast<int64_t>(k));
    if (steps.empty())
        steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
        c.fail("starts, ends, axes and steps have different lengths");
    std::vector<int64_t> begin(rank, 0), step(rank, 1);
    Shape shape = x.shape;
    std::vector<bool> seen(rank, false);
    for (size_t k = 0; k < starts.size(); ++k) {
        const int64_t d = normalizeAxis(c, axes[k], rank);
        if (seen[d])
            c.fail("axis " + std::to_string(axes[k]) + " repeated");
        seen[d] = true;
        const int64_t dim = x.shape[d];
        const int64_t st = steps[k];
        if (st == 0)
            c.fail("step 0");
        // Clamp as the ONNX spec says: negative values count from the end; positive steps clamp to
        // [0, dim], negative steps start to [0, dim-1] and end to [-1, dim-1].
        int64_t s = starts[k], e = ends[k];
        if (dim == 0) {
            step[d] = st;
            shape[d] = 0;
            continue;
        }
        if (s < 0) s += dim;
        if (e < 0) e += dim;   // INT64_MIN + dim cannot overflow
        if (st > 0) {
            s = std::clamp<int64_t>(s, 0, dim);
            e = std::clamp<int64_t>(e, 0, dim);
        } else {
            s = std::clamp<int64_t>(s, 0, dim - 1);
            e = std::clamp<int64_t>(e, -1, dim - 1);
        }
        // Written so that no intermediate overflows, whatever the step.
        const int64_t absStep = st > 0 ? st : (st == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : -st);
        const int64_t count = st > 0 ? (e > s ? 1 + (e - s - 1) / absStep : 0) : (s > e ? 1 + (s - e - 1) / absStep : 0);
        begin[d] = s;
        step[d] = st;
        shape[d] = count;
    }
    const auto inStrides = stridesOf(x.shape);
    std::vector<int64_t> strides(rank);
    int64_t base = 0;
    for (int64_t d = 0; d < rank; ++d) {
        strides[d] = shape[d] > 1 ? inStrides[d] * step[d] : 0;   // a step only matters with 2+ elements (then it is < dim)
        if (shape[d] > 0)
            base += begin[d] * inStrides[d];
    }
    HostTensor y = makeLike(x.dtype, shape);
    forEachIndex(shape, {strides}, [&](int64_t k, const std::vector<int64_t>& off) { copyElement(y, k, x, base + off[0]); });
    return {y};
}

std::vector<HostTensor> opGather(const OpContext& c)
{
    const HostTensor& data = c.input(0);
    const HostTensor& indices = c.input(1);
    const int64_t rank = static_cast<int64_t>(data.shape.size());
    if (rank == 0)
        c.fail("data must have rank >= 1");
    const int64_t axis = normalizeAxis(c, attrInt(c.node, "axis", 0), rank);
    const std::vector<int64_t> idx = intValues(c, indices, "indices");
    Shape shape(data.shape.begin(), data.shape.begin() + axis);
    shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
    shape.insert(shape.end(), data.shape.begin() + axis + 1, data.shape.end());
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d)
        outer *= data.shape[d];
    const int64_t dim = data.shape[axis];
    const int64_t inner = elementCount(Shape(data.shape.begin() + axis + 1, data.shape.end()));
    HostTensor y = makeLike(data.dtype, shape);
    int64_t dst = 0;
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t j : idx) {
            const int64_t row = j < 0 ? j + dim : j;
            if (row < 0 || row >= dim)
                c.fail("index " + std::to_string(j) + " is out of range for axis of size " + std::to_string(dim));
            for (int64_t e = 0; e < inner; ++e)
                copyElement(y, dst++, data, (o * dim + row) * inner + e);
        }
    return {y};
}

std::vector<HostTensor> opExpand(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    const Shape requested = intValues(c, c.input(1), "shape");
    checkDataShape(c, requested, "shape");
    const Shape shape = broadcastShapes(c, {x.shape, requested});
    HostTensor y = makeLike(x.dtype, shape);
    forEachIndex(shape, {broadcastStrides(x.shape, shape)}, [&](int64_t k, const std::vector<int64_t>& off) { copyElement(y, k, x, off[0]); });
    return {y};
}

// Split: sizes from the `split` attribute (opset < 13), the optional `split` input (opset >= 13), or equal parts
// (opset 18's num_outputs, else one per output; the last part may be smaller).
std::vector<HostTensor> opSplit(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    const int64_t axis = normalizeAxis(c, attrInt(c.node, "axis", 0), rank);
    const int64_t dim = x.shape[axis];
    const int64_t parts = static_cast<int64_t>(c.outputCount());
    std::vector<int64_t> sizes;
    if (hasAttribute(c.node, "split"))
        sizes = attrInts(c.node, "split");
    else if (const HostTensor* sp = c.optionalInput(1))
        sizes = intValues(c, *sp, "split");
    if (sizes.empty()) {
        if (parts < 1)
            c.fail("has no outputs");
        const int64_t each = (dim + parts - 1) / parts;
        for (int64_t k = 0; k < parts; ++k)
            sizes.push_back(std::max<int64_t>(0, std::min(each, dim - k * each)));
    }
    if (static_cast<int64_t>(sizes.size()) != parts)
        c.fail("split has " + std::to_string(sizes.size()) + " sizes for " + std::to_string(parts) + " outputs");
    int64_t total = 0;
    for (int64_t v : sizes) {
        if (v < 0)
            c.fail("split has a negative size");
        total += v;
    }
    if (total != dim)
        c.fail("split sizes add up to " + std::to_string(total) + ", the axis has " + std::to_string(dim));
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d)
        outer *= x.shape[d];
    const int64_t inner = elementCount(Shape(x.shape.begin() + axis + 1, x.shape.end()));
    std::vector<HostTensor> out;
    int64_t start = 0;
    for (int64_t size : sizes) {
        Shape shape = x.shape;
        shape[axis] = size;
        HostTensor y = makeLike(x.dtype, shape);
        int64_t dst = 0;
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t e = 0; e < size * inner; ++e)
                copyElement(y, dst++, x, (o * dim + start) * inner + e);
        out.push_back(std::move(y));
        start += size;
    }
    return out;
}

std::vector<HostTensor> opTile(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    const std::vector<int64_t> repeats = intValues(c, c.input(1), "repeats");
    if (repeats.size() != x.shape.size())
        c.fail("repeats has " + std::to_string(repeats.size()) + " entries for rank " + std::to_string(x.shape.size()));
    Shape shape = x.shape;
    for (size_t d = 0; d < shape.size(); ++d) {
        if (repeats[d] < 0)
            c.fail("repeats must not be negative");
        shape[d] *= repeats[d];
    }
    checkDataShape(c, shape, "output");
    HostTensor y = makeLike(x.dtype, shape);
    const auto inStrides = stridesOf(x.shape);
    const int64_t n = y.size();
    std::vector<int64_t> idx(shape.size(), 0);
    for (int64_t k = 0; k < n; ++k) {
        int64_t src = 0;
        for (size_t d = 0; d < shape.size(); ++d)
            src += (idx[d] % x.shape[d]) * inStrides[d];
        copyElement(y, k, x, src);
        nextIndex(idx, shape);
    }
    return {y};
}

// Pad: pads from the attribute (opset < 11) or the input (begin..., end...; negative crops), modes constant
// (value from the attribute or the optional input), reflect (mirror without the edge) and edge (repeat the edge).
std::vector<HostTensor> opPad(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    const std::vector<int64_t> pads = c.opset < 11 ? attrInts(c.node, "pads") : intValues(c, c.input(1), "pads");
    if (static_cast<int64_t>(pads.size()) != 2 * rank)
        c.fail("pads has " + std::to_string(pads.size()) + " entries for rank " + std::to_string(rank));
    double value = c.opset < 11 ? attrFloat(c.node, "value", 0.0f) : 0.0;
    if (c.opset >= 11)
        if (const HostTensor* v = c.optionalInput(2)) {
            if (v->size() != 1)
                c.fail("constant_value must be a scalar");
            value = valueAt(*v, 0);
        }
    const std::string mode = attrString(c.node, "mode", "constant");
    if (mode != "constant" && mode != "reflect" && mode != "edge")
        c.fail("mode '" + mode + "' is not supported");
    Shape shape = x.shape;
    for (int64_t d = 0; d < rank; ++d) {
        shape[d] += pads[d] + pads[d + rank];
        if (shape[d] < 0)
            c.fail("pads crop more than the input has");
        if (mode != "constant" && x.shape[d] == 0 && shape[d] > 0)
            c.fail(mode + " padding of an empty dimension");
        if (mode == "reflect" && (pads[d] >= x.shape[d] || pads[d + rank] >= x.shape[d]) && (pads[d] > 0 || pads[d + rank] > 0))
            c.fail("reflect pads must be smaller than the dimension");
    }
    checkDataShape(c, shape, "output");
    HostTensor y = makeLike(x.dtype, shape);
    const auto inStrides = stridesOf(x.shape);
    std::vector<int64_t> idx(shape.size(), 0);
    for (int64_t k = 0; k < y.size(); ++k) {
        int64_t src = 0;
        bool inside = true;
        for (int64_t d = 0; d < rank; ++d) {
            int64_t i = idx[d] - pads[d];
            const int64_t n = x.shape[d];
            if (i < 0 || i >= n) {
                if (mode == "constant")
                    inside = false;
                else if (mode == "edge")
                    i = i < 0 ? 0 : n - 1;
                else
                    i = i < 0 ? -i : 2 * (n - 1) - i;
            }
            src += i * inStrides[d];
        }
        if (inside)
            copyElement(y, k, x, src);
        else if (y.isFloating())
            y.f[k] = static_cast<float>(value);
        else
            y.i[k] = toInt64(value);
        nextIndex(idx, shape);
    }
    return {y};
}

// Resize (opset >= 10) and Upsample: output sizes from `sizes` or floor(in * scale); then each resized axis in
// turn, by resize_weights.h (nearest and linear are separable). Opset < 11 samples asymmetrically, nearest by floor.
std::vector<HostTensor> opResize(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    const bool legacy = c.opset < 11;
    std::vector<double> scales;
    Shape sizes;
    if (legacy && c.node.opType == "Upsample" && hasAttribute(c.node, "scales")) {
        for (float v : attrFloats(c.node, "scales"))
            scales.push_back(v);
    } else if (const HostTensor* t = c.optionalInput(legacy ? 1 : 2); t && t->size() > 0) {
        for (int64_t k = 0; k < t->size(); ++k)
            scales.push_back(valueAt(*t, k));
    }
    if (!legacy)
        if (const HostTensor* t = c.optionalInput(3); t && t->size() > 0)
            sizes = intValues(c, *t, "sizes");
    if (scales.empty() && sizes.empty())
        c.fail("needs scales or sizes");
    if ((!scales.empty() && static_cast<int64_t>(scales.size()) != rank) || (!sizes.empty() && static_cast<int64_t>(sizes.size()) != rank))
        c.fail("scales or sizes do not have one entry per dimension of rank " + std::to_string(rank));
    const ResizeAxis base = resizeSampling(c.opset, attrString(c.node, "mode", ""), attrString(c.node, "coordinate_transformation_mode", ""),
                                           attrString(c.node, "nearest_mode", ""));
    Shape outShape = x.shape;
    for (int64_t d = 0; d < rank; ++d) {
        if (!sizes.empty()) {
            outShape[d] = sizes[d];
        } else {
            if (!(scales[d] > 0) || !std::isfinite(scales[d]))
                c.fail("scales must be positive");
            outShape[d] = static_cast<int64_t>(std::floor(static_cast<double>(x.shape[d]) * scales[d]));
        }
    }
    checkDataShape(c, outShape, "output");
    HostTensor cur = x;
    for (int64_t d = 0; d < rank; ++d) {
        ResizeAxis a = base;
        a.inSize = x.shape[d];
        a.outSize = outShape[d];
        a.scale = scales.empty() ? static_cast<double>(a.outSize) / static_cast<double>(std::max<int64_t>(1, a.inSize)) : scales[d];
        if (a.inSize == a.outSize && a.scale == 1.0)
            continue;
        const std::vector<double> w = resizeWeights(a);
        if (w.empty() && a.inSize * a.outSize > 0)
            c.fail("mode '" + a.mode + "' with coordinate_transformation_mode '" + a.coordinateMode + "' and nearest_mode '" +
                   a.nearestMode + "' is not supported");
        // At most two inputs feed each output position: keep only those (a dense row would make big images slow).
        std::vector<std::vector<std::pair<int64_t, double>>> taps(static_cast<size_t>(a.outSize));
        for (int64_t j = 0; j < a.outSize; ++j)
            for (int64_t i = 0; i < a.inSize; ++i)
                if (const double wt = w[j * a.inSize + i])
                    taps[j].emplace_back(i, wt);
        Shape next = cur.shape;
        next[d] = a.outSize;
        HostTensor y = makeLike(cur.dtype, next);
        int64_t outer = 1, inner = 1;
        for (int64_t k = 0; k < d; ++k)
            outer *= cur.shape[k];
        for (int64_t k = d + 1; k < rank; ++k)
            inner *= cur.shape[k];
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t j = 0; j < a.outSize; ++j)
                for (int64_t e = 0; e < inner; ++e) {
                    double acc = 0;
                    for (const auto& [i, wt] : taps[j])
                        acc += wt * valueAt(cur, (o * a.inSize + i) * inner + e);
                    const int64_t at = (o * a.outSize + j) * inner + e;
                    if (y.isFloating())
                        y.f[at] = static_cast<float>(acc);
                    else
                        y.i[at] = toInt64(std::nearbyint(acc));
                }
        cur = std::move(y);
    }
    return {cur};
}

// OneHot: output[..., depth at `axis`, ...] = values[1] where the (negative: + depth) index hits, else values[0].
std::vector<HostTensor> opOneHot(const OpContext& c)
{
    const HostTensor& indices = c.input(0);
    const HostTensor& depthT = c.input(1);
    const HostTensor& values = c.input(2);
    if (depthT.size() != 1 || values.size() != 2)
        c.fail("depth must be a scalar and values [off, on]");
    const int64_t depth = toInt64(valueAt(depthT, 0));
    if (depth < 1)
        c.fail("depth must be at least 1");
    const int64_t rank = static_cast<int64_t>(indices.shape.size()) + 1;
    const int64_t axis = normalizeAxis(c, attrInt(c.node, "axis", -1), rank);
    Shape shape = indices.shape;
    shape.insert(shape.begin() + axis, depth);
    checkDataShape(c, shape, "output");
    HostTensor y = makeLike(values.dtype, shape);
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < rank; ++d)
        inner *= shape[d];
    for (int64_t k = 0; k < y.size(); ++k) {
        const int64_t o = k / (depth * inner), j = (k / inner) % depth, in = k % inner;
        double idx = valueAt(indices, o * inner + in);
        if (idx < 0)
            idx += static_cast<double>(depth);
        copyElement(y, k, values, static_cast<double>(j) == std::trunc(idx) ? 1 : 0);
    }
    return {y};
}

// EyeLike: ones on the diagonal shifted by k, of the input's 2-D shape, in `dtype` (default: the input's type).
std::vector<HostTensor> opEyeLike(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    if (x.shape.size() != 2)
        c.fail("input must be 2-D");
    DType dtype = x.dtype;
    if (hasAttribute(c.node, "dtype")) {
        const auto d = dtypeFromOnnx(static_cast<int32_t>(attrInt(c.node, "dtype", 0)));
        if (!d)
            c.fail("unsupported dtype");
        dtype = *d;
    }
    const int64_t k = attrInt(c.node, "k", 0);
    HostTensor y = makeLike(dtype, x.shape);
    for (int64_t i = 0; i < x.shape[0]; ++i)
        if (i + k >= 0 && i + k < x.shape[1]) {
            if (y.isFloating())
                y.f[i * x.shape[1] + i + k] = 1;
            else
                y.i[i * x.shape[1] + i + k] = 1;
        }
    return {y};
}

// The flat offset into a tensor of `shape` of index tuple u (q components, negative ones from the end).
int64_t tupleOffset(const OpContext& c, const std::vector<int64_t>& idx, int64_t u, int64_t q, const Shape& shape,
                    const std::vector<int64_t>& strides)
{
    int64_t base = 0;
    for (int64_t d = 0; d < q; ++d) {
        int64_t v = idx[u * q + d];
        if (v < 0)
            v += shape[d];
        if (v < 0 || v >= shape[d])
            c.fail("index " + std::to_string(idx[u * q + d]) + " is out of range for dimension " + std::to_string(d));
        base += v * strides[d];
    }
    return base;
}

// GatherND (batch_dims 0): each index tuple (the last dim of indices) picks a slice of data.
std::vector<HostTensor> opGatherND(const OpContext& c)
{
    const HostTensor& data = c.input(0);
    const HostTensor& indices = c.input(1);
    if (attrInt(c.node, "batch_dims", 0) != 0)
        c.fail("batch_dims other than 0 is not supported");
    const std::vector<int64_t> idx = intValues(c, indices, "indices");
    if (indices.shape.empty())
        c.fail("indices must have rank >= 1");
    const int64_t q = indices.shape.back(), rank = static_cast<int64_t>(data.shape.size());
    if (q < 1 || q > rank)
        c.fail("the last dimension of indices must be between 1 and the rank of data");
    Shape shape(indices.shape.begin(), indices.shape.end() - 1);
    shape.insert(shape.end(), data.shape.begin() + q, data.shape.end());
    HostTensor y = makeLike(data.dtype, shape);
    const int64_t slice = elementCount(Shape(data.shape.begin() + q, data.shape.end()));
    const auto strides = stridesOf(data.shape);
    for (int64_t u = 0; u * q < static_cast<int64_t>(idx.size()); ++u) {
        const int64_t base = tupleOffset(c, idx, u, q, data.shape, strides);
        for (int64_t e = 0; e < slice; ++e)
            copyElement(y, u * slice + e, data, base + e);
    }
    return {y};
}

// ScatterND: a copy of data with updates written (or added, multiplied) at the index tuples, in order.
std::vector<HostTensor> opScatterND(const OpContext& c)
{
    const HostTensor& data = c.input(0);
    const HostTensor& indices = c.input(1);
    const HostTensor& updates = c.input(2);
    const std::vector<int64_t> idx = intValues(c, indices, "indices");
    if (indices.shape.empty())
        c.fail("indices must have rank >= 1");
    const int64_t q = indices.shape.back(), rank = static_cast<int64_t>(data.shape.size());
    if (q < 1 || q > rank)
        c.fail("the last dimension of indices must be between 1 and the rank of data");
    const std::string reduction = attrString(c.node, "reduction", "none");
    if (reduction != "none" && reduction != "add" && reduction != "mul")
        c.fail("reduction '" + reduction + "' is not supported");
    const int64_t slice = elementCount(Shape(data.shape.begin() + q, data.shape.end()));
    const int64_t count = q ? static_cast<int64_t>(idx.size()) / q : 0;
    if (updates.size() != count * slice)
        c.fail("updates must have " + std::to_string(count * slice) + " elements");
    const auto strides = stridesOf(data.shape);
    HostTensor y = data;
    for (int64_t u = 0; u < count; ++u) {
        const int64_t base = tupleOffset(c, idx, u, q, data.shape, strides);
        for (int64_t e = 0; e < slice; ++e) {
            const double upd = valueAt(updates, u * slice + e), old = valueAt(y, base + e);
            const double v = reduction == "add" ? old + upd : reduction == "mul" ? old * upd : upd;
            if (y.isFloating())
                y.f[base + e] = static_cast<float>(v);
            else
                y.i[base + e] = toInt64(v);
        }
    }
    return {y};
}

// Trilu: keep the elements with j - i >= k (upper) or j - i <= k (lower) of the last two dims, zero the rest.
std::vector<HostTensor> opTrilu(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    if (x.shape.size() < 2)
        c.fail("input must have rank >= 2");
    int64_t k = 0;
    if (const HostTensor* kt = c.optionalInput(1)) {
        const std::vector<int64_t> v = intValues(c, *kt, "k");
        if (v.size() != 1)
            c.fail("k must be a scalar");
        k = v[0];
    }
    const bool upper = attrInt(c.node, "upper", 1) != 0;
    const int64_t rows = x.shape[x.shape.size() - 2], cols = x.shape.back();
    HostTensor y = x;
    for (int64_t e = 0; e < x.size(); ++e) {
        const int64_t j = e % cols, i = (e / cols) % rows;
        if (upper ? j - i < k : j - i > k) {
            if (y.isFloating())
                y.f[e] = 0;
            else
                y.i[e] = 0;
        }
    }
    return {y};
}

// GatherElements: the output has the indices' shape; along `axis` it reads data[..., indices[...], ...].
std::vector<HostTensor> opGatherElements(const OpContext& c)
{
    const HostTensor& data = c.input(0);
    const HostTensor& indices = c.input(1);
    const int64_t rank = static_cast<int64_t>(data.shape.size());
    const int64_t axis = normalizeAxis(c, attrInt(c.node, "axis", 0), rank);
    if (static_cast<int64_t>(indices.shape.size()) != rank)
        c.fail("indices must have the rank of data");
    const std::vector<int64_t> idx = intValues(c, indices, "indices");
    HostTensor y = makeLike(data.dtype, indices.shape);
    const auto dataStrides = stridesOf(data.shape);
    std::vector<int64_t> at(static_cast<size_t>(rank), 0);
    for (int64_t e = 0; e < y.size(); ++e) {
        int64_t src = 0;
        for (int64_t d = 0; d < rank; ++d) {
            int64_t v = at[d];
            if (d == axis) {
                v = idx[e] < 0 ? idx[e] + data.shape[d] : idx[e];
                if (v < 0 || v >= data.shape[d])
                    c.fail("index " + std::to_string(idx[e]) + " is out of range for axis of size " + std::to_string(data.shape[d]));
            } else if (v >= data.shape[d]) {
                c.fail("indices are larger than data outside the axis");
            }
            src += v * dataStrides[d];
        }
        copyElement(y, e, data, src);
        nextIndex(at, indices.shape);
    }
    return {y};
}

// DepthToSpace / SpaceToDepth on [N, C, H, W] with blocksize b: a reshape, a transpose and a reshape (DCR or CRD).
std::vector<HostTensor> opDepthSpace(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    if (x.shape.size() != 4)
        c.fail("input must be [N, C, H, W]");
    const int64_t b = attrInt(c.node, "blocksize", 0);
    const int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
    const bool toSpace = c.node.opType == "DepthToSpace";
    if (b < 1 || (toSpace ? C % (b * b) : H % b + W % b) != 0)
        c.fail("blocksize " + std::to_string(b) + " does not divide the input " + shapeString(x.shape));
    const bool crd = attrString(c.node, "mode", "DCR") == "CRD";
    Shape shape = toSpace ? Shape{N, C / (b * b), H * b, W * b} : Shape{N, C * b * b, H / b, W / b};
    HostTensor y = makeLike(x.dtype, shape);
    for (int64_t n = 0; n < N; ++n)
        for (int64_t oc = 0; oc < shape[1]; ++oc)
            for (int64_t oh = 0; oh < shape[2]; ++oh)
                for (int64_t ow = 0; ow < shape[3]; ++ow) {
                    int64_t ic, ih, iw;
                    if (toSpace) {
                        const int64_t bh = oh % b, bw = ow % b, cc = C / (b * b);
                        ic = crd ? (oc * b + bh) * b + bw : (bh * b + bw) * cc + oc;
                        ih = oh / b;
                        iw = ow / b;
                    } else {
                        const int64_t blk = oc / C, ch = oc % C;
                        ic = ch;
                        ih = oh * b + blk / b;
                        iw = ow * b + blk % b;
                    }
                    copyElement(y, ((n * shape[1] + oc) * shape[2] + oh) * shape[3] + ow, x, ((n * C + ic) * H + ih) * W + iw);
                }
    return {y};
}

std::vector<HostTensor> opConstant(const OpContext& c)
{
    if (const HostTensor* t = attrTensor(c.node, "value"))
        return {*t};
    HostTensor y;
    if (hasAttribute(c.node, "value_float")) {
        y = makeLike(DType::Float32, {});
        y.f[0] = attrFloat(c.node, "value_float", 0);
    } else if (hasAttribute(c.node, "value_floats")) {
        const auto v = attrFloats(c.node, "value_floats");
        y = makeLike(DType::Float32, {static_cast<int64_t>(v.size())});
        y.f = v;
    } else if (hasAttribute(c.node, "value_int")) {
        y = makeLike(DType::Int64, {});
        y.i[0] = attrInt(c.node, "value_int", 0);
    } else if (hasAttribute(c.node, "value_ints")) {
        const auto v = attrInts(c.node, "value_ints");
        y = makeLike(DType::Int64, {static_cast<int64_t>(v.size())});
        y.i = v;
    } else {
        c.fail("has no value attribute");
    }
    return {y};
}

std::vector<HostTensor> opShape(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    int64_t start = attrInt(c.node, "start", 0), end = attrInt(c.node, "end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, 0, rank);
    HostTensor y = makeLike(DType::Int64, {std::max<int64_t>(0, end - start)});
    for (int64_t d = start; d < end; ++d)
        y.i[d - start] = x.shape[d];
    return {y};
}

std::vector<HostTensor> opSize(const OpContext& c)
{
    HostTensor y = makeLike(DType::Int64, {});
    y.i[0] = c.input(0).size();
    return {y};
}

std::vector<HostTensor> opConstantOfShape(const OpContext& c)
{
    const Shape shape = intValues(c, c.input(0), "shape");
    checkDataShape(c, shape, "shape");
    const HostTensor* value = attrTensor(c.node, "value");
    if (value && value->size() != 1)
        c.fail("value must have exactly one element");
    HostTensor y = makeLike(value ? value->dtype : DType::Float32, shape);
    if (value)
        for (int64_t k = 0; k < y.size(); ++k)
            copyElement(y, k, *value, 0);
    return {y};
}

std::vector<HostTensor> opRange(const OpContext& c)
{
    const HostTensor& start = c.input(0);
    const HostTensor& limit = c.input(1);
    const HostTensor& delta = c.input(2);
    if (start.size() != 1 || limit.size() != 1 || delta.size() != 1)
        c.fail("start, limit and delta must be scalars");
    const double s = valueAt(start, 0), l = valueAt(limit, 0), d = valueAt(delta, 0);
    if (d == 0)
        c.fail("delta is 0");
    const int64_t n = std::max<int64_t>(0, toInt64(std::ceil((l - s) / d)));
    checkDataShape(c, {n}, "output");
    HostTensor y = makeLike(start.dtype, {n});
    for (int64_t k = 0; k < n; ++k) {
        if (y.isFloating())
            y.f[k] = static_cast<float>(s + static_cast<double>(k) * d);
        else
            y.i[k] = wrapAdd(start.i[0], wrapMul(k, delta.i[0]));
    }
    return {y};
}

}  // namespace

const OpTable& tensorOps()
{
    static const OpTable ops = {
        {"Reshape", opReshape}, {"Flatten", opFlatten}, {"Squeeze", opSqueeze}, {"Unsqueeze", opUnsqueeze},
        {"Transpose", opTranspose}, {"Concat", opConcat}, {"Slice", opSlice}, {"Gather", opGather},
        {"Expand", opExpand}, {"Constant", opConstant}, {"Shape", opShape}, {"Size", opSize},
        {"ConstantOfShape", opConstantOfShape}, {"Range", opRange}, {"Split", opSplit}, {"Tile", opTile}, {"Pad", opPad},
        {"Resize", opResize}, {"Upsample", opResize}, {"Trilu", opTrilu}, {"GatherElements", opGatherElements}, {"OneHot", opOneHot}, {"EyeLike", opEyeLike}, {"ScatterND", opScatterND}, {"GatherND", opGatherND},
        {"DepthToSpace", opDepthSpace}, {"SpaceToDepth", opDepthSpace},
    };
    return ops;
}

}  // namespace spyglass::model::interp
