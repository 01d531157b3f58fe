// The Spyre timing model against published torch-spyre kernel times (tests/data/spyre_calibration/cases.json):
// every case compiled with its stated shape, layout, split, cores and scratchpad policy and simulated with timing
// only. The bounds are what the model reaches today (issue 15's targets in the comments); the effects must keep
// their published sign.
#include "core/common/diagnostics.h"
#include "core/spyresim/calibration.h"
#include "tests/common/testutil.h"

#include <QtTest>

#include <cmath>
#include <map>

using namespace spyglass;

namespace {

struct Stats {
    int n = 0, within15 = 0;
    double logSum = 0;
    double geoMean() const { return n ? std::exp(logSum / n) : 0.0; }
};

}  // namespace

class TestSpyreCalibration : public QObject {
    Q_OBJECT

    std::vector<spyresim::CalibrationCase> cases_;
    std::map<std::string, const spyresim::CalibrationCase*> byId_;

    double sim(const std::string& id) const
    {
        const auto it = byId_.find(id);
        if (it == byId_.end())
            qFatal("no calibration case %s", id.c_str());
        return it->second->simulated;
    }

private slots:
    void initTestCase()
    {
        const auto target = spyre::SpyreTarget::load(test::sourcePath(QStringLiteral("resources/targets/spyre.json")).toStdString());
        cases_ = spyresim::runCalibration(test::sourcePath(QStringLiteral("tests/data/spyre_calibration/cases.json")).toStdString(), target);
        QCOMPARE(cases_.size(), size_t(25));
        for (const auto& c : cases_) {
            byId_[c.id] = &c;
            QVERIFY2(c.simulated > 0 && std::isfinite(c.simulated), c.id.c_str());
            qInfo("%-26s %-7s published %10.3f simulated %10.3f  x%.2f  %s", c.id.c_str(), c.set.c_str(), c.published, c.simulated, c.error(),
                  c.plan.c_str());
        }
    }

    // Issue 15 asks for a geometric-mean error <= 1.25x (on the fit set and on the held-out set) and >= 3/4 of the
    // cases within +-15 %. Measured (2026-12-02, bench_spyre_sim --calibration, PR #4302 at torch-spyre's split):
    // 1.199x over all 25, 17 within; fit set 1.143x (10 of 11), held out 1.245x (7 of 14).
    void suiteError()
    {
        Stats all, fit, held;
        for (const auto& c : cases_) {
            for (Stats* s : {&all, c.set == "fit" ? &fit : &held}) {
                ++s->n;
                s->logSum += std::fabs(std::log(c.error()));
                s->within15 += std::fabs(c.error() - 1) <= 0.15;
            }
        }
        qInfo("all: %d cases, geometric-mean error %.3fx, %d within 15%%", all.n, all.geoMean(), all.within15);
        qInfo("fit: %d cases, %.3fx, %d within; held out: %d cases, %.3fx, %d within", fit.n, fit.geoMean(), fit.within15, held.n,
              held.geoMean(), held.within15);
        QCOMPARE(fit.n, 11);
        QVERIFY(all.geoMean() <= 1.21);
        QVERIFY(fit.geoMean() <= 1.25);
        QVERIFY(held.geoMean() <= 1.25);
        QVERIFY(all.within15 >= 17);   // target 19 of 25: not reached
    }

    // Layout: batch outermost is faster than batch just inside the stick in every PR #4302 pair, at the split
    // torch-spyre's planner gave all six shapes (b=1, m=4, n=8): a matmul's activation and output move one stick
    // column at a time, B sticks per request in the default order, a core's 128 rows per request batch outermost.
    // The published cuts are 29-69 %; ours (measured 15.8-52.5 %) are within 5 points on two of the six (B=2 and
    // B=4 at N=12800). Issue 15 asks for all six: at an unchanged split the published penalty is flat from B=2 to 4
    // and x7.8 from 4 to 8 (N=12800), a step torch-spyre's own cost_model.py prices with an empirical rate per batch
    // regime (BENCHMARKS.md, "Spyre simulator").
    void layoutEffect()
    {
        int within5 = 0;
        for (const char* pair : {"b2-n12800", "b4-n12800", "b8-n12800", "b2-n25600", "b4-n25600", "b8-n25600"}) {
            const auto& base = *byId_.at(std::string("pr4302-") + pair + "-default");
            const auto& outer = *byId_.at(std::string("pr4302-") + pair + "-outer");
            const double cut = 1 - outer.simulated / base.simulated, published = 1 - outer.published / base.published;
            qInfo("PR #4302 %s: simulated cut %.1f %%, published %.1f %%", pair, 100 * cut, 100 * published);
            QVERIFY2(cut > 0.15, pair);
            within5 += std::fabs(cut - published) <= 0.05;
        }
        QVERIFY(within5 >= 2);   // target 6 of 6: not reached
    }

