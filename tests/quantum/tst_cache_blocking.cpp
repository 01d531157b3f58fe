// StateVector::applyAll's cache blocking (chunk runs, tile runs, reordering past gates on disjoint qubits)
// against applying the same prepared gates one by one, on random states and circuits that mix every kind of
// gate the kernels know: one-qubit, controlled, diagonal, sparse and dense fused blocks.
#include "quantum/quantum_testutil.h"

#include "core/quantum/generators.h"
#include "core/quantum/kernel_costs.h"
#include "core/quantum/pipeline.h"
#include "core/quantum/row_permutation.h"
#include "core/quantum/swap_network.h"

#include <QtTest>

#include <algorithm>
#include <random>

using namespace spyglass;
using namespace spyglass::quantum;

namespace {

Circuit randomCircuit(int n, int gates, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> ang(-3.2, 3.2);
    std::uniform_int_distribution<int> q(0, n - 1);
    // Qubits at the chunk and tile boundaries are picked more often (up to n - 1: a state of 2^chunkQubits
    // amplitudes or fewer is one chunk).
    const StateVector::Blocks blocks = StateVector::blocks(n, Precision::Double);
    std::uniform_int_distribution<int> edge(0, 8);
    auto pickAny = [&] {
        switch (edge(rng)) {
        case 0: return blocks.chunkQubits - 1;
        case 1: return blocks.chunkQubits;
        case 2: return n - 1;
        case 3: return int(rng() % 4);
        case 4: return blocks.tileLowQubits - 1 + int(rng() % 2);
        default: return q(rng);
        }
    };
    auto pick = [&] { return std::min(n - 1, pickAny()); };
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

// A GHZ chain and then random reversible gates (x, cx, swap, ccx): every fused block is a permutation of the
// amplitudes (kernels::PreparedGate::permutation), with targets inside the vector lanes and above them.
Circuit reversibleCircuit(int n, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    Circuit c;
    c.numQubits = n;
    quantum::test::addGate(c, "h", {0});
    for (int q = 0; q + 1 < n; ++q)
        quantum::test::addGate(c, "cx", {q, q + 1});
    const char* names[] = {"x", "cx", "swap", "ccx"};
    const int arity[] = {1, 2, 2, 3};
    for (int i = 0; i < 60; ++i) {
        const int kind = int(rng() % 4);
        std::vector<int> qubits;
        while (static_cast<int>(qubits.size()) < arity[kind]) {
            const int q = int(rng() % uint64_t(n));
            if (std::find(qubits.begin(), qubits.end(), q) == qubits.end())
                qubits.push_back(q);
        }
        quantum::test::addGate(c, names[kind], qubits);
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
        QTest::addColumn<QString>("circuit");   // random, qft or reversible
        for (int n : {15, 16, 17, 18, 20})
            for (int fuse : {0, 2, 4})
                QTest::addRow("n=%d fuse=%d", n, fuse) << n << fuse << QStringLiteral("random");
        // 24 qubits: chunks of 2^14 amplitudes and tiles of 2^10 rows (StateVector::blocks), not 2^13 and 2^11.
        QTest::addRow("n=24 fuse=4") << 24 << 4 << QStringLiteral("random");
        // A QFT and a layer of rz: the runs' diagonal gates merge into products of phases (kernels::PhaseProduct),
        // in chunks, in tiles in place (20 qubits) and in copied tiles (22), unfused and fused.
        for (int n : {20, 22})
            for (int fuse : {0, 4})
                QTest::addRow("qft n=%d fuse=%d", n, fuse) << n << fuse << QStringLiteral("qft");
        // Permutations (kernels::PreparedGate::permutation): a GHZ chain and reversible gates, in chunks, tiles in
        // place (20) and copied tiles (22), unfused (cx and swap alone) and fused into blocks of moves.
        for (int n : {20, 22})
            for (int fuse : {0, 4})
                QTest::addRow("reversible n=%d fuse=%d", n, fuse) << n << fuse << QStringLiteral("reversible");
        // Program gates (kernels::setProgram): the docs' random layered circuit fused <= 4 within the cache blocks
        // (rotations and cz, which run as programs), in chunks, tiles in place (20) and copied tiles (22), whose
        // renumbered qubits the programs' steps follow; the fused state is also the unfused one's.
        for (int n : {20, 22})
            QTest::addRow("layered n=%d fuse=4", n) << n << 4 << QStringLiteral("layered");
    }

    // blockedEqualsGateByGate covers both ways a tile runs: in place on the state (17-20 qubits) and on a copy (24).
    void sizesCoverBothTileRuns()
    {
        for (Precision p : {Precision::Double, Precision::Single}) {
            QVERIFY(StateVector::blocks(17, p).tilesInPlace);
            QVERIFY(StateVector::blocks(20, p).tilesInPlace);
            QVERIFY(!StateVector::blocks(24, p).tilesInPlace);
        }
    }

    void blockedEqualsGateByGate()
    {
        QFETCH(int, n);
        QFETCH(int, fuse);
        QFETCH(QString, circuit);
        const bool qft = circuit == QLatin1String("qft");
        Circuit raw = qft ? makeQft(n, 0, false)
                          : circuit == QLatin1String("reversible") ? reversibleCircuit(n, uint64_t(n + fuse)) : randomCircuit(n, 90, uint64_t(n * 7 + fuse));
        for (int q = 0; q < n && qft; ++q) {
            Op rz;
            rz.name = "rz";
            rz.qubits = {q};
            rz.params = {0.1 + 0.37 * q};
            raw.ops.push_back(rz);
        }
        const bool layered = circuit == QLatin1String("layered");
        if (layered)
            raw = makeRandomLayers(n, 8, uint64_t(n));
        Circuit c = raw;
        if (layered)
            makeFusePassKeeping(fuse, "wide <= 4 in cache blocks")->run(c);
        else if (fuse)
            c = prepareForSimulation(raw, fuse);
        const auto gates = prepared(c);
        if (layered) {
            QVERIFY(std::count_if(gates.begin(), gates.end(), [](const kernels::PreparedGate& g) { return g.program; }) >= 4);
            StateVector unfused(n, Precision::Double), fusedState(n, Precision::Double);
            unfused.setAmplitudes(quantum::test::randomState(n, uint64_t(n + 100 * fuse)));
            fusedState.setAmplitudes(quantum::test::randomState(n, uint64_t(n + 100 * fuse)));
            for (const auto& g : prepared(raw))
                unfused.apply(g);
            fusedState.applyAll(gates);
            QVERIFY(quantum::test::fidelity(unfused.amplitudes(), fusedState.amplitudes()) > 1 - 1e-12);
        }
        const auto psi = quantum::test::randomState(n, uint64_t(n + 100 * fuse));
        std::vector<cplx> doubleResult;
        for (Precision p : {Precision::Double, Precision::Single}) {
            StateVector one(n, p), all(n, p);
            one.setAmplitudes(psi);
            all.setAmplitudes(psi);
            for (const auto& g : gates)
                one.apply(g);
            all.applyAll(gates);
            const double diff = quantum::test::maxDifference(one, all);
            QVERIFY2(diff < (p == Precision::Double ? 1e-12 : 1e-5), qPrintable(QString::number(diff)));
            // complex64 runs other kernels (four amplitudes per vector): it must agree with complex128.
            if (p == Precision::Double) {
                doubleResult = all.amplitudes();
            } else {
                double vsDouble = 0;
                for (uint64_t i = 0; i < all.size(); ++i)
                    vsDouble = std::max(vsDouble, std::abs(all.amplitude(i) - doubleResult[i]));
                QVERIFY2(vsDouble < 1e-4, qPrintable(QString::number(vsDouble)));
            }
        }
    }

    // A tile stays within 512 KiB (the L2 here is 1 MiB) up to 28 qubits, a chunk within 1 MiB, and a tile has at
    // most 2^10 rows (each a 4 KiB page of its own, with the L2 TLB at 3072 entries) up to 26 qubits, 2^12 at 28;
    // past 28 only the tiles grow. A tile row is whole 64-byte lines.
    void blocksStayInCacheAtEverySize()
    {
        for (Precision p : {Precision::Double, Precision::Single}) {
            const int bytes = p == Precision::Double ? 16 : 8;
            for (int n = 15; n <= 34; ++n) {
                const StateVector::Blocks b = StateVector::blocks(n, p);
                const int64_t chunk = (int64_t(1) << b.chunkQubits) * bytes;
                const int64_t rowBytes = (int64_t(1) << b.tileLowQubits) * bytes;
                const int rowQubits = n - b.chunkQubits;
                const int64_t tile = rowBytes << rowQubits;
                const QByteArray at = "n=" + QByteArray::number(n) + (p == Precision::Double ? " complex128" : " complex64");
                QVERIFY2(chunk <= 1024 * 1024, at.constData());
                QVERIFY2(tile <= (int64_t(512 * 1024) << std::max(0, n - 28)), at.constData());
                QVERIFY2(rowBytes >= 64, at.constData());
                QVERIFY2(b.tileLowQubits <= b.chunkQubits, at.constData());
                QVERIFY2(rowQubits <= (n <= 26 ? 10 : n <= 28 ? 12 : n - 16), at.constData());
            }
        }
    }

    void layeredCircuitFormsRuns()
    {
        // The docs/quantum.md random layered circuit: blocked and gate-by-gate agree on 17 qubits too.
        const int n = 17;
        const Circuit c = makeRandomLayers(n, 6, 5);
        const auto gates = prepared(c);
        StateVector one(n, Precision::Double), all(n, Precision::Double);
        for (const auto& g : gates)
            one.apply(g);
        const StateVector::Passes unfusedPasses = all.applyAll(gates);
        QVERIFY(quantum::test::fidelity(one.amplitudes(), all.amplitudes()) > 1 - 1e-12);
        // Fused (<= 4) within the cache blocks, no block straddles the chunk/tile boundary, so every block can join
        // a run (one left alone between runs it cannot move past is applied by itself, a pass the fuse pass's
        // estimate counts). Kept so: the estimate may prefer the wide fusion across them, whose blocks cannot.
        Circuit f = c;
        makeFusePassKeeping(4, "wide <= 4 in cache blocks")->run(f);
        QVERIFY(f.gateCount() < c.gateCount());
        StateVector fused(n, Precision::Double);
        const StateVector::Passes fusedPasses = fused.applyAll(prepared(f));
        QVERIFY2(fusedPasses.singleGates <= 1, qPrintable(QStringLiteral("%1 gates alone").arg(fusedPasses.singleGates)));
        QVERIFY2(fusedPasses.total() <= 2 * unfusedPasses.total(),
                 qPrintable(QStringLiteral("%1 passes fused, %2 unfused").arg(fusedPasses.total()).arg(unfusedPasses.total())));
        QVERIFY(quantum::test::fidelity(one.amplitudes(), fused.amplitudes()) > 1 - 1e-12);
        const double diff = quantum::test::maxDifference(one, all);
        QVERIFY(diff < 1e-12);
    }
    void qftRunsInFewPasses_data()
    {
        QTest::addColumn<int>("fuse");
        QTest::newRow("unfused") << 0;
        QTest::newRow("fused <= 4") << 4;
    }

    // The controlled phases of a QFT are diagonal, so they join chunk and tile runs whatever their qubits: the
    // 20-qubit QFT (20 H, 190 cp, 10 swaps) takes a handful of passes over the state, not one per gate, and
    // gives the same state as gate-by-gate application.
    void qftRunsInFewPasses()
    {
        QFETCH(int, fuse);
        const int n = 20;
        const Circuit raw = makeQft(n, 0x5a5a5, false);
        const Circuit c = fuse ? prepareForSimulation(raw, fuse) : raw;
        const auto gates = prepared(c);
        StateVector one(n, Precision::Double), all(n, Precision::Double);
        const auto psi = quantum::test::randomState(n, 77);
        one.setAmplitudes(psi);
        all.setAmplitudes(psi);
        for (const auto& g : gates)
            one.apply(g);
        const StateVector::Passes passes = all.applyAll(gates);
        const double diff = quantum::test::maxDifference(one, all);
        QVERIFY2(diff < 1e-12, qPrintable(QString::number(diff)));
        QVERIFY2(passes.total() <= 12, qPrintable(QStringLiteral("%1 chunk runs, %2 tile runs, %3 single gates for %4 gates")
                                                      .arg(passes.chunkRuns)
                                                      .arg(passes.tileRuns)
                                                      .arg(passes.singleGates)
                                                      .arg(gates.size())));
        QVERIFY(passes.chunkRuns >= 1 && passes.tileRuns >= 1);
    }

    // applySwapNetwork against moving each amplitude to its index with the pairs' bits exchanged: pairs of
    // neighbours, pairs within a tile (its own image) and across tiles, runs of one cache line and of more than
    // the kernel's 4 KiB piece.
    void swapNetworkMovesEveryAmplitude_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<QList<int>>("pairs");   // q0, q1, q0, q1, ...
        QTest::newRow("bit reversal above 3") << 14 << QList<int>{3, 13, 4, 12, 5, 11, 6, 10, 7, 9};
        QTest::newRow("neighbours") << 14 << QList<int>{3, 4, 5, 6, 9, 8};
        QTest::newRow("mixed") << 15 << QList<int>{4, 14, 5, 6, 8, 11, 12, 7};
        QTest::newRow("one pair, long runs") << 16 << QList<int>{10, 15};
    }

    // Copied tiles move the same amplitudes whether their next rows are asked for ahead or not (the calibration's
    // tileRowsAhead, kernels::swapTileRows), in every kernel build: 0, a few rows, and more rows than a tile has.
    void tileRowsReadAheadChangeNothing()
    {
        const int n = 22;
        QVERIFY(!StateVector::blocks(n, Precision::Single).tilesInPlace);
        const uint64_t rows = uint64_t(1) << (n - StateVector::blocks(n, Precision::Single).chunkQubits);
        Circuit c = randomCircuit(n, 60, 17);
        c = prepareForSimulation(c, 4);
        const auto gates = prepared(c);
        QVERIFY(StateVector::countPasses(n, Precision::Single, gates).tileRuns >= 1);
        const auto psi = quantum::test::randomState(n, 29);
        const kernels::Isa active = kernels::activeIsa();
        for (kernels::Isa isa : {kernels::Isa::Portable, kernels::Isa::Avx2, kernels::Isa::Avx512}) {
            if (!kernels::setActiveIsa(isa))
                continue;
            std::vector<cplx> first;
            for (uint64_t ahead : {uint64_t(0), uint64_t(3), uint64_t(8), 2 * rows}) {
                kernels::Calibration cal;
                kernels::Calibration::Entry e;
                e.isa = isa;
                e.cpu = kernels::cpuIdentity();
                e.table = kernels::builtinCostTable();
                e.table.tileRowsAhead = double(ahead);
                cal.entries.push_back(e);
                kernels::useCalibration(cal, "rows ahead");
                QCOMPARE(kernels::tileRowsAhead(), int(ahead));
                StateVector s(n, Precision::Single);
                s.setAmplitudes(psi);
                s.applyAll(gates);
                if (first.empty())
                    first = s.amplitudes();
                else
                    QVERIFY2(s.amplitudes() == first, kernels::isaName(isa));
            }
        }
        kernels::setActiveIsa(active);
        kernels::useCalibration({}, {});
    }

    void swapNetworkMovesEveryAmplitude()
    {
        QFETCH(int, n);
        QFETCH(QList<int>, pairs);
        std::vector<std::pair<int, int>> swaps;
        for (qsizetype i = 0; i + 1 < pairs.size(); i += 2)
            swaps.emplace_back(pairs[i], pairs[i + 1]);
        const auto psi = quantum::test::randomState(n, 5);
        const auto moved = [&](uint64_t i) {
            for (const auto& [p, q] : swaps)
                if ((i >> p & 1) != (i >> q & 1))
                    i ^= (uint64_t(1) << p) | (uint64_t(1) << q);
            return i;
        };
        const kernels::Isa widest = kernels::activeIsa();
        for (kernels::Isa isa : kernels::kAllIsas) {
            if (!kernels::setActiveIsa(isa))
                continue;
            // 64-byte aligned, as a state is.
            StateVector d(n, Precision::Double), f(n, Precision::Single);
            d.setAmplitudes(psi);
            f.setAmplitudes(psi);
            applySwapNetwork(d.dataDouble(), n, swaps);
            applySwapNetwork(f.dataFloat(), n, swaps);
            for (uint64_t i = 0; i < psi.size(); ++i) {
                const uint64_t j = moved(i);
                const QByteArray at = QByteArray(kernels::isaName(isa)) + " amplitude " + QByteArray::number(qulonglong(i));
                QVERIFY2(d.amplitude(j) == psi[i], at.constData());
                QVERIFY2(f.amplitude(j) == cplx(std::complex<float>(psi[i])), at.constData());
            }
        }
        kernels::setActiveIsa(widest);
    }

    // Swaps between the middle qubits (fixed in a tile) and the high ones (fixed in a chunk) fit no cache block:
    // a layer of them, with swaps of the tiles' columns and rows among them (a QFT's closing bit reversal is
    // both kinds), after gates on every qubit, takes one swap network, and a second layer sharing qubits with the
    // first takes a second. Blocked and gate by gate agree, in both precisions, with tiles in place (20 qubits)
    // and copied (22, 24); countPasses counts the same passes.
    void swapLayersRunAsNetworks_data()
    {
        QTest::addColumn<int>("n");
        for (int n : {20, 22, 24})
            QTest::addRow("%d", n) << n;
    }

    void swapLayersRunAsNetworks()
    {
        QFETCH(int, n);
        Circuit c;
        c.numQubits = n;
        // The middle qubits of both precisions (complex64's tiles have one more column qubit).
        const int middle = StateVector::blocks(n, Precision::Single).tileLowQubits, high = StateVector::blocks(n, Precision::Double).chunkQubits;
        QVERIFY(middle == StateVector::blocks(n, Precision::Double).tileLowQubits + 1 && high - middle >= 2 && n - high >= 3);
        for (int q = 0; q < n; ++q)
            quantum::test::addGate(c, "ry", {q}, {0.3 + 0.11 * q});
        quantum::test::addGate(c, "swap", {0, n - 1});
        for (int q = middle; q < high && high + q - middle < n - 1; ++q)
            quantum::test::addGate(c, "swap", {q, high + q - middle});
        for (int q = 0; q + 1 < n; q += 2)
            quantum::test::addGate(c, "cx", {q, q + 1});
        quantum::test::addGate(c, "swap", {high, middle + 1});
        quantum::test::addGate(c, "swap", {middle, high + 1});
        const auto gates = prepared(c);
        for (Precision p : {Precision::Double, Precision::Single}) {
            StateVector one(n, p), all(n, p);
            const auto psi = quantum::test::randomState(n, 8);
            one.setAmplitudes(psi);
            all.setAmplitudes(psi);
            for (const auto& g : gates)
                one.apply(g);
            const StateVector::Passes passes = all.applyAll(gates);
            QCOMPARE(passes.swapNetworks, 2);
            const StateVector::Passes counted = StateVector::countPasses(n, p, gates);
            QCOMPARE(counted.total(), passes.total());
            QCOMPARE(counted.swapNetworks, passes.swapNetworks);
            const double diff = quantum::test::maxDifference(one, all);
            QVERIFY2(diff < (p == Precision::Double ? 1e-12 : 1e-5), qPrintable(QString::number(diff)));
        }
    }

    // Diagonal gates and far controls resolved per block: a gate list made only of them (cp, crz, rzz, cx
    // controlled from the top qubits onto low targets) is one chunk run.
    void diagonalsAndFarControlsFitChunks()
    {
        const int n = 18;
        Circuit c;
        c.numQubits = n;
        std::mt19937_64 rng(9);
        const char* names[] = {"cp", "crz", "rzz", "cx", "t", "rz"};
        for (int i = 0; i < 60; ++i) {
            Op op;
            op.name = names[i % 6];
            const int hi = 13 + int(rng() % 5), lo = int(rng() % 13);
            if (op.name == "t" || op.name == "rz")
                op.qubits = {hi};
            else
                op.qubits = {hi, lo};   // control (or first qubit) high, target low
            if (op.name != "cx" && op.name != "t")
                op.params = {0.1 * (i + 1)};
            c.ops.push_back(op);
        }
        const auto gates = prepared(c);
        const auto psi = quantum::test::randomState(n, 3);
        StateVector one(n, Precision::Single), all(n, Precision::Single);
        one.setAmplitudes(psi);
        all.setAmplitudes(psi);
        for (const auto& g : gates)
            one.apply(g);
        const StateVector::Passes passes = all.applyAll(gates);
        QCOMPARE(passes.total(), 1);
        QCOMPARE(passes.chunkRuns, 1);
        const double diff = quantum::test::maxDifference(one, all);
        QVERIFY2(diff < 1e-5, qPrintable(QString::number(diff)));
    }

    // A diagonal gate waits for a later run only where the gate that needs it can join that run: not behind a gate
    // that fits no block. 20 qubits: tiles hold qubits 0-10 and 16-19 (11-15 fixed), chunks 0-15. The diagonal
    // cp(14, 19) fits either; rxx(13, 19) fits neither, and the h on 19 after it needs the diagonal first. Waiting
    // for the h, the diagonal would be left a pass of its own (QASMBench's qram_n20 lost 0.5 ms so); it joins
    // the first tile run instead: one tile run, then the rxx and the h alone.
    void diagonalsDoNotWaitBehindGatesThatFitNoBlock()
    {
        const int n = 20;
        Circuit c;
        c.numQubits = n;
        for (int q : {16, 17, 18, 0, 1, 2, 3})
            quantum::test::addGate(c, "h", {q});
        quantum::test::addGate(c, "cp", {14, 19}, {0.7});
        quantum::test::addGate(c, "rxx", {13, 19}, {0.3});
        quantum::test::addGate(c, "h", {19});
        const auto gates = prepared(c);
        const auto psi = quantum::test::randomState(n, 11);
        StateVector one(n, Precision::Double), all(n, Precision::Double);
        one.setAmplitudes(psi);
        all.setAmplitudes(psi);
        for (const auto& g : gates)
            one.apply(g);
        const StateVector::Passes passes = all.applyAll(gates);
        QCOMPARE(passes.tileRuns, 1);
        QCOMPARE(passes.singleGates, 2);
        QCOMPARE(passes.total(), 3);
        QCOMPARE(StateVector::countPasses(n, Precision::Double, gates).total(), 3);
        const double diff = quantum::test::maxDifference(one, all);
        QVERIFY2(diff < 1e-12, qPrintable(QString::number(diff)));
    }

    // A copied tile's run whose gates cost clearly less alone goes alone (planRuns, kSinglesMargin): on 22 qubits
    // (tiles copied, rows 15-21) two cx between the rows' qubits sweep half the state each, where their tile run
    // copies all of it in and out; eight one-qubit gates on the rows stay a tile run. The fuse pass's footprints,
    // which carry no costs, count the cx as a run; plannedCost prices each cx alone at its sweep. With the built-in
    // kernel costs ctest runs with.
    void tileRunsOfCheapGatesGoAlone()
    {
        const int n = 22;
        QVERIFY(!StateVector::blocks(n, Precision::Single).tilesInPlace);
        Circuit cx;
        cx.numQubits = n;
        quantum::test::addGate(cx, "cx", {16, 17});
        quantum::test::addGate(cx, "cx", {15, 16});
        Circuit rows = cx;
        rows.ops.clear();
        for (int q = 15; q < n; ++q)
            quantum::test::addGate(rows, "ry", {q}, {0.1 * q});
        quantum::test::addGate(rows, "h", {15});
        const auto psi = quantum::test::randomState(n, 21);
        for (const Circuit* c : {&cx, &rows}) {
            const auto gates = prepared(*c);
            StateVector one(n, Precision::Single), all(n, Precision::Single);
            one.setAmplitudes(psi);
            all.setAmplitudes(psi);
            for (const auto& g : gates)
                one.apply(g);
            const StateVector::Passes passes = all.applyAll(gates);
            const StateVector::Passes counted = StateVector::countPasses(n, Precision::Single, gates);
            QCOMPARE(counted.total(), passes.total());
            std::vector<StateVector::Footprint> footprints;
            double costs = 0, alone = 0;
            for (const auto& g : gates) {
                footprints.push_back(StateVector::footprint(g));
                costs += kernels::relativeCost(g);
                // Each cx has one control above a cache line: half a pass's sweep, halved.
                alone += std::max(kernels::relativeCost(g), kernels::passCost() / 4);
            }
            const double planned = StateVector::plannedCost(n, Precision::Single, footprints);
            QVERIFY2(std::abs(planned - (c == &cx ? alone : kernels::passCost() + costs)) < 1e-12, qPrintable(QString::number(planned)));
            if (c == &cx) {
                QCOMPARE(passes.singleGates, 2);
                QCOMPARE(passes.tileRuns, 0);
                std::vector<StateVector::Footprint> costless;
                for (const auto& g : gates) {
                    costless.push_back(StateVector::footprint(g));
                    costless.back().cost = 0;
                }
                QCOMPARE(StateVector::countPasses(n, Precision::Single, costless).tileRuns, 1);
            } else {
                QCOMPARE(passes.tileRuns, 1);
                QCOMPARE(passes.total(), 1);
            }
            const double diff = quantum::test::maxDifference(one, all);
            QVERIFY2(diff < 1e-5, qPrintable(QString::number(diff)));
        }
    }

    // Permutation gates composed (row_permutation.h) move every amplitude where the gates one after another do:
    // random x, cx, swap, ccx and a controlled swap on a 13-qubit block, controls included, in both precisions, on
    // qubits from 3 up (rows of one complex64 line, two complex128 ones) and from 5 up (4 and 8 lines).
    void composedPermutationIsTheGatesInOrder()
    {
        const int n = 13;
        for (int low : {3, 5}) {
            std::mt19937_64 rng(5);
            Circuit c;
            c.numQubits = n;
            const char* names[] = {"x", "cx", "swap", "ccx", "cswap"};
            const int arity[] = {1, 2, 2, 3, 3};
            for (int i = 0; i < 40; ++i) {
                const int kind = int(rng() % 5);
                std::vector<int> qubits;
                while (static_cast<int>(qubits.size()) < arity[kind]) {
                    const int q = low + int(rng() % uint64_t(n - low));
                    if (std::find(qubits.begin(), qubits.end(), q) == qubits.end())
                        qubits.push_back(q);
                }
                quantum::test::addGate(c, names[kind], qubits);
            }
            const auto gates = prepared(c);
            std::vector<const kernels::PreparedGate*> list;
            for (const auto& g : gates) {
                QVERIFY(composable(g, 16) && composable(g, 8));
                list.push_back(&g);
            }
            const auto psi = quantum::test::randomState(n, 3);
            for (Precision p : {Precision::Double, Precision::Single}) {
                quantum::test::GateByGate states(n, p, psi, gates);
                const RowCycles rows = composeRows(list, p == Precision::Double ? 16 : 8);
                QCOMPARE(rows.lowest, low);
                QVERIFY(!rows.cycleEnd.empty());
                if (p == Precision::Double)
                    applyRowCycles(states.other.dataDouble(), n, rows);
                else
                    applyRowCycles(states.other.dataFloat(), n, rows);
                QCOMPARE(quantum::test::maxDifference(states.one, states.other), 0.0);
            }
        }
        // A gate on a qubit inside a cache line is not composed, its rows would be parts of lines: qubit 2 is
        // inside a complex64 line (8 amplitudes) and above a complex128 one (4).
        Circuit low;
        low.numQubits = n;
        quantum::test::addGate(low, "cx", {2, 5});
        QVERIFY(!composable(prepared(low).front(), 8));
        QVERIFY(composable(prepared(low).front(), 16));
    }

    // A GHZ chain fused into blocks of four qubits on 22 qubits (tiles copied): its permutations above a cache line
    // are composed (at least four of them), and the state is the gates' one after another.
    void ghzChainsComposeInCacheBlocks()
    {
        const int n = 22;
        Circuit raw = makeGhz(n);
        const Circuit c = prepareForSimulation(raw, 4);
        const auto gates = prepared(c);
        const auto psi = quantum::test::randomState(n, 8);
        for (Precision p : {Precision::Double, Precision::Single}) {
            quantum::test::GateByGate states(n, p, psi, gates);
            const StateVector::Passes passes = states.other.applyAll(gates);
            QVERIFY2(passes.composedGates >= 4, qPrintable(QString::number(passes.composedGates)));
            QCOMPARE(passes.total(), StateVector::countPasses(n, p, gates).total());
            QCOMPARE(quantum::test::maxDifference(states.one, states.other), 0.0);
        }
    }

    // In a copied tile (22 qubits), CNOTs whose controls are qubits the tile fixes compose with the permutations
    // around them: in the tiles where a control is 1 as its target's X, in the others as nothing (two such
    // controls, four compositions). Phases on the rows' qubits before them (held as products of phases) go first,
    // and those after them after.
    void permutationsWithAFixedControlCompose()
    {
        const int n = 22;
        const StateVector::Blocks blocks = StateVector::blocks(n, Precision::Single);
        QVERIFY(!blocks.tilesInPlace);
        const int b = blocks.chunkQubits;   // the rows' lowest qubit; b - 1 is fixed in a tile
        Circuit c;
        c.numQubits = n;
        quantum::test::addGate(c, "cp", {b, b + 1}, {0.7});
        quantum::test::addGate(c, "rz", {b + 2}, {0.4});
        quantum::test::addGate(c, "x", {b});
        quantum::test::addGate(c, "cx", {b - 1, b});
        quantum::test::addGate(c, "cx", {b, b + 1});
        quantum::test::addGate(c, "swap", {b + 1, b + 3});
        quantum::test::addGate(c, "cx", {b + 2, b + 4});
        quantum::test::addGate(c, "cx", {b - 2, b + 5});
        quantum::test::addGate(c, "x", {b + 5});
        quantum::test::addGate(c, "cp", {b + 3, b + 4}, {1.1});
        const auto gates = prepared(c);
        const auto psi = quantum::test::randomState(n, 13);
        for (Precision p : {Precision::Double, Precision::Single}) {
            quantum::test::GateByGate states(n, p, psi, gates);
            const StateVector::Passes passes = states.other.applyAll(gates);
            QCOMPARE(passes.tileRuns, 1);
            QCOMPARE(passes.total(), 1);
            QCOMPARE(passes.composedGates, 7);
            QCOMPARE(quantum::test::maxDifference(states.one, states.other), 0.0);
        }
    }
};

QTEST_GUILESS_MAIN(TestCacheBlocking)
#include "tst_cache_blocking.moc"
