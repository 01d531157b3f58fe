#pragma once
// Helpers for the quantum suites: random circuits and states, running a circuit on a given input state,
// and comparing states up to global phase.

#include "core/quantum/circuit.h"
#include "core/quantum/gates.h"
#include "core/quantum/simulator.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace spyglass::quantum::test {

inline std::vector<cplx> randomState(int n, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g;
    std::vector<cplx> v(size_t(1) << n);
    double norm = 0;
    for (auto& a : v) {
        a = cplx(g(rng), g(rng));
        norm += std::norm(a);
    }
    for (auto& a : v)
        a /= std::sqrt(norm);
    return v;
}

// Runs the gates of `c` on `input` (all ops must be unconditioned gates or barriers).
inline std::vector<cplx> runOn(const Circuit& c, const std::vector<cplx>& input, Precision p = Precision::Double)
{
    StateVector sv(c.numQubits, p);
    sv.setAmplitudes(input);
    Circuit gates = c;
    gates.ops.clear();
    for (const Op& op : c.ops)
        if (op.kind == OpKind::Gate)
            gates.ops.push_back(op);
    applyGates(gates, sv);
    return sv.amplitudes();
}

// |<a|b>| close to 1 for normalised states: equal up to global phase.
inline double fidelity(const std::vector<cplx>& a, const std::vector<cplx>& b)
{
    cplx s = 0;
    for (size_t i = 0; i < a.size(); ++i)
        s += std::conj(a[i]) * b[i];
    return std::abs(s);
}

// The largest |a_i - b_i| over two states of the same size.
inline double maxDifference(const StateVector& a, const StateVector& b)
{
    double diff = 0;
    for (uint64_t i = 0; i < a.size(); ++i)
        diff = std::max(diff, std::abs(a.amplitude(i) - b.amplitude(i)));
    return diff;
}

// Two states set to `input`: `one` with `gates` applied one by one (StateVector::apply, no cache blocking), `other`
// untouched, for a test to apply them its own way and compare.
struct GateByGate {
    StateVector one, other;
    GateByGate(int n, Precision p, const std::vector<cplx>& input, const std::vector<kernels::PreparedGate>& gates)
        : one(n, p), other(n, p)
    {
        one.setAmplitudes(input);
        other.setAmplitudes(input);
        for (const auto& g : gates)
            one.apply(g);
    }
};

// Appends the standard gate `name` on `qubits` to c.
inline void addGate(Circuit& c, const char* name, std::vector<int> qubits, std::vector<double> params = {})
{
    Op op;
    op.name = name;
    op.qubits = std::move(qubits);
    op.params = std::move(params);
    c.ops.push_back(op);
}

// Random circuit over many standard gates (1-3 qubits), unconditioned.
inline Circuit randomCircuit(int n, int gates, uint64_t seed, bool onlyUpToTwoQubits = false)
{
    static const char* names[] = {"h", "x", "y", "z", "s", "sdg", "t", "tdg", "sx", "sxdg", "rx", "ry", "rz", "p", "u1", "u2", "u3",
                                  "id", "cx", "cy", "cz", "ch", "csx", "crx", "cry", "crz", "cp", "cu1", "cu3", "cu", "swap", "rxx",
                                  "rzz", "ccx", "cswap"};
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> ang(-4, 4);
    Circuit c;
    c.name = "random";
    c.numQubits = n;
    c.qregs.push_back({"q", n, 0});
    const int count = sizeof(names) / sizeof(names[0]);
    while (static_cast<int>(c.ops.size()) < gates) {
        const StdGate* g = findStdGate(names[rng() % count]);
        if (g->qubits > n || (onlyUpToTwoQubits && g->qubits > 2))
            continue;
        Op op;
        op.name = g->name;
        std::vector<int> qs;
        while (static_cast<int>(qs.size()) < g->qubits) {
            const int q = static_cast<int>(rng() % n);
            if (std::find(qs.begin(), qs.end(), q) == qs.end())
                qs.push_back(q);
        }
        op.qubits = qs;
        for (int i = 0; i < g->params; ++i)
            op.params.push_back(ang(rng));
        c.ops.push_back(op);
        // Sometimes repeat or invert, so the optimisation passes have something to find.
        if (rng() % 4 == 0)
            c.ops.push_back(op);
    }
    return c;
}

}  // namespace spyglass::quantum::test
