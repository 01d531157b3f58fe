// Elementwise ops of the reference interpreter: unary maths, binary arithmetic with numpy
// broadcasting, Where, Clip, Cast. Floating maths is done in double and stored as float.
#include "core/model/interp_ops.h"

#include "core/model/onnx_tensor.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace spyglass::model::interp {

namespace {

template <typename F>
std::vector<HostTensor> unaryFloat(const OpContext& c, F f)
{
    const HostTensor& x = c.input(0);
    if (!x.isFloating())
        c.fail(std::string("input of type ") + dtypeName(x.dtype) + " is not supported (floating types only)");
    HostTensor y = makeLike(x.dtype, x.shape);
    for (size_t k = 0; k < x.f.size(); ++k)
        y.f[k] = static_cast<float>(f(static_cast<double>(x.f[k])));
    return {y};
}

// Unary op defined for floats and integers alike.
template <typename F, typename G>
std::vector<HostTensor> unaryAny(const OpContext& c, F fFloat, G fInt)
{
    const HostTensor& x = c.input(0);
    HostTensor y = makeLike(x.dtype, x.shape);
    if (x.isFloating())
        for (size_t k = 0; k < x.f.size(); ++k)
            y.f[k] = static_cast<float>(fFloat(static_cast<double>(x.f[k])));
    else
        for (size_t k = 0; k < x.i.size(); ++k)
            y.i[k] = fInt(x.i[k]);
    return {y};
}

std::vector<HostTensor> opSqrt(const OpContext& c) { return unaryFloat(c, [](double x) { return std::sqrt(x); }); }
std::vector<HostTensor> opReciprocal(const OpContext& c) { return unaryFloat(c, [](double x) { return 1.0 / x; }); }
std::vector<HostTensor> opExp(const OpContext& c) { return unaryFloat(c, [](double x) { return std::exp(x); }); }
std::vector<HostTensor> opLog(const OpContext& c) { return unaryFloat(c, [](double x) { return std::log(x); }); }
std::vector<HostTensor> opErf(const OpContext& c) { return unaryFloat(c, [](double x) { return std::erf(x); }); }
std::vector<HostTensor> opTanh(const OpContext& c) { return unaryFloat(c, [](double x) { return std::tanh(x); }); }
std::vector<HostTensor> opSigmoid(const OpContext& c)
{
    return unaryFloat(c, [](double x) { return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x)); });
}
std::vector<HostTensor> opLeakyRelu(const OpContext& c)
{
    const double alpha = attrFloat(c.node, "alpha", 0.01f);
    return unaryFloat(c, [alpha](double x) { return x >= 0 ? x : alpha * x; });
}
std::vector<HostTensor> opNeg(const OpContext& c)
{
    return unaryAny(c, [](double x) { return -x; }, [](int64_t x) { return wrapSub(0, x); });
}
std::vector<HostTensor> opAbs(const OpContext& c)
{
    return unaryAny(c, [](double x) { return std::fabs(x); }, [](int64_t x) { return x < 0 ? wrapSub(0, x) : x; });
}
std::vector<HostTensor> opRelu(const OpContext& c)
{
    return unaryAny(c, [](double x) { return x > 0 ? x : 0.0; }, [](int64_t x) { return x > 0 ? x : int64_t{0}; });
}
std::vector<HostTensor> opIdentity(const OpContext& c) { return {c.input(0)}; }
std::vector<HostTensor> opSin(const OpContext& c) { return unaryFloat(c, [](double x) { return std::sin(x); }); }
std::vector<HostTensor> opCos(const OpContext& c) { return unaryFloat(c, [](double x) { return std::cos(x); }); }
std::vector<HostTensor> opTan(const OpContext& c) { return unaryFloat(c, [](double x) { return std::tan(x); }); }
std::vector<HostTensor> opAsin(const OpContext& c) { return unaryFloat(c, [](double x) { return std::asin(x); }); }
std::vector<HostTensor> opAcos(const OpContext& c) { return unaryFloat(c, [](double x) { return std::acos(x); }); }
std::vector<HostTensor> opAtan(const OpContext& c) { return unaryFloat(c, [](double x) { return std::atan(x); }); }
std::vector<HostTensor> opSinh(const OpContext& c) { return unaryFloat(c, [](double x) { return std::sinh(x); }); }
std::vector<HostTensor> opCosh(const OpContext& c) { return unaryFloat(c, [](double x) { return std::cosh(x); }); }
std::vector<HostTensor> opAsinh(const OpContext& c) { return unaryFloat(c, [](double x) { return std::asinh(x); }); }
std::vector<HostTensor> opAcosh(const OpContext& c) { return unaryFloat(c, [](double x) { return std::acosh(x); }); }
std::vector<HostTensor> opAtanh(const OpContext& c) { return unaryFloat(c, [](double x) { return std::atanh(x); }); }
std::vector<HostTensor> opFloor(const OpContext& c) { return unaryFloat(c, [](double x) { return std::floor(x); }); }
std::vector<HostTensor> opCeil(const OpContext& c) { return unaryFloat(c, [](double x) { return std::ceil(x); }); }
// Halves round to even, as numpy.round and ONNX's Round do (the default rounding mode).
std::vector<HostTensor> opRound(const OpContext& c) { return unaryFloat(c, [](double x) { return std::nearbyint(x); }); }
std::vector<HostTensor> opSign(const OpContext& c)
{
    return unaryAny(c, [](double x) { return static_cast<double>((x > 0) - (x < 0)); }, [](int64_t x) { return int64_t{(x > 0) - (x < 0)}; });
}
std::vector<HostTensor> opNot(const OpContext& c)
{
    if (c.input(0).dtype != DType::Bool)
        c.fail("input must be bool");
    return unaryAny(c, [](double x) { return x == 0 ? 1.0 : 0.0; }, [](int64_t x) { return int64_t{x == 0}; });
}
std::vector<HostTensor> opHardSigmoid(const OpContext& c)
{
    const double alpha = attrFloat(c.node, "alpha", 0.2f), beta = attrFloat(c.node, "beta", 0.5f);
    return unaryFloat(c, [alpha, beta](double x) { return std::clamp(alpha * x + beta, 0.0, 1.0); });
}
std::vector<HostTensor> opElu(const OpContext& c)
{
    const double alpha = attrFloat(c.node, "alpha", 1.0f);
    return unaryFloat(c, [alpha](double x) { return x > 0 ? x : alpha * (std::exp(x) - 1); });
}
std::vector<HostTensor> opCelu(const OpContext& c)
{
    const double alpha = attrFloat(c.node, "alpha", 1.0f);
    return unaryFloat(c, [alpha](double x) { return std::max(0.0, x) + std::min(0.0, alpha * (std::exp(x / alpha) - 1)); });
}
std::vector<HostTensor> opSelu(const OpContext& c)
{
    const double alpha = attrFloat(c.node, "alpha", 1.67326319217681884765625f), gamma = attrFloat(c.node, "gamma", 1.05070102214813232421875f);
    return unaryFloat(c, [alpha, gamma](double x) { return gamma * (x > 0 ? x : alpha * (std::exp(x) - 1)); });
}
std::vector<HostTensor> opSoftplus(const OpContext& c)
{
    return unaryFloat(c, [](double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::fabs(x))); });
}
std::vector<HostTensor> opSoftsign(const OpContext& c) { return unaryFloat(c, [](double x) { return x / (1 + std::fabs(x)); }); }
std::vector<HostTensor> opThresholdedRelu(const OpContext& c)
{
    const double alpha = attrFloat(c.node, "alpha", 1.0f);
    return unaryFloat(c, [alpha](double x) { return x > alpha ? x : 0.0; });
}
std::vector<HostTensor> opShrink(const OpContext& c)
{
    const double lambd = attrFloat(c.node, "lambd", 0.5f), bias = attrFloat(c.node, "bias", 0.0f);
    return unaryFloat(c, [lambd, bias](double x) { return x < -lambd ? x + bias : x > lambd ? x - bias : 0.0; });
}
std::vector<HostTensor> opHardSwish(const OpContext& c)
{
    return unaryFloat(c, [](double x) { return x * std::clamp(x / 6.0 + 0.5, 0.0, 1.0); });
}

