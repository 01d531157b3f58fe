// bench_gemm: the Spyre simulator's fp32 GEMM (spyresim::gemmF32) against OpenBLAS cblas_sgemm on the same
// shapes in the same run, printed as a Markdown table.
//
//   bench_gemm [--reps N] [--quick] [--generic] [--shape MxNxK]...
//
// For each shape: single thread (OpenBLAS with openblas_set_num_threads(1)) and 2 threads (ours: M split in two
// halves, one gemmF32 call per thread, as the simulator runs one call per simulated core; OpenBLAS with 2 threads).
// The two libraries run alternately, rep by rep, so a load spike on the shared machine hits both; each cell is the
// median of --reps timed calls after one warm-up call. --generic adds a column for the portable kernel (1 thread).
// The last column is the largest |ours - OpenBLAS| over the shape, relative to the largest |C|: a sanity check
// that both computed the same product.
#include "core/spyresim/gemm_f32.h"

#include <cblas.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

using spyglass::spyresim::gemmF32;
using spyglass::spyresim::gemmF32Generic;
using spyglass::spyresim::gemmF32Implementation;

namespace {

struct Shape {
    int64_t m, n, k;
    const char* what;
};

// Square shapes and the matmuls of a BERT-large-sized encoder layer at 512 tokens (hidden 1024, FFN 4096,
// head dim 64): QKV/output projections, FFN up/down, and one head's attention scores and context.
const std::vector<Shape> kDefaultShapes = {
    {256, 256, 256, "square"},
    {512, 512, 512, "square"},
    {1024, 1024, 1024, "square"},
    {2048, 2048, 2048, "square"},
    {512, 1024, 1024, "projection"},
    {512, 4096, 1024, "FFN up"},
    {512, 1024, 4096, "FFN down"},
    {512, 4096, 4096, "wide FFN"},
    {512, 512, 64, "attention QK^T"},
    {512, 64, 512, "attention PV"},
    {1000, 1000, 333, "odd sizes"},
    // What one simulated core gets when a 512 x 1024 x 1024 or 512 x 4096 x 1024 matmul is split over 32 cores
    // by rows or by columns: small M or small N, where packing matters most.
    {16, 1024, 1024, "per-core rows"},
    {16, 4096, 1024, "per-core rows"},
    {512, 32, 1024, "per-core columns"},
    {512, 128, 1024, "per-core columns"},
};

const std::vector<Shape> kQuickShapes = {
    {512, 512, 512, "square"},
    {1024, 1024, 1024, "square"},
    {512, 4096, 1024, "FFN up"},
    {512, 512, 64, "attention QK^T"},
    {16, 1024, 1024, "per-core rows"},
};

double seconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t h = v.size() / 2;
    return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

// A second thread that stays alive between calls, like the simulator's per-core threads: each call hands it one
// job and runs the other on the calling thread, so thread start-up and first-touch of its pack buffers are not
// timed.
class TwoThreads {
public:
    TwoThreads() : start_(2), done_(2), worker_([this] { loop(); }) {}
    ~TwoThreads()
    {
        stop_ = true;
        start_.arrive_and_wait();
        worker_.join();
    }

    void run(const std::function<void()>& mine, const std::function<void()>& theirs)
    {
        job_ = theirs;
        start_.arrive_and_wait();
        mine();
        done_.arrive_and_wait();
    }

private:
    void loop()
    {
        for (;;) {
            start_.arrive_and_wait();
            if (stop_)
                return;
            job_();
            done_.arrive_and_wait();
        }
    }

    std::barrier<> start_;
    std::barrier<> done_;
    std::function<void()> job_;
    bool stop_ = false;
    std::thread worker_;
};

struct Row {
    Shape shape;
    int threads;
    double ours;      // GFLOP/s
    double openblas;  // GFLOP/s
    double generic;   // GFLOP/s, < 0 when not measured
    double maxRelDiff;
};

bool parseShape(const char* s, Shape& out)
{
    long long m = 0, n = 0, k = 0;
    if (std::sscanf(s, "%lldx%lldx%lld", &m, &n, &k) != 3 || m <= 0 || n <= 0 || k <= 0)
        return false;
    out = {m, n, k, "custom"};
    return true;
}

int usage(const char* argv0, const char* bad)
{
    std::fprintf(stderr, "%s: bad argument '%s'\nusage: %s [--reps N] [--quick] [--generic] [--shape MxNxK]...\n",
                 argv0, bad, argv0);
    return 2;
}

}  // namespace

