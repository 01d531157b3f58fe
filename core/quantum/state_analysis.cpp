#include "core/quantum/state_analysis.h"

#include "core/quantum/simulator.h"

#include <algorithm>
#include <map>

namespace spyglass::quantum {

std::vector<std::array<double, 3>> blochVectors(const std::vector<cplx>& a, int n)
{
    std::vector<std::array<double, 3>> out(static_cast<size_t>(n));
    for (int k = 0; k < n; ++k) {
        const uint64_t bit = uint64_t(1) << k;
        double p0 = 0, p1 = 0;
        cplx rho01 = 0;   // <0|ρ|1> = Σ a(i with bit k = 0) · conj(a(i with bit k = 1))
        for (uint64_t i = 0; i < a.size(); ++i) {
            if (i & bit)
                continue;
            const cplx a0 = a[i], a1 = a[i | bit];
            p0 += std::norm(a0);
            p1 += std::norm(a1);
            rho01 += a0 * std::conj(a1);
        }
        // ρ = (I + xX + yY + zZ) / 2  =>  ρ01 = (x − i y) / 2.
        out[static_cast<size_t>(k)] = {2 * rho01.real(), -2 * rho01.imag(), p0 - p1};
    }
    return out;
}

std::vector<BasisAmplitude> topAmplitudes(const std::vector<cplx>& a, size_t k)
{
    std::vector<BasisAmplitude> all;
    all.reserve(a.size());
    for (uint64_t i = 0; i < a.size(); ++i)
        all.push_back({i, a[i], std::norm(a[i])});
    k = std::min(k, all.size());
    auto byProbability = [](const BasisAmplitude& x, const BasisAmplitude& y) {
        return x.probability != y.probability ? x.probability > y.probability : x.index < y.index;
    };
    std::partial_sort(all.begin(), all.begin() + static_cast<long>(k), all.end(), byProbability);
    all.resize(k);
    return all;
}

MeasuredDistribution measuredDistribution(const Circuit& c, const std::vector<cplx>& a)
{
    MeasuredDistribution d;
    d.qubitOfClbit.assign(static_cast<size_t>(c.numClbits), -1);
    std::vector<char> measured(static_cast<size_t>(c.numQubits), 0);
    for (const Op& op : c.ops)
        if (op.kind == OpKind::Measure)
            for (size_t i = 0; i < op.qubits.size() && i < op.clbits.size(); ++i) {
                d.qubitOfClbit[static_cast<size_t>(op.clbits[i])] = op.qubits[i];
                measured[static_cast<size_t>(op.qubits[i])] = 1;
            }
    for (int q = 0; q < c.numQubits; ++q)
        if (!measured[static_cast<size_t>(q)])
            d.unmeasuredQubits.push_back(q);
    if (c.numClbits > kMaxMarginalClbits)
        return d;
    std::map<uint64_t, double> p;
    for (uint64_t i = 0; i < a.size(); ++i) {
        const double pi = std::norm(a[i]);
        if (pi == 0)
            continue;
        uint64_t bits = 0;
        for (size_t j = 0; j < d.qubitOfClbit.size(); ++j)
            if (d.qubitOfClbit[j] >= 0 && (i >> d.qubitOfClbit[j] & 1))
                bits |= uint64_t(1) << j;
        p[bits] += pi;
    }
    std::vector<char> clbits(static_cast<size_t>(c.numClbits));
    for (const auto& [bits, prob] : p) {
        if (prob <= 1e-12)
            continue;
        for (size_t j = 0; j < clbits.size(); ++j)
            clbits[j] = static_cast<char>(bits >> j & 1);
        d.outcomes.push_back({bits, countsKey(c, clbits), prob});
    }
    return d;
}

Circuit circuitPrefix(const Circuit& c, const std::vector<char>& keep)
{
    Circuit out = c;
    out.ops.clear();
    for (size_t i = 0; i < c.ops.size() && i < keep.size(); ++i)
        if (keep[i] && c.ops[i].kind != OpKind::Measure)
            out.ops.push_back(c.ops[i]);
    return out;
}

}  // namespace spyglass::quantum