    // Split: PR #2407's (8,4,1) beats (32,1,1) on every prefill projection (published 1.76-2.59x; measured 1.50-3.03x).
    void splitEffect()
    {
        for (const char* id : {"pr2407-n4096", "pr2407-n1024", "pr2407-n12800"})
            QVERIFY2(sim(id) > 1.4, id);
    }

    // Scratchpad planning: the planned 1-core softmax is faster than the unplanned one (32.51 -> 23.67 us).
    void scratchpadEffect() { QVERIFY(sim("softmax-1core-planned") < 0.8 * sim("softmax-1core-none")); }

    // Decode batch trend of issue #4032: one batch on 25 cores is the slowest; from B = 2 the published times fall
    // (1.463, 1.389, 1.377, 1.365 ms) as torch-spyre's split cuts K fewer ways (4, 2, 2, 1), so each core streams
    // its weight piece in fewer, longer runs; each run change of the stream holds the memory side for
    // dma_device_request_ns (fitted on B = 2 and B = 16). Measured 1.541, 1.481, 1.485, 1.441 ms: B = 4 and B = 8
    // have the same split and stream the same weight runs, so they differ only by their activations (published
    // 0.9 % apart, ours 0.3 %).
    void decodeTrend()
    {
        const double b1 = sim("i4032-b1-n25600"), b2 = sim("i4032-b2-n25600"), b4 = sim("i4032-b4-n25600"), b8 = sim("i4032-b8-n25600"),
                     b16 = sim("i4032-b16-n25600");
        for (double b : {b2, b4, b8, b16})
            QVERIFY(b1 > 1.05 * b);   // published 1.20-1.29x, measured 1.10-1.17x
        QVERIFY(b2 > b4 * 1.02);
        QVERIFY(b8 > b16 * 1.02);
        QVERIFY(std::fabs(b8 / b4 - 1) < 0.005);
    }

    // One cost model: work division ranks matmul splits with the simulator's timing model, so the optimized plan
    // (batch outermost, the fastest split) is never slower than torch-spyre's default plan. With the torch-spyre
    // work_division.py estimate ranking splits instead, 14 of these 24 shapes were slower (up to 1.89x).
    void optimizedAgainstBaselineSweep()
    {
        const auto target = spyre::SpyreTarget::load(test::sourcePath(QStringLiteral("resources/targets/spyre.json")).toStdString());
        int losses = 0, shapes = 0;
        double worst = 1;
        for (int64_t B : {1, 4, 16})
            for (int64_t M : {64, 512})
                for (int64_t K : {256, 4096})
                    for (int64_t N : {256, 4096}) {
                        const double base = spyresim::simulatedMatmulUs({B, M, K}, {K, N}, target, true);
                        const double opt = spyresim::simulatedMatmulUs({B, M, K}, {K, N}, target, false);
                        ++shapes;
                        if (opt > base * 1.0001) {
                            ++losses;
                            worst = std::max(worst, opt / base);
                            qInfo("optimized slower: [%lld,%lld,%lld] @ [%lld,%lld]: %.2f us against %.2f us", (long long)B, (long long)M,
                                  (long long)K, (long long)K, (long long)N, opt, base);
                        }
                    }
        qInfo("%d of %d shapes slower with the optimized plan, worst %.2fx", losses, shapes, worst);
        QCOMPARE(shapes, 24);
        QCOMPARE(losses, 0);
    }

    void badSuiteIsAnInputError()
    {
        const QString dir = test::outputDir();
        const QString path = dir + QStringLiteral("/bad.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"cases": [{"id": "x", "kind": "conv", "cores": 32, "published_us": 1}]})");
        f.close();
        const auto target = spyre::SpyreTarget::load(test::sourcePath(QStringLiteral("resources/targets/spyre.json")).toStdString());
        try {
            spyresim::runCalibration(path.toStdString(), target);
            QFAIL("accepted an unknown kind");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("case x: unknown kind") != std::string::npos, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestSpyreCalibration)
#include "tst_spyre_calibration.moc"
