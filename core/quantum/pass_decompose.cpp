// decompose: rewrites every gate into a hardware basis, {u3, cx} or {rz, sx, x, cx}. Multi-qubit gates expand
// by their qelib1 definitions (exact up to global phase) down to cx and single-qubit gates; each single-qubit
// gate becomes u3(theta, phi, lambda) from its matrix, or rz(phi+pi) sx rz(theta+pi) sx rz(lambda).
#include "core/quantum/pass.h"

#include "core/quantum/gates.h"

#include <cmath>
#include <numbers>

namespace spyglass::quantum {

namespace {

constexpr double kPi = std::numbers::pi;

class Decompose : public Pass {
public:
    explicit Decompose(Basis b) : basis_(b) {}
    std::string name() const override { return "decompose"; }
    std::string description() const override
    {
        return basis_ == Basis::U3Cx ? "rewrite every gate into the {u3, cx} basis" : "rewrite every gate into the {rz, sx, x, cx} basis";
    }
    PassResult run(Circuit& c, PassContext&) override
    {
        std::vector<Op> out;
        out.reserve(c.ops.size() * 2);
        rewritten_ = 0;
        for (const Op& op : c.ops)
            lower(c, op, out, 0);
        const size_t before = c.ops.size();
        c.ops = std::move(out);
        PassResult r;
        r.changed = rewritten_ > 0;
        r.summary = "rewrote " + std::to_string(rewritten_) + " gate(s) into " + (basis_ == Basis::U3Cx ? "{u3, cx}" : "{rz, sx, x, cx}") +
                    "; " + std::to_string(before) + " -> " + std::to_string(c.ops.size()) + " ops";
        return r;
    }

private:
    bool inBasis(const Op& op) const
    {
        if (op.name == "cx")
            return true;
        if (basis_ == Basis::U3Cx)
            return op.name == "u3";
        return op.name == "rz" || op.name == "sx" || op.name == "x";
    }

    void lower(const Circuit& c, const Op& op, std::vector<Op>& out, int depth)
    {
        if (op.kind != OpKind::Gate || inBasis(op)) {
            out.push_back(op);
            return;
        }
        if (op.name == "CX") {
            Op n = op;
            n.name = "cx";
            out.push_back(n);
            ++rewritten_;
            return;
        }
        if (op.qubits.size() == 1 && (op.fused || findStdGate(op.name))) {
            ++rewritten_;
            oneQubit(op, opMatrix(op), out);
            return;
        }
        const GateDef* def = passutil::definitionFor(c, op.name);
        if (op.fused || !def || def->opaque || depth > 64)
            throw InputError(SourceLocation{c.name, op.line, 0}, "decompose: gate '" + op.name + "' has no definition to expand");
        ++rewritten_;
        std::vector<Op> body;
        passutil::expandOnce(*def, op, body);
        for (const Op& b : body)
            lower(c, b, out, depth + 1);
    }

    void emit(const Op& proto, const char* name, std::vector<double> params, std::vector<Op>& out)
    {
        Op n;
        n.name = name;
        n.params = std::move(params);
        n.qubits = proto.qubits;
        n.cond = proto.cond;
        n.line = proto.line;
        out.push_back(std::move(n));
    }

    void oneQubit(const Op& op, const std::vector<cplx>& m, std::vector<Op>& out)
    {
        double th, ph, la;
        u3Angles(m, th, ph, la);
        if (basis_ == Basis::U3Cx) {
            emit(op, "u3", {th, ph, la}, out);
            return;
        }
        if (std::fabs(th) < 1e-12) {
            emit(op, "rz", {std::remainder(ph + la, 2 * kPi)}, out);
            return;
        }
        if (std::fabs(th - kPi) < 1e-12 && std::fabs(std::remainder(ph + la, 2 * kPi)) < 1e-12 && std::fabs(la - kPi) < 1e-12) {
            emit(op, "x", {}, out);   // u3(pi, 0, pi)
            return;
        }
        // u3(t, p, l) = e^{ig} rz(p + pi) sx rz(t + pi) sx rz(l)   (applied right to left)
        emit(op, "rz", {std::remainder(la, 2 * kPi)}, out);
        emit(op, "sx", {}, out);
        emit(op, "rz", {std::remainder(th + kPi, 2 * kPi)}, out);
        emit(op, "sx", {}, out);
        emit(op, "rz", {std::remainder(ph + kPi, 2 * kPi)}, out);
    }

    Basis basis_;
    int rewritten_ = 0;
};

}  // namespace

std::unique_ptr<Pass> makeDecomposePass(Basis basis) { return std::make_unique<Decompose>(basis); }

}  // namespace spyglass::quantum
