// Workload generators (QFT, Deutsch-Jozsa, GHZ, Bernstein-Vazirani, Grover), VQE against exact
// diagonalisation, the Hamiltonian file format, and the qgen / vqe CLI contracts.
#include "common/testutil.h"
#include "quantum/quantum_testutil.h"

#include "core/quantum/export.h"
#include "core/quantum/generators.h"
#include "core/quantum/pipeline.h"
#include "core/quantum/qasm_parser.h"
#include "core/quantum/vqe.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <fstream>
#include <numbers>

using namespace spyglass;
using namespace spyglass::quantum;
using namespace spyglass::test;
namespace qt = spyglass::quantum::test;

namespace {

std::map<std::string, int> run(const Circuit& c, int shots = 1000, uint64_t seed = 3)
{
    SimOptions o;
    o.shots = shots;
    o.seed = seed;
    return simulate(prepareForSimulation(c, 4), o).counts;
}

// Dense real symmetric eigenvalues by cyclic Jacobi (reference for small Hamiltonians without Y).
double denseGround(const PauliSum& h, int n)
{
    const int dim = 1 << n;
    std::vector<double> m(static_cast<size_t>(dim) * dim, 0.0);
    for (const PauliTerm& t : h.terms)
        for (int i = 0; i < dim; ++i) {
            int sign = 1;
            for (int q = 0; q < n; ++q)
                if ((t.zMask >> q & 1) && (i >> q & 1))
                    sign = -sign;
            m[static_cast<size_t>(i ^ static_cast<int>(t.xMask)) * dim + i] += t.coeff * sign;
        }
    for (int sweep = 0; sweep < 100; ++sweep) {
        double off = 0;
        for (int p = 0; p < dim; ++p)
            for (int q = p + 1; q < dim; ++q)
                off += m[p * dim + q] * m[p * dim + q];
        if (off < 1e-22)
            break;
        for (int p = 0; p < dim; ++p)
            for (int q = p + 1; q < dim; ++q) {
                const double apq = m[p * dim + q];
                if (std::fabs(apq) < 1e-300)
                    continue;
                const double theta = (m[q * dim + q] - m[p * dim + p]) / (2 * apq);
                const double t = (theta >= 0 ? 1 : -1) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
                const double c = 1 / std::sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < dim; ++k) {
                    const double mkp = m[k * dim + p], mkq = m[k * dim + q];
                    m[k * dim + p] = c * mkp - s * mkq;
                    m[k * dim + q] = s * mkp + c * mkq;
                }
                for (int k = 0; k < dim; ++k) {
                    const double mpk = m[p * dim + k], mqk = m[q * dim + k];
                    m[p * dim + k] = c * mpk - s * mqk;
                    m[q * dim + k] = s * mpk + c * mqk;
                }
            }
    }
    double lo = m[0];
    for (int i = 1; i < dim; ++i)
        lo = std::min(lo, m[static_cast<size_t>(i) * dim + i]);
    return lo;
}

}  // namespace

class TestQuantumWorkloads : public QObject {
    Q_OBJECT
private slots:
    void qftIsTheDiscreteFourierTransform()
    {
        const int n = 5, N = 1 << n;
        for (uint64_t x : {0ull, 1ull, 6ull, 31ull}) {
            const Circuit c = makeQft(n, x, false);
            QCOMPARE(c.gateCount(), static_cast<int>(n + n * (n - 1) / 2 + n / 2 + std::popcount(x)));
            std::vector<cplx> zero(N);
            zero[0] = 1;
            const auto out = qt::runOn(prepareForSimulation(c, 0), zero);
            for (int k = 0; k < N; ++k) {
                const cplx expect = std::exp(cplx(0, 2 * std::numbers::pi * double(x) * k / N)) / std::sqrt(double(N));
                QVERIFY2(std::abs(out[k] - expect) < 1e-12, qPrintable(QStringLiteral("x=%1 k=%2").arg(x).arg(k)));
            }
        }
        // QFT(24) has the gate counts of the benchmark table: 24 H, 276 controlled-phase, 12 swaps
        const Circuit big = makeQft(24, 0, false);
        int h = 0, cp = 0, sw = 0;
        for (const Op& op : big.ops) {
            h += op.name == "h";
            cp += op.name == "cp";
            sw += op.name == "swap";
        }
        QCOMPARE(h, 24);
        QCOMPARE(cp, 276);
        QCOMPARE(sw, 12);
    }

