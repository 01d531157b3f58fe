#include "core/quantum/vqe.h"

#include "core/common/diagnostics.h"
#include "core/quantum/ansatz_real.h"
#include "core/quantum/distributed_statevector.h"
#include "core/quantum/pipeline.h"
#include "core/quantum/simulator.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <numeric>
#include <omp.h>
#include <random>

namespace spyglass::quantum {

Circuit vqeAnsatz(int n, int layers, const std::vector<double>& theta)
{
    if (static_cast<int>(theta.size()) != n * (layers + 1))
        throw std::invalid_argument("ansatz needs n*(layers+1) parameters");
    Circuit c;
    c.name = "vqe_tfim_n" + std::to_string(n);
    c.numQubits = n;
    c.qregs.push_back({"q", n, 0});
    size_t p = 0;
    auto ryLayer = [&] {
        for (int q = 0; q < n; ++q) {
            Op op;
            op.name = "ry";
            op.qubits = {q};
            op.params = {theta[p++]};
            c.ops.push_back(op);
        }
    };
    for (int l = 0; l < layers; ++l) {
        ryLayer();
        const int pairs = n > 2 ? n : n - 1;
        for (int i = 0; i < pairs; ++i) {
            Op cz;
            cz.name = "cz";
            cz.qubits = {i, (i + 1) % n};
            c.ops.push_back(cz);
        }
    }
    ryLayer();
    return c;
}

namespace {

using Objective = std::function<double(const std::vector<double>&)>;

}  // namespace

void prepareAnsatzState(StateVector& sv, int layers, const std::vector<double>& theta)
{
    RealAnsatzState real(sv.numQubits(), layers, sv.precision());
    real.prepare(theta);
    real.copyTo(sv);
}

namespace {

void nelderMead(const Objective& f, std::vector<double> x0, int iterations, VqeResult& res, JobControl* job)
{
    const NelderMeadSettings s;
    const size_t P = x0.size();
    std::vector<std::vector<double>> simplex(P + 1, x0);
    std::vector<double> fv(P + 1);
    for (size_t i = 1; i <= P; ++i)
        simplex[i][i - 1] += s.initialStep;
    for (size_t i = 0; i <= P; ++i)
        fv[i] = f(simplex[i]);
    std::vector<size_t> order(P + 1);
    for (int it = 0; it < iterations; ++it) {
        if (job)
            job->checkpoint();
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return fv[a] < fv[b]; });
        const size_t best = order[0], worst = order[P], second = order[P - 1];
        std::vector<double> centroid(P, 0.0);
        for (size_t i = 0; i < P; ++i)
            for (size_t d = 0; d < P; ++d)
                centroid[d] += simplex[order[i]][d] / double(P);
        auto along = [&](double t) {
            std::vector<double> x(P);
            for (size_t d = 0; d < P; ++d)
                x[d] = centroid[d] + t * (simplex[worst][d] - centroid[d]);
            return x;
        };
        const auto xr = along(-s.reflection);
        const double fr = f(xr);
        if (fr < fv[best]) {
            const auto xe = along(-s.expansion);
            const double fe = f(xe);
            if (fe < fr) {
                simplex[worst] = xe;
                fv[worst] = fe;
            } else {
                simplex[worst] = xr;
                fv[worst] = fr;
            }
        } else if (fr < fv[second]) {
            simplex[worst] = xr;
            fv[worst] = fr;
        } else {
            const bool outside = fr < fv[worst];
            const auto xc = along(outside ? -s.contraction : s.contraction);
            const double fc = f(xc);
            if (fc < (outside ? fr : fv[worst])) {
                simplex[worst] = xc;
                fv[worst] = fc;
            } else {
                for (size_t i = 0; i <= P; ++i) {
                    if (i == best)
                        continue;
                    for (size_t d = 0; d < P; ++d)
                        simplex[i][d] = simplex[best][d] + s.shrink * (simplex[i][d] - simplex[best][d]);
                    fv[i] = f(simplex[i]);
                }
            }
        }
        res.history.push_back(*std::min_element(fv.begin(), fv.end()));
        if (job)
            job->report(double(it + 1) / iterations, "nelder-mead");
    }
}

