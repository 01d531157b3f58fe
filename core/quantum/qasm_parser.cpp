#include "core/quantum/qasm_parser.h"

#include "core/quantum/gates.h"

#include "core/common/diagnostics.h"
#include "core/common/input_file.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace spyglass::quantum {

namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------- lexer

enum class Tok { Ident, Int, Real, String, Symbol, End };

struct Token {
    Tok kind = Tok::End;
    std::string text;
    double number = 0;
    int line = 1, column = 1;
};

// One source file being read: its text split into lines (for messages) and a cursor.
class Lexer {
public:
    Lexer(std::string text, std::string file) : text_(std::move(text)), file_(std::move(file))
    {
        std::string cur;
        for (char c : text_) {
            if (c == '\n') {
                if (!cur.empty() && cur.back() == '\r')
                    cur.pop_back();
                lines_.push_back(cur);
                cur.clear();
            } else {
                cur += c;
            }
        }
        lines_.push_back(cur);
        advance();
    }

    const Token& peek() const { return tok_; }
    Token take()
    {
        Token t = tok_;
        advance();
        return t;
    }
    const std::string& file() const { return file_; }

    [[noreturn]] void fail(int line, int column, const std::string& message) const
    {
        Diagnostic d;
        d.location = SourceLocation{file_, line, column};
        d.message = message;
        if (line >= 1 && line <= static_cast<int>(lines_.size()))
            d.sourceLine = lines_[line - 1];
        throw InputError(std::move(d));
    }
    [[noreturn]] void fail(const Token& t, const std::string& message) const { fail(t.line, t.column, message); }

private:
    char at(size_t i) const { return i < text_.size() ? text_[i] : '\0'; }
    void bump()
    {
        if (text_[pos_] == '\n') {
            ++line_;
            col_ = 1;
        } else {
            ++col_;
        }
        ++pos_;
    }
    void advance()
    {
        // Skip blanks and comments.
        for (;;) {
            while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
                bump();
            if (at(pos_) == '/' && at(pos_ + 1) == '/') {
                while (pos_ < text_.size() && text_[pos_] != '\n')
                    bump();
                continue;
            }
            if (at(pos_) == '/' && at(pos_ + 1) == '*') {
                const int l = line_, c = col_;
                bump();
                bump();
                while (pos_ < text_.size() && !(at(pos_) == '*' && at(pos_ + 1) == '/'))
                    bump();
                if (pos_ >= text_.size())
                    fail(l, c, "unterminated comment");
                bump();
                bump();
                continue;
            }
            break;
        }
        tok_ = Token{};
        tok_.line = line_;
        tok_.column = col_;
        if (pos_ >= text_.size()) {
            tok_.kind = Tok::End;
            tok_.text = "end of file";
            return;
        }
        const char c = text_[pos_];
        const size_t start = pos_;
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            while (std::isalnum(static_cast<unsigned char>(at(pos_))) || at(pos_) == '_')
                bump();
            tok_.kind = Tok::Ident;
            tok_.text = text_.substr(start, pos_ - start);
            return;
        }
        if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && std::isdigit(static_cast<unsigned char>(at(pos_ + 1))))) {
            bool real = false;
            while (std::isdigit(static_cast<unsigned char>(at(pos_))))
                bump();
            if (at(pos_) == '.') {
                real = true;
                bump();
                while (std::isdigit(static_cast<unsigned char>(at(pos_))))
                    bump();
            }
            if (at(pos_) == 'e' || at(pos_) == 'E') {
                size_t p = pos_ + 1;
                if (at(p) == '+' || at(p) == '-')
                    ++p;
                if (std::isdigit(static_cast<unsigned char>(at(p)))) {
                    real = true;
                    while (pos_ < p)
                        bump();
                    while (std::isdigit(static_cast<unsigned char>(at(pos_))))
                        bump();
                }
            }
            tok_.kind = real ? Tok::Real : Tok::Int;
            tok_.text = text_.substr(start, pos_ - start);
            tok_.number = std::strtod(tok_.text.c_str(), nullptr);
            return;
        }
        if (c == '"') {
            bump();
            while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n')
                bump();
            if (at(pos_) != '"')
                fail(tok_.line, tok_.column, "unterminated string");
            tok_.kind = Tok::String;
            tok_.text = text_.substr(start + 1, pos_ - start - 1);
            bump();
            return;
        }
        if ((c == '-' && at(pos_ + 1) == '>') || (c == '=' && at(pos_ + 1) == '=')) {
            bump();
            bump();
            tok_.kind = Tok::Symbol;
            tok_.text = text_.substr(start, 2);
            return;
        }
        if (std::string_view(";,()[]{}+-*/^").find(c) != std::string_view::npos) {
            bump();
            tok_.kind = Tok::Symbol;
            tok_.text = std::string(1, c);
            return;
        }
        fail(tok_.line, tok_.column, std::string("unexpected character '") + c + "'");
    }

    std::string text_, file_;
    std::vector<std::string> lines_;
    size_t pos_ = 0;
    int line_ = 1, col_ = 1;
    Token tok_;
};

