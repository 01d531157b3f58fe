#include "core/quantum/expr.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>
#include <numeric>
#include <stdexcept>

namespace spyglass::quantum {

ExprPtr Expr::number(double v)
{
    auto e = std::make_shared<Expr>();
    e->value = v;
    return e;
}
ExprPtr Expr::pi()
{
    auto e = std::make_shared<Expr>();
    e->kind = Kind::Pi;
    return e;
}
ExprPtr Expr::parameter(int index)
{
    auto e = std::make_shared<Expr>();
    e->kind = Kind::Param;
    e->param = index;
    return e;
}
ExprPtr Expr::unary(Kind k, ExprPtr a, std::string func)
{
    auto e = std::make_shared<Expr>();
    e->kind = k;
    e->depth = a->depth + 1;
    e->lhs = std::move(a);
    e->func = std::move(func);
    return e;
}
ExprPtr Expr::binary(Kind k, ExprPtr a, ExprPtr b)
{
    auto e = std::make_shared<Expr>();
    e->kind = k;
    e->depth = std::max(a->depth, b->depth) + 1;
    e->lhs = std::move(a);
    e->rhs = std::move(b);
    return e;
}

double evaluate(const Expr& e, const std::vector<double>& params)
{
    using K = Expr::Kind;
    switch (e.kind) {
    case K::Number: return e.value;
    case K::Pi: return std::numbers::pi;
    case K::Param: return params.at(static_cast<size_t>(e.param));
    case K::Neg: return -evaluate(*e.lhs, params);
    case K::Add: return evaluate(*e.lhs, params) + evaluate(*e.rhs, params);
    case K::Sub: return evaluate(*e.lhs, params) - evaluate(*e.rhs, params);
    case K::Mul: return evaluate(*e.lhs, params) * evaluate(*e.rhs, params);
    case K::Div: return evaluate(*e.lhs, params) / evaluate(*e.rhs, params);
    case K::Pow: return std::pow(evaluate(*e.lhs, params), evaluate(*e.rhs, params));
    case K::Func: {
        const double x = evaluate(*e.lhs, params);
        if (e.func == "sin") return std::sin(x);
        if (e.func == "cos") return std::cos(x);
        if (e.func == "tan") return std::tan(x);
        if (e.func == "exp") return std::exp(x);
        if (e.func == "ln") {
            if (x <= 0)
                throw std::domain_error("ln of a non-positive number");
            return std::log(x);
        }
        if (e.func == "sqrt") {
            if (x < 0)
                throw std::domain_error("sqrt of a negative number");
            return std::sqrt(x);
        }
        throw std::domain_error("unknown function " + e.func);
    }
    }
    return 0;
}

namespace {
int precedence(Expr::Kind k)
{
    using K = Expr::Kind;
    switch (k) {
    case K::Add:
    case K::Sub: return 1;
    case K::Mul:
    case K::Div: return 2;
    case K::Neg: return 3;
    case K::Pow: return 4;
    default: return 5;
    }
}
std::string shortest(double v)
{
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}
}  // namespace

std::string formatAngle(double v)
{
    if (v == 0)
        return "0";
    // Exact multiples k*pi/m print symbolically; the parser evaluates "k*pi/m" as (k*pi)/m, so require that.
    for (int m = 1; m <= 64; ++m) {
        const double k = std::round(v * m / std::numbers::pi);
        if (k == 0 || std::fabs(k) > 64.0 * m)
            continue;
        if (std::gcd(static_cast<long long>(std::fabs(k)), static_cast<long long>(m)) != 1)
            continue;
        const double back = (k * std::numbers::pi) / m;
        const double backUnit = std::fabs(k) == 1 ? std::numbers::pi / m : back;
        if (std::fabs(k) == 1 && backUnit * (k < 0 ? -1 : 1) == v) {
            std::string s = k < 0 ? "-pi" : "pi";
            return m == 1 ? s : s + "/" + std::to_string(m);
        }
        if (std::fabs(k) != 1 && back == v) {
            std::string s = shortest(k) + "*pi";
            return m == 1 ? s : s + "/" + std::to_string(m);
        }
    }
    return shortest(v);
}

std::string printExpr(const Expr& e, const std::vector<std::string>& names)
{
    using K = Expr::Kind;
    auto wrap = [&](const Expr& child, bool parensIfEqual) {
        std::string s = printExpr(child, names);
        const int pc = precedence(child.kind), pe = precedence(e.kind);
        if (pc < pe || (parensIfEqual && pc == pe) || (child.kind == K::Number && child.value < 0 && pe >= 2))
            return "(" + s + ")";
        return s;
    };
    switch (e.kind) {
    case K::Number: return formatAngle(e.value);
    case K::Pi: return "pi";
    case K::Param: return e.param >= 0 && e.param < static_cast<int>(names.size()) ? names[e.param] : "?";
    case K::Neg: return "-" + wrap(*e.lhs, true);
    case K::Add: return wrap(*e.lhs, false) + "+" + wrap(*e.rhs, e.rhs->kind == K::Neg);
    case K::Sub: return wrap(*e.lhs, false) + "-" + wrap(*e.rhs, true);
    case K::Mul: return wrap(*e.lhs, false) + "*" + wrap(*e.rhs, true);
    case K::Div: return wrap(*e.lhs, false) + "/" + wrap(*e.rhs, true);
    case K::Pow: return wrap(*e.lhs, true) + "^" + wrap(*e.rhs, false);
    case K::Func: return e.func + "(" + printExpr(*e.lhs, names) + ")";
    }
    return {};
}

}  // namespace spyglass::quantum