void spsa(const Objective& f, std::vector<double> x, int iterations, uint64_t seed, VqeResult& res, JobControl* job)
{
    const SpsaSettings s;
    const double a = s.a, c = s.c, A = s.A, alpha = s.alpha, gamma = s.gamma;
    std::mt19937_64 rng(seed ^ 0x5bd1e995ULL);
    const size_t P = x.size();
    std::vector<double> delta(P), xp(P), xm(P);
    double best = std::numeric_limits<double>::infinity();
    for (int k = 0; k < iterations; ++k) {
        if (job)
            job->checkpoint();
        const double ak = a / std::pow(k + 1 + A, alpha), ck = c / std::pow(k + 1, gamma);
        for (size_t d = 0; d < P; ++d) {
            delta[d] = (rng() & 1) ? 1.0 : -1.0;
            xp[d] = x[d] + ck * delta[d];
            xm[d] = x[d] - ck * delta[d];
        }
        const double fp = f(xp), fm = f(xm);
        best = std::min({best, fp, fm});
        const double g = (fp - fm) / (2 * ck);
        for (size_t d = 0; d < P; ++d)
            x[d] -= ak * g * delta[d];
        res.history.push_back(best);
        if (job)
            job->report(double(k + 1) / iterations, "spsa");
    }
    best = std::min(best, f(x));
    if (!res.history.empty())
        res.history.back() = best;
}

}  // namespace

VqeResult runVqe(const VqeOptions& o, JobControl* job)
{
    const auto t0 = std::chrono::steady_clock::now();
    if (o.qubits < 1 || o.qubits > 34)
        throw InputError(SourceLocation{}, "vqe: --qubits must be between 1 and 34");
    if (o.layers < 0 || o.iterations < 0)
        throw InputError(SourceLocation{}, "vqe: layers and iterations must not be negative");
    if (o.optimizer != "nelder-mead" && o.optimizer != "spsa")
        throw InputError(SourceLocation{}, "vqe: optimizer must be nelder-mead or spsa, not '" + o.optimizer + "'");
    const PauliSum h = o.hamiltonian ? *o.hamiltonian : tfimHamiltonian(o.qubits);
    if (h.minQubits() > o.qubits)
        throw InputError(h.highestQubitAt, "the Hamiltonian acts on qubit " + std::to_string(h.minQubits() - 1) + " but there are only " +
                                               std::to_string(o.qubits) + " qubits (--qubits)");
    VqeResult res;
    // Over MPI ranks: the ansatz circuit, fused as qsim fuses, on one distributed state reused by every evaluation.
    constexpr int kDistributedFuseMax = 4;
    std::unique_ptr<distributed::DistributedState> spread;
    if (distributed::ranks() > 1) {
        spread = std::make_unique<distributed::DistributedState>(o.qubits, o.precision, kDistributedFuseMax);
        res.ranks = spread->usedRanks();
        res.note = spread->note();
    }
    const auto spreadEnergy = [&](const std::vector<double>& theta) {
        spread->setZero();
        spread->applyAll(prepareGates(prepareForSimulation(vqeAnsatz(o.qubits, o.layers, theta), kDistributedFuseMax, distributed::localQubits(o.qubits))), job);
        return spread->expectation(h);
    };
    // The ansatz's amplitudes are real: one real state, allocated once, reused by every evaluation.
    std::optional<RealAnsatzState> state;
    if (!spread)
        state.emplace(o.qubits, o.layers, o.precision);
    double bestE = std::numeric_limits<double>::infinity();
    // Thread count by measurement: on a quiet machine every core helps, but on one shared with other work a
    // second thread can cost more than it gives (the passes end in barriers, and a thread that waits for a
    // partner the scheduler has not run burns the time slice). The first 6 of every 64 evaluations alternate
    // between all threads and one, and the faster median is used until the next probe. The energies do not
    // depend on the thread count.
    const int maxThreads = std::max(1, omp_get_max_threads());
    int chosenThreads = maxThreads;
    std::vector<double> probeAll, probeOne;
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    const Objective energy = [&](const std::vector<double>& theta) {
        if (spread) {
            const double e = spreadEnergy(theta);
            ++res.evaluations;
            if (e < bestE) {
                bestE = e;
                res.parameters = theta;
            }
            return e;
        }
        const int phase = res.evaluations % 64;
        const bool probe = maxThreads > 1 && phase < 6;
        state->setThreads(probe ? ((phase & 1) ? 1 : maxThreads) : chosenThreads);
        const auto start = std::chrono::steady_clock::now();
        state->prepare(theta);
        const double e = state->expectation(h);
        if (probe) {
            (state->threads() == 1 ? probeOne : probeAll).push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            if (phase == 5) {
                chosenThreads = median(probeOne) < median(probeAll) ? 1 : maxThreads;
                probeOne.clear();
                probeAll.clear();
            }
        }
        ++res.evaluations;
        if (e < bestE) {
            bestE = e;
            res.parameters = theta;
        }
        return e;
    };
    std::mt19937_64 rng(o.seed);
    std::uniform_real_distribution<double> u(-std::numbers::pi, std::numbers::pi);
    std::vector<double> x0(static_cast<size_t>(o.qubits * (o.layers + 1)));
    for (double& v : x0)
        v = u(rng);
    if (o.optimizer == "nelder-mead")
        nelderMead(energy, x0, o.iterations, res, job);
    else
        spsa(energy, x0, o.iterations, o.seed, res, job);
    if (res.evaluations == 0)
        energy(x0);
    res.energy = bestE;
    res.wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return res;
}