std::string describe(const Token& t)
{
    switch (t.kind) {
    case Tok::End: return "end of file";
    case Tok::String: return "string \"" + t.text + "\"";
    default: return "'" + t.text + "'";
    }
}

const std::set<std::string> kFunctions = {"sin", "cos", "tan", "exp", "ln", "sqrt"};
const std::set<std::string> kReserved = {"OPENQASM", "include", "qreg", "creg", "gate", "opaque", "barrier",
                                         "measure", "reset", "if", "pi", "U", "CX"};

// ---------------------------------------------------------------- parser

// Limits that keep a hostile or broken file from exhausting the machine; each is far beyond real circuits.
constexpr int kMaxExprDepth = 256;            // nested parentheses / unary signs in one expression (stack depth)
constexpr int kMaxExprTreeDepth = 1024;       // operators one inside the other, chains included (the tree's depth)
constexpr int kMaxGateNesting = 64;           // gate definitions calling gate definitions (inline_gates' limit)
constexpr uint64_t kMaxExpandedOps = 10'000'000;   // ops once every user gate is inlined (about 2.5 GB of QPIR)
constexpr uint64_t kMaxFileBytes = 256ull << 20;

class Parser {
public:
    Parser(DiagnosticSink& sink) : sink_(sink)
    {
        lib_ = std::make_shared<GateLibrary>();
        GateDef u;
        u.name = "U";
        u.params = {"theta", "phi", "lambda"};
        u.qubits = {"q"};
        u.builtin = true;
        (*lib_)["U"] = u;
        GateDef cx;
        cx.name = "CX";
        cx.qubits = {"c", "t"};
        cx.builtin = true;
        (*lib_)["CX"] = cx;
    }

    // The top file's bytes count against the limit its includes share.
    void countTopFile(uint64_t bytes) { bytesRead_ += bytes; }

    void parseFile(Lexer& lx, const fs::path& includeDir, int depth, bool topLevel)
    {
        lx_ = &lx;
        Lexer* const saved = &lx;
        if (lx.peek().kind == Tok::Ident && lx.peek().text == "OPENQASM") {
            lx.take();
            Token v = lx.take();
            if (v.kind != Tok::Real && v.kind != Tok::Int)
                lx.fail(v, "expected a version number after OPENQASM, found " + describe(v));
            if (std::floor(v.number) != 2)
                lx.fail(v, "unsupported OpenQASM version " + v.text + "; Spyglass reads OpenQASM 2.0");
            expect(";");
        } else if (topLevel) {
            sink_.warn(SourceLocation{lx.file(), 1, 1}, "missing 'OPENQASM 2.0;' header; reading as OpenQASM 2.0");
        }
        while (lx.peek().kind != Tok::End) {
            statement(includeDir, depth, topLevel);
            lx_ = saved;
        }
    }

    Circuit finish(std::string name)
    {
        circ_.name = std::move(name);
        circ_.gates = lib_;
        return std::move(circ_);
    }

private:
    Lexer& lx() { return *lx_; }