    void deutschJozsaIsDeterministic()
    {
        for (int n : {1, 4, 9}) {
            const auto constant = run(makeDeutschJozsa(n, false), 200);
            QCOMPARE(constant.size(), size_t(1));
            QCOMPARE(constant.begin()->first, std::string(static_cast<size_t>(n), '0'));
            const auto balanced = run(makeDeutschJozsa(n, true), 200);
            QCOMPARE(balanced.size(), size_t(1));
            QVERIFY(balanced.begin()->first != std::string(static_cast<size_t>(n), '0'));
        }
    }

    void ghzAndBernsteinVazirani()
    {
        const auto ghz = run(makeGhz(12));
        QCOMPARE(ghz.size(), size_t(2));
        QVERIFY(ghz.at(std::string(12, '0')) > 400 && ghz.at(std::string(12, '1')) > 400);
        const auto bv = run(makeBernsteinVazirani(8, 0b10110010), 100);
        QCOMPARE(bv.size(), size_t(1));
        QCOMPARE(bv.begin()->first, std::string("10110010"));
    }

    void groverFindsTheMarkedState()
    {
        for (uint64_t marked = 0; marked < 8; ++marked) {
            const auto counts = run(makeGrover(3, marked), 2000, marked + 1);
            std::string key;
            for (int q = 2; q >= 0; --q)
                key += (marked >> q & 1) ? '1' : '0';
            // two iterations: success probability 0.945
            QVERIFY2(counts.at(key) > 1800, key.c_str());
        }
    }

    void generatedCircuitsRoundTripThroughQasm()
    {
        for (const Circuit& c : {makeQft(6, 5), makeGrover(3, 6), makeDeutschJozsa(5, true), makeGhz(4)}) {
            const Circuit back = parseQasmString(exportQasm(c), "gen").circuit;
            QCOMPARE(back.gateCount(), c.gateCount());
            QCOMPARE(run(back, 300), run(c, 300));
        }
    }

    void exactDiagonalisationMatchesDense_data()
    {
        QTest::addColumn<QString>("hamiltonian");
        QTest::addColumn<int>("n");
        QTest::newRow("tfim4") << QString::fromStdString(tfimHamiltonian(4).text()) << 4;
        QTest::newRow("tfim6") << QString::fromStdString(tfimHamiltonian(6).text()) << 6;
        QTest::newRow("tfim6 J=1 h=0.5") << QString::fromStdString(tfimHamiltonian(6, 1, 0.5).text()) << 6;
        QTest::newRow("mixed") << QStringLiteral("0.5 Z0 Z1 + -1.0 X3 + 0.7 X0 X2 + -0.3 Z1 Z2 Z3 + 0.2 X1 + 1.5") << 4;
    }
    void exactDiagonalisationMatchesDense()
    {
        QFETCH(QString, hamiltonian);
        QFETCH(int, n);
        const PauliSum h = parsePauliSum(hamiltonian.toStdString());
        QVERIFY(std::fabs(exactGroundEnergy(h, n) - denseGround(h, n)) < 1e-9);
    }

    void tfimExactAgreesWithFreeFermions()
    {
        // Critical periodic TFIM (J = h = 1), even n: E0 = -sum_k 2|cos(k/2)|, k = (2m+1) pi / n.
        for (int n : {8, 12}) {
            double e = 0;
            for (int m = 0; m < n; ++m)
                e -= 2 * std::fabs(std::cos((2 * m + 1) * std::numbers::pi / (2 * n)));
            QVERIFY(std::fabs(exactGroundEnergy(tfimHamiltonian(n), n) - e) < 1e-8);
        }
    }

