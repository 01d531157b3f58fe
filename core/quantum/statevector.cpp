#include "core/quantum/statevector.h"

#include "core/common/diagnostics.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace spyglass::quantum {

uint64_t availableMemoryBytes()
{
    std::ifstream in("/proc/meminfo");
    std::string key;
    uint64_t kb = 0;
    std::string unit;
    while (in >> key >> kb >> unit)
        if (key == "MemAvailable:")
            return kb * 1024;
    const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : 0;
}

void checkMemory(int n, Precision p, int copies)
{
    const int amp = p == Precision::Double ? 16 : 8;
    if (n < 0 || n > 40)
        throw InputError(SourceLocation{}, std::to_string(n) + " qubits cannot be simulated (a state vector holds at most 40 here)");
    const uint64_t need = (uint64_t(1) << n) * amp * copies;
    const uint64_t avail = availableMemoryBytes();
    if (avail && need > avail - std::min<uint64_t>(avail, 256ull << 20)) {
        std::ostringstream m;
        m.precision(3);
        m << n << " qubits in " << (p == Precision::Double ? "complex128" : "complex64") << " need " << double(need) / (1ull << 30)
          << " GiB" << (copies > 1 ? " (" + std::to_string(copies) + " state copies)" : std::string()) << " but only "
          << double(avail) / (1ull << 30) << " GiB of memory are available";
        if (p == Precision::Double)
            m << "; try --precision single";
        throw InputError(SourceLocation{}, m.str());
    }
}

StateVector::StateVector(int n, Precision p) : n_(n), prec_(p)
{
    checkMemory(n, p);
    const size_t bytes = std::max<size_t>(64, (size_t(1) << n) * (p == Precision::Double ? 16 : 8));
    data_ = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!data_)
        throw InputError(SourceLocation{}, "could not allocate the state vector (" + std::to_string(bytes >> 20) + " MiB)");
    setZero();
}

StateVector::~StateVector() { std::free(data_); }

namespace {
template <class T>
T* as(void* p) { return static_cast<T*>(p); }
}  // namespace

void StateVector::setZero()
{
    const int64_t len = int64_t(2 * size());
    if (prec_ == Precision::Double) {
        double* d = dataDouble();
#pragma omp parallel for schedule(static) if (len > (int64_t(1) << 18))
        for (int64_t i = 0; i < len; ++i)
            d[i] = 0;
        d[0] = 1;
    } else {
        float* f = dataFloat();
#pragma omp parallel for schedule(static) if (len > (int64_t(1) << 18))
        for (int64_t i = 0; i < len; ++i)
            f[i] = 0;
        f[0] = 1;
    }
}

void StateVector::copyFrom(const StateVector& o)
{
    if (o.n_ != n_ || o.prec_ != prec_)
        throw std::invalid_argument("state vector shapes differ");
    std::memcpy(data_, o.data_, size() * (prec_ == Precision::Double ? 16 : 8));
}

void StateVector::setAmplitudes(const std::vector<cplx>& a)
{
    if (a.size() != size())
        throw std::invalid_argument("wrong number of amplitudes");
    for (uint64_t i = 0; i < size(); ++i) {
        if (prec_ == Precision::Double) {
            dataDouble()[2 * i] = a[i].real();
            dataDouble()[2 * i + 1] = a[i].imag();
        } else {
            dataFloat()[2 * i] = float(a[i].real());
            dataFloat()[2 * i + 1] = float(a[i].imag());
        }
    }
}

cplx StateVector::amplitude(uint64_t i) const
{
    if (prec_ == Precision::Double)
        return {as<double>(data_)[2 * i], as<double>(data_)[2 * i + 1]};
    return {as<float>(data_)[2 * i], as<float>(data_)[2 * i + 1]};
}

std::vector<cplx> StateVector::amplitudes() const
{
    std::vector<cplx> out(size());
    for (uint64_t i = 0; i < size(); ++i)
        out[i] = amplitude(i);
    return out;
}