    Token expect(const std::string& sym)
    {
        Token t = lx().take();
        if (t.kind != Tok::Symbol || t.text != sym)
            lx().fail(t, "expected '" + sym + "', found " + describe(t));
        return t;
    }
    bool accept(const std::string& sym)
    {
        if (lx().peek().kind == Tok::Symbol && lx().peek().text == sym) {
            lx().take();
            return true;
        }
        return false;
    }
    Token identifier(const char* what)
    {
        Token t = lx().take();
        if (t.kind != Tok::Ident)
            lx().fail(t, std::string("expected ") + what + ", found " + describe(t));
        return t;
    }
    long long integer(const char* what)
    {
        Token t = lx().take();
        if (t.kind != Tok::Int)
            lx().fail(t, std::string("expected ") + what + " (a non-negative integer), found " + describe(t));
        errno = 0;
        const long long v = std::strtoll(t.text.c_str(), nullptr, 10);
        if (errno == ERANGE)
            lx().fail(t, "integer " + t.text + " is too large");
        return v;
    }

    // ---- expressions
    // Nesting depth of the expression being parsed (parentheses, function calls, signs, powers), each a level of
    // recursion; past kMaxExprDepth a hostile file could overflow the stack.
    struct DepthGuard {
        Parser& p;
        DepthGuard(Parser& parser, const Token& at) : p(parser)
        {
            if (++p.exprDepth_ > kMaxExprDepth)
                p.lx().fail(at, "expression nested more than " + std::to_string(kMaxExprDepth) + " deep");
        }
        ~DepthGuard() { --p.exprDepth_; }
    };

    // Chains ('a+b+c...') are parsed in a loop but make a tree as deep as they are long, which evaluating,
    // printing and freeing it recurse through: every node's depth is bounded where it is made.
    ExprPtr bounded(ExprPtr e, const Token& at)
    {
        if (e->depth > kMaxExprTreeDepth)
            lx().fail(at, "expression has more than " + std::to_string(kMaxExprTreeDepth) + " operators one inside the other");
        return e;
    }
    ExprPtr expr(const std::vector<std::string>* params)
    {
        ExprPtr e = term(params);
        for (;;) {
            const Token op = lx().peek();
            if (accept("+"))
                e = bounded(Expr::binary(Expr::Kind::Add, e, term(params)), op);
            else if (accept("-"))
                e = bounded(Expr::binary(Expr::Kind::Sub, e, term(params)), op);
            else
                return e;
        }
    }
    ExprPtr term(const std::vector<std::string>* params)
    {
        ExprPtr e = unary(params);
        for (;;) {
            const Token op = lx().peek();
            if (accept("*"))
                e = bounded(Expr::binary(Expr::Kind::Mul, e, unary(params)), op);
            else if (accept("/"))
                e = bounded(Expr::binary(Expr::Kind::Div, e, unary(params)), op);
            else
                return e;
        }
    }
    ExprPtr unary(const std::vector<std::string>* params)
    {
        const Token at = lx().peek();
        if (accept("-")) {
            DepthGuard guard(*this, at);
            return bounded(Expr::unary(Expr::Kind::Neg, unary(params)), at);
        }
        if (accept("+")) {
            DepthGuard guard(*this, at);
            return unary(params);
        }
        ExprPtr base = primary(params);
        const Token pow = lx().peek();
        if (accept("^")) {
            DepthGuard guard(*this, pow);
            return bounded(Expr::binary(Expr::Kind::Pow, base, unary(params)), pow);
        }
        return base;
    }
    ExprPtr primary(const std::vector<std::string>* params)
    {
        Token t = lx().take();
        if (t.kind == Tok::Int || t.kind == Tok::Real)
            return Expr::number(t.number);
        if (t.kind == Tok::Symbol && t.text == "(") {
            DepthGuard guard(*this, t);
            ExprPtr e = expr(params);
            expect(")");
            return e;
        }
        if (t.kind == Tok::Ident) {
            if (t.text == "pi")
                return Expr::pi();
            if (kFunctions.count(t.text)) {
                DepthGuard guard(*this, t);
                expect("(");
                ExprPtr e = expr(params);
                expect(")");
                return bounded(Expr::unary(Expr::Kind::Func, e, t.text), t);
            }
            if (params) {
                auto it = std::find(params->begin(), params->end(), t.text);
                if (it != params->end())
                    return Expr::parameter(static_cast<int>(it - params->begin()));
            }
            lx().fail(t, "unknown identifier '" + t.text + "' in expression" +
                             (params ? " (not a parameter of this gate)" : ""));
        }
        lx().fail(t, "expected an expression, found " + describe(t));
    }
    static std::string valueText(double v) { return std::isnan(v) ? "NaN" : v > 0 ? "inf" : "-inf"; }
    double constant(const Token& at)
    {
        ExprPtr e = expr(nullptr);
        try {
            const double v = evaluate(*e, {});
            if (!std::isfinite(v))
                lx().fail(at, "parameter evaluates to " + valueText(v));
            return v;
        } catch (const std::domain_error& err) {
            lx().fail(at, err.what());
        }
    }
    // The parameters a call of `def` with `params` passes on, through every definition it expands into, must be
    // numbers: a body's 1/a with a = 0, or sqrt(a) with a = -1, would otherwise reach the simulator as inf or NaN.
    // Each (gate, arguments) pair is checked once, so the check costs what the distinct calls cost, not the
    // expansion (a gate calling another twice, 20 deep, is 20 checks).
    void checkBodyParams(const GateDef& def, const std::vector<double>& params, const Token& at,
                         std::set<std::pair<std::string, std::vector<double>>>& seen)
    {
        if (def.body.empty() || !seen.emplace(def.name, params).second)
            return;
        for (const GateCall& call : def.body) {
            if (call.name == "barrier")
                continue;
            std::vector<double> values;
            for (size_t i = 0; i < call.params.size(); ++i) {
                double v = 0;
                std::string problem;
                try {
                    v = evaluate(*call.params[i], params);
                    if (!std::isfinite(v))
                        problem = " evaluates to " + valueText(v);
                } catch (const std::domain_error& err) {
                    problem = std::string(" is undefined: ") + err.what();
                }
                if (!problem.empty()) {
                    std::string args;
                    for (size_t a = 0; a < params.size(); ++a)
                        args += (a ? ", " : "") + def.params[a] + " = " + formatAngle(params[a]);
                    lx().fail(at, "in the body of gate '" + def.name + "'" + (args.empty() ? "" : " (" + args + ")") + ", parameter " +
                                      std::to_string(i + 1) + " of '" + call.name + "'" + problem);
                }
                values.push_back(v);
            }
            const auto it = lib_->find(call.name);
            if (it != lib_->end())
                checkBodyParams(it->second, values, at, seen);
        }
    }