// Binary op with numpy broadcasting; the output has `outType` (the first input's type unless given).
template <typename F, typename G>
std::vector<HostTensor> binary(const OpContext& c, F fFloat, G fInt, std::optional<DType> outType = std::nullopt)
{
    const HostTensor& a = c.input(0);
    const HostTensor& b = c.input(1);
    const Shape shape = broadcastShapes(c, {a.shape, b.shape});
    HostTensor y = makeLike(outType ? *outType : a.dtype, shape);
    const bool floating = a.isFloating() || b.isFloating();
    forEachIndex(shape, {broadcastStrides(a.shape, shape), broadcastStrides(b.shape, shape)}, [&](int64_t k, const std::vector<int64_t>& off) {
        if (floating) {
            const double r = fFloat(valueAt(a, off[0]), valueAt(b, off[1]));
            if (y.isFloating())
                y.f[k] = static_cast<float>(r);
            else
                y.i[k] = toInt64(r);
        } else {
            y.i[k] = fInt(a.i[off[0]], b.i[off[1]]);
        }
    });
    return {y};
}

void requireSameType(const OpContext& c)
{
    if (c.input(0).dtype != c.input(1).dtype)
        c.fail(std::string("operands have different types (") + dtypeName(c.input(0).dtype) + ", " + dtypeName(c.input(1).dtype) + ")");
}

