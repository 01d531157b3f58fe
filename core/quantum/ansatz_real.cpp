#include "core/quantum/ansatz_real.h"

#include "core/common/host_memory.h"

#include "core/common/diagnostics.h"
#include "core/quantum/pauli_expectation.h"
#include "core/quantum/real_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <omp.h>
#include <sstream>
#include <stdexcept>
#include <string>

namespace spyglass::quantum {

struct RealAnsatzState::Impl {
    RealTiling tiling;
    std::vector<double> cs, sn;        // cos/sin(theta/2), (layers+1) x n
    std::vector<double> lowProduct;    // first-layer product over the low qubits, 2^b
    // CZ ring sign bits of a chunk-local index k, for the 4 combinations of the two chunk bits that pair with
    // low qubits (qubit b with b-1; qubit n-1 with 0): signTable[sel][k].
    std::vector<unsigned char> signTable[4];
};

RealAnsatzState::RealAnsatzState(int n, int layers, Precision p) : RealAnsatzState(n, layers, p, realTiling(std::clamp(n, 1, 40))) {}

RealAnsatzState::RealAnsatzState(int n, int layers, Precision p, RealTiling tiling) : n_(n), layers_(layers), prec_(p)
{
    if (n < 1 || n > 40)
        throw InputError(SourceLocation{}, std::to_string(n) + " qubits cannot be simulated (a state vector holds at most 40 here)");
    if (layers < 0)
        throw InputError(SourceLocation{}, "the ansatz needs a non-negative layer count");
    const size_t amp = p == Precision::Double ? sizeof(double) : sizeof(float);
    const uint64_t bytes = (uint64_t(1) << n) * amp;
    const uint64_t avail = availableMemoryBytes();
    if (avail && bytes > avail - std::min<uint64_t>(avail, 256ull << 20)) {
        std::ostringstream m;
        m.precision(3);
        m << "the " << n << "-qubit real ansatz state needs " << double(bytes) / (1ull << 30) << " GiB but only "
          << double(avail) / (1ull << 30) << " GiB of memory are available";
        throw InputError(SourceLocation{}, m.str());
    }
    if (tiling.tileQubits < 0 || tiling.tileQubits > tiling.lowQubits || tiling.lowQubits > n || (tiling.lowQubits < n && tiling.lowQubits < 2))
        throw std::invalid_argument("bad real-state tiling");
    data_ = std::aligned_alloc(64, std::max<uint64_t>(64, (bytes + 63) / 64 * 64));
    if (!data_)
        throw InputError(SourceLocation{}, "could not allocate the ansatz state (" + std::to_string(bytes >> 20) + " MiB)");
    impl_ = new Impl;
    Impl& im = *impl_;
    im.tiling = tiling;
    threads_ = std::max(1, omp_get_max_threads());
    const int b = im.tiling.lowQubits;
    im.cs.resize(size_t(layers + 1) * n);
    im.sn.resize(size_t(layers + 1) * n);
    im.lowProduct.resize(size_t(1) << b);
    // Pairs (j, j+1), j = 0..n-2, and (n-1, 0) when n > 2; see vqeAnsatz.
    const uint64_t lowLen = uint64_t(1) << b;
    for (int sel = 0; sel < 4; ++sel) {
        im.signTable[sel].resize(lowLen);
        for (uint64_t k = 0; k < lowLen; ++k) {
            int neg = 0;
            for (int j = 0; j + 1 < n && j + 1 < b; ++j)
                neg ^= int((k >> j) & (k >> (j + 1)) & 1);
            if (n > 2 && n - 1 < b)
                neg ^= int((k >> (n - 1)) & k & 1);
            if (b < n && (sel & 1))   // qubit b is 1: pair (b-1, b)
                neg ^= int((k >> (b - 1)) & 1);
            if (n > 2 && n - 1 >= b && (sel & 2))   // qubit n-1 is 1: pair (n-1, 0)
                neg ^= int(k & 1);
            im.signTable[sel][k] = static_cast<unsigned char>(neg);
        }
    }
}

RealAnsatzState::~RealAnsatzState()
{
    std::free(data_);
    delete impl_;
}

void RealAnsatzState::prepare(const std::vector<double>& theta, realk::Build build)
{
    if (theta.size() != size_t(n_) * size_t(layers_ + 1))
        throw std::invalid_argument("ansatz needs n*(layers+1) parameters");
    Impl& im = *impl_;
    for (size_t i = 0; i < theta.size(); ++i) {
        im.cs[i] = std::cos(theta[i] / 2);
        im.sn[i] = std::sin(theta[i] / 2);
    }
    // First-layer product over the low qubits, built bit by bit (2^b multiplications).
    const int b = im.tiling.lowQubits;
    double* lp = im.lowProduct.data();
    lp[0] = 1;
    for (int q = 0; q < b; ++q) {
        const uint64_t half = uint64_t(1) << q;
        for (uint64_t k = 0; k < half; ++k) {
            lp[half + k] = lp[k] * im.sn[q];
            lp[k] *= im.cs[q];
        }
    }
    realk::AnsatzPlan plan;
    plan.n = n_;
    plan.lowQubits = b;
    plan.tileQubits = im.tiling.tileQubits;
    plan.layers = layers_;
    plan.cs = im.cs.data();
    plan.sn = im.sn.data();
    plan.lowProduct = lp;
    plan.threads = threads_;
    for (int sel = 0; sel < 4; ++sel)
        plan.signTable[sel] = im.signTable[sel].data();
    if (prec_ == Precision::Double)
        realk::prepareAnsatz(static_cast<double*>(data_), plan, build);
    else
        realk::prepareAnsatz(static_cast<float*>(data_), plan, build);
}

double RealAnsatzState::expectation(const PauliSum& h, realk::Build build) const
{
    if (h.minQubits() > n_)
        throw InputError(SourceLocation{}, "the Hamiltonian acts on qubit " + std::to_string(h.minQubits() - 1) + " but the state has " +
                                               std::to_string(n_) + " qubits");
    return prec_ == Precision::Double ? expectationReal(static_cast<const double*>(data_), n_, h, impl_->tiling, build, threads_)
                                      : expectationReal(static_cast<const float*>(data_), n_, h, impl_->tiling, build, threads_);
}

void RealAnsatzState::setThreads(int threads) { threads_ = std::max(1, threads); }

double RealAnsatzState::amplitude(uint64_t i) const
{
    return prec_ == Precision::Double ? static_cast<const double*>(data_)[i] : double(static_cast<const float*>(data_)[i]);
}

void RealAnsatzState::copyTo(StateVector& sv) const
{
    if (sv.numQubits() != n_ || sv.precision() != prec_)
        throw std::invalid_argument("state vector shapes differ");
    const int64_t len = int64_t(1) << n_;
    if (prec_ == Precision::Double) {
        const double* s = static_cast<const double*>(data_);
        double* d = sv.dataDouble();
#pragma omp parallel for schedule(static) if (len >= (int64_t(1) << 16))
        for (int64_t i = 0; i < len; ++i) {
            d[2 * i] = s[i];
            d[2 * i + 1] = 0;
        }
    } else {
        const float* s = static_cast<const float*>(data_);
        float* d = sv.dataFloat();
#pragma omp parallel for schedule(static) if (len >= (int64_t(1) << 16))
        for (int64_t i = 0; i < len; ++i) {
            d[2 * i] = s[i];
            d[2 * i + 1] = 0;
        }
    }
}

}  // namespace spyglass::quantum