    // ---- registers and arguments
    const Register* findReg(const std::vector<Register>& regs, const std::string& n)
    {
        for (const Register& r : regs)
            if (r.name == n)
                return &r;
        return nullptr;
    }

    struct Arg {
        Token at;
        std::vector<int> bits;
        bool whole = false;
    };
    Arg argument(bool classical)
    {
        Arg a;
        a.at = identifier(classical ? "a classical register" : "a qubit or quantum register");
        const auto& regs = classical ? circ_.cregs : circ_.qregs;
        const Register* r = findReg(regs, a.at.text);
        if (!r) {
            const Register* other = findReg(classical ? circ_.qregs : circ_.cregs, a.at.text);
            if (other)
                lx().fail(a.at, "'" + a.at.text + "' is a " + (classical ? "quantum" : "classical") + " register, expected a " +
                                    (classical ? "classical" : "quantum") + " one");
            lx().fail(a.at, std::string("undefined ") + (classical ? "classical" : "quantum") + " register '" + a.at.text + "'");
        }
        if (accept("[")) {
            Token it = lx().peek();
            const long long i = integer("an index");
            expect("]");
            if (i >= r->size)
                lx().fail(it, "index " + std::to_string(i) + " is out of range for " + r->name + "[" + std::to_string(r->size) + "]");
            a.bits = {r->offset + static_cast<int>(i)};
        } else {
            a.whole = true;
            for (int i = 0; i < r->size; ++i)
                a.bits.push_back(r->offset + i);
        }
        return a;
    }
    std::vector<Arg> argumentList()
    {
        std::vector<Arg> args;
        do {
            args.push_back(argument(false));
        } while (accept(","));
        return args;
    }

