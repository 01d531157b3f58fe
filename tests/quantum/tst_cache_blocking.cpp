// StateVector::applyAll's cache blocking (chunk runs, tile runs, reordering past gates on disjoint qubits)
// against applying the same prepared gates one by one, on random states and circuits that mix every kind of
// gate the kernels know: one-qubit, controlled, diagonal, sparse and dense fused blocks.
#include "quantum/quantum_testutil.h"

#include "core/quantum/pipeline.h"

#include <QtTest>

#include <random>

using namespace spyglass;
using namespace spyglass::quantum;

namespace {

Circuit randomCircuit(int n, int gates, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> ang(-3.2, 3.2);
    std::uniform_int_distribution<int> q(0, n - 1);
    // Qubits near the chunk/tile boundaries (13 and the tile width) are picked more often.
    std::uniform_int_distribution<int> edge(0, 7);
    auto pick = [&] {
        switch (edge(rng)) {
        case 0: return 12;
        case 1: return 13;
        case 2: return n - 1;
        case 3: return int(rng() % 4);
        default: return q(rng);
        }
    };
    Circuit c;
    c.numQubits = n;
    const char* one[] = {"h", "rx", "ry", "rz", "t", "sx", "u3"};
    const char* two[] = {"cx", "cz", "cp", "swap", "rzz", "cry"};
    for (int i = 0; i < gates; ++i) {
        Op op;
        const int kind = int(rng() % 10);
        if (kind < 5) {
            op.name = one[rng() % 7];
            op.qubits = {pick()};
        } else if (kind < 9) {
            op.name = two[rng() % 6];
            int a = pick(), b = pick();
            while (b == a)
                b = q(rng);
            op.qubits = {a, b};
        } else {
            op.name = "ccx";
            int a = pick(), b = pick(), t = pick();
            while (b == a)
                b = q(rng);
            while (t == a || t == b)
                t = q(rng);
            op.qubits = {a, b, t};
        }
        const StdGate* g = findStdGate(op.name);
        for (int p = 0; p < g->params; ++p)
            op.params.push_back(ang(rng));
        c.ops.push_back(op);
    }
    return c;
}

std::vector<kernels::PreparedGate> prepared(const Circuit& c)
{
    std::vector<kernels::PreparedGate> out;
    for (const Op& op : c.ops)
        if (op.kind == OpKind::Gate)
            out.push_back(prepareOp(c, op));
    return out;
}

}  // namespace

class TestCacheBlocking : public QObject {
    Q_OBJECT

private slots:
    void blockedEqualsGateByGate_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("fuse");
        for (int n : {15, 16, 18, 20})
            for (int fuse : {0, 2, 4})
                QTest::addRow("n=%d fuse=%d", n, fuse) << n << fuse;
    }

    void blockedEqualsGateByGate()
    {
        QFETCH(int, n);
        QFETCH(int, fuse);
        const Circuit raw = randomCircuit(n, 90, uint64_t(n * 7 + fuse));
        const Circuit c = fuse ? prepareForSimulation(raw, fuse) : raw;
        const auto gates = prepared(c);
        const auto psi = quantum::test::randomState(n, uint64_t(n + 100 * fuse));
        for (Precision p : {Precision::Double, Precision::Single}) {
            StateVector one(n, p), all(n, p);
            one.setAmplitudes(psi);
            all.setAmplitudes(psi);
            for (const auto& g : gates)
                one.apply(g);
            all.applyAll(gates);
            double diff = 0;
            for (uint64_t i = 0; i < one.size(); ++i)
                diff = std::max(diff, std::abs(one.amplitude(i) - all.amplitude(i)));
            QVERIFY2(diff < (p == Precision::Double ? 1e-12 : 1e-5), qPrintable(QString::number(diff)));
        }
    }

    void layeredCircuitFormsRuns()
    {
        // The docs/quantum.md random layered circuit: blocked and gate-by-gate agree on 17 qubits too.
        const int n = 17;
        std::mt19937_64 rng(5);
        std::uniform_real_distribution<double> ang(0, 6.283185307179586);
        Circuit c;
        c.numQubits = n;
        const char* rot[] = {"rx", "ry", "rz"};
        for (int l = 0; l < 6; ++l) {
            for (int q = 0; q < n; ++q) {
                Op op;
                op.name = rot[rng() % 3];
                op.qubits = {q};
                op.params = {ang(rng)};
                c.ops.push_back(op);
            }
            for (int q = l % 2; q + 1 < n; q += 2) {
                Op cz;
                cz.name = "cz";
                cz.qubits = {q, q + 1};
                c.ops.push_back(cz);
            }
        }
        const auto gates = prepared(c);
        StateVector one(n, Precision::Double), all(n, Precision::Double);
        for (const auto& g : gates)
            one.apply(g);
        all.applyAll(gates);
        QVERIFY(quantum::test::fidelity(one.amplitudes(), all.amplitudes()) > 1 - 1e-12);
        double diff = 0;
        for (uint64_t i = 0; i < one.size(); ++i)
            diff = std::max(diff, std::abs(one.amplitude(i) - all.amplitude(i)));
        QVERIFY(diff < 1e-12);
    }
};

QTEST_GUILESS_MAIN(TestCacheBlocking)
#include "tst_cache_blocking.moc"
