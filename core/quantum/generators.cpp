#include "core/quantum/generators.h"

#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>

namespace spyglass::quantum {

namespace {

Circuit base(const std::string& name, int qubits, int clbits)
{
    if (qubits < 1 || qubits > 64)
        throw std::invalid_argument(name + ": number of qubits must be between 1 and 64");
    Circuit c;
    c.name = name;
    c.numQubits = qubits;
    c.qregs.push_back({"q", qubits, 0});
    if (clbits > 0) {
        c.numClbits = clbits;
        c.cregs.push_back({"c", clbits, 0});
    }
    return c;
}

void gate(Circuit& c, const char* name, std::vector<int> qubits, std::vector<double> params = {})
{
    Op op;
    op.name = name;
    op.qubits = std::move(qubits);
    op.params = std::move(params);
    c.ops.push_back(std::move(op));
}

void measureAll(Circuit& c, int count)
{
    for (int q = 0; q < count; ++q) {
        Op m;
        m.kind = OpKind::Measure;
        m.name = "measure";
        m.qubits = {q};
        m.clbits = {q};
        c.ops.push_back(m);
    }
}

// Z on the all-ones state of `qs` (multi-controlled Z), built from h + ccx/cx/c3x for up to 4 qubits.
void multiControlledZ(Circuit& c, const std::vector<int>& qs)
{
    const int t = qs.back();
    switch (qs.size()) {
    case 1: gate(c, "z", {t}); return;
    case 2: gate(c, "cz", {qs[0], t}); return;
    case 3:
        gate(c, "h", {t});
        gate(c, "ccx", {qs[0], qs[1], t});
        gate(c, "h", {t});
        return;
    default: throw std::invalid_argument("grover: at most 3 qubits are supported");
    }
}

}  // namespace

Circuit makeQft(int n, uint64_t input, bool measure)
{
    Circuit c = base("qft_n" + std::to_string(n), n, measure ? n : 0);
    for (int q = 0; q < n; ++q)
        if (input >> q & 1)
            gate(c, "x", {q});
    for (int j = n - 1; j >= 0; --j) {
        gate(c, "h", {j});
        for (int k = j - 1; k >= 0; --k)
            gate(c, "cp", {k, j}, {std::numbers::pi / std::ldexp(1.0, j - k)});
    }
    for (int i = 0; i < n / 2; ++i)
        gate(c, "swap", {i, n - 1 - i});
    if (measure)
        measureAll(c, n);
    return c;
}

Circuit makeDeutschJozsa(int n, bool balanced, uint64_t mask)
{
    Circuit c = base(std::string("dj_") + (balanced ? "balanced" : "constant") + "_n" + std::to_string(n), n + 1, n);
    const int anc = n;
    if (balanced && mask == 0)
        mask = n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1;
    gate(c, "x", {anc});
    for (int q = 0; q <= n; ++q)
        gate(c, "h", {q});
    if (balanced) {
        for (int q = 0; q < n; ++q)
            if (mask >> q & 1)
                gate(c, "cx", {q, anc});
    } else if (mask & 1) {
        gate(c, "x", {anc});   // f(x) = 1
    }
    for (int q = 0; q < n; ++q)
        gate(c, "h", {q});
    measureAll(c, n);
    return c;
}

Circuit makeGhz(int n)
{
    Circuit c = base("ghz_n" + std::to_string(n), n, n);
    gate(c, "h", {0});
    for (int q = 0; q + 1 < n; ++q)
        gate(c, "cx", {q, q + 1});
    measureAll(c, n);
    return c;
}

Circuit makeBernsteinVazirani(int n, uint64_t secret)
{
    Circuit c = makeDeutschJozsa(n, true, secret == 0 ? 0 : secret);
    if (secret == 0) {   // the all-zero secret: no oracle gates at all
        c = makeDeutschJozsa(n, false, 0);
    }
    c.name = "bv_n" + std::to_string(n);
    return c;
}

Circuit makeGrover(int n, uint64_t marked)
{
    if (n < 1 || n > 3)
        throw std::invalid_argument("grover: 1 to 3 qubits");
    Circuit c = base("grover_n" + std::to_string(n), n, n);
    std::vector<int> all;
    for (int q = 0; q < n; ++q)
        all.push_back(q);
    for (int q : all)
        gate(c, "h", {q});
    const int iterations = std::max(1, static_cast<int>(std::floor(std::numbers::pi / 4 * std::sqrt(std::ldexp(1.0, n)))));
    for (int it = 0; it < iterations; ++it) {
        // oracle: phase -1 on |marked>
        for (int q : all)
            if (!(marked >> q & 1))
                gate(c, "x", {q});
        multiControlledZ(c, all);
        for (int q : all)
            if (!(marked >> q & 1))
                gate(c, "x", {q});
        // diffusion: 2|s><s| - 1
        for (int q : all)
            gate(c, "h", {q});
        for (int q : all)
            gate(c, "x", {q});
        multiControlledZ(c, all);
        for (int q : all)
            gate(c, "x", {q});
        for (int q : all)
            gate(c, "h", {q});
    }
    measureAll(c, n);
    return c;
}

Circuit makeRandomLayers(int n, int layers, uint64_t seed)
{
    Circuit c = base("random_layers_n" + std::to_string(n), n, 0);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> angle(0, 2 * std::numbers::pi);
    const char* rotations[] = {"rx", "ry", "rz"};
    for (int l = 0; l < layers; ++l) {
        for (int q = 0; q < n; ++q) {
            const char* name = rotations[rng() % 3];
            gate(c, name, {q}, {angle(rng)});
        }
        for (int q = l % 2; q + 1 < n; q += 2)
            gate(c, "cz", {q, q + 1});
    }
    return c;
}

}  // namespace spyglass::quantum
