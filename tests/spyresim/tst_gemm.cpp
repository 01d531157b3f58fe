// gemmF32 (the Spyre simulator's fp32 GEMM) against a double-precision triple loop, for the portable, the
// AVX2+FMA and the AVX-512F paths (and the last two against each other, bit for bit): shapes that cross every blocking boundary (MC = 168 rows, KC = 256, NC = 1024 columns) and
// every micro-tile edge, M/N/K = 1, leading dimensions larger than the width (their padding holds NaN in A and B,
// which would poison any result that read it, and a sentinel in C that must survive), accumulate on and off.
#include "core/spyresim/gemm_f32.h"

#include <QtTest>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace spyglass::spyresim;

namespace {

using GemmFn = void (*)(int64_t, int64_t, int64_t, const float*, int64_t, const float*, int64_t, float*, int64_t,
                        bool);

constexpr float kCPadding = 12345.0f;

// One problem with padded storage: A is M x lda, B is K x ldb, C is M x ldc; the columns past the width are
// padding.
struct Problem {
    int64_t m, n, k, lda, ldb, ldc;
    std::vector<float> a, b, c0;

    Problem(int64_t m_, int64_t n_, int64_t k_, int64_t padA, int64_t padB, int64_t padC, uint32_t seed)
        : m(m_), n(n_), k(k_), lda(k_ + padA), ldb(n_ + padB), ldc(n_ + padC)
    {
        std::mt19937 rng(seed);
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        const float nan = std::numeric_limits<float>::quiet_NaN();
        a.assign(std::max<int64_t>(m * lda, 1), nan);
        b.assign(std::max<int64_t>(k * ldb, 1), nan);
        c0.assign(std::max<int64_t>(m * ldc, 1), kCPadding);
        for (int64_t i = 0; i < m; ++i)
            for (int64_t p = 0; p < k; ++p)
                a[i * lda + p] = dist(rng);
        for (int64_t p = 0; p < k; ++p)
            for (int64_t j = 0; j < n; ++j)
                b[p * ldb + j] = dist(rng);
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j)
                c0[i * ldc + j] = dist(rng);
    }

    std::vector<float> run(GemmFn fn, bool accumulate) const
    {
        std::vector<float> c = c0;
        fn(m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc, accumulate);
        return c;
    }

    // Compares with the double-precision product. A K-term fp32 dot product is off by at most about
    // K * 2^-24 * sum|a||b| (plus one rounding for the add to C); FLT_EPSILON is 2^-23, so this bound has a
    // factor-2 margin and still catches one missing or doubled term of size 1e-7 * sum|a||b| * K or more.
    void check(const std::vector<float>& c, bool accumulate) const
    {
        for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
                double exact = accumulate ? double(c0[i * ldc + j]) : 0.0;
                double magnitude = accumulate ? std::fabs(double(c0[i * ldc + j])) : 0.0;
                for (int64_t p = 0; p < k; ++p) {
                    const double t = double(a[i * lda + p]) * double(b[p * ldb + j]);
                    exact += t;
                    magnitude += std::fabs(t);
                }
                const double got = c[i * ldc + j];
                const double tolerance = double(k + 2) * FLT_EPSILON * magnitude + 1e-30;
                if (!(std::fabs(got - exact) <= tolerance))
                    QFAIL(qPrintable(QStringLiteral("C[%1][%2] = %3, expected %4 (tolerance %5)")
                                         .arg(i).arg(j).arg(got, 0, 'g', 9).arg(exact, 0, 'g', 9)
                                         .arg(tolerance, 0, 'g', 3)));
            }
            for (int64_t j = n; j < ldc && i * ldc + j < int64_t(c.size()); ++j)
                if (c[i * ldc + j] != kCPadding)
                    QFAIL(qPrintable(QStringLiteral("padding C[%1][%2] was overwritten with %3").arg(i).arg(j).arg(c[i * ldc + j])));
        }
    }
};

