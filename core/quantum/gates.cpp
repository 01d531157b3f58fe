#include "core/quantum/gates.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <unordered_map>

namespace spyglass::quantum {

namespace {

const std::vector<StdGate> kStd = {
    {"U", 1, 3, 0},    {"u3", 1, 3, 0},   {"u", 1, 3, 0},    {"u2", 1, 2, 0},   {"u1", 1, 1, 0},
    {"p", 1, 1, 0},    {"id", 1, 0, 0},   {"u0", 1, 1, 0},   {"x", 1, 0, 0},    {"y", 1, 0, 0},
    {"z", 1, 0, 0},    {"h", 1, 0, 0},    {"s", 1, 0, 0},    {"sdg", 1, 0, 0},  {"t", 1, 0, 0},
    {"tdg", 1, 0, 0},  {"sx", 1, 0, 0},   {"sxdg", 1, 0, 0}, {"rx", 1, 1, 0},   {"ry", 1, 1, 0},
    {"rz", 1, 1, 0},   {"CX", 2, 0, 1},   {"cx", 2, 0, 1},   {"cy", 2, 0, 1},   {"cz", 2, 0, 1},
    {"ch", 2, 0, 1},   {"csx", 2, 0, 1},  {"crx", 2, 1, 1},  {"cry", 2, 1, 1},  {"crz", 2, 1, 1},
    {"cu1", 2, 1, 1},  {"cp", 2, 1, 1},   {"cu3", 2, 3, 1},  {"cu", 2, 4, 1},   {"swap", 2, 0, 0},
    {"rxx", 2, 1, 0},  {"rzz", 2, 1, 0},  {"ccx", 3, 0, 2},  {"cswap", 3, 0, 1},
};

constexpr double kPi = std::numbers::pi;
const cplx I1{0, 1};

std::vector<cplx> u3m(double th, double ph, double la)
{
    const double c = std::cos(th / 2), s = std::sin(th / 2);
    return {c, -std::exp(I1 * la) * s, std::exp(I1 * ph) * s, std::exp(I1 * (ph + la)) * c};
}
std::vector<cplx> diag2(cplx a, cplx b) { return {a, 0, 0, b}; }

// Controlled version with `controls` low qubits: identity unless all control bits are 1.
std::vector<cplx> controlled(const std::vector<cplx>& target, int targetDim, int controls)
{
    const int cd = 1 << controls, dim = targetDim * cd;
    std::vector<cplx> m(static_cast<size_t>(dim) * dim);
    for (int i = 0; i < dim; ++i)
        m[static_cast<size_t>(i) * dim + i] = 1;
    const int base = cd - 1;
    for (int r = 0; r < targetDim; ++r)
        for (int c = 0; c < targetDim; ++c)
            m[static_cast<size_t>(r * cd + base) * dim + (c * cd + base)] = target[static_cast<size_t>(r) * targetDim + c];
    return m;
}

}  // namespace

const std::vector<StdGate>& stdGates() { return kStd; }

const StdGate* findStdGate(std::string_view name)
{
    // Looked up for every gate of every circuit simulated (the fuse pass, prepareOp): a hash, not a scan of kStd.
    static const std::unordered_map<std::string_view, const StdGate*> byName = [] {
        std::unordered_map<std::string_view, const StdGate*> m;
        for (const StdGate& g : kStd)
            m.emplace(g.name, &g);
        return m;
    }();
    const auto it = byName.find(name);
    return it == byName.end() ? nullptr : it->second;
}

std::vector<cplx> stdTargetMatrix(const std::string& n, const std::vector<double>& p)
{
    const StdGate* g = findStdGate(n);
    if (!g)
        throw std::invalid_argument("no matrix for gate '" + n + "'");
    if (static_cast<int>(p.size()) != g->params)
        throw std::invalid_argument("gate '" + n + "' takes " + std::to_string(g->params) + " parameters");
    const double r2 = 1 / std::numbers::sqrt2;
    if (n == "U" || n == "u3" || n == "u") return u3m(p[0], p[1], p[2]);
    if (n == "u2") return u3m(kPi / 2, p[0], p[1]);
    if (n == "u1" || n == "p") return diag2(1, std::exp(I1 * p[0]));
    if (n == "id" || n == "u0") return diag2(1, 1);
    if (n == "x" || n == "cx" || n == "CX" || n == "ccx") return {0, 1, 1, 0};
    if (n == "y" || n == "cy") return {0, -I1, I1, 0};
    if (n == "z" || n == "cz") return diag2(1, -1);
    if (n == "h" || n == "ch") return {r2, r2, r2, -r2};
    if (n == "s") return diag2(1, I1);
    if (n == "sdg") return diag2(1, -I1);
    if (n == "t") return diag2(1, std::exp(I1 * (kPi / 4)));
    if (n == "tdg") return diag2(1, std::exp(-I1 * (kPi / 4)));
    if (n == "sx" || n == "csx") return {cplx(0.5, 0.5), cplx(0.5, -0.5), cplx(0.5, -0.5), cplx(0.5, 0.5)};
    if (n == "sxdg") return {cplx(0.5, -0.5), cplx(0.5, 0.5), cplx(0.5, 0.5), cplx(0.5, -0.5)};
    if (n == "rx" || n == "crx") {
        const double c = std::cos(p[0] / 2), s = std::sin(p[0] / 2);
        return {c, -I1 * s, -I1 * s, c};
    }
    if (n == "ry" || n == "cry") {
        const double c = std::cos(p[0] / 2), s = std::sin(p[0] / 2);
        return {c, -s, s, c};
    }
    if (n == "rz" || n == "crz") return diag2(std::exp(-I1 * (p[0] / 2)), std::exp(I1 * (p[0] / 2)));
    if (n == "cu1" || n == "cp") return diag2(1, std::exp(I1 * p[0]));
    if (n == "cu3") return u3m(p[0], p[1], p[2]);
    if (n == "cu") {
        auto m = u3m(p[0], p[1], p[2]);
        for (auto& v : m)
            v *= std::exp(I1 * p[3]);
        return m;
    }
    if (n == "swap" || n == "cswap") return {1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1};
    if (n == "rxx") {
        const cplx c = std::cos(p[0] / 2), s = -I1 * std::sin(p[0] / 2);
        return {c, 0, 0, s, 0, c, s, 0, 0, s, c, 0, s, 0, 0, c};
    }
    if (n == "rzz") {
        const cplx a = std::exp(-I1 * (p[0] / 2)), b = std::exp(I1 * (p[0] / 2));
        return {a, 0, 0, 0, 0, b, 0, 0, 0, 0, b, 0, 0, 0, 0, a};
    }
    throw std::invalid_argument("no matrix for gate '" + n + "'");
}

std::vector<cplx> stdGateMatrix(const std::string& name, const std::vector<double>& params)
{
    const StdGate* g = findStdGate(name);
    if (!g)
        throw std::invalid_argument("no matrix for gate '" + name + "'");
    auto t = stdTargetMatrix(name, params);
    if (g->controls == 0)
        return t;
    return controlled(t, 1 << (g->qubits - g->controls), g->controls);
}

std::vector<cplx> opMatrix(const Op& op)
{
    if (op.fused)
        return op.fused->matrix;
    return stdGateMatrix(op.name, op.params);
}

std::vector<cplx> matMul(const std::vector<cplx>& a, const std::vector<cplx>& b, int dim)
{
    std::vector<cplx> c(static_cast<size_t>(dim) * dim);
    for (int i = 0; i < dim; ++i)
        for (int k = 0; k < dim; ++k) {
            const cplx aik = a[static_cast<size_t>(i) * dim + k];
            if (aik == cplx(0))
                continue;
            for (int j = 0; j < dim; ++j)
                c[static_cast<size_t>(i) * dim + j] += aik * b[static_cast<size_t>(k) * dim + j];
        }
    return c;
}

std::vector<cplx> adjoint(const std::vector<cplx>& a, int dim)
{
    std::vector<cplx> c(a.size());
    for (int i = 0; i < dim; ++i)
        for (int j = 0; j < dim; ++j)
            c[static_cast<size_t>(j) * dim + i] = std::conj(a[static_cast<size_t>(i) * dim + j]);
    return c;
}

bool equalUpToPhase(const std::vector<cplx>& a, const std::vector<cplx>& b, double tol)
{
    if (a.size() != b.size())
        return false;
    // The phase from the largest entry of b, then compare everything.
    size_t k = 0;
    for (size_t i = 1; i < b.size(); ++i)
        if (std::abs(b[i]) > std::abs(b[k]))
            k = i;
    if (std::abs(b[k]) < tol)
        return std::all_of(a.begin(), a.end(), [&](cplx v) { return std::abs(v) < tol; });
    const cplx ph = a[k] / b[k];
    if (std::fabs(std::abs(ph) - 1) > tol)
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::abs(a[i] - ph * b[i]) > tol)
            return false;
    return true;
}

