#pragma once
// The semantics of every ops.<fn> a loop body may compute, shared by the host IR evaluator (double) and the
// Spyre simulator (float lanes).
#include "core/spyre/loop_ir.h"

#include <cmath>
#include <limits>
#include <string>

namespace spyglass::spyre {

// The names the IR's text and the kernel bundle use ("add", "leaky_relu"; "sum", "max"). Unknown / false for a
// name no body may use (a corrupt bundle): the callers turn that into an error naming the op.
BodyFn bodyFnOf(const std::string& fn);
const char* bodyFnName(BodyFn fn);
bool reduceFnOf(const std::string& name, ReduceFn& out);
const char* reduceFnName(ReduceFn fn);

template <typename T>
T applyBodyFn(BodyFn fn, T x, T y, T z, const Stmt& s)
{
    constexpr T nan = std::numeric_limits<T>::quiet_NaN();
    switch (fn) {
    case BodyFn::Add: return x + y;
    case BodyFn::Sub: return x - y;
    case BodyFn::Mul: return x * y;
    case BodyFn::TrueDiv: return x / y;
    case BodyFn::TruncDiv: return y == 0 ? T(0) : std::trunc(x / y);
    case BodyFn::Mod: return y == 0 ? nan : x - std::floor(x / y) * y;   // the divisor's sign (ONNX Mod, fmod = 0)
    case BodyFn::FMod: return std::fmod(x, y);                            // the dividend's sign (fmod = 1)
    case BodyFn::Pow: return std::pow(x, y);
    case BodyFn::Maximum: return std::isnan(x) || std::isnan(y) ? nan : std::max(x, y);
    case BodyFn::Minimum: return std::isnan(x) || std::isnan(y) ? nan : std::min(x, y);
    case BodyFn::Eq: return x == y;
    case BodyFn::Lt: return x < y;
    case BodyFn::Gt: return x > y;
    case BodyFn::Le: return x <= y;
    case BodyFn::Ge: return x >= y;
    case BodyFn::LogicalAnd: return (x != 0) && (y != 0);
    case BodyFn::LogicalOr: return (x != 0) || (y != 0);
    case BodyFn::LogicalNot: return x == 0;
    case BodyFn::Where: return x != 0 ? y : z;
    case BodyFn::Sqrt: return std::sqrt(x);
    case BodyFn::Reciprocal: return T(1) / x;
    case BodyFn::Neg: return -x;
    case BodyFn::Abs: return std::fabs(x);
    case BodyFn::Exp: return std::exp(x);
    case BodyFn::Log: return std::log(x);
    case BodyFn::Erf: return std::erf(x);
    case BodyFn::Relu: return x > 0 ? x : T(0);
    case BodyFn::Sigmoid: return T(1) / (T(1) + std::exp(-x));
    case BodyFn::Tanh: return std::tanh(x);
    case BodyFn::Floor: return std::floor(x);
    case BodyFn::Ceil: return std::ceil(x);
    case BodyFn::Round: return std::nearbyint(x);   // halves to even (the default rounding mode), as ONNX's Round
    case BodyFn::Sin: return std::sin(x);
    case BodyFn::Cos: return std::cos(x);
    case BodyFn::Tan: return std::tan(x);
    case BodyFn::Asin: return std::asin(x);
    case BodyFn::Acos: return std::acos(x);
    case BodyFn::Atan: return std::atan(x);
    case BodyFn::Sinh: return std::sinh(x);
    case BodyFn::Cosh: return std::cosh(x);
    case BodyFn::Asinh: return std::asinh(x);
    case BodyFn::Acosh: return std::acosh(x);
    case BodyFn::Atanh: return std::atanh(x);
    case BodyFn::Sign: return static_cast<T>((x > 0) - (x < 0));
    case BodyFn::ToDtype: return x;   // rounding happens at the store, from the output's dtype
    case BodyFn::LeakyRelu: return x >= 0 ? x : x * static_cast<T>(s.value);
    case BodyFn::Unknown: break;
    }
    return nan;
}

}  // namespace spyglass::spyre
