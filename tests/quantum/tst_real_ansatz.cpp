// The real-amplitude VQE path: RealAnsatzState against the gate-by-gate simulator of vqeAnsatz, and
// expectationReal against StateVector::expectation, for every chunk/tile cut and both kernel builds.
#include "quantum/quantum_testutil.h"

#include "core/common/diagnostics.h"
#include "core/quantum/ansatz_real.h"
#include "core/quantum/pauli_expectation.h"
#include "core/quantum/vqe.h"

#include <QtTest>

#include <random>

using namespace spyglass;
using namespace spyglass::quantum;

namespace {

std::vector<double> randomAngles(int n, int layers, uint64_t seed)
{
    std::vector<double> theta(static_cast<size_t>(n * (layers + 1)));
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-3.2, 3.2);
    for (double& t : theta)
        t = u(rng);
    return theta;
}

std::vector<double> randomRealState(int n, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g;
    std::vector<double> v(size_t(1) << n);
    double norm = 0;
    for (double& a : v) {
        a = g(rng);
        norm += a * a;
    }
    for (double& a : v)
        a /= std::sqrt(norm);
    return v;
}

PauliTerm term(double c, const std::string& ops, const std::vector<int>& qubits)
{
    PauliTerm t;
    t.coeff = c;
    for (size_t i = 0; i < ops.size(); ++i) {
        const uint64_t bit = uint64_t(1) << qubits[i];
        if (ops[i] == 'X' || ops[i] == 'Y')
            t.xMask |= bit;
        if (ops[i] == 'Z' || ops[i] == 'Y')
            t.zMask |= bit;
        t.numY += ops[i] == 'Y';
    }
    return t;
}

// Every shape expectationReal distinguishes: diagonal terms inside, above and across the 8-bit weight blocks,
// X strings flipping low, high and both kinds of qubits, Y pairs (sign -1), single Y (zero on real states),
// mixed X/Z strings (general pass), the identity, and the TFIM itself.
PauliSum mixedHamiltonian(int n, uint64_t seed)
{
    PauliSum h = tfimHamiltonian(n, 0.7, 1.3);
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> q(0, n - 1);
    std::uniform_real_distribution<double> c(-1, 1);
    h.terms.push_back(term(c(rng), "", {}));
    h.terms.push_back(term(c(rng), "Z", {n - 1}));
    h.terms.push_back(term(c(rng), "ZZZ", {0, n / 2, n - 1}));
    for (int k = 0; k < 12; ++k) {
        const int a = q(rng);
        int b = q(rng);
        if (b == a)
            b = (a + 1) % n;
        const char* shapes[] = {"XX", "ZZ", "YY", "XZ", "ZX", "XY", "YZ", "X", "Y"};
        const std::string s = shapes[rng() % 9];
        if (n == 1 && s.size() == 2)
            continue;
        h.terms.push_back(term(c(rng), s, s.size() == 2 ? std::vector<int>{a, b} : std::vector<int>{a}));
    }
    if (n >= 2)
        h.terms.push_back(term(c(rng), "XX", {0, n - 1}));
    if (n >= 5)
        h.terms.push_back(term(c(rng), "YYXX", {1, 2, n - 2, n - 1}));
    return h;
}

double maxDiff(const RealAnsatzState& s, const StateVector& ref)
{
    double d = 0;
    for (uint64_t i = 0; i < ref.size(); ++i)
        d = std::max(d, std::abs(ref.amplitude(i) - cplx(s.amplitude(i), 0)));
    return d;
}

}  // namespace

class TestRealAnsatz : public QObject {
    Q_OBJECT

private slots:
    void realTilingShapes()
    {
        for (int n = 1; n <= 34; ++n) {
            const RealTiling t = realTiling(n);
            QVERIFY(t.tileQubits <= t.lowQubits && t.lowQubits <= n);
            QVERIFY(n <= 13 ? t.lowQubits == n : t.lowQubits >= 13);
            // a tile (columns x high rows) holds at most 2^15 amplitudes unless it is at its minimum of 8 columns
            if (n > 13)
                QVERIFY(t.tileQubits >= 3 && ((n - t.lowQubits) + t.tileQubits <= 15 || t.tileQubits == 3));
        }
        QCOMPARE(realTiling(20).lowQubits, 13);
        QCOMPARE(realTiling(20).tileQubits, 8);
    }

