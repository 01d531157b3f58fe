#pragma once
// Parameter expressions of OpenQASM 2.0 gate bodies (pi, + - * / ^, unary minus, sin cos tan exp ln sqrt),
// kept as a tree so a gate definition can be instantiated with different arguments.

#include <memory>
#include <string>
#include <vector>

namespace spyglass::quantum {

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
    enum class Kind { Number, Pi, Param, Neg, Add, Sub, Mul, Div, Pow, Func };
    Kind kind = Kind::Number;
    double value = 0;    // Number
    int param = -1;      // Param: index into the gate's parameter list
    std::string func;    // Func: sin cos tan exp ln sqrt
    ExprPtr lhs, rhs;    // operands (Neg and Func use lhs)
    // Levels of the tree (1 for a leaf): evaluating, printing and destroying recurse this deep, so the parser
    // bounds it (a chain of 100 000 '+' is a tree 100 000 deep).
    int depth = 1;

    static ExprPtr number(double v);
    static ExprPtr pi();
    static ExprPtr parameter(int index);
    static ExprPtr unary(Kind k, ExprPtr a, std::string func = {});
    static ExprPtr binary(Kind k, ExprPtr a, ExprPtr b);
};

// Evaluates with the given parameter values; throws std::domain_error for ln/sqrt of a negative number.
double evaluate(const Expr& e, const std::vector<double>& params);
// Prints with the given parameter names, parenthesised only where needed.
std::string printExpr(const Expr& e, const std::vector<std::string>& paramNames);
// Shortest text that parses back to exactly the same double; multiples of pi as "3*pi/4" when exact.
std::string formatAngle(double v);

}  // namespace spyglass::quantum