std::vector<HostTensor> opAdd(const OpContext& c)
{
    requireSameType(c);
    return binary(c, [](double x, double y) { return x + y; }, [](int64_t x, int64_t y) { return wrapAdd(x, y); });
}
std::vector<HostTensor> opSub(const OpContext& c)
{
    requireSameType(c);
    return binary(c, [](double x, double y) { return x - y; }, [](int64_t x, int64_t y) { return wrapSub(x, y); });
}
std::vector<HostTensor> opMul(const OpContext& c)
{
    requireSameType(c);
    return binary(c, [](double x, double y) { return x * y; }, [](int64_t x, int64_t y) { return wrapMul(x, y); });
}
std::vector<HostTensor> opDiv(const OpContext& c)
{
    requireSameType(c);
    return binary(c, [](double x, double y) { return x / y; }, [&c](int64_t x, int64_t y) {
        if (y == 0)
            c.fail("integer division by zero");
        if (x == std::numeric_limits<int64_t>::min() && y == -1)
            return x;   // wraps; the C++ division would be undefined
        return x / y;   // truncation, as C and ONNX Runtime do
    });
}
std::vector<HostTensor> opPow(const OpContext& c)
{
    return binary(c, [](double x, double y) { return std::pow(x, y); }, [](int64_t x, int64_t y) {
        return toInt64(std::pow(static_cast<double>(x), static_cast<double>(y)));
    });
}
std::vector<HostTensor> opEqual(const OpContext& c)
{
    requireSameType(c);
    return binary(c, [](double x, double y) { return x == y ? 1.0 : 0.0; }, [](int64_t x, int64_t y) { return int64_t{x == y}; }, DType::Bool);
}

std::vector<HostTensor> opPRelu(const OpContext& c)
{
    requireSameType(c);
    std::vector<HostTensor> y = binary(c, [](double x, double slope) { return x < 0 ? slope * x : x; },
                                       [](int64_t x, int64_t slope) { return x < 0 ? wrapMul(slope, x) : x; });
    if (y[0].shape != c.input(0).shape)
        c.fail("slope of shape " + shapeString(c.input(1).shape) + " does not broadcast to X " + shapeString(c.input(0).shape));
    return y;
}

template <typename F, typename G>
std::vector<HostTensor> compare(const OpContext& c, F fFloat, G fInt)
{
    requireSameType(c);
    return binary(c, [fFloat](double x, double y) { return fFloat(x, y) ? 1.0 : 0.0; },
                  [fInt](int64_t x, int64_t y) { return int64_t{fInt(x, y)}; }, DType::Bool);
}
std::vector<HostTensor> opGreater(const OpContext& c) { return compare(c, std::greater<double>(), std::greater<int64_t>()); }
std::vector<HostTensor> opLess(const OpContext& c) { return compare(c, std::less<double>(), std::less<int64_t>()); }
std::vector<HostTensor> opGreaterOrEqual(const OpContext& c) { return compare(c, std::greater_equal<double>(), std::greater_equal<int64_t>()); }
std::vector<HostTensor> opLessOrEqual(const OpContext& c) { return compare(c, std::less_equal<double>(), std::less_equal<int64_t>()); }