    void vqeApproachesTheGroundEnergy_data()
    {
        QTest::addColumn<QString>("optimizer");
        QTest::addColumn<int>("iterations");
        QTest::addColumn<double>("tolerance");
        QTest::newRow("nelder-mead") << QStringLiteral("nelder-mead") << 3000 << 0.05;
        QTest::newRow("spsa") << QStringLiteral("spsa") << 1500 << 0.15;
    }
    void vqeApproachesTheGroundEnergy()
    {
        QFETCH(QString, optimizer);
        QFETCH(int, iterations);
        QFETCH(double, tolerance);
        VqeOptions o;
        o.qubits = 4;
        o.layers = 2;
        o.optimizer = optimizer.toStdString();
        o.iterations = iterations;
        o.seed = 7;
        const VqeResult r = runVqe(o);
        const double exact = exactGroundEnergy(tfimHamiltonian(4), 4);
        QVERIFY2(r.energy >= exact - 1e-9, "below the ground energy");
        QVERIFY2((r.energy - exact) / std::fabs(exact) < tolerance, qPrintable(QString::number(r.energy) + QStringLiteral(" vs ") + QString::number(exact)));
        QCOMPARE(static_cast<int>(r.history.size()), iterations);
        QVERIFY(r.history.back() <= r.history.front());
        QCOMPARE(r.parameters.size(), size_t(12));
        // seeded: the same run gives the same numbers
        QCOMPARE(runVqe(o).energy, r.energy);
        // the reported parameters reproduce the energy
        StateVector sv(4, Precision::Double);
        applyGates(vqeAnsatz(4, 2, r.parameters), sv);
        QVERIFY(std::fabs(sv.expectation(tfimHamiltonian(4)) - r.energy) < 1e-12);
    }

    void fastAnsatzStateMatchesTheCircuit()
    {
        for (int n : {2, 3, 5, 15, 16})
            for (int layers : {0, 1, 3}) {
                std::vector<double> theta(static_cast<size_t>(n * (layers + 1)));
                std::mt19937_64 rng(n * 10 + layers);
                std::uniform_real_distribution<double> u(-3, 3);
                for (double& t : theta)
                    t = u(rng);
                StateVector ref(n, Precision::Double), fast(n, Precision::Double);
                applyGates(vqeAnsatz(n, layers, theta), ref);
                prepareAnsatzState(fast, layers, theta);
                QVERIFY2(qt::fidelity(ref.amplitudes(), fast.amplitudes()) > 1 - 1e-10, qPrintable(QStringLiteral("n=%1 L=%2").arg(n).arg(layers)));
                // same global phase too: the amplitudes are equal
                double diff = 0;
                for (uint64_t i = 0; i < ref.size(); ++i)
                    diff = std::max(diff, std::abs(ref.amplitude(i) - fast.amplitude(i)));
                QVERIFY(diff < 1e-10);
            }
    }

    void hamiltonianFileFromTestData()
    {
        const PauliSum file = readPauliSumFile(dataPath(QStringLiteral("quantum/tfim4_periodic.ham")).toStdString());
        const PauliSum built = tfimHamiltonian(4);
        QCOMPARE(file.terms.size(), built.terms.size());
        QCOMPARE(file.minQubits(), 4);
        const double e = exactGroundEnergy(file, 4);
        QVERIFY(std::fabs(e - exactGroundEnergy(built, 4)) < 1e-12);
        QVERIFY(std::fabs(e - -5.226251859505506) < 1e-9);
    }

