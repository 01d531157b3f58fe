#include "core/quantum/state_analysis.h"

#include <algorithm>

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

}  // namespace spyglass::quantum