    void ansatzMatchesTheCircuit_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("low");    // -1: realTiling(n)
        QTest::addColumn<int>("tile");
        for (int layers : {0, 1, 2, 3}) {
            for (int n : {1, 2, 3, 4, 7, 12, 16})
                QTest::addRow("n=%d L=%d default", n, layers) << n << layers << -1 << -1;
            QTest::addRow("n=7 L=%d cut 3/1", layers) << 7 << layers << 3 << 1;
            QTest::addRow("n=12 L=%d cut 5/2", layers) << 12 << layers << 5 << 2;
            QTest::addRow("n=12 L=%d cut 2/0", layers) << 12 << layers << 2 << 0;
            QTest::addRow("n=12 L=%d cut 8/8", layers) << 12 << layers << 8 << 8;
            QTest::addRow("n=11 L=%d cut 9/4", layers) << 11 << layers << 9 << 4;   // one high qubit: both CZ ring ends in a chunk bit
        }
    }

    void ansatzMatchesTheCircuit()
    {
        QFETCH(int, n);
        QFETCH(int, layers);
        QFETCH(int, low);
        QFETCH(int, tile);
        const auto theta = randomAngles(n, layers, uint64_t(n * 100 + layers * 10 + low + 7));
        StateVector ref(n, Precision::Double);
        applyGates(vqeAnsatz(n, layers, theta), ref);
        const RealTiling cut = low < 0 ? realTiling(n) : RealTiling{low, tile};
        for (realk::Build build : {realk::Build::Best, realk::Build::Portable}) {
            RealAnsatzState s(n, layers, Precision::Double, cut);
            s.prepare(theta, build);
            QVERIFY2(maxDiff(s, ref) < 1e-12, qPrintable(QString::number(maxDiff(s, ref))));
            // the state is reused: a second preparation with other angles must not depend on the first
            const auto theta2 = randomAngles(n, layers, 99);
            StateVector ref2(n, Precision::Double);
            applyGates(vqeAnsatz(n, layers, theta2), ref2);
            s.prepare(theta2, build);
            QVERIFY(maxDiff(s, ref2) < 1e-12);
            // and the energy equals the complex simulator's
            const PauliSum h = tfimHamiltonian(n);
            QVERIFY(std::fabs(s.expectation(h, build) - ref2.expectation(h)) < 1e-12);
            RealAnsatzState f(n, layers, Precision::Single, cut);
            f.prepare(theta2, build);
            QVERIFY(maxDiff(f, ref2) < 1e-5);
            QVERIFY(std::fabs(f.expectation(h, build) - ref2.expectation(h)) < 1e-4);
        }
        // copyTo gives the complex state
        RealAnsatzState s(n, layers, Precision::Double, cut);
        s.prepare(theta);
        StateVector out(n, Precision::Double);
        s.copyTo(out);
        QVERIFY(qt_fidelity(out, ref) > 1 - 1e-12);
    }

    void expectationMatchesTheComplexPath_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("low");
        QTest::addColumn<int>("tile");
        for (int n : {1, 2, 3, 5, 9, 14, 17})
            QTest::addRow("n=%d default", n) << n << -1 << -1;
        QTest::addRow("n=12 cut 8/3") << 12 << 8 << 3;
        QTest::addRow("n=12 cut 6/6") << 12 << 6 << 6;
        QTest::addRow("n=12 cut 5/0") << 12 << 5 << 0;
        QTest::addRow("n=12 cut 2/1") << 12 << 2 << 1;
        QTest::addRow("n=12 cut 12/4") << 12 << 12 << 4;
        QTest::addRow("n=17 cut 10/5") << 17 << 10 << 5;
    }

    void expectationMatchesTheComplexPath()
    {
        QFETCH(int, n);
        QFETCH(int, low);
        QFETCH(int, tile);
        const RealTiling cut = low < 0 ? realTiling(n) : RealTiling{low, tile};
        const auto psi = randomRealState(n, uint64_t(n * 31 + low));
        std::vector<cplx> c(psi.begin(), psi.end());
        StateVector sv(n, Precision::Double);
        sv.setAmplitudes(c);
        std::vector<float> f(psi.begin(), psi.end());
        for (uint64_t seed : {1, 2, 3}) {
            const PauliSum h = mixedHamiltonian(n, seed);
            const double expected = sv.expectation(h);
            double scale = 0;
            for (const PauliTerm& t : h.terms)
                scale += std::fabs(t.coeff);
            for (realk::Build build : {realk::Build::Best, realk::Build::Portable}) {
                const double got = expectationReal(psi.data(), n, h, cut, build);
                QVERIFY2(std::fabs(got - expected) < 1e-12 * scale, qPrintable(QStringLiteral("%1 vs %2").arg(got, 0, 'g', 17).arg(expected, 0, 'g', 17)));
                QVERIFY(std::fabs(expectationReal(f.data(), n, h, cut, build) - expected) < 1e-5 * scale);
            }
            if (low < 0)
                QVERIFY(std::fabs(expectationReal(psi.data(), n, h) - expected) < 1e-12 * scale);
        }
    }

    void badCutsAndHamiltoniansAreRefused()
    {
        const auto psi = randomRealState(6, 5);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, expectationReal(psi.data(), 6, tfimHamiltonian(6), RealTiling{7, 2}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, expectationReal(psi.data(), 6, tfimHamiltonian(6), RealTiling{3, 4}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, RealAnsatzState(6, 1, Precision::Double, RealTiling{1, 0}));
        RealAnsatzState s(6, 1, Precision::Double);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, s.prepare(std::vector<double>(5, 0.0)));
        s.prepare(std::vector<double>(12, 0.1));
        QVERIFY_THROWS_EXCEPTION(InputError, s.expectation(tfimHamiltonian(7)));
        QVERIFY_THROWS_EXCEPTION(InputError, RealAnsatzState(41, 1, Precision::Double));
    }

    void vqeEnergyIsTheCircuitsEnergy()
    {
        // runVqe evaluates on the real state; the reported parameters run gate by gate give the same energy.
        VqeOptions o;
        o.qubits = 9;
        o.layers = 2;
        o.iterations = 30;
        o.seed = 4;
        const VqeResult r = runVqe(o);
        StateVector sv(9, Precision::Double);
        applyGates(vqeAnsatz(9, 2, r.parameters), sv);
        QVERIFY(std::fabs(sv.expectation(tfimHamiltonian(9)) - r.energy) < 1e-12);
        QVERIFY(r.energy >= exactGroundEnergy(tfimHamiltonian(9), 9) - 1e-9);
    }

    void seededRunsRepeatExactly()
    {
        // 16 qubits: 8 chunks and 8 tiles shared dynamically between threads; the energies must still repeat
        // bit for bit (partial sums are added in chunk order).
        VqeOptions o;
        o.qubits = 16;
        o.layers = 2;
        o.iterations = 6;
        o.seed = 11;
        const VqeResult a = runVqe(o), b = runVqe(o);
        QVERIFY(a.energy == b.energy);
        QVERIFY(a.history == b.history);
        QVERIFY(a.parameters == b.parameters);
        // runVqe picks its thread count by timing; the state and energy must not depend on it
        const auto theta = randomAngles(16, 2, 3);
        RealAnsatzState one(16, 2, Precision::Double), two(16, 2, Precision::Double);
        one.setThreads(1);
        two.setThreads(2);
        one.prepare(theta);
        two.prepare(theta);
        for (uint64_t i = 0; i < (uint64_t(1) << 16); i += 97)
            QVERIFY(one.amplitude(i) == two.amplitude(i));
        const PauliSum h = mixedHamiltonian(16, 4);
        QVERIFY(one.expectation(h) == two.expectation(h));
    }

private:
    static double qt_fidelity(const StateVector& a, const StateVector& b) { return quantum::test::fidelity(a.amplitudes(), b.amplitudes()); }
};

QTEST_GUILESS_MAIN(TestRealAnsatz)
#include "tst_real_ansatz.moc"