void StateVector::apply(const kernels::PreparedGate& g)
{
    if (prec_ == Precision::Double)
        kernels::apply(dataDouble(), n_, g);
    else
        kernels::apply(dataFloat(), n_, g);
}

namespace {
constexpr int kChunkQubits = 13;   // 2^13 amplitudes: 128 KiB in complex128, fits in L2
constexpr int kTileAmplitudeQubits = 15;   // a tile holds <= 2^15 amplitudes (512 KiB in complex128) when it can

// Parity of the set bits without a popcount instruction (the portable build has none; a libcall per
// amplitude would dominate the expectation value).
inline int parity(uint64_t x)
{
    x ^= x >> 32;
    x ^= x >> 16;
    x ^= x >> 8;
    x ^= x >> 4;
    return (0x6996 >> (x & 0xf)) & 1;
}

}  // namespace

void StateVector::applyChunked(const kernels::PreparedGate* gates, size_t count, int cq)
{
    std::vector<const kernels::PreparedGate*> list(count);
    for (size_t i = 0; i < count; ++i)
        list[i] = &gates[i];
    applyChunkRun(list.data(), count, cq);
}

void StateVector::applyChunkRun(const kernels::PreparedGate* const* gates, size_t count, int cq)
{
    const int64_t chunks = int64_t(1) << (n_ - cq);
    const uint64_t chunkLen = uint64_t(2) << cq;
#pragma omp parallel for schedule(dynamic, 1) if (chunks >= 4)
    for (int64_t ch = 0; ch < chunks; ++ch)
        for (size_t i = 0; i < count; ++i) {
            if (prec_ == Precision::Double)
                kernels::apply(dataDouble() + ch * chunkLen, cq, *gates[i]);
            else
                kernels::apply(dataFloat() + ch * chunkLen, cq, *gates[i]);
        }
}

namespace {

// A tile: 2^w contiguous amplitudes (qubits < w) of every one of the 2^(n-b) rows (qubits >= b), copied into a
// contiguous buffer of w + n - b qubits, where tile qubit j is state qubit j (j < w) or j - w + b (j >= w).
template <class T>
void tileRun(T* a, int n, int b, int w, const std::vector<kernels::PreparedGate>& mapped)
{
    const int h = n - b, tq = w + h;
    const int64_t tiles = int64_t(1) << (b - w);
    const uint64_t cols = uint64_t(1) << w, rows = uint64_t(1) << h;
#pragma omp parallel if (tiles >= 2)
    {
        T* buf = static_cast<T*>(std::aligned_alloc(64, (size_t(2) << tq) * sizeof(T)));
#pragma omp for schedule(dynamic, 1)
        for (int64_t t = 0; t < tiles; ++t) {
            for (uint64_t r = 0; r < rows; ++r)
                std::memcpy(buf + 2 * (r << w), a + 2 * ((r << b) | (uint64_t(t) << w)), 2 * cols * sizeof(T));
            for (const kernels::PreparedGate& g : mapped)
                kernels::apply(buf, tq, g);
            for (uint64_t r = 0; r < rows; ++r)
                std::memcpy(a + 2 * ((r << b) | (uint64_t(t) << w)), buf + 2 * (r << w), 2 * cols * sizeof(T));
        }
        std::free(buf);
    }
}

uint64_t qubitMask(const kernels::PreparedGate& g)
{
    uint64_t m = 0;
    for (int j = 0; j < g.k; ++j)
        m |= uint64_t(1) << g.targets[j];
    for (int c : g.controls)
        m |= uint64_t(1) << c;
    return m;
}

}  // namespace