    // ---- statements
    void statement(const fs::path& includeDir, int depth, bool topLevel)
    {
        const Token t = lx().peek();
        if (t.kind != Tok::Ident)
            lx().fail(t, "expected a statement, found " + describe(t));
        if (t.text == "OPENQASM")
            lx().fail(t, "the OPENQASM header must come first");
        if (t.text == "include")
            return include(includeDir, depth);
        if (t.text == "qreg" || t.text == "creg")
            return declaration(t.text == "qreg");
        if (t.text == "gate" || t.text == "opaque")
            return gateDefinition(t.text == "opaque");
        Condition cond;
        if (t.text == "if") {
            lx().take();
            expect("(");
            Token r = identifier("a classical register");
            const Register* reg = findReg(circ_.cregs, r.text);
            if (!reg)
                lx().fail(r, findReg(circ_.qregs, r.text) ? "if needs a classical register, '" + r.text + "' is a quantum register"
                                                           : "undefined classical register '" + r.text + "'");
            expect("==");
            Token vt = lx().peek();
            const long long v = integer("a value");
            if (reg->size < 63 && v >= (1LL << reg->size))
                lx().fail(vt, "value " + std::to_string(v) + " does not fit in " + std::to_string(reg->size) + "-bit register '" +
                                  reg->name + "'");
            expect(")");
            cond.creg = static_cast<int>(reg - circ_.cregs.data());
            cond.value = static_cast<uint64_t>(v);
            const Token q = lx().peek();
            if (q.kind != Tok::Ident || q.text == "if" || q.text == "barrier" || q.text == "qreg" || q.text == "creg" ||
                q.text == "gate" || q.text == "opaque" || q.text == "include")
                lx().fail(q, "expected a gate, measure or reset after if(...), found " + describe(q));
        }
        quantumOp(cond, topLevel);
    }

    void include(const fs::path& includeDir, int depth)
    {
        lx().take();
        Token f = lx().take();
        if (f.kind != Tok::String)
            lx().fail(f, "expected a file name in quotes after include, found " + describe(f));
        expect(";");
        if (f.text == "qelib1.inc") {
            if (qelibLoaded_)
                return;
            qelibLoaded_ = true;
            Lexer inc(std::string(builtinQelib()), "qelib1.inc (built-in)");
            Lexer* saved = lx_;
            parseFile(inc, {}, depth + 1, false);
            markBuiltins();
            lx_ = saved;
            return;
        }
        if (depth >= 16)
            lx().fail(f, "includes nested more than 16 deep (does a file include itself?)");
        if (includeDir.empty())
            lx().fail(f, "cannot include '" + f.text + "': the input has no folder (only qelib1.inc is available)");
        const fs::path rel(f.text);
        if (rel.is_absolute())
            lx().fail(f, "include path '" + f.text + "' must be relative to the including file");
        std::error_code ec;
        if (!resolvesInside(includeDir, rel))
            lx().fail(f, "include '" + f.text + "' leaves the folder of the including file");
        const fs::path target = fs::weakly_canonical(includeDir / rel, ec);
        // The file and everything it includes share one size limit: each include spends what is left of it.
        std::string text;
        try {
            const uint64_t left = kMaxFileBytes - std::min(kMaxFileBytes, bytesRead_);
            text = readInputFile(target.string(), "an OpenQASM include file", left, [&](uint64_t size) {
                return "is " + byteSizeText(size) + ", and with the " + byteSizeText(bytesRead_) +
                       " read before it the circuit's files exceed their " + byteSizeText(kMaxFileBytes) + " limit";
            });
            bytesRead_ += text.size();
        } catch (const InputError& e) {
            const std::string& m = e.diagnostic().message;
            lx().fail(f, m == "no such file or directory" || m.rfind("is a folder", 0) == 0 || m.rfind("cannot", 0) == 0
                             ? "cannot open include file '" + f.text + "'"
                             : "include '" + f.text + "'" + (m == "is not a regular file" ? " " : ": ") + m);
        }
        Lexer inc(std::move(text), (includeDir / rel).string());
        Lexer* saved = lx_;
        parseFile(inc, target.parent_path(), depth + 1, false);
        lx_ = saved;
    }

    void markBuiltins()
    {
        for (auto& [n, d] : *lib_)
            if (findStdGate(n) || n == "rccx" || n == "rc3x" || n == "c3x" || n == "c3sqrtx" || n == "c4x")
                d.builtin = true;
    }