void addShapes()
{
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("k");
    QTest::addColumn<int>("padA");
    QTest::addColumn<int>("padB");
    QTest::addColumn<int>("padC");
    QTest::addColumn<bool>("accumulate");
    struct S {
        int m, n, k;
    };
    // Micro-tile edges (6 x 32, 6 x 16 and 4 x 8), M/N/K = 1, and the blocking boundaries.
    const S shapes[] = {
        {1, 1, 1},     {1, 1, 7},     {1, 33, 1},    {29, 1, 1},     {1, 40, 300},  {300, 1, 40},
        {7, 5, 3},     {6, 16, 1},    {6, 16, 256},  {4, 8, 9},      {12, 32, 257}, {5, 15, 255},
        {13, 17, 19},  {11, 23, 513}, {64, 64, 64},  {100, 100, 100}, {168, 48, 30}, {169, 47, 31},
        {337, 33, 260}, {20, 4097, 3}, {9, 4113, 2}, {61, 130, 600}, {7, 2049, 260},
        {6, 32, 256},  {7, 33, 257},  {13, 63, 513}, {128, 768, 300},
    };
    for (const S& s : shapes)
        for (bool padded : {false, true})
            for (bool accumulate : {false, true}) {
                const int padA = padded ? 3 : 0, padB = padded ? 5 : 0, padC = padded ? 7 : 0;
                QTest::addRow("%dx%dx%d%s%s", s.m, s.n, s.k, padded ? " ld+pad" : "", accumulate ? " accumulate" : "")
                    << s.m << s.n << s.k << padA << padB << padC << accumulate;
            }
}

void runShape(GemmFn fn)
{
    QFETCH(int, m);
    QFETCH(int, n);
    QFETCH(int, k);
    QFETCH(int, padA);
    QFETCH(int, padB);
    QFETCH(int, padC);
    QFETCH(bool, accumulate);
    const Problem p(m, n, k, padA, padB, padC, uint32_t(m * 7919 + n * 104729 + k));
    p.check(p.run(fn, accumulate), accumulate);
}

}  // namespace

class TestGemm : public QObject {
    Q_OBJECT

private slots:
    void generic_data() { addShapes(); }
    void generic() { runShape(gemmF32Generic); }

    void avx2_data() { addShapes(); }
    void avx2()
    {
        if (!gemmF32Avx2Supported())
            QSKIP("this CPU has no AVX2+FMA");
        runShape(gemmF32Avx2);
    }

    void avx512_data() { addShapes(); }
    void avx512()
    {
        if (!gemmF32Avx512Supported())
            QSKIP("this CPU has no AVX-512F");
        runShape(gemmF32Avx512);
    }

    // The simulator's numbers must not depend on the machine's vector width: both kernels run the same FMA
    // sequence per element, so their outputs are the same bits, including for K > KC and with accumulate.
    void avx512MatchesAvx2Bitwise_data() { addShapes(); }
    void avx512MatchesAvx2Bitwise()
    {
        if (!gemmF32Avx512Supported())
            QSKIP("this CPU has no AVX-512F");
        QFETCH(int, m);
        QFETCH(int, n);
        QFETCH(int, k);
        QFETCH(int, padA);
        QFETCH(int, padB);
        QFETCH(int, padC);
        QFETCH(bool, accumulate);
        const Problem p(m, n, k, padA, padB, padC, uint32_t(m * 31 + n * 7 + k));
        const std::vector<float> wide = p.run(gemmF32Avx512, accumulate);
        const std::vector<float> narrow = p.run(gemmF32Avx2, accumulate);
        QCOMPARE(wide.size(), narrow.size());
        for (size_t i = 0; i < wide.size(); ++i)
            if (std::memcmp(&wide[i], &narrow[i], sizeof(float)) != 0)
                QFAIL(qPrintable(QStringLiteral("element %1: AVX-512 %2, AVX2 %3")
                                     .arg(i).arg(wide[i], 0, 'g', 9).arg(narrow[i], 0, 'g', 9)));
    }

    void dispatched_data() { addShapes(); }
    void dispatched() { runShape(gemmF32); }

    void implementationMatchesCpu()
    {
        auto set = [](const char* name) {
            const char* e = std::getenv(name);
            return e && *e && *e != '0';
        };
        const bool avx2 = !set("SPYGLASS_NO_AVX2") && gemmF32Avx2Supported();
        const bool avx512 = avx2 && !set("SPYGLASS_NO_AVX512") && gemmF32Avx512Supported();
        QCOMPARE(QByteArray(gemmF32Implementation()), QByteArray(avx512 ? "avx512f" : avx2 ? "avx2+fma" : "generic"));
    }