void StateVector::applyTileRun(const kernels::PreparedGate* const* gates, size_t count, int b, int w)
{
    // The qubit map is monotonic, so targets stay ascending and every matrix stays as prepared.
    auto map = [&](int q) { return q < w ? q : q - b + w; };
    std::vector<kernels::PreparedGate> mapped;
    mapped.reserve(count);
    for (size_t i = 0; i < count; ++i) {
        kernels::PreparedGate g = *gates[i];
        for (int j = 0; j < g.k; ++j)
            g.targets[j] = map(g.targets[j]);
        for (int& c : g.controls)
            c = map(c);
        mapped.push_back(std::move(g));
    }
    if (prec_ == Precision::Double)
        tileRun(dataDouble(), n_, b, w, mapped);
    else
        tileRun(dataFloat(), n_, b, w, mapped);
}

void StateVector::applyAll(const std::vector<kernels::PreparedGate>& gates)
{
    if (n_ <= kChunkQubits + 1) {
        for (const kernels::PreparedGate& g : gates)
            apply(g);
        return;
    }
    // Cache blocking: a gate whose qubits are all < b runs chunk by chunk (2^b contiguous amplitudes in cache); a
    // gate whose qubits are all < w or >= b runs tile by tile (2^w columns x all 2^(n-b) high rows, <= 2^15
    // amplitudes). Gates on disjoint qubits commute, so each step takes the longest run of chunk-local (or
    // tile-local) gates that can move to the front past the gates it skips, and applies it in one memory pass;
    // a gate that fits neither (or a run of one) is applied alone.
    const int b = kChunkQubits, h = n_ - b;
    const int w = std::clamp(kTileAmplitudeQubits - h, 2, b);
    const uint64_t all = n_ >= 64 ? ~uint64_t(0) : (uint64_t(1) << n_) - 1;
    const uint64_t chunkSpan = (uint64_t(1) << b) - 1;
    const uint64_t tileSpan = ((uint64_t(1) << w) - 1) | (all & ~chunkSpan);
    const size_t count = gates.size();
    std::vector<uint64_t> masks(count);
    for (size_t i = 0; i < count; ++i)
        masks[i] = qubitMask(gates[i]);
    std::vector<char> done(count, 0);
    std::vector<size_t> run[2];
    std::vector<const kernels::PreparedGate*> list;
    size_t first = 0;
    while (first < count) {
        for (int kind = 0; kind < 2; ++kind) {
            const uint64_t span = kind == 0 ? chunkSpan : tileSpan;
            run[kind].clear();
            uint64_t blocked = 0;
            for (size_t i = first; i < count && blocked != all; ++i) {
                if (done[i])
                    continue;
                if ((masks[i] & ~span) == 0 && (masks[i] & blocked) == 0)
                    run[kind].push_back(i);
                else
                    blocked |= masks[i];
            }
        }
        const int kind = run[1].size() > run[0].size() ? 1 : 0;
        if (run[kind].size() < 2) {
            apply(gates[first]);
            done[first] = 1;
        } else {
            list.clear();
            for (size_t i : run[kind]) {
                list.push_back(&gates[i]);
                done[i] = 1;
            }
            if (kind == 0)
                applyChunkRun(list.data(), list.size(), b);
            else
                applyTileRun(list.data(), list.size(), b, w);
        }
        while (first < count && done[first])
            ++first;
    }
}

namespace {

template <class T>
double probOne(const T* a, int n, int q)
{
    const int64_t half = int64_t(1) << (n - 1);
    double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static) if (half > (int64_t(1) << 17))
    for (int64_t i = 0; i < half; ++i) {
        const uint64_t idx = ((uint64_t(i) >> q) << (q + 1)) | (uint64_t(i) & ((uint64_t(1) << q) - 1)) | (uint64_t(1) << q);
        s += double(a[2 * idx]) * a[2 * idx] + double(a[2 * idx + 1]) * a[2 * idx + 1];
    }
    return s;
}

template <class T>
void collapseImpl(T* a, int n, int q, int outcome, double prob)
{
    const int64_t len = int64_t(1) << n;
    const T scale = T(1 / std::sqrt(prob));
#pragma omp parallel for schedule(static) if (len > (int64_t(1) << 18))
    for (int64_t i = 0; i < len; ++i) {
        if (int((uint64_t(i) >> q) & 1) == outcome) {
            a[2 * i] *= scale;
            a[2 * i + 1] *= scale;
        } else {
            a[2 * i] = 0;
            a[2 * i + 1] = 0;
        }
    }
}