bool isIdentityUpToPhase(const std::vector<cplx>& a, int dim, double tol)
{
    std::vector<cplx> id(static_cast<size_t>(dim) * dim);
    for (int i = 0; i < dim; ++i)
        id[static_cast<size_t>(i) * dim + i] = 1;
    return equalUpToPhase(a, id, tol);
}

std::vector<double> interleavedMatrix(const std::vector<cplx>& m)
{
    std::vector<double> out(2 * m.size());
    for (size_t i = 0; i < m.size(); ++i) {
        out[2 * i] = m[i].real();
        out[2 * i + 1] = m[i].imag();
    }
    return out;
}

bool isDiagonal(const std::vector<cplx>& a, int dim, double tol)
{
    // |x| > tol as |x|^2 > tol^2 (std::abs is a hypot call; the fuse pass tests every product it builds), and
    // tol = 0 as x != 0, which no underflow of the square can hide.
    const double tol2 = tol * tol;
    for (int i = 0; i < dim; ++i)
        for (int j = 0; j < dim; ++j) {
            const cplx x = a[static_cast<size_t>(i) * dim + j];
            if (i != j && (tol == 0 ? x != cplx(0) : std::norm(x) > tol2))
                return false;
        }
    return true;
}

std::vector<cplx> embedMatrix(const std::vector<cplx>& m, const std::vector<int>& opQubits, const std::vector<int>& onto)
{
    const int k = static_cast<int>(opQubits.size()), n = static_cast<int>(onto.size());
    const int dim = 1 << n, sub = 1 << k;
    std::vector<int> pos(k);
    for (int j = 0; j < k; ++j)
        pos[j] = static_cast<int>(std::find(onto.begin(), onto.end(), opQubits[j]) - onto.begin());
    int opMask = 0;
    for (int j = 0; j < k; ++j)
        opMask |= 1 << pos[j];
    auto subIndex = [&](int full) {
        int s = 0;
        for (int j = 0; j < k; ++j)
            s |= ((full >> pos[j]) & 1) << j;
        return s;
    };
    std::vector<cplx> out(static_cast<size_t>(dim) * dim);
    for (int r = 0; r < dim; ++r)
        for (int c = 0; c < dim; ++c)
            if ((r & ~opMask) == (c & ~opMask))
                out[static_cast<size_t>(r) * dim + c] = m[static_cast<size_t>(subIndex(r)) * sub + subIndex(c)];
    return out;
}

