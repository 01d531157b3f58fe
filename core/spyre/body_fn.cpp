#include "core/spyre/body_fn.h"

#include <utility>

namespace spyglass::spyre {

namespace {

const std::pair<const char*, BodyFn> kNames[] = {
    {"add", BodyFn::Add}, {"sub", BodyFn::Sub}, {"mul", BodyFn::Mul}, {"truediv", BodyFn::TrueDiv},
    {"truncdiv", BodyFn::TruncDiv}, {"mod", BodyFn::Mod}, {"fmod", BodyFn::FMod}, {"pow", BodyFn::Pow}, {"maximum", BodyFn::Maximum}, {"minimum", BodyFn::Minimum},
    {"eq", BodyFn::Eq}, {"lt", BodyFn::Lt}, {"gt", BodyFn::Gt}, {"le", BodyFn::Le}, {"ge", BodyFn::Ge},
    {"logical_and", BodyFn::LogicalAnd}, {"logical_or", BodyFn::LogicalOr}, {"logical_not", BodyFn::LogicalNot},
    {"where", BodyFn::Where}, {"sqrt", BodyFn::Sqrt}, {"reciprocal", BodyFn::Reciprocal}, {"neg", BodyFn::Neg},
    {"abs", BodyFn::Abs}, {"exp", BodyFn::Exp}, {"log", BodyFn::Log}, {"erf", BodyFn::Erf}, {"relu", BodyFn::Relu},
    {"sigmoid", BodyFn::Sigmoid}, {"tanh", BodyFn::Tanh}, {"floor", BodyFn::Floor}, {"ceil", BodyFn::Ceil}, {"round", BodyFn::Round},
    {"sin", BodyFn::Sin}, {"cos", BodyFn::Cos}, {"tan", BodyFn::Tan}, {"asin", BodyFn::Asin},
    {"acos", BodyFn::Acos}, {"atan", BodyFn::Atan}, {"sinh", BodyFn::Sinh}, {"cosh", BodyFn::Cosh}, {"asinh", BodyFn::Asinh},
    {"acosh", BodyFn::Acosh}, {"atanh", BodyFn::Atanh}, {"sign", BodyFn::Sign}, {"to_dtype", BodyFn::ToDtype},
    {"leaky_relu", BodyFn::LeakyRelu},
};

const std::pair<const char*, ReduceFn> kReduceNames[] = {
    {"sum", ReduceFn::Sum}, {"max", ReduceFn::Max}, {"min", ReduceFn::Min}, {"prod", ReduceFn::Prod}};

}  // namespace

BodyFn bodyFnOf(const std::string& fn)
{
    for (const auto& [name, f] : kNames)
        if (fn == name)
            return f;
    return BodyFn::Unknown;
}

const char* bodyFnName(BodyFn fn)
{
    for (const auto& [name, f] : kNames)
        if (f == fn)
            return name;
    return "unknown";
}

bool reduceFnOf(const std::string& name, ReduceFn& out)
{
    for (const auto& [n, f] : kReduceNames)
        if (name == n) {
            out = f;
            return true;
        }
    return false;
}

const char* reduceFnName(ReduceFn fn)
{
    for (const auto& [n, f] : kReduceNames)
        if (f == fn)
            return n;
    return "unknown";
}

}  // namespace spyglass::spyre
