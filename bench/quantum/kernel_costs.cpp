// The time of one kernel application per amplitude of a cache-resident state, one thread, for the kernel shapes
// the fuse pass chooses between (dense blocks of 1-4 targets inside and above the vector lanes, complex and real
// matrices, sparse and diagonal blocks, a control), in both precisions, next to kernels::relativeCost: the
// measurement relativeCost's constants come from, and the check of whether they hold on another CPU.
#include "bench/quantum/kernel_costs.h"

#include "core/quantum/kernels.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace spyglass::quantum::bench {

namespace {

struct Shape {
    std::string name;
    std::vector<int> controls, targets;
    enum Kind { Dense, Real, Sparse, Diagonal } kind;
};

// A random unitary on `dim` (Gram-Schmidt on Gaussian columns; real: orthogonal), interleaved re/im. Unitary, so
// the repeated applications keep the amplitudes' size (a non-unitary matrix drives them into subnormals, which
// run many times slower and measure the CPU's microcode instead of the kernel).
std::vector<double> randomUnitary(int dim, bool real, std::mt19937_64& rng)
{
    std::normal_distribution<double> normal;
    std::vector<std::complex<double>> u(size_t(dim) * dim);
    for (auto& x : u)
        x = {normal(rng), real ? 0.0 : normal(rng)};
    for (int c = 0; c < dim; ++c) {
        for (int p = 0; p < c; ++p) {
            std::complex<double> dot = 0;
            for (int r = 0; r < dim; ++r)
                dot += std::conj(u[size_t(r) * dim + p]) * u[size_t(r) * dim + c];
            for (int r = 0; r < dim; ++r)
                u[size_t(r) * dim + c] -= dot * u[size_t(r) * dim + p];
        }
        double norm = 0;
        for (int r = 0; r < dim; ++r)
            norm += std::norm(u[size_t(r) * dim + c]);
        for (int r = 0; r < dim; ++r)
            u[size_t(r) * dim + c] /= std::sqrt(norm);
    }
    std::vector<double> m;
    for (const auto& x : u) {
        m.push_back(x.real());
        m.push_back(x.imag());
    }
    return m;
}

// Dense: a random unitary. Sparse: a phase on the top target times a random unitary on the others (half the
// entries zero, as rz x rx). Diagonal: unit phases, one in four equal to 1.
std::vector<double> matrixOf(const Shape& s, std::mt19937_64& rng)
{
    const int k = static_cast<int>(s.targets.size()), dim = 1 << k;
    if (s.kind == Shape::Dense || s.kind == Shape::Real)
        return randomUnitary(dim, s.kind == Shape::Real, rng);
    std::uniform_real_distribution<double> angle(0, 6.283185307179586);
    std::vector<double> m(size_t(2) * dim * dim, 0.0);
    if (s.kind == Shape::Diagonal) {
        for (int r = 0; r < dim; ++r) {
            const double a = r % 4 == 0 ? 0.0 : angle(rng);
            m[2 * (size_t(r) * dim + r)] = r % 4 == 0 ? 1.0 : std::cos(a);
            m[2 * (size_t(r) * dim + r) + 1] = r % 4 == 0 ? 0.0 : std::sin(a);
        }
        return m;
    }
    const int half = dim / 2;
    const std::vector<double> u = randomUnitary(half, false, rng);
    for (int top = 0; top < 2; ++top) {
        const std::complex<double> phase = std::polar(1.0, angle(rng));
        for (int r = 0; r < half; ++r)
            for (int c = 0; c < half; ++c) {
                const std::complex<double> x = phase * std::complex<double>(u[2 * (size_t(r) * half + c)], u[2 * (size_t(r) * half + c) + 1]);
                const size_t e = size_t(top * half + r) * dim + top * half + c;
                m[2 * e] = x.real();
                m[2 * e + 1] = x.imag();
            }
    }
    return m;
}

template <class T>
double nsPerAmplitude(int n, const kernels::PreparedGate& g)
{
    // The uniform superposition: a unit vector, kept so by the unitary gates.
    std::vector<T> amps(size_t(2) << n, T(0));
    for (size_t i = 0; i < amps.size(); i += 2)
        amps[i] = T(1 / std::sqrt(double(size_t(1) << n)));
    kernels::PreparedGate laidOut = g;
    kernels::prepareLaneTable(laidOut, sizeof(T) == 4);   // as the cache-blocked runs apply it
    // Enough repetitions for ~2 ms per sample; best of 7 samples (the least disturbed by other processes).
    const int reps = std::max(1, int(4e6 / double(size_t(1) << n)));
    double best = 1e30;
    for (int sample = 0; sample < 7; ++sample) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int r = 0; r < reps; ++r)
            kernels::apply(amps.data(), n, laidOut);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        best = std::min(best, s / reps);
    }
    return best * 1e9 / double(size_t(1) << n);
}

}  // namespace