namespace {

// y = H x for a Pauli sum (complex vectors).
void applyHamiltonian(const PauliSum& h, const std::vector<cplx>& x, std::vector<cplx>& y)
{
    std::fill(y.begin(), y.end(), cplx(0));
    static const cplx iPow[4] = {1, cplx(0, 1), -1, cplx(0, -1)};
    for (const PauliTerm& t : h.terms) {
        const cplx ph = t.coeff * iPow[t.numY & 3];
        for (uint64_t i = 0; i < x.size(); ++i) {
            // P|i> = i^nY (-1)^{|i & z|} |i ^ x>
            const double sign = (std::popcount(i & t.zMask) & 1) ? -1.0 : 1.0;
            y[i ^ t.xMask] += ph * sign * x[i];
        }
    }
}

// Smallest eigenvalue of the symmetric tridiagonal matrix (alpha, beta) by bisection on Sturm counts.
double smallestEigenvalue(const std::vector<double>& a, const std::vector<double>& b)
{
    const size_t m = a.size();
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (size_t i = 0; i < m; ++i) {
        const double r = (i > 0 ? std::fabs(b[i - 1]) : 0) + (i + 1 < m ? std::fabs(b[i]) : 0);
        lo = std::min(lo, a[i] - r);
        hi = std::max(hi, a[i] + r);
    }
    auto countBelow = [&](double x) {
        int count = 0;
        double d = 1;
        for (size_t i = 0; i < m; ++i) {
            d = a[i] - x - (i > 0 ? b[i - 1] * b[i - 1] / d : 0);
            if (d == 0)
                d = 1e-300;
            count += d < 0;
        }
        return count;
    };
    for (int it = 0; it < 200 && hi - lo > 1e-13 * std::max(1.0, std::fabs(lo)); ++it) {
        const double mid = 0.5 * (lo + hi);
        (countBelow(mid) >= 1 ? hi : lo) = mid;
    }
    return 0.5 * (lo + hi);
}

}  // namespace

double exactGroundEnergy(const PauliSum& h, int n)
{
    if (n < 1 || n > 20)
        throw InputError(SourceLocation{}, "exact diagonalisation is limited to 20 qubits");
    const uint64_t dim = uint64_t(1) << n;
    const size_t maxIter = static_cast<size_t>(std::min<uint64_t>(dim, 150));
    std::vector<std::vector<cplx>> V;
    std::mt19937_64 rng(12345);
    std::normal_distribution<double> g;
    std::vector<cplx> v(dim), w(dim);
    double norm = 0;
    for (auto& x : v) {
        x = cplx(g(rng), g(rng));
        norm += std::norm(x);
    }
    for (auto& x : v)
        x /= std::sqrt(norm);
    std::vector<double> alpha, beta;
    for (size_t k = 0; k < maxIter; ++k) {
        V.push_back(v);
        applyHamiltonian(h, v, w);
        cplx a = 0;
        for (uint64_t i = 0; i < dim; ++i)
            a += std::conj(v[i]) * w[i];
        alpha.push_back(a.real());
        // full reorthogonalisation against every previous vector (twice for stability)
        for (int pass = 0; pass < 2; ++pass)
            for (const auto& u : V) {
                cplx p = 0;
                for (uint64_t i = 0; i < dim; ++i)
                    p += std::conj(u[i]) * w[i];
                for (uint64_t i = 0; i < dim; ++i)
                    w[i] -= p * u[i];
            }
        double b = 0;
        for (const cplx& x : w)
            b += std::norm(x);
        b = std::sqrt(b);
        if (b < 1e-10 || k + 1 == maxIter)
            break;
        beta.push_back(b);
        for (uint64_t i = 0; i < dim; ++i)
            v[i] = w[i] / b;
    }
    beta.resize(alpha.size() > 0 ? alpha.size() - 1 : 0);
    return smallestEigenvalue(alpha, beta);
}

}  // namespace spyglass::quantum