    void declaration(bool quantum)
    {
        lx().take();
        Token n = identifier("a register name");
        checkFreeName(n);
        expect("[");
        Token st = lx().peek();
        const long long size = integer("a register size");
        expect("]");
        expect(";");
        if (size <= 0)
            lx().fail(st, "register size must be at least 1");
        int& total = quantum ? circ_.numQubits : circ_.numClbits;
        if (size > 100000 || total + size > 100000)
            lx().fail(st, "register too large (" + std::to_string(size) + ")");
        Register r{n.text, static_cast<int>(size), total};
        total += static_cast<int>(size);
        (quantum ? circ_.qregs : circ_.cregs).push_back(r);
    }

    void checkFreeName(const Token& n)
    {
        if (kReserved.count(n.text) || kFunctions.count(n.text))
            lx().fail(n, "'" + n.text + "' is a reserved word");
        if (findReg(circ_.qregs, n.text) || findReg(circ_.cregs, n.text))
            lx().fail(n, "register '" + n.text + "' is already declared");
    }

    std::vector<std::string> identList(const char* what, bool allowEmpty)
    {
        std::vector<std::string> out;
        if (allowEmpty && lx().peek().kind == Tok::Symbol)
            return out;
        do {
            Token t = identifier(what);
            if (std::find(out.begin(), out.end(), t.text) != out.end())
                lx().fail(t, std::string("duplicate ") + what + " '" + t.text + "'");
            out.push_back(t.text);
        } while (accept(","));
        return out;
    }

    void gateDefinition(bool opaque)
    {
        lx().take();
        Token n = identifier("a gate name");
        if (kReserved.count(n.text))
            lx().fail(n, "'" + n.text + "' is a reserved word");
        if (auto it = lib_->find(n.text); it != lib_->end())
            lx().fail(n, "gate '" + n.text + "' is already defined" +
                             (it->second.location.line ? " at line " + std::to_string(it->second.location.line) : std::string()) +
                             (it->second.builtin ? " (in qelib1.inc)" : ""));
        GateDef def;
        def.name = n.text;
        def.opaque = opaque;
        def.location = SourceLocation{lx().file(), n.line, n.column};
        if (accept("(")) {
            def.params = identList("parameter", true);
            expect(")");
        }
        def.qubits = identList("qubit argument", false);
        if (opaque) {
            expect(";");
            (*lib_)[def.name] = std::move(def);
            return;
        }
        // How deep definitions nest and how many ops one call becomes once inlined: a chain of gates each calling
        // the previous one twice is a few lines of text but 2^N ops, so both are bounded here, at the definition.
        int nesting = 1;
        uint64_t expanded = 0;
        expect("{");
        while (!accept("}")) {
            Token g = lx().peek();
            if (g.kind != Tok::Ident)
                lx().fail(g, "expected a gate call or '}' in the body of gate '" + def.name + "', found " + describe(g));
            lx().take();
            GateCall call;
            call.name = g.text;
            if (g.text == "measure" || g.text == "reset" || g.text == "if" || g.text == "qreg" || g.text == "creg")
                lx().fail(g, "'" + g.text + "' is not allowed inside a gate definition");
            const GateDef* callee = nullptr;
            if (g.text != "barrier") {
                auto it = lib_->find(g.text);
                if (it == lib_->end())
                    lx().fail(g, unknownGateMessage(g.text));
                callee = &it->second;
                if (accept("(")) {
                    if (lx().peek().kind != Tok::Symbol || lx().peek().text != ")") {
                        do {
                            call.params.push_back(expr(&def.params));
                        } while (accept(","));
                    }
                    expect(")");
                }
                if (call.params.size() != callee->params.size())
                    lx().fail(g, "gate '" + g.text + "' takes " + std::to_string(callee->params.size()) + " parameter(s), got " +
                                     std::to_string(call.params.size()));
            }
            do {
                Token a = identifier("a qubit argument");
                auto it = std::find(def.qubits.begin(), def.qubits.end(), a.text);
                if (it == def.qubits.end())
                    lx().fail(a, "'" + a.text + "' is not a qubit argument of gate '" + def.name + "'");
                const int idx = static_cast<int>(it - def.qubits.begin());
                if (std::find(call.args.begin(), call.args.end(), idx) != call.args.end())
                    lx().fail(a, "qubit '" + a.text + "' is used twice in one gate call");
                call.args.push_back(idx);
            } while (accept(","));
            expect(";");
            if (callee && call.args.size() != callee->qubits.size())
                lx().fail(g, "gate '" + g.text + "' acts on " + std::to_string(callee->qubits.size()) + " qubit(s), got " +
                                 std::to_string(call.args.size()));
            if (callee) {
                nesting = std::max(nesting, 1 + nestingOf(g.text));
                if (nesting > kMaxGateNesting)
                    lx().fail(g, "gate definitions nested more than " + std::to_string(kMaxGateNesting) + " deep ('" + def.name +
                                     "' calls '" + g.text + "', which nests " + std::to_string(nestingOf(g.text)) + " deep)");
            }
            expanded = std::min(kMaxExpandedOps + 1, expanded + (callee ? expandedOpsOf(g.text) : 1));
            def.body.push_back(std::move(call));
        }
        nesting_[def.name] = nesting;
        expandedOps_[def.name] = expanded;
        (*lib_)[def.name] = std::move(def);
    }