int kernelCosts(int n)
{
    omp_set_num_threads(1);
    const int lanes64 = kernels::activeIsa() == kernels::Isa::Avx512 ? 3 : kernels::activeIsa() == kernels::Isa::Avx2 ? 2 : 0;
    const int high = std::max(lanes64, 3) + 1;   // above the vector lanes of every build and precision
    std::vector<Shape> shapes;
    for (int k = 1; k <= 4; ++k)
        for (Shape::Kind kind : {Shape::Dense, Shape::Real}) {
            std::vector<int> low, above;
            for (int j = 0; j < k; ++j) {
                low.push_back(j);
                above.push_back(high + j);
            }
            const char* what = kind == Shape::Real ? "real" : "complex";
            shapes.push_back({"dense " + std::to_string(k) + "q " + what + ", targets 0..", {}, low, kind});
            shapes.push_back({"dense " + std::to_string(k) + "q " + what + ", targets above the lanes", {}, above, kind});
        }
    shapes.push_back({"dense 5q complex, targets 0..", {}, {0, 1, 2, 3, 4}, Shape::Dense});
    shapes.push_back({"dense 6q complex, targets 0..", {}, {0, 1, 2, 3, 4, 5}, Shape::Dense});
    shapes.push_back({"dense 1q complex, 1 control", {high + 2}, {high}, Shape::Dense});
    shapes.push_back({"sparse 2q (2 per row), targets above the lanes", {}, {high, high + 1}, Shape::Sparse});
    shapes.push_back({"sparse 2q (2 per row), targets 0, 1", {}, {0, 1}, Shape::Sparse});
    shapes.push_back({"sparse 3q (4 per row), targets above the lanes", {}, {high, high + 1, high + 2}, Shape::Sparse});
    shapes.push_back({"diagonal 1q", {}, {high}, Shape::Diagonal});
    shapes.push_back({"diagonal 2q (cz-like: 3 of 4 factors != 1)", {}, {high, high + 1}, Shape::Diagonal});
    shapes.push_back({"diagonal 3q", {}, {1, high, high + 1}, Shape::Diagonal});
    std::printf("# kernel costs: %d-qubit state, one thread, %s kernels, best of 7 (ns per amplitude)\n", n,
                kernels::isaName(kernels::activeIsa()));
    std::printf("| kernel | relativeCost | complex128 ns | complex64 ns | complex128 / relativeCost |\n|---|---|---|---|---|\n");
    std::mt19937_64 rng(3);
    for (const Shape& s : shapes) {
        const kernels::PreparedGate g = kernels::prepare(s.controls, s.targets, matrixOf(s, rng));
        const double estimate = kernels::relativeCost(g);
        const double f64 = nsPerAmplitude<double>(n, g), f32 = nsPerAmplitude<float>(n, g);
        std::printf("| %s | %.2f | %.3f | %.3f | %.2f |\n", s.name.c_str(), estimate, f64, f32, f64 / estimate);
    }
    return 0;
}

}  // namespace spyglass::quantum::bench