    void vqeCli()
    {
        const CliResult r = runCli({QStringLiteral("vqe"), QStringLiteral("--qubits"), QStringLiteral("6"), QStringLiteral("--layers"), QStringLiteral("1"),
                                    QStringLiteral("--optimizer"), QStringLiteral("spsa"), QStringLiteral("--iterations"), QStringLiteral("50"),
                                    QStringLiteral("--seed"), QStringLiteral("3"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        const double exact = exactGroundEnergy(tfimHamiltonian(6), 6);
        QVERIFY(std::fabs(o.value(QStringLiteral("exact_energy")).toDouble() - exact) < 1e-9);
        QVERIFY(o.value(QStringLiteral("energy")).toDouble() >= exact - 1e-9);
        QCOMPARE(o.value(QStringLiteral("evaluations")).toInt(), 101);
        QVERIFY(o.contains(QStringLiteral("wall_ms")));
        // a Hamiltonian file
        const QString hfile = outputDir() + QStringLiteral("/h.txt");
        std::ofstream(hfile.toStdString()) << "# two-qubit test\n0.5 Z0 Z1 + -1.0 X1\n";
        const CliResult f = runCli({QStringLiteral("vqe"), QStringLiteral("--qubits"), QStringLiteral("2"), QStringLiteral("--iterations"), QStringLiteral("200"),
                                    QStringLiteral("--hamiltonian"), hfile, QStringLiteral("--json")});
        QCOMPARE(f.exitCode, 0);
        const QJsonObject fo = QJsonDocument::fromJson(f.out).object();
        QVERIFY(std::fabs(fo.value(QStringLiteral("exact_energy")).toDouble() + std::sqrt(1.25)) < 1e-9);
        // errors: a Hamiltonian on too many qubits, a broken file, a bad optimizer
        std::ofstream(hfile.toStdString()) << "Z5\n";
        QCOMPARE(runCli({QStringLiteral("vqe"), QStringLiteral("--qubits"), QStringLiteral("2"), QStringLiteral("--hamiltonian"), hfile}).exitCode, 2);
        std::ofstream(hfile.toStdString()) << "0.5 Z0 Q1\n";
        const CliResult bad = runCli({QStringLiteral("vqe"), QStringLiteral("--qubits"), QStringLiteral("2"), QStringLiteral("--hamiltonian"), hfile});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains(":1:8:"));
        QCOMPARE(runCli({QStringLiteral("vqe"), QStringLiteral("--qubits"), QStringLiteral("2"), QStringLiteral("--optimizer"), QStringLiteral("adam")}).exitCode, 2);
    }

    void qgenCli()
    {
        const CliResult r = runCli({QStringLiteral("qgen"), QStringLiteral("bv"), QStringLiteral("5"), QStringLiteral("--secret"), QStringLiteral("10011")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.startsWith("OPENQASM 2.0;"));
        const QString f = outputDir() + QStringLiteral("/bv5.qasm");
        std::ofstream(f.toStdString()) << r.out.toStdString();
        const CliResult s = runCli({QStringLiteral("qsim"), f, QStringLiteral("--shots"), QStringLiteral("64"), QStringLiteral("--json")});
        QCOMPARE(QJsonDocument::fromJson(s.out).object().value(QStringLiteral("counts")).toObject().value(QStringLiteral("10011")).toInt(), 64);
        QCOMPARE(runCli({QStringLiteral("qgen"), QStringLiteral("shor"), QStringLiteral("5")}).exitCode, 2);
        QCOMPARE(runCli({QStringLiteral("qgen"), QStringLiteral("qft"), QStringLiteral("x")}).exitCode, 2);
        QCOMPARE(runCli({QStringLiteral("qgen"), QStringLiteral("grover"), QStringLiteral("5")}).exitCode, 2);
        QCOMPARE(runCli({QStringLiteral("qgen"), QStringLiteral("bv"), QStringLiteral("3"), QStringLiteral("--secret"), QStringLiteral("1")}).exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestQuantumWorkloads)
#include "tst_quantum_workloads.moc"
