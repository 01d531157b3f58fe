// The kernel cost table the fuse pass weighs (kernel_costs.h): the built-in table under the tests, the calibration
// file's round trip and its errors (file:line), a table applying only to the CPU and kernel build it was measured
// on, the fuse pass deciding by the table in use, a measured table's sanity, and `spyglass-cli qcalibrate`.
#include "common/testutil.h"
#include "quantum_testutil.h"

#include "core/quantum/kernel_calibration.h"
#include "core/quantum/pass.h"
#include "core/quantum/simulator.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <bit>
#include <cmath>
#include <fstream>

#if defined(__linux__)
#include <sched.h>
#endif

using namespace spyglass;
using namespace spyglass::quantum;
using namespace spyglass::test;

namespace {

QString writeText(const QString& name, const std::string& text)
{
    const QString path = outputDir() + QStringLiteral("/") + name;
    std::ofstream(path.toStdString()) << text;
    return path;
}

kernels::CostShape denseShape(int k, bool real)
{
    kernels::CostShape s;
    s.k = k;
    s.lowestTarget = 4;
    s.real = real;
    return s;
}

// A table with every cost distinct and written exactly by %.6g.
kernels::CostTable distinctTable()
{
    kernels::CostTable t;
    for (int k = 1; k <= 6; ++k) {
        t.dense[k] = 0.5 * k + 0.125;
        t.denseReal[k] = 0.25 * k + 0.0625;
    }
    t.controlled = 1.25;
    t.diagonalBase = 0.0625;
    t.diagonalSlope = 0.375;
    t.sparseBase = 0.1875;
    t.sparseSlope = 0.09375;
    t.sparseFloor = 0.21875;
    t.passCost = 0.8125;
    t.permutation = 0.15625;
    t.tensor[0] = 0.046875;
    t.tensor[1] = 0.28125;
    t.tensor[2] = 0.140625;
    t.tensorInLanes[0] = 0.09375;
    t.tensorInLanes[1] = 0.03125;
    for (int i = 0; i < 5; ++i)
        t.program[i] = 0.015625 * (i + 3);
    t.programRxLike = 0.171875;
    t.tileRowsAhead = 8;
    return t;
}

kernels::Calibration::Entry entryFor(const std::string& cpu, kernels::Isa isa, const kernels::CostTable& t)
{
    kernels::Calibration::Entry e;
    e.isa = isa;
    e.cpu = cpu;
    e.threads = 2;
    e.measured = "2026-12-04 15:00 UTC";
    e.table = t;
    return e;
}

const char* kValidSection = "[portable]\ncpu = some CPU\nthreads = 2\nmeasured = today\ndense = 1 2 3 4 5 6\n"
                            "dense_real = 1 2 3 4 5 6\ncontrolled = 1\ndiagonal = 0.1 0.5\nsparse = 0.2 0.1 0.2\npass = 1\npermutation = 0.3\n"
                            "tensor = 0.05 0.3 0.15\ntensor_lanes = 0.1 0.05\n";

// Two Hadamards on different qubits of a cache-resident state: kept apart or fused into one block, as the table says.
Circuit twoHadamards()
{
    Circuit c;
    c.numQubits = 6;
    c.qregs.push_back({"q", 6, 0});
    for (int q : {4, 5}) {
        Op op;
        op.name = "h";
        op.qubits = {q};
        c.ops.push_back(op);
    }
    return c;
}

}  // namespace

class TestKernelCosts : public QObject {
    Q_OBJECT

private slots:
    void cleanup() { kernels::useCalibration({}, {}); }

    // ctest sets SPYGLASS_KERNEL_COSTS=builtin: no developer's calibration reaches the suites.
    void theTestsUseTheBuiltInTable()
    {
        QCOMPARE(qEnvironmentVariable("SPYGLASS_KERNEL_COSTS"), QStringLiteral("builtin"));
        QCOMPARE(kernels::activeCostSource(), std::string("built in"));
        QCOMPARE(kernels::relativeCost(denseShape(3, false)), kernels::builtinCostTable().dense[3]);
        QCOMPARE(kernels::passCost(), kernels::builtinCostTable().passCost);
    }