std::vector<HostTensor> logical(const OpContext& c, bool isAnd)
{
    if (c.input(0).dtype != DType::Bool || c.input(1).dtype != DType::Bool)
        c.fail("inputs must be bool");
    return binary(c, [isAnd](double x, double y) { return (isAnd ? (x != 0 && y != 0) : (x != 0 || y != 0)) ? 1.0 : 0.0; },
                  [isAnd](int64_t x, int64_t y) { return int64_t{isAnd ? (x != 0 && y != 0) : (x != 0 || y != 0)}; });
}
std::vector<HostTensor> opAnd(const OpContext& c) { return logical(c, true); }
std::vector<HostTensor> opOr(const OpContext& c) { return logical(c, false); }
std::vector<HostTensor> opXor(const OpContext& c)
{
    if (c.input(0).dtype != DType::Bool || c.input(1).dtype != DType::Bool)
        c.fail("inputs must be bool");
    return binary(c, [](double x, double y) { return (x != 0) != (y != 0) ? 1.0 : 0.0; }, [](int64_t x, int64_t y) { return int64_t{(x != 0) != (y != 0)}; });
}

// Max, Min, Sum, Mean: any number of inputs of one type, numpy broadcasting, accumulated in double (int64 for integers).
enum class Variadic { Max, Min, Sum, Mean };
std::vector<HostTensor> variadic(const OpContext& c, Variadic kind)
{
    if (c.inputCount() == 0)
        c.fail("needs at least one input");
    std::vector<Shape> shapes;
    std::vector<const HostTensor*> in;
    for (size_t k = 0; k < c.inputCount(); ++k) {
        in.push_back(&c.input(k));
        if (in.back()->dtype != in.front()->dtype)
            c.fail("inputs have different types");
        shapes.push_back(in.back()->shape);
    }
    const Shape shape = broadcastShapes(c, shapes);
    std::vector<std::vector<int64_t>> strides;
    for (const HostTensor* t : in)
        strides.push_back(broadcastStrides(t->shape, shape));
    HostTensor y = makeLike(in.front()->dtype, shape);
    const bool floating = y.isFloating();
    if (!floating && kind == Variadic::Mean)
        c.fail("integer inputs are not supported (floating types only)");
    forEachIndex(shape, strides, [&](int64_t k, const std::vector<int64_t>& off) {
        if (floating) {
            double acc = in[0]->f[off[0]];
            for (size_t s = 1; s < in.size(); ++s) {
                const double v = in[s]->f[off[s]];
                if (kind == Variadic::Sum || kind == Variadic::Mean)
                    acc += v;
                else if (std::isnan(v) || std::isnan(acc))
                    acc = std::numeric_limits<double>::quiet_NaN();
                else
                    acc = kind == Variadic::Max ? std::max(acc, v) : std::min(acc, v);
            }
            y.f[k] = static_cast<float>(kind == Variadic::Mean ? acc / static_cast<double>(in.size()) : acc);
        } else {
            int64_t acc = in[0]->i[off[0]];
            for (size_t s = 1; s < in.size(); ++s) {
                const int64_t v = in[s]->i[off[s]];
                acc = kind == Variadic::Sum ? wrapAdd(acc, v) : kind == Variadic::Max ? std::max(acc, v) : std::min(acc, v);
            }
            y.i[k] = acc;
        }
    });
    return {y};
}
std::vector<HostTensor> opMax(const OpContext& c) { return variadic(c, Variadic::Max); }
std::vector<HostTensor> opMin(const OpContext& c) { return variadic(c, Variadic::Min); }
std::vector<HostTensor> opSum(const OpContext& c) { return variadic(c, Variadic::Sum); }
std::vector<HostTensor> opMean(const OpContext& c) { return variadic(c, Variadic::Mean); }