    // Definitions below a gate (0 for U, CX, opaque gates and qelib1's primitives, which are never inlined).
    int nestingOf(const std::string& name) const
    {
        if (isNeverInlined(name))
            return 0;
        const auto it = nesting_.find(name);
        return it == nesting_.end() ? 0 : it->second;
    }
    // Ops one call of `name` becomes after inline_gates (saturates just above kMaxExpandedOps).
    uint64_t expandedOpsOf(const std::string& name) const
    {
        if (isNeverInlined(name))
            return 1;
        const auto it = expandedOps_.find(name);
        return it == expandedOps_.end() ? 1 : it->second;
    }
    bool isNeverInlined(const std::string& name) const
    {
        const auto it = lib_->find(name);
        return it == lib_->end() || it->second.opaque || (it->second.builtin && (findStdGate(name) || it->second.body.empty()));
    }

    // Counts ops the program will hold once inlined; refuses the statement that goes past kMaxExpandedOps.
    void addExpandedOps(const Token& at, uint64_t perOp, uint64_t count)
    {
        totalExpandedOps_ += std::min(kMaxExpandedOps + 1, perOp) * count;
        if (totalExpandedOps_ > kMaxExpandedOps)
            lx().fail(at, "the circuit grows beyond " + std::to_string(kMaxExpandedOps) +
                              " operations once its gate definitions are expanded");
    }

    std::string unknownGateMessage(const std::string& n)
    {
        std::string m = "unknown gate '" + n + "'";
        if (!qelibLoaded_ && (findStdGate(n) || n == "c3x" || n == "c4x" || n == "rccx"))
            m += " (missing include \"qelib1.inc\"?)";
        return m;
    }