void u3Angles(const std::vector<cplx>& m, double& theta, double& phi, double& lambda)
{
    // U = e^{ig} [[cos(t/2), -e^{il} sin(t/2)], [e^{ip} sin(t/2), e^{i(p+l)} cos(t/2)]]
    const double a = std::abs(m[0]), b = std::abs(m[2]);
    theta = 2 * std::atan2(b, a);
    if (b < 1e-12) {   // diagonal: only p+l matters
        phi = 0;
        lambda = std::arg(m[3]) - std::arg(m[0]);
    } else if (a < 1e-12) {   // anti-diagonal: only p-l matters
        lambda = 0;
        phi = std::arg(m[2]) - std::arg(-m[1]);
    } else {
        const double g = std::arg(m[0]);
        phi = std::arg(m[2]) - g;
        lambda = std::arg(-m[1]) - g;
    }
    auto norm = [](double x) {
        x = std::remainder(x, 2 * kPi);
        return std::fabs(x) < 1e-15 ? 0.0 : x;
    };
    phi = norm(phi);
    lambda = norm(lambda);
}

std::string_view builtinQelib()
{
    static const char* text = R"QASM(// qelib1.inc built into Spyglass: the QE standard header plus Qiskit's later gates.
gate u3(theta,phi,lambda) q { U(theta,phi,lambda) q; }
gate u2(phi,lambda) q { U(pi/2,phi,lambda) q; }
gate u1(lambda) q { U(0,0,lambda) q; }
gate cx c,t { CX c,t; }
gate id a { U(0,0,0) a; }
gate u0(gamma) q { U(0,0,0) q; }
gate u(theta,phi,lambda) q { U(theta,phi,lambda) q; }
gate p(lambda) q { U(0,0,lambda) q; }
gate x a { u3(pi,0,pi) a; }
gate y a { u3(pi,pi/2,pi/2) a; }
gate z a { u1(pi) a; }
gate h a { u2(0,pi) a; }
gate s a { u1(pi/2) a; }
gate sdg a { u1(-pi/2) a; }
gate t a { u1(pi/4) a; }
gate tdg a { u1(-pi/4) a; }
gate rx(theta) a { u3(theta,-pi/2,pi/2) a; }
gate ry(theta) a { u3(theta,0,0) a; }
gate rz(phi) a { u1(phi) a; }
gate sx a { sdg a; h a; sdg a; }
gate sxdg a { s a; h a; s a; }
gate cz a,b { h b; cx a,b; h b; }
gate cy a,b { sdg b; cx a,b; s b; }
gate swap a,b { cx a,b; cx b,a; cx a,b; }
gate ch a,b { h b; sdg b; cx a,b; h b; t b; cx a,b; t b; h b; s b; x b; s a; }
gate ccx a,b,c { h c; cx b,c; tdg c; cx a,c; t c; cx b,c; tdg c; cx a,c; t b; t c; h c; cx a,b; t a; tdg b; cx a,b; }
gate cswap a,b,c { cx c,b; ccx a,b,c; cx c,b; }
gate crx(lambda) a,b { u1(pi/2) b; cx a,b; u3(-lambda/2,0,0) b; cx a,b; u3(lambda/2,-pi/2,0) b; }
gate cry(lambda) a,b { ry(lambda/2) b; cx a,b; ry(-lambda/2) b; cx a,b; }
gate crz(lambda) a,b { rz(lambda/2) b; cx a,b; rz(-lambda/2) b; cx a,b; }
gate cu1(lambda) a,b { u1(lambda/2) a; cx a,b; u1(-lambda/2) b; cx a,b; u1(lambda/2) b; }
gate cp(lambda) a,b { p(lambda/2) a; cx a,b; p(-lambda/2) b; cx a,b; p(lambda/2) b; }
gate cu3(theta,phi,lambda) c,t { u1((lambda+phi)/2) c; u1((lambda-phi)/2) t; cx c,t; u3(-theta/2,0,-(phi+lambda)/2) t; cx c,t; u3(theta/2,phi,0) t; }
gate csx a,b { h b; cu1(pi/2) a,b; h b; }
gate cu(theta,phi,lambda,gamma) c,t { p(gamma) c; p((lambda+phi)/2) c; p((lambda-phi)/2) t; cx c,t; u(-theta/2,0,-(phi+lambda)/2) t; cx c,t; u(theta/2,phi,0) t; }
gate rxx(theta) a,b { u3(pi/2,theta,0) a; h b; cx a,b; u1(-theta) b; cx a,b; h b; u2(-pi,pi-theta) a; }
gate rzz(theta) a,b { cx a,b; u1(theta) b; cx a,b; }
gate rccx a,b,c { u2(0,pi) c; u1(pi/4) c; cx b,c; u1(-pi/4) c; cx a,c; u1(pi/4) c; cx b,c; u1(-pi/4) c; u2(0,pi) c; }
gate rc3x a,b,c,d { u2(0,pi) d; u1(pi/4) d; cx c,d; u1(-pi/4) d; u2(0,pi) d; cx a,d; u1(pi/4) d; cx b,d; u1(-pi/4) d; cx a,d; u1(pi/4) d; cx b,d; u1(-pi/4) d; u2(0,pi) d; u1(pi/4) d; cx c,d; u1(-pi/4) d; u2(0,pi) d; }
gate c3x a,b,c,d { h d; cu1(-pi/4) a,d; h d; cx a,b; h d; cu1(pi/4) b,d; h d; cx a,b; h d; cu1(-pi/4) b,d; h d; cx b,c; h d; cu1(pi/4) c,d; h d; cx a,c; h d; cu1(-pi/4) c,d; h d; cx b,c; h d; cu1(pi/4) c,d; h d; cx a,c; h d; cu1(-pi/4) c,d; h d; }
gate c3sqrtx a,b,c,d { h d; cu1(-pi/8) a,d; h d; cx a,b; h d; cu1(pi/8) b,d; h d; cx a,b; h d; cu1(-pi/8) b,d; h d; cx b,c; h d; cu1(pi/8) c,d; h d; cx a,c; h d; cu1(-pi/8) c,d; h d; cx b,c; h d; cu1(pi/8) c,d; h d; cx a,c; h d; cu1(-pi/8) c,d; h d; }
gate c4x a,b,c,d,e { h e; cu1(-pi/2) d,e; h e; c3x a,b,c,d; h e; cu1(pi/2) d,e; h e; c3x a,b,c,d; c3sqrtx a,b,c,e; }
)QASM";
    return text;
}

}  // namespace spyglass::quantum