// Mod: integer mod takes the divisor's sign (Python's %); fmod = 1 (required for floats) the dividend's (C's fmod).
std::vector<HostTensor> opMod(const OpContext& c)
{
    requireSameType(c);
    const bool fmod = attrInt(c.node, "fmod", 0) != 0;
    if (c.input(0).isFloating() && !fmod)
        c.fail("floating inputs need fmod = 1");
    return binary(c, [](double x, double y) { return std::fmod(x, y); }, [&c, fmod](int64_t x, int64_t y) {
        if (y == 0)
            c.fail("integer modulo by zero");
        if (y == -1)
            return int64_t{0};   // also avoids INT64_MIN % -1, which is undefined in C++
        const int64_t r = x % y;
        return fmod || r == 0 || (r < 0) == (y < 0) ? r : r + y;
    });
}

// QuantizeLinear: saturate(round_half_even(x / scale) + zero_point) into uint8 (the default) or int8;
// DequantizeLinear: (x - zero_point) * scale. Scale and zero point are scalars or 1-D along `axis` (default 1).
std::vector<HostTensor> quantize(const OpContext& c, bool toInteger)
{
    const HostTensor& x = c.input(0);
    const HostTensor& scale = c.input(1);
    const HostTensor* zp = c.optionalInput(2);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    const bool perAxis = scale.size() != 1 || scale.shape.size() == 1;
    const int64_t axis = perAxis && rank > 0 ? normalizeAxis(c, attrInt(c.node, "axis", 1), rank) : 0;
    if (perAxis && (rank == 0 || scale.shape.size() != 1 || scale.shape[0] != x.shape[axis]))
        c.fail("scale must be a scalar or have one entry per element of axis " + std::to_string(axis));
    if (zp && zp->size() != scale.size())
        c.fail("zero_point must have the shape of scale");
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < rank; ++d)
        inner *= x.shape[d];
    const DType out = toInteger ? (zp ? zp->dtype : DType::UInt8) : scale.dtype;
    if (toInteger && out != DType::UInt8 && out != DType::Int8)
        c.fail("the output type must be uint8 or int8");
    HostTensor y = makeLike(out, x.shape);
    const double lo = out == DType::Int8 ? -128 : 0, hi = out == DType::Int8 ? 127 : 255;
    for (int64_t k = 0; k < x.size(); ++k) {
        const int64_t ch = perAxis ? (k / inner) % x.shape[axis] : 0;
        const double s = valueAt(scale, ch), z = zp ? valueAt(*zp, ch) : 0.0;
        // The division in x's precision (float32 as ONNX's reference does), so that ties round as exporters expect.
        if (toInteger)
            y.i[k] = static_cast<int64_t>(std::clamp(std::nearbyint(x.dtype == DType::Float64 ? valueAt(x, k) / s
                                                                                                : static_cast<double>(static_cast<float>(valueAt(x, k)) / static_cast<float>(s))) + z, lo, hi));
        else
            y.f[k] = static_cast<float>((valueAt(x, k) - z) * s);
    }
    return {y};
}
std::vector<HostTensor> opQuantizeLinear(const OpContext& c) { return quantize(c, true); }
std::vector<HostTensor> opDequantizeLinear(const OpContext& c) { return quantize(c, false); }

std::vector<HostTensor> opWhere(const OpContext& c)
{
    const HostTensor& cond = c.input(0);
    const HostTensor& x = c.input(1);
    const HostTensor& y = c.input(2);
    if (cond.dtype != DType::Bool)
        c.fail("condition must be bool");
    if (x.dtype != y.dtype)
        c.fail("X and Y have different types");
    const Shape shape = broadcastShapes(c, {cond.shape, x.shape, y.shape});
    HostTensor out = makeLike(x.dtype, shape);
    forEachIndex(shape, {broadcastStrides(cond.shape, shape), broadcastStrides(x.shape, shape), broadcastStrides(y.shape, shape)},
                 [&](int64_t k, const std::vector<int64_t>& off) {
                     if (cond.i[off[0]])
                         copyElement(out, k, x, off[1]);
                     else
                         copyElement(out, k, y, off[2]);
                 });
    return {out};
}