template <class T>
double norm2Impl(const T* a, int n)
{
    const int64_t len = int64_t(2) << n;
    double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static) if (len > (int64_t(1) << 18))
    for (int64_t i = 0; i < len; ++i)
        s += double(a[i]) * a[i];
    return s;
}

// <psi|P|psi> for one Pauli string restricted to amplitudes [begin, end): sum_i conj(psi[i^x]) s(i) psi[i]
// with s(i) = (-1)^{|i & z|}, then multiplied by i^numY (only the real part is kept: P is Hermitian).
template <class T>
double termRange(const T* a, const PauliTerm& t, uint64_t begin, uint64_t end)
{
    double sr = 0, si = 0;
    const uint64_t x = t.xMask, z = t.zMask;
    if (z == 0 && t.numY == 0) {
        // P = product of X: terms i and i^x are complex conjugates, so sum one of each pair, twice the real part.
        const uint64_t low = x & (~x + 1);
        for (uint64_t i = begin; i < end; ++i) {
            if (i & low)
                continue;
            const uint64_t j = i ^ x;
            sr += 2 * (double(a[2 * j]) * a[2 * i] + double(a[2 * j + 1]) * a[2 * i + 1]);
        }
        return t.coeff * sr;
    }
    if (z == 0) {
        for (uint64_t i = begin; i < end; ++i) {
            const uint64_t j = i ^ x;
            const double ar = a[2 * j], ai = -double(a[2 * j + 1]), br = a[2 * i], bi = a[2 * i + 1];
            sr += ar * br - ai * bi;
            si += ar * bi + ai * br;
        }
    } else {
        for (uint64_t i = begin; i < end; ++i) {
            const uint64_t j = i ^ x;
            const double sign = parity(i & z) ? -1.0 : 1.0;
            const double ar = a[2 * j], ai = -double(a[2 * j + 1]), br = a[2 * i], bi = a[2 * i + 1];
            sr += sign * (ar * br - ai * bi);
            si += sign * (ar * bi + ai * br);
        }
    }
    switch (t.numY & 3) {
    case 0: return t.coeff * sr;
    case 1: return -t.coeff * si;
    case 2: return -t.coeff * sr;
    default: return t.coeff * si;
    }
}