    void quantumOp(const Condition& cond, bool topLevel)
    {
        const Token t = lx().take();
        const int line = topLevel ? t.line : 0;
        if (t.text == "measure") {
            Arg q = argument(false);
            expect("->");
            Arg c = argument(true);
            expect(";");
            if (q.whole != c.whole || q.bits.size() != c.bits.size())
                lx().fail(c.at, "measure needs a register of the same size or single bits on both sides (" +
                                    std::to_string(q.bits.size()) + " qubit(s) -> " + std::to_string(c.bits.size()) + " bit(s))");
            addExpandedOps(t, 1, q.bits.size());
            for (size_t i = 0; i < q.bits.size(); ++i) {
                Op op;
                op.kind = OpKind::Measure;
                op.name = "measure";
                op.qubits = {q.bits[i]};
                op.clbits = {c.bits[i]};
                op.cond = cond;
                op.line = line;
                circ_.ops.push_back(std::move(op));
            }
            return;
        }
        if (t.text == "reset") {
            Arg q = argument(false);
            expect(";");
            addExpandedOps(t, 1, q.bits.size());
            for (int b : q.bits) {
                Op op;
                op.kind = OpKind::Reset;
                op.name = "reset";
                op.qubits = {b};
                op.cond = cond;
                op.line = line;
                circ_.ops.push_back(std::move(op));
            }
            return;
        }
        if (t.text == "barrier") {
            std::vector<Arg> args = argumentList();
            expect(";");
            addExpandedOps(t, 1, 1);
            Op op;
            op.kind = OpKind::Barrier;
            op.name = "barrier";
            for (const Arg& a : args)
                for (int b : a.bits)
                    if (std::find(op.qubits.begin(), op.qubits.end(), b) == op.qubits.end())
                        op.qubits.push_back(b);
            op.line = line;
            circ_.ops.push_back(std::move(op));
            return;
        }
        auto it = lib_->find(t.text);
        if (it == lib_->end()) {
            if (kReserved.count(t.text) || kFunctions.count(t.text))
                lx().fail(t, "unexpected '" + t.text + "' here");
            lx().fail(t, unknownGateMessage(t.text));
        }
        const GateDef& def = it->second;
        std::vector<double> params;
        if (accept("(")) {
            if (lx().peek().kind != Tok::Symbol || lx().peek().text != ")") {
                do {
                    const Token at = lx().peek();
                    params.push_back(constant(at));
                } while (accept(","));
            }
            expect(")");
        }
        if (params.size() != def.params.size())
            lx().fail(t, "gate '" + t.text + "' takes " + std::to_string(def.params.size()) + " parameter(s), got " +
                             std::to_string(params.size()));
        std::vector<Arg> args = argumentList();
        expect(";");
        if (args.size() != def.qubits.size())
            lx().fail(t, "gate '" + t.text + "' acts on " + std::to_string(def.qubits.size()) + " qubit(s), got " +
                             std::to_string(args.size()));
        // Register broadcasting: every whole-register argument must have the same size.
        size_t width = 1;
        for (const Arg& a : args)
            if (a.whole) {
                if (width != 1 && a.bits.size() != width && a.bits.size() != 1)
                    lx().fail(a.at, "registers of different sizes (" + std::to_string(width) + " and " + std::to_string(a.bits.size()) +
                                        ") in one gate application");
                width = std::max(width, a.bits.size());
            }
        addExpandedOps(t, expandedOpsOf(t.text), width);
        std::set<std::pair<std::string, std::vector<double>>> checked;
        checkBodyParams(def, params, t, checked);
        for (size_t i = 0; i < width; ++i) {
            Op op;
            op.name = t.text;
            op.params = params;
            op.cond = cond;
            op.line = line;
            for (const Arg& a : args) {
                const int b = a.bits.size() == 1 ? a.bits[0] : a.bits[i];
                if (std::find(op.qubits.begin(), op.qubits.end(), b) != op.qubits.end())
                    lx().fail(a.at, "qubit " + circ_.qubitName(b) + " is used twice in one gate");
                op.qubits.push_back(b);
            }
            circ_.ops.push_back(std::move(op));
        }
    }

    DiagnosticSink& sink_;
    Lexer* lx_ = nullptr;
    std::shared_ptr<GateLibrary> lib_;
    Circuit circ_;
    bool qelibLoaded_ = false;
    uint64_t bytesRead_ = 0;   // the top file's and every include's bytes so far
    int exprDepth_ = 0;
    std::map<std::string, int> nesting_;
    std::map<std::string, uint64_t> expandedOps_;
    uint64_t totalExpandedOps_ = 0;
};

std::string stem(const std::string& file)
{
    return fs::path(file).stem().string();
}

}  // namespace

ParseResult parseQasmString(const std::string& text, const std::string& fileName, const std::string& includeDir)
{
    DiagnosticSink sink;
    Parser p(sink);
    p.countTopFile(text.size());
    Lexer lx(text, fileName);
    p.parseFile(lx, includeDir.empty() ? fs::path() : fs::path(includeDir), 0, true);
    ParseResult r;
    r.circuit = p.finish(stem(fileName));
    r.warnings = sink.items();
    return r;
}

ParseResult parseQasmFile(const std::string& path)
{
    const std::string text = readInputFile(path, "an OpenQASM file", kMaxFileBytes);
    fs::path dir = fs::path(path).parent_path();
    if (dir.empty())
        dir = ".";
    return parseQasmString(text, path, dir.string());
}

}  // namespace spyglass::quantum