std::vector<HostTensor> opClip(const OpContext& c)
{
    double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
    if (c.opset < 11) {
        lo = attrFloat(c.node, "min", -std::numeric_limits<float>::max());
        hi = attrFloat(c.node, "max", std::numeric_limits<float>::max());
    } else {
        if (const HostTensor* m = c.optionalInput(1)) {
            if (m->size() != 1)
                c.fail("min must be a scalar");
            lo = valueAt(*m, 0);
        }
        if (const HostTensor* m = c.optionalInput(2)) {
            if (m->size() != 1)
                c.fail("max must be a scalar");
            hi = valueAt(*m, 0);
        }
    }
    // ONNX: min > max gives max everywhere (numpy.clip semantics).
    return unaryAny(c, [lo, hi](double v) { return std::min(std::max(v, lo), hi); },
                    [lo, hi](int64_t v) { return toInt64(std::min(std::max(static_cast<double>(v), lo), hi)); });
}

std::vector<HostTensor> opCast(const OpContext& c)
{
    const HostTensor& x = c.input(0);
    // CastLike takes the type of its second input.
    const auto to = c.node.opType == "CastLike" ? std::optional<DType>(c.input(1).dtype) : dtypeFromOnnx(static_cast<int32_t>(attrInt(c.node, "to", 0)));
    if (!to)
        c.fail("unsupported target type");
    HostTensor y = makeLike(*to, x.shape);
    for (int64_t k = 0; k < x.size(); ++k) {
        if (y.isFloating()) {
            y.f[k] = x.isFloating() ? x.f[k] : static_cast<float>(x.i[k]);
        } else if (*to == DType::Bool) {
            y.i[k] = valueAt(x, k) != 0.0;
        } else if (x.isFloating()) {
            const float v = x.f[k];
            y.i[k] = toInt64(v);   // truncation toward zero, as numpy's astype
        } else {
            y.i[k] = x.i[k];
        }
        // Narrow integer types wrap as in C (two's complement).
        if (*to == DType::Int32) y.i[k] = static_cast<int32_t>(y.i[k]);
        if (*to == DType::Int8) y.i[k] = static_cast<int8_t>(y.i[k]);
        if (*to == DType::UInt8) y.i[k] = static_cast<uint8_t>(y.i[k]);
    }
    return {y};   // float16 and float64 rounding is applied by the caller for every fp16 output
}

}  // namespace

const OpTable& elementwiseOps()
{
    static const OpTable ops = {
        {"Sqrt", opSqrt}, {"Reciprocal", opReciprocal}, {"Exp", opExp}, {"Log", opLog}, {"Erf", opErf},
        {"Tanh", opTanh}, {"Sigmoid", opSigmoid}, {"LeakyRelu", opLeakyRelu}, {"Neg", opNeg}, {"Abs", opAbs},
        {"Relu", opRelu}, {"Identity", opIdentity}, {"Dropout", opIdentity}, {"Add", opAdd}, {"Sub", opSub},
        {"Mul", opMul}, {"Div", opDiv}, {"Pow", opPow}, {"Equal", opEqual}, {"Where", opWhere}, {"Clip", opClip},
        {"Cast", opCast}, {"CastLike", opCast}, {"Mod", opMod}, {"QuantizeLinear", opQuantizeLinear},
        {"DequantizeLinear", opDequantizeLinear}, {"Sin", opSin}, {"Cos", opCos}, {"Tan", opTan}, {"Asin", opAsin}, {"Acos", opAcos},
        {"Atan", opAtan}, {"Sinh", opSinh}, {"Cosh", opCosh}, {"Asinh", opAsinh}, {"Acosh", opAcosh}, {"Atanh", opAtanh}, {"Floor", opFloor}, {"Ceil", opCeil}, {"Round", opRound},
        {"Sign", opSign}, {"Not", opNot}, {"HardSigmoid", opHardSigmoid}, {"HardSwish", opHardSwish}, {"Shrink", opShrink}, {"Elu", opElu}, {"Celu", opCelu}, {"Selu", opSelu},
        {"Softplus", opSoftplus}, {"Softsign", opSoftsign}, {"ThresholdedRelu", opThresholdedRelu}, {"PRelu", opPRelu},
        {"Greater", opGreater}, {"Less", opLess}, {"GreaterOrEqual", opGreaterOrEqual}, {"LessOrEqual", opLessOrEqual},
        {"And", opAnd}, {"Or", opOr}, {"Xor", opXor}, {"Max", opMax}, {"Min", opMin}, {"Sum", opSum}, {"Mean", opMean},
    };
    return ops;
}

}  // namespace spyglass::model::interp