template <class T>
double expectationImpl(const T* a, int n, const PauliSum& h)
{
    // Work in blocks of 2^b amplitudes that stay in cache: all diagonal terms and every term that only flips
    // qubits inside the block are summed in one memory pass; terms flipping higher qubits get a pass each.
    const int b = std::min(n, kChunkQubits);
    const int64_t blocks = int64_t(1) << (n - b);
    const int64_t blen = int64_t(1) << b;
    std::vector<PauliTerm> diag, low, high;
    for (const PauliTerm& t : h.terms)
        (t.xMask == 0 ? diag : t.xMask < (uint64_t(1) << b) ? low : high).push_back(t);
    std::vector<double> diagTable(diag.size() * 256);
    for (size_t j = 0; j < diag.size(); ++j)
        for (uint64_t k = 0; k < 256; ++k)
            diagTable[j * 256 + k] = parity(k & diag[j].zMask) ? -diag[j].coeff : diag[j].coeff;
    double total = 0;
#pragma omp parallel for reduction(+ : total) schedule(static) if (blocks >= 4)
    for (int64_t blk = 0; blk < blocks; ++blk) {
        const uint64_t begin = uint64_t(blk * blen), end = begin + uint64_t(blen);
        if (!diag.empty()) {
            // parity(i & z) = parity(low 8 bits) ^ parity(the rest): the low part comes from a per-term table of
            // signed coefficients, so the inner loop is a plain vectorisable sum.
            double fac[256];
            for (uint64_t i0 = begin; i0 < end; i0 += 256) {
                const int len = static_cast<int>(std::min<uint64_t>(256, end - i0));
                for (int k = 0; k < len; ++k)
                    fac[k] = 0;
                for (size_t j = 0; j < diag.size(); ++j) {
                    const double* tab = &diagTable[j * 256];
                    if (parity(i0 & diag[j].zMask & ~uint64_t(255)))
                        for (int k = 0; k < len; ++k)
                            fac[k] -= tab[k];
                    else
                        for (int k = 0; k < len; ++k)
                            fac[k] += tab[k];
                }
                double s = 0;
                for (int k = 0; k < len; ++k) {
                    const uint64_t i = i0 + uint64_t(k);
                    s += fac[k] * (double(a[2 * i]) * a[2 * i] + double(a[2 * i + 1]) * a[2 * i + 1]);
                }
                total += s;
            }
        }
        for (const PauliTerm& t : low)
            total += termRange(a, t, begin, end);
    }
    for (const PauliTerm& t : high) {
        const int64_t len = int64_t(1) << n;
        const int64_t parts = std::min<int64_t>(len / 4096 + 1, 64);
        double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static) if (len > (int64_t(1) << 17))
        for (int64_t p = 0; p < parts; ++p)
            s += termRange(a, t, uint64_t(len * p / parts), uint64_t(len * (p + 1) / parts));
        total += s;
    }
    return total;
}

template <class T>
std::vector<uint64_t> sampleImpl(const T* a, int n, int shots, std::mt19937_64& rng)
{
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<std::pair<double, int>> r(static_cast<size_t>(shots));
    for (int s = 0; s < shots; ++s)
        r[s] = {u(rng), s};
    std::sort(r.begin(), r.end());
    std::vector<uint64_t> out(static_cast<size_t>(shots), 0);
    const uint64_t len = uint64_t(1) << n;
    // Total first, so rounding in the sum cannot leave shots unassigned.
    double total = norm2Impl(a, n);
    double acc = 0;
    size_t k = 0;
    uint64_t last = 0;
    for (uint64_t i = 0; i < len && k < r.size(); ++i) {
        const double p = double(a[2 * i]) * a[2 * i] + double(a[2 * i + 1]) * a[2 * i + 1];
        if (p == 0)
            continue;
        last = i;
        acc += p / total;
        while (k < r.size() && r[k].first < acc)
            out[r[k++].second] = i;
    }
    while (k < r.size())
        out[r[k++].second] = last;
    return out;
}

}  // namespace

double StateVector::probabilityOfOne(int q) const
{
    return prec_ == Precision::Double ? probOne(as<double>(data_), n_, q) : probOne(as<float>(data_), n_, q);
}

void StateVector::collapse(int q, int outcome, double prob)
{
    if (prec_ == Precision::Double)
        collapseImpl(dataDouble(), n_, q, outcome, prob);
    else
        collapseImpl(dataFloat(), n_, q, outcome, prob);
}

double StateVector::norm2() const
{
    return prec_ == Precision::Double ? norm2Impl(as<double>(data_), n_) : norm2Impl(as<float>(data_), n_);
}

double StateVector::expectation(const PauliSum& h) const
{
    if (h.minQubits() > n_)
        throw InputError(SourceLocation{}, "the Hamiltonian acts on qubit " + std::to_string(h.minQubits() - 1) + " but the state has " +
                                               std::to_string(n_) + " qubits");
    return prec_ == Precision::Double ? expectationImpl(as<double>(data_), n_, h) : expectationImpl(as<float>(data_), n_, h);
}

std::vector<uint64_t> StateVector::sample(int shots, std::mt19937_64& rng) const
{
    return prec_ == Precision::Double ? sampleImpl(as<double>(data_), n_, shots, rng) : sampleImpl(as<float>(data_), n_, shots, rng);
}

}  // namespace spyglass::quantum