    void fileRoundTrips()
    {
        kernels::Calibration c;
        c.entries.push_back(entryFor(kernels::cpuIdentity(), kernels::activeIsa(), distinctTable()));
        c.entries.push_back(entryFor("another CPU (family 1, model 2, stepping 3)", kernels::Isa::Portable, kernels::builtinCostTable()));
        const std::string path = QString(outputDir() + QStringLiteral("/costs/kernel-costs.txt")).toStdString();
        std::string error;
        QVERIFY2(kernels::writeCalibration(path, c, error), error.c_str());
        kernels::Calibration back;
        QVERIFY2(kernels::readCalibration(path, back, error), error.c_str());
        QCOMPARE(back.entries.size(), size_t(2));
        for (size_t i = 0; i < 2; ++i) {
            const auto &a = c.entries[i], &b = back.entries[i];
            QCOMPARE(int(b.isa), int(a.isa));
            QCOMPARE(b.cpu, a.cpu);
            QCOMPARE(b.threads, a.threads);
            QCOMPARE(b.measured, a.measured);
            for (const kernels::CostField& f : kernels::costFields())
                for (int v = 0; v < f.count; ++v)
                    QVERIFY2(f.values(b.table)[v] == f.values(a.table)[v], f.key);
        }
    }

    void badFilesSayWhereAndWhat_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("where");
        QTest::addColumn<QString>("what");
        const QString ok = QString::fromLatin1(kValidSection);
        QTest::newRow("unknown key") << ok + QStringLiteral("speed = 3\n") << QStringLiteral(":14:") << QStringLiteral("unknown key 'speed'");
        QTest::newRow("value before a section") << QStringLiteral("pass = 1\n") + ok << QStringLiteral(":1:") << QStringLiteral("before the first section");
        QTest::newRow("unknown build") << QStringLiteral("[sse9]\n") << QStringLiteral(":1:") << QStringLiteral("[avx512]");
        QTest::newRow("negative") << QString(ok).replace(QStringLiteral("pass = 1"), QStringLiteral("pass = -1")) << QStringLiteral(":10:")
                                  << QStringLiteral("non-negative");
        QTest::newRow("too few") << QString(ok).replace(QStringLiteral("dense = 1 2 3 4 5 6"), QStringLiteral("dense = 1 2 3"))
                                 << QStringLiteral(":5:") << QStringLiteral("expected 6");
        QTest::newRow("too many") << QString(ok).replace(QStringLiteral("controlled = 1"), QStringLiteral("controlled = 1 2"))
                                  << QStringLiteral(":7:") << QStringLiteral("found more");
        QTest::newRow("missing pass") << QString(ok).replace(QStringLiteral("pass = 1\n"), QString()) << QStringLiteral(":12:")
                                      << QStringLiteral("has no pass");
        QTest::newRow("twice") << ok + QStringLiteral("pass = 2\n") << QStringLiteral(":14:") << QStringLiteral("given twice");
        QTest::newRow("free kernel") << QString(ok).replace(QStringLiteral("dense = 1 2"), QStringLiteral("dense = 0 2")) << QStringLiteral("[portable]")
                                     << QStringLiteral("costs 0");
        QTest::newRow("free permutation") << QString(ok).replace(QStringLiteral("permutation = 0.3"), QStringLiteral("permutation = 0"))
                                          << QStringLiteral("[portable]") << QStringLiteral("costs 0");
        QTest::newRow("sign") << QString(ok).replace(QStringLiteral("pass = 1"), QStringLiteral("pass = +1 extra"))
                              << QStringLiteral(":10:") << QStringLiteral("found more");
        QTest::newRow("free tensor factor") << QString(ok).replace(QStringLiteral("tensor = 0.05 0.3 0.15"), QStringLiteral("tensor = 0.05 0.3 0"))
                                            << QStringLiteral("[portable]") << QStringLiteral("costs 0");
    }
    void badFilesSayWhereAndWhat()
    {
        QFETCH(QString, text);
        QFETCH(QString, where);
        QFETCH(QString, what);
        const QString path = writeText(QStringLiteral("bad-kernel-costs.txt"), text.toStdString());
        kernels::Calibration c;
        std::string error;
        QVERIFY(!kernels::readCalibration(path.toStdString(), c, error));
        const QString e = QString::fromStdString(error);
        QVERIFY2(e.startsWith(path + (where.startsWith(QLatin1Char(':')) ? where : QStringLiteral(": section ") + where)), qPrintable(e));
        QVERIFY2(e.contains(what), qPrintable(e));
    }

    // A file qcalibrate wrote before permutations and tensor products had kernels of their own still reads: their
    // costs are the built-in ones relative to a one-qubit dense gate, scaled by the file's; a factor inside the
    // vector lanes adds nothing, as it did then, and no tile's rows are read ahead.
    void aFileWithoutPermutationsOrTensorsReads()
    {
        const QString text = QString::fromLatin1(kValidSection)
                                 .replace(QStringLiteral("permutation = 0.3\n"), QString())
                                 .replace(QStringLiteral("tensor = 0.05 0.3 0.15\n"), QString())
                                 .replace(QStringLiteral("tensor_lanes = 0.1 0.05\n"), QString());
        const QString path = writeText(QStringLiteral("old-kernel-costs.txt"), text.toStdString());
        kernels::Calibration c;
        std::string error;
        QVERIFY2(kernels::readCalibration(path.toStdString(), c, error), error.c_str());
        QCOMPARE(c.entries.size(), size_t(1));
        const kernels::CostTable& builtin = kernels::builtinCostTable();
        QCOMPARE(c.entries[0].table.permutation, builtin.permutation * 1.0 / builtin.dense[1]);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(c.entries[0].table.tensor[i], builtin.tensor[i] * 1.0 / builtin.dense[1]);
        QCOMPARE(c.entries[0].table.tensorInLanes[0], 0.0);
        QCOMPARE(c.entries[0].table.tensorInLanes[1], 0.0);
        // Nor program gates (kValidSection has no 'program' line): the built-in costs, scaled the same way.
        for (int i = 0; i < 5; ++i)
            QCOMPARE(c.entries[0].table.program[i], builtin.program[i] * 1.0 / builtin.dense[1]);
        // Nor rx-like steps: a third of the way from a real step to a complex one, as their vector operations are.
        const kernels::CostTable& t = c.entries[0].table;
        QCOMPARE(t.programRxLike, t.program[1] + (t.program[2] - t.program[1]) / 3);
        // Nor how far ahead the tiles' rows are read: not at all, as then.
        QCOMPARE(t.tileRowsAhead, 0.0);
    }

    void aTableAppliesOnlyToItsCpuAndBuild()
    {
        const kernels::CostTable t = distinctTable();
        const kernels::Isa active = kernels::activeIsa();
        const kernels::Isa other = active == kernels::Isa::Portable ? kernels::Isa::Avx2 : kernels::Isa::Portable;
        kernels::Calibration c;
        c.entries.push_back(entryFor("another CPU", active, t));
        c.entries.push_back(entryFor(kernels::cpuIdentity(), other, t));
        kernels::useCalibration(c, "test");
        QCOMPARE(kernels::activeCostSource(), std::string("built in"));
        QCOMPARE(kernels::relativeCost(denseShape(2, false)), kernels::builtinCostTable().dense[2]);
        c.entries.push_back(entryFor(kernels::cpuIdentity(), active, t));
        kernels::useCalibration(c, "test");
        QCOMPARE(kernels::activeCostSource(), std::string("test (measured 2026-12-04 15:00 UTC)"));
        QCOMPARE(kernels::relativeCost(denseShape(2, false)), t.dense[2]);
        QCOMPARE(kernels::relativeCost(denseShape(3, true)), t.denseReal[3]);
        QCOMPARE(kernels::passCost(), t.passCost);
        kernels::CostShape diagonal;
        diagonal.k = 2;
        diagonal.diagonal = true;
        diagonal.entries = 3;
        QCOMPARE(kernels::relativeCost(diagonal), t.diagonalBase + t.diagonalSlope * 0.75);
        // A CNOT: a permutation moving half the amplitudes it selects, which are half the state.
        const std::vector<double> x = {0, 0, 1, 0, 1, 0, 0, 0};
        const kernels::PreparedGate cx = kernels::prepare({3}, {5}, x);
        QVERIFY(cx.permutation && kernels::shapeOf(cx).permutation);
        QCOMPARE(kernels::relativeCost(cx), t.permutation * 0.5);
        // H x H: a real tensor product of two factors, on the tensor kernel where the build has one.
        const double h = std::sqrt(0.5);
        const std::vector<double> hh = {h * h, 0, h * h, 0, h * h, 0, h * h, 0, h * h, 0, -h * h, 0, h * h, 0, -h * h, 0,
                                        h * h, 0, h * h, 0, -h * h, 0, -h * h, 0, h * h, 0, -h * h, 0, -h * h, 0, h * h, 0};
        const kernels::PreparedGate g = kernels::prepare({}, {4, 5}, hh);
        if (active == kernels::Isa::Portable) {
            QVERIFY(!g.tensor);
        } else {
            QVERIFY(g.tensor && kernels::shapeOf(g).tensor);
            QCOMPARE(kernels::relativeCost(g), t.tensor[0] + 2 * t.tensor[2]);
            // On qubits 0 and 1: inside the vector lanes of every wide build (complex128: 1 of them in AVX2's, 2 in
            // AVX-512's), each such factor adds its cost.
            const kernels::PreparedGate low = kernels::prepare({}, {0, 1}, hh);
            QVERIFY(low.tensor && kernels::shapeOf(low).lowTargets == 3u);
            QCOMPARE(kernels::relativeCost(low), t.tensor[0] + 2 * t.tensor[2] + kernels::laneBits(active, false) * t.tensorInLanes[1]);
        }
    }

    // The same circuit fuses or not as the table in use says a 2-qubit block is cheaper than two 1-qubit gates or not.
    void theFusePassWeighsTheTableInUse()
    {
        Circuit builtIn = twoHadamards();
        const PassResult a = makeFusePass(4)->run(builtIn);
        QCOMPARE(builtIn.gateCount(), 1);   // built in: a real 2-qubit block 0.36 (the tensor kernel 0.52), two Hadamards 0.94
        QVERIFY2(a.summary.find("kernel costs built in") != std::string::npos, a.summary.c_str());

        kernels::CostTable dear = kernels::builtinCostTable();
        for (int k = 2; k <= 6; ++k)
            dear.dense[k] = dear.denseReal[k] = 10 * k;
        dear.tensor[0] = 10;
        dear.program[0] = 10;
        kernels::Calibration c;
        c.entries.push_back(entryFor(kernels::cpuIdentity(), kernels::activeIsa(), dear));
        kernels::useCalibration(c, "dear blocks");
        Circuit measured = twoHadamards();
        const PassResult b = makeFusePass(4)->run(measured);
        QCOMPARE(measured.gateCount(), 2);
        QVERIFY2(b.summary.rfind("kept 2 gates unfused", 0) == 0, b.summary.c_str());
        QVERIFY2(b.summary.find("kernel costs dear blocks") != std::string::npos, b.summary.c_str());
    }

    // The fuse pass makes no program the kernel has no room for (kernels::programFits): with dense blocks priced
    // out of reach, rx and cz alternating on two qubits (they merge nowhere) run as a program of 20 steps for 10
    // pairs, and as their product for 28 pairs (56 steps, more than kMaxProgramSteps).
    void programsStayWithinTheKernel()
    {
        if (kernels::activeIsa() == kernels::Isa::Portable)
            QSKIP("the portable build runs no program gates");
        kernels::CostTable dear = kernels::builtinCostTable();
        for (int k = 1; k <= 6; ++k)
            dear.dense[k] = dear.denseReal[k] = 1000;
        dear.sparseFloor = 1000;   // the product is block-diagonal in qubit 6, half its entries zero
        kernels::Calibration cal;
        cal.entries.push_back(entryFor(kernels::cpuIdentity(), kernels::activeIsa(), dear));
        kernels::useCalibration(cal, "dear blocks");
        for (int pairs : {10, kernels::kMaxProgramSteps / 2 + 4}) {
            Circuit c;
            c.numQubits = 7;
            c.qregs.push_back({"q", 7, 0});
            for (int s = 0; s < pairs; ++s) {
                Op rx;
                rx.name = "rx";
                rx.qubits = {3};
                rx.params = {0.3 + 0.1 * s};
                Op cz;
                cz.name = "cz";
                cz.qubits = {3, 6};
                c.ops.push_back(rx);
                c.ops.push_back(cz);
            }
            makeFusePassKeeping(4, "wide <= 2 in cache blocks")->run(c);
            QCOMPARE(c.ops.size(), size_t(1));
            QVERIFY(c.ops[0].fused);
            QCOMPARE(c.ops[0].fused->program.size(), size_t(pairs == 10 ? 20 : 0));
        }
        kernels::useCalibration({}, {});
    }

    // An rx-like step (real diagonal, imaginary off it) is priced as such, not as a complex one: rx and cz alternating
    // on two qubits (four rotations, three cz, merging nowhere) run as a program where rx-like steps are cheap and
    // complex ones dear, and as their product where rx-like steps are dear too.
    void rxLikeStepsArePricedApart()
    {
        if (kernels::activeIsa() == kernels::Isa::Portable)
            QSKIP("the portable build runs no program gates");
        for (const double rxLike : {0.06, 1.0}) {
            kernels::CostTable t = kernels::builtinCostTable();
            for (int k = 1; k <= 6; ++k)
                t.dense[k] = t.denseReal[k] = 1;
            t.sparseFloor = 1000;
            t.tensor[0] = 1000;
            t.program[0] = 0.1;
            t.program[1] = t.program[3] = 0.05;
            t.program[2] = 1;
            t.program[4] = 0;
            t.programRxLike = rxLike;
            kernels::Calibration cal;
            cal.entries.push_back(entryFor(kernels::cpuIdentity(), kernels::activeIsa(), t));
            kernels::useCalibration(cal, "rx-like steps");
            Circuit c;
            c.numQubits = 7;
            c.qregs.push_back({"q", 7, 0});
            for (int s = 0; s < 4; ++s) {
                Op rx;
                rx.name = "rx";
                rx.qubits = {s % 2 ? 6 : 3};
                rx.params = {0.3 + 0.1 * s};
                c.ops.push_back(rx);
                if (s == 3)
                    break;
                Op cz;
                cz.name = "cz";
                cz.qubits = {3, 6};
                c.ops.push_back(cz);
            }
            makeFusePassKeeping(4, "wide <= 2 in cache blocks")->run(c);
            QCOMPARE(c.ops.size(), size_t(1));
            QVERIFY(c.ops[0].fused);
            QCOMPARE(c.ops[0].fused->program.size(), size_t(rxLike < 1 ? 7 : 0));   // 0.1 + 4 x 0.06 + 3 x 0.05 < 1
        }
        kernels::useCalibration({}, {});
    }

    // Two CNOTs on disjoint qubits merge into one permutation block: the fuse pass weighs the product of two
    // permutations as the permutation kernel (12 of 16 rows move: 0.75 of a move per amplitude, against 0.5 for
    // each CNOT alone), not as the sparse kernel a product of two sparse matrices would run on.
    void disjointPermutationsMerge()
    {
        kernels::useCalibration({}, {});
        Circuit c;
        c.numQubits = 6;
        c.qregs.push_back({"q", 6, 0});
        for (std::vector<int> qubits : {std::vector<int>{0, 1}, std::vector<int>{3, 4}}) {
            Op op;
            op.name = "cx";
            op.qubits = qubits;
            c.ops.push_back(op);
        }
        // The cost-aware fusion alone (the wide ones merge them whatever they weigh).
        const PassResult r = makeFusePassKeeping(4, "cost-aware")->run(c);
        QCOMPARE(c.gateCount(), 1);
        const kernels::PreparedGate g = prepareOp(c, c.ops[0]);
        QVERIFY(g.permutation);
        QVERIFY2(r.summary.find("fused 2 of 2") != std::string::npos, r.summary.c_str());
    }

    // A layer of one-qubit gates on different qubits (Hadamards and ry, as a VQE ansatz starts) fuses into one
    // tensor product, which the wide builds run on the tensor kernel; the fused state is the unfused one.
    void aLayerOfOneQubitGatesFusesIntoATensorProduct()
    {
        kernels::useCalibration({}, {});
        Circuit c;
        c.numQubits = 7;
        c.qregs.push_back({"q", 7, 0});
        for (int q : {1, 3, 4, 6}) {
            Op op;
            op.name = q % 2 ? "h" : "ry";
            op.qubits = {q};
            if (op.name == "ry")
                op.params = {0.3 * q};
            c.ops.push_back(op);
        }
        Circuit fused = c;
        const PassResult r = makeFusePassKeeping(4, "cost-aware")->run(fused);
        QCOMPARE(fused.gateCount(), 1);
        const kernels::PreparedGate g = prepareOp(fused, fused.ops[0]);
        QCOMPARE(g.tensor, kernels::activeIsa() != kernels::Isa::Portable);
        QVERIFY2(r.summary.find("fused 4 of 4") != std::string::npos, r.summary.c_str());
        for (Precision p : {Precision::Double, Precision::Single}) {
            StateVector a(7, p), b(7, p);
            const std::vector<cplx> input = quantum::test::randomState(7, 11);
            a.setAmplitudes(input);
            b.setAmplitudes(input);
            for (const Op& op : c.ops)
                a.apply(prepareOp(c, op));
            b.apply(g);
            for (uint64_t i = 0; i < 128; ++i)
                QVERIFY(std::abs(a.amplitude(i) - b.amplitude(i)) < (p == Precision::Double ? 1e-14 : 1e-6));
        }
    }

    // The tensor kernel takes products of up to kernels::kMaxTensorTargets factors: a wider one is no tensor shape
    // (it would be priced as one and run dense). A matrix is a product to 1e-13 of its own scale, not absolutely.
    void tensorShapesStayWithinTheKernel()
    {
        const double s = std::sqrt(0.5);
        auto hadamards = [&](int k) {
            std::vector<double> m(size_t(2) << (2 * k));
            const int dim = 1 << k;
            for (int r = 0; r < dim; ++r)
                for (int c = 0; c < dim; ++c)
                    m[2 * (size_t(r) * dim + c)] = std::pow(s, k) * (std::popcount(unsigned(r & c)) % 2 ? -1 : 1);
            return m;
        };
        for (int k = 2; k <= kernels::kMaxTargets; ++k) {
            const kernels::MatrixShape shape = kernels::shapeOfMatrix(hadamards(k).data(), k);
            QCOMPARE(shape.tensor, k <= kernels::kMaxTensorTargets);
            QVERIFY(k <= kernels::kMaxTensorTargets || !shape.kernel.tensor);
            QVERIFY(kernels::tensorFactorsOf(hadamards(k).data(), k, nullptr));
        }
        // diag(1, 0) x 1e-14 I is no swap: a matrix of that scale is held to 1e-27.
        std::vector<double> tiny(32, 0.0);
        for (const auto& [r, c] : {std::pair{0, 0}, {1, 1}, {2, 3}, {3, 2}})
            tiny[2 * (r * 4 + c)] = 1e-14;
        QVERIFY(!kernels::tensorFactorsOf(tiny.data(), 2, nullptr));
    }

    // prepare() runs a half-empty matrix on the sparse kernel only where the table in use says it beats the dense
    // one (an iswap: one non-zero a row; a swap, all ones, is a permutation and runs on neither).
    void prepareRunsSparseWhereTheTableSaysItPays()
    {
        const std::vector<double> swap = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0,
                                          0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0};
        for (const bool sparsePays : {true, false}) {
            kernels::CostTable t = kernels::builtinCostTable();
            t.sparseBase = sparsePays ? 0.01 : 5;
            t.sparseSlope = 0;
            t.sparseFloor = 0.01;
            kernels::Calibration c;
            c.entries.push_back(entryFor(kernels::cpuIdentity(), kernels::activeIsa(), t));
            kernels::useCalibration(c, "test");
            const kernels::PreparedGate g = kernels::prepare({}, {4, 6}, swap);
            QCOMPARE(g.sparse, sparsePays);
            QCOMPARE(kernels::shapeOfMatrix(swap.data(), 2).kernel.sparse, sparsePays);
        }
    }

    // A table measured here (small state, so it is quick) is a table of times: positive, growing with the block.
    // The probes are timed on every CPU the thread may run on, held on one at a time: its affinity is what it was
    // afterwards, and a probe has both precisions' times where both are asked for.
    void aMeasuredTableIsSane()
    {
#if defined(__linux__)
        cpu_set_t before, after;
        QCOMPARE(sched_getaffinity(0, sizeof before, &before), 0);
#endif
        const auto timings = kernels::timeKernels(10, false, {}, kernels::TimingEffort::quick());
#if defined(__linux__)
        QCOMPARE(sched_getaffinity(0, sizeof after, &after), 0);
        QVERIFY(CPU_EQUAL(&before, &after));
#endif
        const auto both = kernels::timeKernels(10, true, {}, kernels::TimingEffort::quick(), {kernels::kernelProbes().front()});
        QCOMPARE(both.size(), size_t(1));
        QVERIFY(both[0].complex128Ns > 0 && both[0].complex128Ns < 1e4 && both[0].complex64Ns > 0 && both[0].complex64Ns < 1e4);
        QCOMPARE(timings.size(), kernels::kernelProbes().size());
        const kernels::CostTable t = kernels::fitCostTable(timings, 0.7);
        for (int k = 1; k <= 6; ++k) {
            QVERIFY2(t.dense[k] > 0 && t.dense[k] < 1e4, qPrintable(QString::number(t.dense[k])));
            QVERIFY(t.denseReal[k] > 0 && t.denseReal[k] <= t.dense[k]);
        }
        // A 6-qubit block makes 32x the multiply-adds of a one-qubit gate: it cannot be measured cheaper.
        QVERIFY2(t.dense[6] > 4 * t.dense[1], qPrintable(QStringLiteral("%1 %2").arg(t.dense[1]).arg(t.dense[6])));
        QVERIFY(t.controlled > 0);
        QVERIFY(t.diagonalBase >= 0 && t.diagonalSlope >= 0 && t.diagonalBase + t.diagonalSlope > 0);
        QVERIFY(t.sparseFloor > 0 && t.sparseBase + 2 * t.sparseSlope > 0);
        QVERIFY(t.permutation > 0);
        QVERIFY(t.tensor[0] >= 0 && t.tensor[1] > 0 && t.tensor[2] > 0 && t.tensorInLanes[0] >= 0 && t.tensorInLanes[1] >= 0);
        QVERIFY(t.program[0] >= 0 && t.program[1] > 0 && t.program[2] > 0 && t.program[3] > 0 && t.program[4] >= 0);
        QVERIFY(t.programRxLike >= t.program[1]);
        QCOMPARE(t.passCost, 0.7);
        QCOMPARE(kernels::passCostFromBandwidth(64, 2), 2.0);   // 2 threads x 2 x 32 B at 64 B/ns
        // Whatever the timings, what qcalibrate writes is a file it reads back.
        kernels::Calibration c;
        c.entries.push_back(entryFor(kernels::cpuIdentity(), kernels::activeIsa(), t));
        const std::string path = QString(outputDir() + QStringLiteral("/measured-kernel-costs.txt")).toStdString();
        std::string error;
        QVERIFY2(kernels::writeCalibration(path, c, error), error.c_str());
        QVERIFY2(kernels::readCalibration(path, c, error), error.c_str());
    }

    // A k = 3 sparse kernel measured much dearer per non-zero than the k = 2 one (a disturbed sample) makes a steep
    // line whose base would be negative: the fit keeps every number at least 0, and still rises with k.
    void aSteepSparseFitStaysNonNegative()
    {
        std::vector<kernels::KernelTiming> timings;
        for (const kernels::KernelProbe& p : kernels::kernelProbes()) {
            kernels::KernelTiming m;
            m.probe = p;
            std::vector<double> identity(size_t(2) << (2 * p.targets.size()), 0.0);
            for (size_t r = 0; r < size_t(1) << p.targets.size(); ++r)
                identity[2 * (r * (size_t(1) << p.targets.size()) + r)] = 1;
            m.gate = kernels::prepare(p.controls, p.targets, identity);
            m.gate.k = static_cast<int>(p.targets.size());
            m.gate.sparse = p.kind == kernels::KernelProbe::Sparse;
            m.gate.sparseCol.assign(p.kind == kernels::KernelProbe::Sparse ? (size_t(1) << m.gate.k) * (m.gate.k == 2 ? 2 : 4) : 0, 0);
            // 0.3 ns a non-zero at k = 2 (2 a row), 2.0 at k = 3 (4 a row): the line through them has base -3.1.
            m.complex128Ns = p.kind != kernels::KernelProbe::Sparse ? 0.5 : m.gate.k == 2 ? 0.6 : 8.0;
            timings.push_back(m);
        }
        const kernels::CostTable t = kernels::fitCostTable(timings, 1.0);
        QVERIFY(t.sparseBase >= 0);
        QVERIFY(t.sparseSlope > 0);
        QVERIFY2(t.sparseBase + 3 * t.sparseSlope > t.sparseBase + 2 * t.sparseSlope, qPrintable(QString::number(t.sparseSlope)));
    }

    void qcalibrateWritesWhatLaterRunsRead()
    {
        const QString path = outputDir() + QStringLiteral("/qcalibrate/kernel-costs.txt");
        QFile::remove(path);
        const CliResult r = runCli({QStringLiteral("qcalibrate"), QStringLiteral("--output"), path, QStringLiteral("--qubits"), QStringLiteral("9"),
                                    QStringLiteral("--state-qubits"), QStringLiteral("20"), QStringLiteral("--quick"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o.value(QStringLiteral("file")).toString(), path);
        QVERIFY(!o.value(QStringLiteral("builds")).toArray().isEmpty());
        kernels::Calibration c;
        std::string error;
        QVERIFY2(kernels::readCalibration(path.toStdString(), c, error), error.c_str());
        QCOMPARE(c.entries.front().cpu, kernels::cpuIdentity());

        // A later run reads it: --show names it as the source of the active build's costs.
        qputenv("SPYGLASS_KERNEL_COSTS", path.toLocal8Bit());
        const CliResult show = runCli({QStringLiteral("qcalibrate"), QStringLiteral("--show")});
        qputenv("SPYGLASS_KERNEL_COSTS", "builtin");
        QCOMPARE(show.exitCode, 0);
        QVERIFY2(show.out.contains((QStringLiteral("] ") + path + QStringLiteral(" (measured ")).toUtf8()), show.out.constData());
    }

    void aBadFileIsReportedAndTheRunGoesOn()
    {
        const QString path = writeText(QStringLiteral("broken-kernel-costs.txt"), "[avx512]\ncpu = x\nspeed = 9\n");
        qputenv("SPYGLASS_KERNEL_COSTS", path.toLocal8Bit());
        const CliResult show = runCli({QStringLiteral("qcalibrate"), QStringLiteral("--show")});
        qputenv("SPYGLASS_KERNEL_COSTS", "builtin");
        QCOMPARE(show.exitCode, 0);
        QVERIFY2(show.err.contains((path + QStringLiteral(":3: unknown key 'speed'; using the built-in kernel costs")).toUtf8()), show.err.constData());
        QVERIFY2(show.out.contains("] built in"), show.out.constData());

        const CliResult unwritable = runCli({QStringLiteral("qcalibrate"), QStringLiteral("--output"), path + QStringLiteral("/inside-a-file.txt"),
                                             QStringLiteral("--qubits"), QStringLiteral("8"), QStringLiteral("--state-qubits"), QStringLiteral("20")});
        QCOMPARE(unwritable.exitCode, 2);
        QVERIFY2(unwritable.err.contains("cannot write"), unwritable.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestKernelCosts)
#include "tst_kernel_costs.moc"