int main(int argc, char** argv)
{
    int reps = 5;
    bool quick = false;
    bool withGeneric = false;
    std::vector<Shape> shapes;
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        if (!std::strcmp(a, "--reps") && i + 1 < argc) {
            reps = std::atoi(argv[++i]);
            if (reps < 1)
                return usage(argv[0], argv[i]);
        } else if (!std::strcmp(a, "--quick")) {
            quick = true;
        } else if (!std::strcmp(a, "--generic")) {
            withGeneric = true;
        } else if (!std::strcmp(a, "--shape") && i + 1 < argc) {
            Shape s;
            if (!parseShape(argv[++i], s))
                return usage(argv[0], argv[i]);
            shapes.push_back(s);
        } else {
            return usage(argv[0], a);
        }
    }
    if (shapes.empty())
        shapes = quick ? kQuickShapes : kDefaultShapes;

    const std::time_t t = std::time(nullptr);
    char date[64];
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
    std::printf("bench_gemm %s: gemmF32 implementation \"%s\"; OpenBLAS \"%s\" (core %s); median of %d reps\n\n",
                date, gemmF32Implementation(), openblas_get_config(), openblas_get_corename(), reps);

    TwoThreads pool;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<Row> rows;

    // Half a second of both libraries on both threads first, so the first shape is not measured while the cores
    // are still ramping their clocks or the pack buffers and OpenBLAS's thread pool are being set up.
    {
        const int64_t n = 512;
        std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n), c2(n * n);
        openblas_set_num_threads(2);
        for (const double end = seconds() + 0.5; seconds() < end;) {
            pool.run([&] { gemmF32(n, n, n, a.data(), n, b.data(), n, c.data(), n, false); },
                     [&] { gemmF32(n, n, n, a.data(), n, b.data(), n, c2.data(), n, false); });
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(n), int(n), int(n), 1.0f, a.data(), int(n),
                        b.data(), int(n), 0.0f, c.data(), int(n));
        }
    }

    for (const Shape& s : shapes) {
        const int64_t M = s.m, N = s.n, K = s.k;
        std::vector<float> A(M * K), B(K * N), Cours(M * N), Cblas(M * N);
        for (float& x : A)
            x = dist(rng);
        for (float& x : B)
            x = dist(rng);
        const double gflop = 2.0 * double(M) * double(N) * double(K) * 1e-9;

        auto oursSingle = [&] { gemmF32(M, N, K, A.data(), K, B.data(), N, Cours.data(), N, false); };
        auto genericSingle = [&] { gemmF32Generic(M, N, K, A.data(), K, B.data(), N, Cours.data(), N, false); };
        const int64_t half = M / 2;
        auto oursTwo = [&] {
            pool.run([&] { gemmF32(half, N, K, A.data(), K, B.data(), N, Cours.data(), N, false); },
                     [&] {
                         gemmF32(M - half, N, K, A.data() + half * K, K, B.data(), N, Cours.data() + half * N, N,
                                 false);
                     });
        };
        auto blas = [&] {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(M), int(N), int(K), 1.0f, A.data(), int(K),
                        B.data(), int(N), 0.0f, Cblas.data(), int(N));
        };
        auto timeIt = [](const std::function<void()>& f) {
            const double t0 = seconds();
            f();
            return seconds() - t0;
        };

        for (int threads : {1, 2}) {
            openblas_set_num_threads(threads);
            const std::function<void()> ours = threads == 1 ? std::function<void()>(oursSingle) : oursTwo;
            ours();
            blas();
            std::vector<double> tOurs, tBlas, tGeneric;
            for (int r = 0; r < reps; ++r) {
                tOurs.push_back(timeIt(ours));
                tBlas.push_back(timeIt(blas));
            }
            double maxDiff = 0, maxC = 0;
            for (int64_t i = 0; i < M * N; ++i) {
                maxDiff = std::max(maxDiff, double(std::fabs(Cours[i] - Cblas[i])));
                maxC = std::max(maxC, double(std::fabs(Cblas[i])));
            }
            double generic = -1;
            if (withGeneric && threads == 1) {
                genericSingle();
                for (int r = 0; r < reps; ++r)
                    tGeneric.push_back(timeIt(genericSingle));
                generic = gflop / median(tGeneric);
            }
            rows.push_back({s, threads, gflop / median(tOurs), gflop / median(tBlas), generic,
                            maxC > 0 ? maxDiff / maxC : maxDiff});
        }
    }

    std::printf("| M x N x K | shape | threads | gemmF32 GFLOP/s | OpenBLAS GFLOP/s | ratio |%s max rel diff |\n",
                withGeneric ? " generic GFLOP/s |" : "");
    std::printf("| --- | --- | ---: | ---: | ---: | ---: |%s ---: |\n", withGeneric ? " ---: |" : "");
    for (const Row& r : rows) {
        char generic[32] = "";
        if (withGeneric)
            std::snprintf(generic, sizeof generic, r.generic > 0 ? " %.1f |" : " |", r.generic);
        std::printf("| %lld x %lld x %lld | %s | %d | %.1f | %.1f | %.2f |%s %.1e |\n", (long long)r.shape.m,
                    (long long)r.shape.n, (long long)r.shape.k, r.shape.what, r.threads, r.ours, r.openblas,
                    r.ours / r.openblas, generic, r.maxRelDiff);
    }
    return 0;
}