    void environmentChoosesTheKernel_data()
    {
        QTest::addColumn<QString>("variable");
        QTest::newRow("SPYGLASS_NO_AVX2 forces generic") << QStringLiteral("SPYGLASS_NO_AVX2");
        QTest::newRow("SPYGLASS_NO_AVX512 forces AVX2") << QStringLiteral("SPYGLASS_NO_AVX512");
    }
    void environmentChoosesTheKernel()
    {
        QFETCH(QString, variable);
        // The choice is made once per process, so ask a fresh one: this test binary re-run on one test function.
        QProcess child;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(variable, QStringLiteral("1"));
        child.setProcessEnvironment(env);
        child.start(QCoreApplication::applicationFilePath(), {QStringLiteral("implementationMatchesCpu")});
        QVERIFY(child.waitForFinished(60000));
        QCOMPARE(child.exitCode(), 0);
        QVERIFY2(child.readAllStandardOutput().contains("PASS   : TestGemm::implementationMatchesCpu"),
                 "the child process did not run implementationMatchesCpu");
    }

    void zeroK()
    {
        for (GemmFn fn : {GemmFn(gemmF32Generic), GemmFn(gemmF32)}) {
            const Problem p(5, 9, 0, 0, 0, 2, 1);
            const std::vector<float> overwritten = p.run(fn, false);
            const std::vector<float> kept = p.run(fn, true);
            for (int64_t i = 0; i < p.m; ++i)
                for (int64_t j = 0; j < p.n; ++j) {
                    QCOMPARE(overwritten[i * p.ldc + j], 0.0f);
                    QCOMPARE(kept[i * p.ldc + j], p.c0[i * p.ldc + j]);
                }
            QCOMPARE(overwritten[p.n], kCPadding);
        }
    }

    void emptyOutputTouchesNothing()
    {
        float c[4] = {1, 2, 3, 4};
        const float a[4] = {1, 1, 1, 1}, b[4] = {1, 1, 1, 1};
        gemmF32(0, 2, 2, a, 2, b, 2, c, 2, false);
        gemmF32(2, 0, 2, a, 2, b, 2, c, 2, false);
        QCOMPARE(c[0], 1.0f);
        QCOMPARE(c[3], 4.0f);
    }

    void badLeadingDimensionThrows()
    {
        std::vector<float> a(64, 1.0f), b(64, 1.0f), c(64, 0.0f);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gemmF32(4, 4, 4, a.data(), 3, b.data(), 4, c.data(), 4, false));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gemmF32(4, 4, 4, a.data(), 4, b.data(), 3, c.data(), 4, false));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gemmF32(4, 4, 4, a.data(), 4, b.data(), 4, c.data(), 3, false));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gemmF32(-1, 4, 4, a.data(), 4, b.data(), 4, c.data(), 4, false));
    }

    // The simulator calls gemmF32 from one thread per simulated core at once: each thread's results must be
    // bit-identical to the same call made alone (the pack buffers are per thread).
    void concurrentCallsAreIndependent()
    {
        struct Job {
            Problem p;
            std::vector<float> alone;
            int mismatches = 0;
        };
        std::vector<Job> jobs;
        jobs.push_back({Problem(200, 300, 270, 1, 0, 3, 11), {}});
        jobs.push_back({Problem(97, 64, 513, 0, 2, 0, 12), {}});
        jobs.push_back({Problem(300, 41, 100, 0, 0, 0, 13), {}});
        jobs.push_back({Problem(6, 5000, 20, 4, 1, 1, 14), {}});
        for (Job& j : jobs)
            j.alone = j.p.run(gemmF32, true);
        std::vector<std::thread> threads;
        for (Job& j : jobs)
            threads.emplace_back([&j] {
                for (int r = 0; r < 5; ++r)
                    if (j.p.run(gemmF32, true) != j.alone)
                        ++j.mismatches;
            });
        for (std::thread& t : threads)
            t.join();
        for (const Job& j : jobs) {
            QCOMPARE(j.mismatches, 0);
            j.p.check(j.alone, true);
        }
    }
};

QTEST_GUILESS_MAIN(TestGemm)
#include "tst_gemm.moc"
