// The state-vector simulator and `spyglass-cli qsim`: QASMBench's known outputs, Qiskit's bit order,
// --statevector, mid-circuit measurement/reset/if, the memory check, kernels against each other,
// and Pauli expectation values.
#include "common/testutil.h"
#include "quantum/quantum_testutil.h"

#include "core/quantum/gates.h"
#include "core/quantum/kernels.h"
#include "core/quantum/pipeline.h"
#include "core/quantum/qasm_parser.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <functional>
#include <numeric>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <tuple>

using namespace spyglass;
using namespace spyglass::quantum;
using namespace spyglass::test;

namespace {

QJsonObject qsimJson(const QStringList& extra, int* exitCode = nullptr)
{
    const CliResult r = runCli(QStringList{QStringLiteral("qsim")} + extra + QStringList{QStringLiteral("--json")});
    if (exitCode)
        *exitCode = r.exitCode;
    return QJsonDocument::fromJson(r.out).object();
}

QString writeTemp(const QString& name, const std::string& text)
{
    const QString path = outputDir() + QStringLiteral("/") + name;
    std::ofstream(path.toStdString()) << text;
    return path;
}

const std::string kHead = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\n";

std::vector<kernels::Isa> supportedIsas()
{
    std::vector<kernels::Isa> out;
    for (kernels::Isa isa : {kernels::Isa::Portable, kernels::Isa::Avx2, kernels::Isa::Avx512})
        if (kernels::isaSupported(isa))
            out.push_back(isa);
    return out;
}

// The state after the matrix m (interleaved re/im; index bit j = targets[j]) wherever every control is set,
// amplitude by amplitude.
std::vector<cplx> applyByHand(const std::vector<cplx>& input, const std::vector<int>& controls, const std::vector<int>& targets,
                              const std::vector<double>& m)
{
    const int k = static_cast<int>(targets.size()), dim = 1 << k;
    std::vector<cplx> out = input;
    for (uint64_t i = 0; i < out.size(); ++i) {
        bool fires = true;
        for (int c : controls)
            fires = fires && (i >> c & 1);
        if (!fires)
            continue;
        int row = 0;
        uint64_t base = i;
        for (int j = 0; j < k; ++j) {
            row |= int(i >> targets[static_cast<size_t>(j)] & 1) << j;
            base &= ~(uint64_t(1) << targets[static_cast<size_t>(j)]);
        }
        cplx acc = 0;
        for (int col = 0; col < dim; ++col) {
            uint64_t src = base;
            for (int j = 0; j < k; ++j)
                if (col >> j & 1)
                    src |= uint64_t(1) << targets[static_cast<size_t>(j)];
            acc += cplx(m[2 * (size_t(row) * dim + col)], m[2 * (size_t(row) * dim + col) + 1]) * input[src];
        }
        out[i] = acc;
    }
    return out;
}

// A random permutation matrix on dim rows, interleaved re/im, other than the identity.
std::vector<double> randomPermutationMatrix(int dim, std::mt19937_64& rng)
{
    std::vector<int> src(static_cast<size_t>(dim));
    std::iota(src.begin(), src.end(), 0);
    std::shuffle(src.begin(), src.end(), rng);
    if (std::is_sorted(src.begin(), src.end()))
        std::swap(src[0], src[1]);
    std::vector<double> m(size_t(2) * dim * dim, 0.0);
    for (int r = 0; r < dim; ++r)
        m[2 * (size_t(r) * dim + static_cast<size_t>(src[static_cast<size_t>(r)]))] = 1;
    return m;
}

// The permutation matrix on k qubits whose column x has its 1 in row rowOf(x), interleaved re/im.
std::vector<double> permutationMatrix(int k, const std::function<int(int)>& rowOf)
{
    const int dim = 1 << k;
    std::vector<double> m(size_t(2) * dim * dim, 0.0);
    for (int x = 0; x < dim; ++x)
        m[2 * (size_t(rowOf(x)) * dim + static_cast<size_t>(x))] = 1;
    return m;
}

// cx(t0, t1), cx(t1, t2), ... on k targets: the row column x goes to, x's prefix parities.
int cnotChainRow(int x, int k)
{
    for (int j = 1; j < k; ++j)
        x ^= (x >> (j - 1) & 1) << j;
    return x;
}

// A tensor product of k random one-qubit matrices (Gaussian entries; real ones when asked), factor j on index bit
// j, interleaved re/im. butterflies: the even factors are [[s, s], [t, -t]] (a Hadamard, its second row negated
// from the third factor on), which the tensor kernel applies as additions.
std::vector<double> randomTensorMatrix(int k, bool real, std::mt19937_64& rng, bool butterflies = false)
{
    std::normal_distribution<double> normal;
    std::vector<cplx> m{1.0};
    for (int j = 0; j < k; ++j) {
        cplx f[2][2];
        for (auto& row : f)
            for (cplx& x : row)
                x = {normal(rng), real ? 0.0 : normal(rng)};
        if (butterflies && j % 2 == 0) {
            const double s = std::sqrt(0.5), t = j >= 2 ? -s : s;
            f[0][0] = f[0][1] = s;
            f[1][0] = t;
            f[1][1] = -t;
        }
        const size_t d = size_t(1) << j, nd = 2 * d;
        std::vector<cplx> next(nd * nd);
        for (size_t r = 0; r < nd; ++r)
            for (size_t c = 0; c < nd; ++c)
                next[r * nd + c] = f[r / d][c / d] * m[(r % d) * d + c % d];
        m = std::move(next);
    }
    std::vector<double> out;
    for (const cplx& x : m) {
        out.push_back(x.real());
        out.push_back(x.imag());
    }
    return out;
}

// The largest distance of a state's amplitudes from the reference's.
double maxDifference(const StateVector& sv, const std::vector<cplx>& ref)
{
    double diff = 0;
    for (uint64_t i = 0; i < ref.size(); ++i)
        diff = std::max(diff, std::abs(sv.amplitude(i) - ref[i]));
    return diff;
}

// How far g, applied to `input` on an n-qubit state of precision p by the active kernel build, lands from ref.
double differenceAfterApply(int n, Precision p, const std::vector<cplx>& input, const kernels::PreparedGate& g, const std::vector<cplx>& ref)
{
    StateVector sv(n, p);
    sv.setAmplitudes(input);
    sv.apply(g);
    return maxDifference(sv, ref);
}

// Runs the simulator on one kernel build for a scope, then restores the one before.
// Zeroed floats on a 64-byte boundary (kernels::swapTileRows moves whole aligned lines).
struct AlignedFloats {
    explicit AlignedFloats(size_t n) : size(n), p(static_cast<float*>(std::aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64)))
    {
        std::fill(p, p + n, 0.0f);
    }
    AlignedFloats(const AlignedFloats&) = delete;
    AlignedFloats& operator=(const AlignedFloats&) = delete;
    ~AlignedFloats() { std::free(p); }
    float& operator[](size_t i) { return p[i]; }
    float* data() { return p; }
    const size_t size;

private:
    float* const p;
};

struct IsaScope {
    explicit IsaScope(kernels::Isa isa) : before(kernels::activeIsa()) { kernels::setActiveIsa(isa); }
    ~IsaScope() { kernels::setActiveIsa(before); }
    kernels::Isa before;
};

// g applied to `input` on every supported kernel build in both precisions, against ref: the first application off
// by more than the precision's tolerance, as "<build> <precision>: off by <difference>", or an empty string.
// `checked` counts the applications.
QString missOnEveryBuild(int n, const std::vector<cplx>& input, const kernels::PreparedGate& g, const std::vector<cplx>& ref, double doubleTolerance,
                         double singleTolerance, int& checked)
{
    for (kernels::Isa isa : supportedIsas())
        for (Precision p : {Precision::Double, Precision::Single}) {
            const IsaScope scope(isa);
            const double diff = differenceAfterApply(n, p, input, g, ref);
            ++checked;
            if (!(diff < (p == Precision::Double ? doubleTolerance : singleTolerance)))
                return QStringLiteral("%1 %2: off by %3")
                    .arg(QLatin1String(kernels::isaName(isa)), QLatin1String(p == Precision::Double ? "complex128" : "complex64"))
                    .arg(diff);
        }
    return {};
}

}  // namespace

class TestQsim : public QObject {
    Q_OBJECT
private slots:
    // Which kernel prepare() picks (sparse or dense, for instance) follows the kernel costs; the expectations here are
    // those of the built-in costs, which ctest sets too. Run by hand, the suite must not read this machine's
    // calibration file instead (it is read once, on first use, so this comes before any gate is prepared).
    void initTestCase() { qputenv("SPYGLASS_KERNEL_COSTS", "builtin"); }

    void knownOutputsViaCli_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QStringList>("options");
        const QStringList none;
        const QStringList single{QStringLiteral("--precision"), QStringLiteral("single")};
        const QStringList unfused{QStringLiteral("--no-fusion")};
        auto row = [](const char* name, const char* f, const char* k, QStringList o) {
            QTest::newRow(name) << QString::fromLatin1(f) << QString::fromLatin1(k) << o;
        };
        row("adder_n10", "small/adder_n10/adder_n10.qasm", "10000", none);
        row("adder_n10 unfused", "small/adder_n10/adder_n10.qasm", "10000", unfused);
        row("adder_n4", "small/adder_n4/adder_n4.qasm", "1001", none);
        row("adder_n4 transpiled", "small/adder_n4/adder_n4_transpiled.qasm", "1001", none);
        row("toffoli_n3", "small/toffoli_n3/toffoli_n3.qasm", "111", none);
        row("fredkin_n3", "small/fredkin_n3/fredkin_n3.qasm", "101", single);
        row("bv_n14", "medium/bv_n14/bv_n14.qasm", "1111111111111", none);
        row("bv_n19", "medium/bv_n19/bv_n19.qasm", "111111111111111111", single);
        row("multiply_n13", "medium/multiply_n13/multiply_n13.qasm", "1111", none);
        row("multiply_n13 unfused single", "medium/multiply_n13/multiply_n13.qasm", "1111", unfused + single);
    }
    void knownOutputsViaCli()
    {
        QFETCH(QString, file);
        QFETCH(QString, key);
        QFETCH(QStringList, options);
        int code = -1;
        const QJsonObject o = qsimJson(QStringList{dataPath(QStringLiteral("qasmbench/") + file), QStringLiteral("--shots"),
                                                   QStringLiteral("200"), QStringLiteral("--seed"), QStringLiteral("7")} + options,
                                       &code);
        QCOMPARE(code, 0);
        const QJsonObject counts = o.value(QStringLiteral("counts")).toObject();
        QCOMPARE(counts.size(), 1);
        QCOMPARE(counts.value(key).toInt(), 200);
        QVERIFY(o.value(QStringLiteral("qubits")).toInt() > 0);
        QVERIFY(o.value(QStringLiteral("gates")).toInt() > 0);
        QVERIFY(o.contains(QStringLiteral("sim_ms")));
        QVERIFY(o.contains(QStringLiteral("fused_blocks")));
        if (options.contains(QStringLiteral("--no-fusion")))
            QCOMPARE(o.value(QStringLiteral("fused_blocks")).toInt(), 0);
    }

    // probabilityOfOne, collapse and resetAfter walk the state in pieces and lane patterns (statevector.cpp): against the
    // definition, amplitude by amplitude, on random states of every size that takes a different path (fewer than
    // 8 amplitudes, pieces shorter than 2^12, one thread and all of them), on every qubit, in both precisions.
    void measurementMatchesElementByElement()
    {
        std::mt19937_64 rng(5);
        std::normal_distribution<double> normal;
        for (const Precision p : {Precision::Double, Precision::Single})
            for (const int n : {1, 2, 3, 4, 9, 14, 17}) {
                const uint64_t size = uint64_t(1) << n;
                std::vector<double> amp(2 * size);
                for (double& x : amp)
                    x = normal(rng);
                const auto load = [&](StateVector& sv) {
                    for (uint64_t i = 0; i < 2 * size; ++i)
                        p == Precision::Double ? void(sv.dataDouble()[i] = amp[i]) : void(sv.dataFloat()[i] = float(amp[i]));
                };
                const auto at = [&](StateVector& sv, uint64_t i) { return p == Precision::Double ? sv.dataDouble()[i] : double(sv.dataFloat()[i]); };
                StateVector sv(n, p);
                load(sv);
                for (int q = 0; q < n; ++q) {
                    double expected = 0;
                    for (uint64_t i = 0; i < size; ++i)
                        if (i >> q & 1)
                            expected += at(sv, 2 * i) * at(sv, 2 * i) + at(sv, 2 * i + 1) * at(sv, 2 * i + 1);
                    const double p1 = sv.probabilityOfOne(q);
                    if (std::abs(p1 - expected) > 1e-12 * expected)
                        QFAIL(qPrintable(QStringLiteral("n %1 q %2: probability of 1 %3, not %4").arg(n).arg(q).arg(p1).arg(expected)));
                    for (const int outcome : {0, 1}) {
                        StateVector c(n, p);
                        load(c);
                        const double prob = outcome ? p1 : sv.norm2() - p1;
                        c.collapse(q, outcome, prob);
                        const double scale = 1 / std::sqrt(prob);
                        for (uint64_t i = 0; i < 2 * size; ++i) {
                            const bool kept = int(i / 2 >> q & 1) == outcome;
                            const double got = at(c, i), want = kept ? at(sv, i) * scale : 0;
                            if (std::abs(got - want) > (p == Precision::Double ? 1e-15 : 1e-6) * std::abs(want) || (got == 0 && std::signbit(got)))
                                QFAIL(qPrintable(QStringLiteral("n %1 q %2 outcome %3 real %4: %5, not %6").arg(n).arg(q).arg(outcome).arg(i).arg(got).arg(want)));
                        }
                        // A reset: the same collapse, moved to bit q = 0.
                        StateVector r(n, p);
                        load(r);
                        r.resetAfter(q, outcome, prob);
                        for (uint64_t i = 0; i < 2 * size; ++i) {
                            const bool kept = !(i / 2 >> q & 1);
                            const double got = at(r, i), want = kept ? at(sv, i | uint64_t(outcome) << (q + 1)) * scale : 0;
                            if (std::abs(got - want) > (p == Precision::Double ? 1e-15 : 1e-6) * std::abs(want) || (got == 0 && std::signbit(got)))
                                QFAIL(qPrintable(QStringLiteral("reset: n %1 q %2 outcome %3 real %4: %5, not %6").arg(n).arg(q).arg(outcome).arg(i).arg(got).arg(want)));
                        }
                    }
                }
            }
    }

    // Several qubits measured together (outcomeProbabilities, projectOntoOutcome) against the same qubits measured
    // one by one (probabilityOfOne, collapse, resetAfter), on random states, for every outcome, with and without
    // resets among them, the lowest qubit inside and outside a piece of 8 amplitudes.
    void measuringTogetherMatchesOneByOne()
    {
        std::mt19937_64 rng(9);
        std::normal_distribution<double> normal;
        for (const Precision p : {Precision::Double, Precision::Single})
            for (const auto& [n, qubits, resets] : std::vector<std::tuple<int, std::vector<int>, uint64_t>>{
                     {3, {2, 0}, 0}, {5, {1, 4, 3}, 0b010}, {13, {12, 5, 9}, 0b101}, {17, {0, 16, 8, 3}, 0b1111}, {17, {13, 14, 15}, 0}}) {
                const uint64_t size = uint64_t(1) << n;
                std::vector<double> amp(2 * size);
                double norm = 0;
                for (double& x : amp) {
                    x = normal(rng);
                    norm += x * x;
                }
                for (double& x : amp)
                    x /= std::sqrt(norm);
                const auto load = [&](StateVector& sv) {
                    for (uint64_t i = 0; i < 2 * size; ++i)
                        p == Precision::Double ? void(sv.dataDouble()[i] = amp[i]) : void(sv.dataFloat()[i] = float(amp[i]));
                };
                const auto at = [&](const StateVector& sv, uint64_t i) {
                    return p == Precision::Double ? const_cast<StateVector&>(sv).dataDouble()[i] : double(const_cast<StateVector&>(sv).dataFloat()[i]);
                };
                StateVector together(n, p);
                load(together);
                const std::vector<double> probs = together.outcomeProbabilities(qubits);
                QCOMPARE(probs.size(), size_t(1) << qubits.size());
                for (uint64_t o = 0; o < probs.size(); ++o) {
                    double expected = 0;
                    for (uint64_t i = 0; i < size; ++i) {
                        uint64_t bits = 0;
                        for (size_t j = 0; j < qubits.size(); ++j)
                            bits |= (i >> qubits[j] & 1) << j;
                        if (bits == o)
                            expected += at(together, 2 * i) * at(together, 2 * i) + at(together, 2 * i + 1) * at(together, 2 * i + 1);
                    }
                    if (std::abs(probs[o] - expected) > 1e-12)
                        QFAIL(qPrintable(QStringLiteral("n %1 outcome %2: %3, not %4").arg(n).arg(o).arg(probs[o]).arg(expected)));
                    StateVector oneByOne(n, p), projected(n, p);
                    load(oneByOne);
                    load(projected);
                    for (size_t j = 0; j < qubits.size(); ++j) {
                        const int bit = int(o >> j & 1);
                        const double p1 = oneByOne.probabilityOfOne(qubits[j]) / oneByOne.norm2();
                        const double prob = (bit ? p1 : 1 - p1) * oneByOne.norm2();
                        (resets >> j & 1) ? oneByOne.resetAfter(qubits[j], bit, prob) : oneByOne.collapse(qubits[j], bit, prob);
                    }
                    projected.projectOntoOutcome(qubits, o & ~resets, o & resets, probs[o]);
                    for (uint64_t i = 0; i < 2 * size; ++i) {
                        const double got = at(projected, i), want = at(oneByOne, i);
                        if (std::abs(got - want) > (p == Precision::Double ? 1e-12 : 1e-5) * std::abs(want) || (got == 0 && std::signbit(got)))
                            QFAIL(qPrintable(QStringLiteral("n %1 outcome %2 real %3: %4, not %5").arg(n).arg(o).arg(i).arg(got).arg(want)));
                    }
                }
            }
    }

    void catAndGhzStatesSplitEvenly_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("width");
        QTest::newRow("cat_state_n4") << QStringLiteral("small/cat_state_n4/cat_state_n4.qasm") << 4;
        QTest::newRow("cat_state_n22") << QStringLiteral("medium/cat_state_n22/cat_state_n22.qasm") << 22;
        QTest::newRow("ghz_state_n23") << QStringLiteral("medium/ghz_state_n23/ghz_state_n23.qasm") << 23;
    }
    void catAndGhzStatesSplitEvenly()
    {
        QFETCH(QString, file);
        QFETCH(int, width);
        ParseResult r = parseQasmFile(dataPath(QStringLiteral("qasmbench/") + file).toStdString());
        SimOptions opt;
        opt.shots = 1000;
        opt.seed = 11;
        const SimResult res = simulate(prepareForSimulation(r.circuit, 4), opt);
        // The measured register is the last declared one (leftmost in the key); others stay 0.
        QCOMPARE(res.counts.size(), size_t(2));
        std::map<std::string, int> byFirst;
        for (const auto& [k, v] : res.counts)
            byFirst[k.substr(0, static_cast<size_t>(width))] += v;
        const std::string zeros(static_cast<size_t>(width), '0'), ones(static_cast<size_t>(width), '1');
        QVERIFY(byFirst.count(zeros) && byFirst.count(ones));
        QVERIFY(byFirst.at(zeros) > 400 && byFirst.at(zeros) < 600);
    }

    void deutschFirstBitIsOne()
    {
        const QJsonObject o = qsimJson({dataPath(QStringLiteral("qasmbench/small/deutsch_n2/deutsch_n2.qasm")), QStringLiteral("--seed"),
                                        QStringLiteral("3")});
        const QJsonObject counts = o.value(QStringLiteral("counts")).toObject();
        int total = 0;
        for (auto it = counts.begin(); it != counts.end(); ++it) {
            QVERIFY(it.key().endsWith(QLatin1Char('1')));   // c[0] is the rightmost character
            total += it.value().toInt();
        }
        QCOMPARE(total, 1024);
        QCOMPARE(counts.size(), 2);   // c[1] is random
    }

    void qiskitBitOrder()
    {
        // a (declared first) is rightmost; inside a register the highest bit is leftmost.
        const QString f = writeTemp(QStringLiteral("bitorder.qasm"), kHead + "qreg q[3];\ncreg a[1];\ncreg b[2];\nx q[0];\nx q[2];\n"
                                                                            "measure q[0] -> a[0];\nmeasure q[1] -> b[0];\nmeasure q[2] -> b[1];\n");
        const QJsonObject counts = qsimJson({f, QStringLiteral("--shots"), QStringLiteral("10")}).value(QStringLiteral("counts")).toObject();
        QCOMPARE(counts.value(QStringLiteral("10 1")).toInt(), 10);
    }

    void statevectorOutput()
    {
        const QString f = writeTemp(QStringLiteral("sv.qasm"), kHead + "qreg q[3];\ncreg c[3];\nh q[0];\ncx q[0], q[1];\nx q[2];\nmeasure q -> c;\n");
        const QString out = outputDir() + QStringLiteral("/sv.json");
        int code = -1;
        qsimJson({f, QStringLiteral("--statevector"), out}, &code);
        QCOMPARE(code, 0);
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject sv = QJsonDocument::fromJson(file.readAll()).object();
        QCOMPARE(sv.value(QStringLiteral("qubits")).toInt(), 3);
        const QJsonArray amps = sv.value(QStringLiteral("amplitudes")).toArray();
        QCOMPARE(amps.size(), 8);
        // (|000> + |011>)/sqrt2 then X on qubit 2 (bit 2): indices 4 and 7
        for (int i = 0; i < 8; ++i) {
            const double re = amps[i].toArray()[0].toDouble(), im = amps[i].toArray()[1].toDouble();
            const double expect = (i == 4 || i == 7) ? 1 / std::sqrt(2.0) : 0;
            QVERIFY(std::fabs(re - expect) < 1e-12 && std::fabs(im) < 1e-12);
        }
        // A mid-circuit measurement has no single final state: bad input.
        const QString mid = writeTemp(QStringLiteral("mid.qasm"), kHead + "qreg q[1];\ncreg c[1];\nh q[0];\nmeasure q[0] -> c[0];\nh q[0];\n");
        const CliResult r = runCli({QStringLiteral("qsim"), mid, QStringLiteral("--statevector"), out});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("mid-circuit"));
    }

    void midCircuitMeasureResetAndIf()
    {
        Circuit c = parseQasmString(kHead + "qreg q[2];\ncreg a[1];\ncreg b[1];\nh q[0];\nmeasure q[0] -> a[0];\n"
                                            "if(a==1) x q[1];\nmeasure q[1] -> b[0];\n",
                                    "t")
                        .circuit;
        QVERIFY(!measurementsAreTerminal(c));
        SimOptions opt;
        opt.shots = 400;
        opt.seed = 5;
        SimResult r = simulate(prepareForSimulation(c, 4), opt);
        QVERIFY(r.trajectories);
        QCOMPARE(r.counts.size(), size_t(2));
        QVERIFY(r.counts.count("0 0") && r.counts.count("1 1"));
        QVERIFY(r.counts["1 1"] > 140 && r.counts["1 1"] < 260);
        // reset after a gate returns the qubit to |0>; measuring twice gives the same bit
        Circuit d = parseQasmString(kHead + "qreg q[2];\ncreg c[3];\nx q[0];\nh q[1];\nreset q[0];\nmeasure q[0] -> c[0];\n"
                                            "measure q[1] -> c[1];\nmeasure q[1] -> c[2];\n",
                                    "t")
                        .circuit;
        r = simulate(prepareForSimulation(d, 4), opt);
        QVERIFY(r.trajectories);
        QCOMPARE(r.counts.size(), size_t(2));
        QVERIFY(r.counts.count("000") && r.counts.count("110"));
        // same seed, same counts
        QCOMPARE(simulate(prepareForSimulation(d, 4), opt).counts, r.counts);
    }

    void teleportationViaCli()
    {
        // Teleport ry(1.2)|0>: Bob's qubit, measured, shows 1 with probability sin^2(0.6).
        const QString f = writeTemp(QStringLiteral("teleport.qasm"),
                                    kHead + "qreg q[3];\ncreg m0[1];\ncreg m1[1];\ncreg r[1];\nry(1.2) q[0];\nh q[1];\ncx q[1], q[2];\n"
                                            "cx q[0], q[1];\nh q[0];\nmeasure q[0] -> m0[0];\nmeasure q[1] -> m1[0];\n"
                                            "if(m1==1) x q[2];\nif(m0==1) z q[2];\nmeasure q[2] -> r[0];\n");
        const QJsonObject o = qsimJson({f, QStringLiteral("--shots"), QStringLiteral("2000"), QStringLiteral("--seed"), QStringLiteral("2")});
        QVERIFY(o.value(QStringLiteral("trajectories")).toBool());
        const QJsonObject counts = o.value(QStringLiteral("counts")).toObject();
        int ones = 0;
        for (auto it = counts.begin(); it != counts.end(); ++it)
            if (it.key().startsWith(QLatin1Char('1')))
                ones += it.value().toInt();
        const double p = std::pow(std::sin(0.6), 2);
        QVERIFY2(std::fabs(ones / 2000.0 - p) < 0.04, qPrintable(QString::number(ones)));
    }

    void tooManyQubitsIsAClearError()
    {
        QVERIFY_THROWS_EXCEPTION(InputError, checkMemory(40, Precision::Double));
        const QString f = writeTemp(QStringLiteral("huge.qasm"), kHead + "qreg q[38];\ncreg c[1];\nh q[37];\nmeasure q[0] -> c[0];\n");
        const CliResult r = runCli({QStringLiteral("qsim"), f});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("GiB"), r.err.constData());
    }

    void opaqueGateCannotBeSimulated()
    {
        const QString f = writeTemp(QStringLiteral("opaque.qasm"), kHead + "opaque magic a;\nqreg q[1];\ncreg c[1];\nmagic q[0];\nmeasure q[0] -> c[0];\n");
        const CliResult r = runCli({QStringLiteral("qsim"), f});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("opaque"));
    }

    void fusedUnfusedAndPrecisionsAgree_data()
    {
        QTest::addColumn<int>("qubits");
        QTest::addColumn<int>("fuseMax");
        for (int n : {3, 7, 12})
            for (int k : {2, 3, 4, 5, 6}) {
                const QByteArray name = "n" + QByteArray::number(n) + " k" + QByteArray::number(k);
                QTest::newRow(name.constData()) << n << k;
            }
    }
    void fusedUnfusedAndPrecisionsAgree()
    {
        QFETCH(int, qubits);
        QFETCH(int, fuseMax);
        const Circuit c = quantum::test::randomCircuit(qubits, 120, 1000 + qubits * 10 + fuseMax);
        const auto input = quantum::test::randomState(qubits, 99);
        const Circuit fused = prepareForSimulation(c, fuseMax);
        QVERIFY(fused.gateCount() < c.gateCount());
        for (kernels::Isa isa : supportedIsas()) {
            const IsaScope scope(isa);
            const auto ref = quantum::test::runOn(c, input);
            QVERIFY2(quantum::test::fidelity(ref, quantum::test::runOn(fused, input)) > 1 - 1e-9, kernels::isaName(isa));
            QVERIFY2(quantum::test::fidelity(ref, quantum::test::runOn(fused, input, Precision::Single)) > 1 - 1e-4, kernels::isaName(isa));
        }
    }

    // The judge every kernel answers to: each op's matrix embedded into the whole 2^n space and multiplied into
    // the state, against the kernel the simulator picks for it (one-qubit, controlled, diagonal on any qubit
    // including qubit 0, sparse and dense fused blocks), in both precisions and in every kernel build this CPU runs.
    void kernelsMatchDenseMatrixReference_data()
    {
        QTest::addColumn<int>("fuseMax");
        for (int k : {0, 2, 3, 4, 6})
            QTest::addRow("fuse %d", k) << k;
    }
    void kernelsMatchDenseMatrixReference()
    {
        QFETCH(int, fuseMax);
        const int n = 7, dim = 1 << n;
        const Circuit raw = quantum::test::randomCircuit(n, 150, 4242 + uint64_t(fuseMax));
        const Circuit c = fuseMax ? prepareForSimulation(raw, fuseMax) : raw;
        std::vector<int> all(n);
        for (int q = 0; q < n; ++q)
            all[q] = q;
        const auto input = quantum::test::randomState(n, 17);
        for (kernels::Isa isa : supportedIsas())
        for (Precision p : {Precision::Double, Precision::Single}) {
            const IsaScope scope(isa);
            std::vector<cplx> ref = input;
            StateVector sv(n, p);
            sv.setAmplitudes(input);
            for (const Op& op : c.ops) {
                if (op.kind != OpKind::Gate)
                    continue;
                const std::vector<cplx> m = embedMatrix(opMatrix(op), op.qubits, all);
                std::vector<cplx> next(dim);
                for (int r = 0; r < dim; ++r)
                    for (int k = 0; k < dim; ++k)
                        next[r] += m[size_t(r) * dim + k] * ref[k];
                ref = std::move(next);
                sv.apply(prepareOp(c, op));
                double diff = 0;
                for (int i = 0; i < dim; ++i)
                    diff = std::max(diff, std::abs(sv.amplitude(uint64_t(i)) - ref[i]));
                QVERIFY2(diff < (p == Precision::Double ? 1e-12 : 2e-5),
                         qPrintable(QStringLiteral("%1 on %2 qubits, %3 build: off by %4")
                                        .arg(QString::fromStdString(op.name))
                                        .arg(op.qubits.size())
                                        .arg(QLatin1String(kernels::isaName(isa)))
                                        .arg(diff)));
                sv.setAmplitudes(ref);   // the next op starts from the exact state again
            }
        }
    }

    // Diagonal gates that are products of one-qubit phases (kernels::phasesOf): a QFT's controlled phases on one
    // qubit, rz layers, controlled rotations about z, lone cps narrowed to a shared control, cz. Merged
    // (mergePhaseProducts) and applied in one sweep (applyPhaseProduct), they must give what the gates give one by
    // one, with controls and targets below and above the product's low table (8 qubits), in both precisions and
    // every kernel build; rzz (no product of phases) and two cps on disjoint qubits (no shared control) are refused.
    void phaseProductsMatchTheirGates()
    {
        std::mt19937_64 rng(77);
        std::uniform_real_distribution<double> ang(-3.2, 3.2);
        int merged = 0;
        for (int n : {1, 2, 4, 9, 11}) {
            Circuit c;
            c.numQubits = n;
            auto op = [&](const char* name, std::vector<int> qubits, int params) {
                Op o;
                o.name = name;
                o.qubits = std::move(qubits);
                for (int p = 0; p < params; ++p)
                    o.params.push_back(ang(rng));
                return o;
            };
            std::vector<std::vector<Op>> sequences;
            std::vector<Op> rzLayer;
            for (int q = 0; q < n; ++q)
                rzLayer.push_back(op("rz", {q}, 1));
            sequences.push_back(rzLayer);
            for (int control : {0, n - 1, n / 2}) {
                if (n < 2)
                    break;
                std::vector<Op> s;
                for (int q = 0; q < n; ++q)
                    if (q != control)
                        s.push_back(op(q % 3 == 0 ? "crz" : q % 3 == 1 ? "cp" : "cz", {control, q}, q % 3 == 2 ? 0 : 1));
                std::shuffle(s.begin(), s.end(), rng);
                s.push_back(op("p", {control}, 1));   // a phase on the control itself joins the scale
                sequences.push_back(s);
            }
            for (const std::vector<Op>& s : sequences) {
                std::vector<kernels::PreparedGate> gates;
                kernels::PhaseProduct product;
                for (size_t i = 0; i < s.size(); ++i) {
                    gates.push_back(prepareOp(c, s[i]));
                    kernels::GatePhases phases;
                    QVERIFY2(kernels::phasesOf(gates.back(), phases), s[i].name.c_str());
                    if (i == 0)
                        product = kernels::phaseProduct(phases);
                    else
                        QVERIFY2(kernels::mergePhaseProducts(product, kernels::phaseProduct(phases)), s[i].name.c_str());
                }
                const auto input = quantum::test::randomState(n, uint64_t(n) * 31 + s.size());
                for (kernels::Isa isa : supportedIsas())
                    for (Precision p : {Precision::Double, Precision::Single}) {
                        const IsaScope scope(isa);
                        StateVector one(n, p), all(n, p);
                        one.setAmplitudes(input);
                        all.setAmplitudes(input);
                        for (const auto& g : gates)
                            one.apply(g);
                        if (p == Precision::Double)
                            kernels::applyPhaseProduct(all.dataDouble(), n, product);
                        else
                            kernels::applyPhaseProduct(all.dataFloat(), n, product);
                        double diff = 0;
                        for (uint64_t i = 0; i < one.size(); ++i)
                            diff = std::max(diff, std::abs(one.amplitude(i) - all.amplitude(i)));
                        QVERIFY2(diff < (p == Precision::Double ? 1e-12 : 2e-5),
                                 qPrintable(QStringLiteral("n=%1, %2 gates from %3, %4 build: off by %5")
                                                .arg(n)
                                                .arg(s.size())
                                                .arg(QString::fromStdString(s[0].name))
                                                .arg(QLatin1String(kernels::isaName(isa)))
                                                .arg(diff)));
                        ++merged;
                    }
            }
            if (n >= 4) {
                kernels::GatePhases phases;
                QVERIFY(!kernels::phasesOf(prepareOp(c, op("rzz", {0, 1}, 1)), phases));
                kernels::GatePhases a, b;
                QVERIFY(kernels::phasesOf(prepareOp(c, op("cp", {0, 1}, 1)), a));
                QVERIFY(kernels::phasesOf(prepareOp(c, op("cp", {2, 3}, 1)), b));
                kernels::PhaseProduct p = kernels::phaseProduct(a);
                const uint64_t before = p.controls;
                QVERIFY(!kernels::mergePhaseProducts(p, kernels::phaseProduct(b)));
                QCOMPARE(p.controls, before);
            }
        }
        QVERIFY(merged > 40);
    }

    // Dense (and sparse) gates of 1 to 4 targets, complex and real, diagonal ones, permutations and tensor products of
    // one-qubit gates (complex and real), on every target set among qubits 0-5 (so inside the vector lanes of every
    // build, where the lane-flip kernel permutes within a vector, and above them), without and with a control
    // above or among the lanes, against the matrix applied amplitude by amplitude; both precisions, every build,
    // with the coefficient table laid out per call and ahead (prepareLaneTable, as cache-blocked runs do).
    void denseKernelsMatchMatrixOnEveryTargetSet()
    {
        const int n = 9;
        std::mt19937_64 rng(31);
        std::normal_distribution<double> normal;
        const auto input = quantum::test::randomState(n, 5);
        int checked = 0;
        for (int set = 1; set < 64; ++set) {
            const int k = std::popcount(unsigned(set));
            if (k > 4)
                continue;
            std::vector<int> targets;
            for (int q = 0; q < 6; ++q)
                if (set >> q & 1)
                    targets.push_back(q);
            std::shuffle(targets.begin(), targets.end(), rng);   // prepare() sorts them and permutes the matrix
            const int dim = 1 << k;
            // Targets below qubit 3 (inside a vector in both precisions on the wide builds): the matrix bits kinds 8
            // and 9 leave unmixed.
            int lowBits = 0;
            for (int j = 0; j < k; ++j)
                lowBits |= (targets[size_t(j)] < 3) << j;
            // Kinds 8 and 9: a block its targets inside the vector only select in (no entry changes their bits), as
            // a controlled swap with its control on qubit 0 fuses into; complex and real. Where all its targets or
            // none are inside the vector, the last target selects (a W state's blocks: a controlled rotation and
            // the CNOT after it).
            const int selectBits = lowBits != 0 && lowBits != dim - 1 ? lowBits : k >= 2 ? 1 << (k - 1) : 0;
            for (int kind : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
            if (kind >= 8 && selectBits == 0)
                continue;
            // Kind 6: butterflies (Hadamards) among complex factors; one target is a Hadamard alone, a real matrix.
            // Kind 7: butterflies among real factors, which the tensor kernel pivots from three targets above the
            // vector (both scale its outputs at the end).
            const bool real = kind == 1 || kind == 3 || kind == 5 || kind == 7 || kind == 9 || (kind == 6 && k == 1), diagonal = kind == 2,
                       permutation = kind == 3, tensor = kind >= 4 && kind <= 7;
            std::vector<double> m(size_t(2) * dim * dim);
            for (double& x : m)
                x = normal(rng);
            // A permutation matrix other than the identity (X, CNOT, SWAP and their products): the permutation
            // kernels, which shuffle inside the vector where a target is in one.
            if (permutation)
                m = randomPermutationMatrix(dim, rng);
            // A tensor product of one-qubit matrices (H x H, a layer of ry): the tensor kernel from 2 targets, which
            // mixes a vector with its lane flips for each target inside it.
            if (tensor)
                m = randomTensorMatrix(k, real && kind != 6, rng, kind >= 6);
            // A diagonal matrix, its factor 1 where the index has an even number of bits set (as a controlled
            // phase's): the diagonal kernels, whose factors form lane patterns where a target is in a vector.
            if (diagonal)
                for (int r = 0; r < dim; ++r)
                    for (int col = 0; col < dim; ++col)
                        if (r != col || std::popcount(unsigned(r)) % 2 == 0) {
                            m[2 * (size_t(r) * dim + col)] = r == col ? 1 : 0;
                            m[2 * (size_t(r) * dim + col) + 1] = 0;
                        }
            if (kind >= 8)
                for (int r = 0; r < dim; ++r)
                    for (int col = 0; col < dim; ++col)
                        if ((r ^ col) & selectBits)
                            m[2 * (size_t(r) * dim + col)] = m[2 * (size_t(r) * dim + col) + 1] = 0;
            // A real matrix (every imaginary part zero, as Hadamards and ry and their products): the dense
            // kernels' one-FMA form.
            if (real)
                for (size_t e = 1; e < m.size(); e += 2)
                    m[e] = 0;
            // Every other target set with half its entries zero (row and column differing in an odd number of
            // bits): a sparse gate, which the wide builds run on the lane-flip kernel when a target is in a vector.
            if (set % 2 == 0 && !permutation && !tensor && kind < 8)
                for (int r = 0; r < dim; ++r)
                    for (int col = 0; col < dim; ++col)
                        if (std::popcount(unsigned(r ^ col)) % 2)
                            m[2 * (size_t(r) * dim + col)] = m[2 * (size_t(r) * dim + col) + 1] = 0;
            const int lowFree = (set & 1) == 0 ? 0 : (set & 2) == 0 ? 1 : -1;   // a control among the lanes
            for (const std::vector<int>& controls : {std::vector<int>{}, std::vector<int>{7}, lowFree < 0 ? std::vector<int>{8} : std::vector<int>{lowFree}}) {
                const std::vector<cplx> ref = applyByHand(input, controls, targets, m);
                kernels::PreparedGate g = kernels::prepare(controls, targets, m);
                QCOMPARE(g.realMatrix, real);
                QCOMPARE(g.diagonal, diagonal);
                QCOMPARE(g.permutation, permutation);
                // prepare() picks the tensor kernel where the cost table says it beats the dense one; it runs here
                // on every target set all the same.
                QCOMPARE(kernels::shapeOfMatrix(g.matrix.data(), k).tensor, tensor && k >= 2);
                if (tensor && k >= 2 && !g.tensor)
                    QVERIFY(kernels::useTensorKernel(g));
                for (kernels::Isa isa : supportedIsas())
                    for (Precision p : {Precision::Double, Precision::Single})
                        for (bool ahead : {false, true}) {
                            const IsaScope scope(isa);
                            kernels::PreparedGate laidOut = g;
                            if (ahead)
                                kernels::prepareLaneTable(laidOut, p == Precision::Single);
                            const double diff = differenceAfterApply(n, p, input, laidOut, ref);
                            ++checked;
                            QVERIFY2(diff < (p == Precision::Double ? 1e-12 : 1e-4),
                                     qPrintable(QStringLiteral("targets set %1%7, %2 control(s), %3 %4%5: off by %6")
                                                    .arg(set)
                                                    .arg(controls.size())
                                                    .arg(QLatin1String(kernels::isaName(isa)))
                                                    .arg(QLatin1String(p == Precision::Double ? "complex128" : "complex64"))
                                                    .arg(QLatin1String(ahead ? ", table laid out ahead" : ""))
                                                    .arg(diff)
                                                    .arg(QLatin1String(kind == 7   ? " (real tensor product with butterflies)"
                                                                       : kind == 6 ? " (tensor product with butterflies)"
                                                                       : tensor ? (real ? " (real tensor product)" : " (tensor product)")
                                                                       : permutation ? " (permutation)"
                                                                       : kind >= 8   ? " (some targets only select)"
                                                                       : real ? " (real)" : diagonal ? " (diagonal)" : ""))));
                        }
            }
            }
        }
        QVERIFY(checked > 0);
    }

    // A run of copied tiles (states of 22 qubits and more) moves each tile's rows in and out with every build's own
    // vectors (kernels::swapTileRows): gates on the highest and lowest qubits run in one such run on every build,
    // in both precisions, and agree with the gates applied one by one.
    void copiedTilesAgreeOnEveryBuild()
    {
        const int n = 22;
        Circuit c;
        c.numQubits = n;
        c.qregs.push_back({"q", n, 0});
        quantum::test::addGate(c, "h", {21});
        quantum::test::addGate(c, "ry", {17}, {0.7});
        quantum::test::addGate(c, "cz", {17, 21});
        quantum::test::addGate(c, "rx", {0}, {0.3});
        quantum::test::addGate(c, "cx", {20, 2});
        quantum::test::addGate(c, "u3", {19}, {0.4, 1.1, -0.6});
        std::vector<kernels::PreparedGate> gates;
        for (const Op& op : c.ops)
            gates.push_back(prepareOp(c, op));
        const auto input = quantum::test::randomState(n, 23);
        int checked = 0;
        for (kernels::Isa isa : supportedIsas())
            for (Precision p : {Precision::Double, Precision::Single}) {
                const IsaScope scope(isa);
                QVERIFY(!StateVector::blocks(n, p).tilesInPlace);
                StateVector one(n, p), all(n, p);
                one.setAmplitudes(input);
                all.setAmplitudes(input);
                for (const auto& g : gates)
                    one.apply(g);
                const StateVector::Passes passes = all.applyAll(gates);
                QCOMPARE(passes.tileRuns, 1);
                double diff = 0;
                for (uint64_t i = 0; i < one.size(); ++i)
                    diff = std::max(diff, std::abs(one.amplitude(i) - all.amplitude(i)));
                QVERIFY2(diff < (p == Precision::Double ? 1e-12 : 1e-5),
                         qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(kernels::isaName(isa))).arg(diff)));
                ++checked;
            }
        QVERIFY(checked >= 2);
    }

    // kernels::swapTileRows moves a row in segments of up to 16 lines that divide it (rows of 1, 2, 4 and 8 lines
    // are those of 24-28 qubits, which no state in these tests reaches): every row length from 1 line to 64, rows
    // ahead or not, streaming back and reading in together or alone, on every build, against moving them by hand.
    void tileRowsMoveWholeInEveryRowLength()
    {
        constexpr uint64_t rows = 8, strideLines = 80;   // a stride no power of two, longer than any row
        int checked = 0;
        for (kernels::Isa isa : supportedIsas())
            for (uint64_t lines : {1, 2, 4, 8, 16, 32, 64})
                for (int what = 0; what < 3; ++what) {   // back and next, next only, back only
                    const IsaScope scope(isa);
                    const uint64_t rowFloats = 16 * lines, strideFloats = 16 * strideLines;
                    AlignedFloats back(rows * strideFloats), next(rows * strideFloats), buf(rows * rowFloats);
                    for (size_t i = 0; i < next.size; ++i)
                        next[i] = float(i) + 0.5f;
                    for (size_t i = 0; i < buf.size; ++i)
                        buf[i] = -float(i) - 1.0f;
                    const std::vector<float> heldBefore(buf.data(), buf.data() + buf.size);
                    kernels::swapTileRows(what == 1 ? nullptr : back.data(), buf.data(), what == 2 ? nullptr : next.data(), rows, rowFloats,
                                          strideFloats, what == 0 ? 2 : 0);
                    for (uint64_t r = 0; r < rows; ++r)
                        for (uint64_t i = 0; i < strideFloats; ++i) {
                            const bool inRow = i < rowFloats;
                            const float wantBack = what != 1 && inRow ? heldBefore[r * rowFloats + i] : 0.0f;
                            QCOMPARE(back[r * strideFloats + i], wantBack);
                            if (inRow)
                                QCOMPARE(buf[r * rowFloats + i], what == 2 ? heldBefore[r * rowFloats + i] : next[r * strideFloats + i]);
                        }
                    ++checked;
                }
        QVERIFY(checked >= 21);
    }

    // Lone gates on a state many times the L2 (21 qubits: 32 MiB in complex128, 16 in complex64), where the kernels
    // ask for their inputs ahead of reading them (kernels_impl.inc, kAheadVectors) and walk the bases twice: a
    // one-qubit gate on a middle qubit, with and without a control; a dense 2-qubit gate above the lanes; blocks
    // whose target on qubit 0 (a fused controlled swap) or highest target only selects; a dense 4-qubit block;
    // program gates above the lanes and across them; against the matrix applied by hand, on every build and in both
    // precisions.
    void kernelsStreamingFromMemoryMatchTheMatrix()
    {
        const int n = 21;
        std::mt19937_64 rng(83);
        std::normal_distribution<double> normal;
        const auto input = quantum::test::randomState(n, 29);
        const auto randomMatrix = [&](int k, int selectBits) {
            const int dim = 1 << k;
            std::vector<double> m(size_t(2) * dim * dim);
            for (int r = 0; r < dim; ++r)
                for (int c = 0; c < dim; ++c)
                    if (((r ^ c) & selectBits) == 0) {
                        m[2 * (size_t(r) * dim + c)] = normal(rng);
                        m[2 * (size_t(r) * dim + c) + 1] = normal(rng);
                    }
            return m;
        };
        struct Case {
            std::vector<int> controls, targets;
            int selectBits = 0;   // the matrix index bits no entry changes
            bool program = false;
        };
        const std::vector<Case> cases = {{{}, {6}},          {{20}, {6}},           {{}, {6, 14}},           {{}, {0, 6, 18}, 1},
                                         {{}, {7, 12, 19}, 4}, {{}, {5, 9, 13, 17}}, {{}, {6, 10, 14, 18}, 0, true}, {{}, {1, 9, 16}, 0, true}};
        int checked = 0;
        for (const Case& c : cases) {
            const int k = static_cast<int>(c.targets.size());
            std::vector<double> m = randomMatrix(k, c.selectBits);
            std::vector<kernels::ProgramStep> steps;
            if (c.program) {
                for (int s = 0; s < 3 * k; ++s) {
                    kernels::ProgramStep step;
                    step.target = s % k;
                    for (int e = 0; e < 8; ++e)
                        step.values.push_back(normal(rng));
                    steps.push_back(std::move(step));
                }
                m = kernels::programMatrix(k, steps);
            }
            const std::vector<cplx> ref = applyByHand(input, c.controls, c.targets, m);
            kernels::PreparedGate g = kernels::prepare(c.controls, c.targets, m);
            if (c.program)
                kernels::setProgram(g, c.targets, steps);
            const QString miss = missOnEveryBuild(n, input, g, ref, 1e-10, 1e-3, checked);
            QVERIFY2(miss.isEmpty(), qPrintable(QStringLiteral("targets from %1 (%2 of them): %3").arg(c.targets[0]).arg(k).arg(miss)));
        }
        QVERIFY(checked >= int(cases.size()) * 2);
    }

    // Program gates (a fused block of one-qubit gates and diagonals run as its steps): random steps of every kind
    // (real, rx-like and complex one-qubit matrices, one-qubit and wider diagonals, real and complex) on targets
    // inside the vector lanes, above them, across both, unordered, 4 KiB or more apart, and with a control above
    // them, against applying their product by hand; the steps that meet merge.
    void programGatesMatchTheirProduct()
    {
        const int n = 14;
        std::mt19937_64 rng(59);
        std::normal_distribution<double> normal;
        std::uniform_real_distribution<double> angle(0, 6.283185307179586);
        const auto input = quantum::test::randomState(n, 13);
        int checked = 0, merged = 0;
        for (const std::vector<int>& targets : {std::vector<int>{0, 1}, std::vector<int>{4, 5}, std::vector<int>{1, 2, 3}, std::vector<int>{0, 1, 2, 3},
                                                std::vector<int>{4, 5, 6, 7}, std::vector<int>{3, 0, 8, 2}, std::vector<int>{9, 10, 11, 12},
                                                std::vector<int>{2, 9, 13}})
            for (int variant = 0; variant < 3; ++variant) {
                const int k = static_cast<int>(targets.size());
                std::vector<kernels::ProgramStep> steps;
                for (int s = 0; s < 4 * k; ++s) {
                    kernels::ProgramStep step;
                    const int kind = static_cast<int>(rng() % 6);
                    if (kind < 4) {
                        step.target = static_cast<int>(rng() % static_cast<uint64_t>(k));
                        const double c = std::cos(angle(rng)), sn = std::sin(angle(rng));
                        switch (kind) {
                        case 0: step.values = {c, 0, -sn, 0, sn, 0, c, 0}; break;   // ry-like: real
                        case 1: step.values = {c, 0, 0, -sn, 0, -sn, c, 0}; break;  // rx-like
                        case 2: step.values = {c, -sn, 0, 0, 0, 0, c, sn}; break;   // rz-like: a one-qubit diagonal
                        default:
                            for (int e = 0; e < 8; ++e)
                                step.values.push_back(normal(rng));
                        }
                    } else {
                        for (int i = 0; i < 1 << k; ++i) {
                            if (kind == 4) {   // cz-like: real signs
                                step.values.push_back((i & 3) == 3 ? -1 : 1);
                                step.values.push_back(0);
                            } else {
                                const double a = angle(rng);
                                step.values.push_back(std::cos(a));
                                step.values.push_back(std::sin(a));
                            }
                        }
                    }
                    steps.push_back(std::move(step));
                }
                const std::vector<double> m = kernels::programMatrix(k, steps);
                const std::vector<int> controls = variant == 2 && std::find(targets.begin(), targets.end(), 13) == targets.end() ? std::vector<int>{13}
                                                                                                                             : std::vector<int>{};
                const std::vector<cplx> ref = applyByHand(input, controls, targets, m);
                kernels::PreparedGate g = kernels::prepare(controls, targets, m);
                kernels::setProgram(g, targets, steps);
                QVERIFY(g.program);
                merged += g.programSteps.size() < steps.size();
                const QString miss = missOnEveryBuild(n, input, g, ref, 1e-11, 1e-4, checked);
                QVERIFY2(miss.isEmpty(), qPrintable(QStringLiteral("targets %1, variant %2: %3")
                                                        .arg(QString::fromStdString([&] {
                                                            std::string t;
                                                            for (int q : targets)
                                                                t += std::to_string(q) + " ";
                                                            return t;
                                                        }()))
                                                        .arg(variant)
                                                        .arg(miss)));
            }
        QVERIFY(checked >= 48);
        QVERIFY(merged > 0);
        // More steps than the kernel has room for (kernels::kMaxProgramSteps; rx and cz alternating on two qubits
        // merge nowhere): the product runs (tst_kernel_costs: the fuse pass makes no such program).
        std::vector<kernels::ProgramStep> many;
        for (int s = 0; many.size() <= size_t(kernels::kMaxProgramSteps); ++s) {
            const double a = 0.3 + 0.1 * s, c = std::cos(a), sn = std::sin(a);
            many.push_back({0, {c, 0, 0, -sn, 0, -sn, c, 0}});
            many.push_back({-1, {1, 0, 1, 0, 1, 0, -1, 0}});
        }
        kernels::PreparedGate g = kernels::prepare({}, {3, 6}, kernels::programMatrix(2, many));
        kernels::setProgram(g, {3, 6}, many);
        QVERIFY(g.programSteps.size() > size_t(kernels::kMaxProgramSteps));
        const QString miss = missOnEveryBuild(n, input, g, applyByHand(input, {}, {3, 6}, kernels::programMatrix(2, many)), 1e-11, 1e-4, checked);
        QVERIFY2(miss.isEmpty(), qPrintable(miss));
    }

    // A program with products of phases before it in its own sweep (kernels::applyProgram, as PhaseRun hands a
    // QFT's phases to the qubits of the next block to that block's program): the same state as the products applied
    // one by one and then the program, for targets inside the vector and above it, factors on the targets and on
    // the vector's lanes (targets or not), controls just above the vector (the factors worked out for every base)
    // and far above the targets, none, and with a bit held in place; in both precisions and every build whose
    // program kernel runs (the portable one declines and leaves the state).
    void programsTakePhaseProductsBefore()
    {
        const int n = 12;
        std::mt19937_64 rng(91);
        std::uniform_real_distribution<double> angle(-3.2, 3.2);
        const auto input = quantum::test::randomState(n, 23);
        int ran = 0;
        for (const std::vector<int>& targets : {std::vector<int>{4, 5, 6, 7}, std::vector<int>{3, 5, 8, 10}, std::vector<int>{0, 4, 6, 9},
                                                std::vector<int>{1, 7, 9}, std::vector<int>{5, 6}})
            for (uint64_t held : {uint64_t(0), uint64_t(1) << 11}) {
                const int k = static_cast<int>(targets.size());
                std::vector<kernels::ProgramStep> steps;
                for (int s = 0; s < 3 * k; ++s) {
                    kernels::ProgramStep step;
                    step.target = s % k;
                    const double c = std::cos(angle(rng)), sn = std::sin(angle(rng));
                    step.values = s % 2 ? std::vector<double>{c, 0, -sn, 0, sn, 0, c, 0} : std::vector<double>{c, 0, 0, -sn, 0, -sn, c, 0};
                    steps.push_back(std::move(step));
                }
                kernels::PreparedGate g = kernels::prepare({}, targets, kernels::programMatrix(k, steps));
                kernels::setProgram(g, targets, steps);
                QVERIFY(g.program);
                uint64_t targetBits = 0;
                for (int t : targets)
                    targetBits |= uint64_t(1) << t;
                for (kernels::Isa isa : supportedIsas())
                    for (Precision p : {Precision::Double, Precision::Single}) {
                        const IsaScope scope(isa);
                        const int laneBits = kernels::laneBits(isa, p == Precision::Single);
                        const uint64_t above = ~((uint64_t(1) << laneBits) - 1) & ((uint64_t(1) << n) - 1) & ~held;
                        // Three products: controls just above the vector (fast: worked out once per value),
                        // two far above (or none), none at all; with a bit held, a fourth with one control of each
                        // kind (then none is taken as fast).
                        std::vector<kernels::PhaseProduct> before(held ? 4 : 3);
                        const uint64_t free = above & ~targetBits;
                        const uint64_t lowest = free & -free, highest = uint64_t(1) << (63 - std::countl_zero(free));
                        before[0].controls = lowest;
                        before[1].controls = held ? highest : highest | (uint64_t(1) << (63 - std::countl_zero(free & ~highest)));
                        before[2].controls = 0;
                        if (held)
                            before[3].controls = lowest | highest;
                        for (kernels::PhaseProduct& pp : before) {
                            const double a = angle(rng);
                            pp.scale[0] = std::cos(a);
                            pp.scale[1] = std::sin(a);
                            for (int t = 0; t < n; ++t)
                                if ((targetBits >> t & 1 || t < laneBits) && rng() % 4) {
                                    const double b = angle(rng);
                                    pp.targets |= uint64_t(1) << t;
                                    pp.factor[t][0] = std::cos(b);
                                    pp.factor[t][1] = std::sin(b);
                                }
                        }
                        StateVector apart(n, p), together(n, p);
                        apart.setAmplitudes(input);
                        together.setAmplitudes(input);
                        bool applied = false;
                        if (p == Precision::Double) {
                            for (const auto& pp : before)
                                kernels::applyPhaseProduct(apart.dataDouble(), n, pp, held);
                            kernels::apply(apart.dataDouble(), n, g, held);
                            applied = kernels::applyProgram(together.dataDouble(), n, g, held, before.data(), int(before.size()));
                        } else {
                            for (const auto& pp : before)
                                kernels::applyPhaseProduct(apart.dataFloat(), n, pp, held);
                            kernels::apply(apart.dataFloat(), n, g, held);
                            applied = kernels::applyProgram(together.dataFloat(), n, g, held, before.data(), int(before.size()));
                        }
                        double diff = 0;
                        for (uint64_t i = 0; i < apart.size(); ++i)
                            diff = std::max(diff, std::abs((applied ? apart.amplitude(i) : input[i]) - together.amplitude(i)));
                        QVERIFY2(applied || isa == kernels::Isa::Portable, kernels::isaName(isa));
                        QVERIFY2(diff < (p == Precision::Double ? 1e-12 : 2e-5),
                                 qPrintable(QStringLiteral("targets from %1, held %2, %3 build: off by %4")
                                                .arg(targets[0])
                                                .arg(held)
                                                .arg(QLatin1String(kernels::isaName(isa)))
                                                .arg(diff)));
                        ran += applied;
                    }
            }
        QVERIFY(ran >= (supportedIsas().size() > 1 ? 20 : 0));
        // A product with a control on a target, or in the vector, or a factor on a qubit that is neither a target
        // nor in the vector, is declined.
        if (supportedIsas().size() > 1) {
            const IsaScope scope(supportedIsas().back());
            std::vector<kernels::ProgramStep> steps{{0, {0, 0, 1, 0, 1, 0, 0, 0}}, {1, {0, 0, 1, 0, 1, 0, 0, 0}}};
            kernels::PreparedGate g = kernels::prepare({}, {0, 6}, kernels::programMatrix(2, steps));
            kernels::setProgram(g, {0, 6}, steps);
            StateVector sv(n, Precision::Double);
            sv.setAmplitudes(input);
            kernels::PhaseProduct onTarget, inLanes, offTargets;
            onTarget.controls = uint64_t(1) << 6;
            inLanes.controls = 1;
            offTargets.targets = uint64_t(1) << 7;
            offTargets.factor[7][0] = 0;
            offTargets.factor[7][1] = 1;
            QVERIFY(!kernels::applyProgram(sv.dataDouble(), n, g, 0, &onTarget, 1));
            QVERIFY(!kernels::applyProgram(sv.dataDouble(), n, g, 0, &inLanes, 1));
            QVERIFY(!kernels::applyProgram(sv.dataDouble(), n, g, 0, &offTargets, 1));
            QCOMPARE(sv.amplitudes(), input);
        }
    }

    // Tensor products of four factors on qubits whose amplitudes lie 4 KiB or more apart (from qubit 8 in complex128,
    // 9 in complex64), which the tensor kernel runs as two passes of two factors, and on qubits straddling that
    // line, with and without a control above and among them: real, complex and with butterflies, against applying
    // the matrix by hand.
    void tensorProductsOnQubitsSharingCacheSets()
    {
        const int n = 14;
        std::mt19937_64 rng(53);
        const auto input = quantum::test::randomState(n, 11);
        int checked = 0;
        for (const std::vector<int>& targets : {std::vector<int>{9, 10, 11, 12}, std::vector<int>{8, 10, 11, 13}, std::vector<int>{12, 9, 13, 10},
                                                std::vector<int>{7, 9, 10, 11}})
            for (int kind = 0; kind < 3; ++kind) {
                const std::vector<double> m = randomTensorMatrix(4, kind != 1, rng, kind == 2);
                for (const std::vector<int>& controls : {std::vector<int>{}, std::vector<int>{13 == targets[3] ? 12 : 13}, std::vector<int>{2}}) {
                    if (std::find(targets.begin(), targets.end(), controls.empty() ? -1 : controls[0]) != targets.end())
                        continue;
                    const std::vector<cplx> ref = applyByHand(input, controls, targets, m);
                    kernels::PreparedGate g = kernels::prepare(controls, targets, m);
                    if (!g.tensor)
                        QVERIFY(kernels::useTensorKernel(g));
                    const QString miss = missOnEveryBuild(n, input, g, ref, 1e-12, 1e-4, checked);
                    QVERIFY2(miss.isEmpty(), qPrintable(QStringLiteral("targets %1 %2 %3 %4, kind %5, %6 control(s), %7")
                                                            .arg(targets[0])
                                                            .arg(targets[1])
                                                            .arg(targets[2])
                                                            .arg(targets[3])
                                                            .arg(kind)
                                                            .arg(controls.size())
                                                            .arg(miss)));
                }
            }
        QVERIFY(checked >= 48);
    }

    // Permutations of 5 and 6 targets (fused blocks up to kMaxTargets; the lane kernel takes up to 4), with qubit 0
    // among the targets or not and with a control, against applying the matrix by hand.
    void widePermutationsMoveEveryAmplitude()
    {
        const int n = 9;
        std::mt19937_64 rng(47);
        const auto input = quantum::test::randomState(n, 9);
        int checked = 0;
        for (int k : {5, 6})
            for (int variant = 0; variant < 4; ++variant) {
                std::vector<int> qubits(static_cast<size_t>(n));
                std::iota(qubits.begin(), qubits.end(), 0);
                std::shuffle(qubits.begin() + (variant % 2 ? 1 : 0), qubits.end(), rng);   // variant 0, 2: qubit 0 first
                const std::vector<int> targets(qubits.begin(), qubits.begin() + k);
                const std::vector<int> controls = variant >= 2 ? std::vector<int>{qubits[static_cast<size_t>(k)]} : std::vector<int>{};
                const std::vector<double> m = randomPermutationMatrix(1 << k, rng);
                const std::vector<cplx> ref = applyByHand(input, controls, targets, m);
                const kernels::PreparedGate g = kernels::prepare(controls, targets, m);
                QVERIFY(g.permutation);
                const QString miss = missOnEveryBuild(n, input, g, ref, 1e-15, 1e-6, checked);
                QVERIFY2(miss.isEmpty(), qPrintable(QStringLiteral("k=%1 variant %2 %3").arg(k).arg(variant).arg(miss)));
            }
        QVERIFY(checked >= 16);
    }

    // Permutations with targets inside the vector lanes that draw each output from few inputs, as CNOT chains do
    // (the lane kernel shuffles only the inputs an output draws from: one, two, or as many as its lanes): X on a
    // high target beside a lane one, CNOTs from a high target onto a lane one and back, chains of CNOTs through the
    // lanes (a GHZ state's), and random permutations, 2 to 4 targets, with and without a control, on every build.
    void permutationsThroughTheLanesDrawOnFewInputs()
    {
        const int n = 9;
        std::mt19937_64 rng(61);
        const auto input = quantum::test::randomState(n, 17);
        int checked = 0;
        for (const std::vector<int>& targets : {std::vector<int>{0, 4}, std::vector<int>{1, 3}, std::vector<int>{0, 1, 5},
                                                std::vector<int>{1, 2, 3, 4}, std::vector<int>{0, 1, 2, 3}, std::vector<int>{2, 3, 4, 5},
                                                std::vector<int>{0, 3, 4, 6}})
            for (int kind = 0; kind < 5; ++kind) {
                const int k = static_cast<int>(targets.size());
                std::vector<double> m;
                if (kind == 0)
                    m = permutationMatrix(k, [k](int x) { return x ^ (1 << (k - 1)); });   // X on the last target
                else if (kind == 1)
                    m = permutationMatrix(k, [k](int x) { return x ^ ((x >> (k - 1) & 1)); });   // cx(last, first)
                else if (kind == 2)
                    m = permutationMatrix(k, [k](int x) { return x ^ ((x & 1) << (k - 1)); });   // cx(first, last)
                else if (kind == 3)
                    m = permutationMatrix(k, [k](int x) { return cnotChainRow(x, k); });
                else
                    m = randomPermutationMatrix(1 << k, rng);
                for (const std::vector<int>& controls : {std::vector<int>{}, std::vector<int>{7}}) {
                    const std::vector<cplx> ref = applyByHand(input, controls, targets, m);
                    const kernels::PreparedGate g = kernels::prepare(controls, targets, m);
                    QVERIFY(g.permutation);
                    const QString miss = missOnEveryBuild(n, input, g, ref, 1e-15, 1e-6, checked);
                    QVERIFY2(miss.isEmpty(), qPrintable(QStringLiteral("targets from %1 (%2 of them), kind %3, %4 control(s), %5")
                                                            .arg(targets[0])
                                                            .arg(k)
                                                            .arg(kind)
                                                            .arg(controls.size())
                                                            .arg(miss)));
                }
            }
        QVERIFY(checked >= 70);
    }

    // Permutations whose rows are 4 KiB or more apart (the lowest target at qubit 9 or above in complex64, 8 in
    // complex128), which move a stripe at a time along their cycles: 2 to 6 targets, random permutations (fixed
    // points among them) and a chain of CNOTs, without a control, with one above and one below the targets.
    void permutationsOfRowsFourKiBApart()
    {
        const int n = 14;
        std::mt19937_64 rng(59);
        const auto input = quantum::test::randomState(n, 13);
        int checked = 0;
        for (const std::vector<int>& targets : {std::vector<int>{9, 12}, std::vector<int>{8, 10, 13}, std::vector<int>{9, 10, 11, 12},
                                                std::vector<int>{12, 8, 13, 10}, std::vector<int>{9, 10, 11, 12, 13},
                                                std::vector<int>{8, 9, 10, 11, 12, 13}})
            for (int kind = 0; kind < 2; ++kind) {
                const int k = static_cast<int>(targets.size()), dim = 1 << k;
                std::vector<double> m = randomPermutationMatrix(dim, rng);
                if (kind == 1)
                    m = permutationMatrix(k, [k](int x) { return cnotChainRow(x, k); });
                for (const std::vector<int>& controls : {std::vector<int>{}, std::vector<int>{k == 6 ? 7 : 11 == targets[0] ? 13 : 11},
                                                         std::vector<int>{2}}) {
                    if (std::find(targets.begin(), targets.end(), controls.empty() ? -1 : controls[0]) != targets.end())
                        continue;
                    const std::vector<cplx> ref = applyByHand(input, controls, targets, m);
                    const kernels::PreparedGate g = kernels::prepare(controls, targets, m);
                    QVERIFY(g.permutation);
                    const QString miss = missOnEveryBuild(n, input, g, ref, 1e-15, 1e-6, checked);
                    QVERIFY2(miss.isEmpty(), qPrintable(QStringLiteral("%1 targets from %2, kind %3, %4 control(s), %5")
                                                            .arg(k)
                                                            .arg(targets[0])
                                                            .arg(kind)
                                                            .arg(controls.size())
                                                            .arg(miss)));
                }
            }
        QVERIFY(checked >= 60);
    }

    // prepare() and the fuse pass (which weighs blocks it has not prepared) read a matrix's kernel off the same
    // rules (kernels::shapeOfMatrix): what prepare() builds must match them on every kind of matrix, so the cost
    // the fuse pass estimates is the cost of the kernel that runs.
    void preparedKernelMatchesShapeOfMatrix()
    {
        const double s = std::sqrt(0.5), c = std::cos(0.3), sn = std::sin(0.3);
        struct Case {
            const char* name;
            std::vector<int> targets;
            std::vector<double> m;
        };
        const std::vector<Case> cases = {
            {"rz (both factors != 1: dense)", {0}, {c, -sn, 0, 0, 0, 0, c, sn}},
            {"t (one factor 1: diagonal)", {3}, {1, 0, 0, 0, 0, 0, s, s}},
            {"h", {2}, {s, 0, s, 0, s, 0, -s, 0}},
            {"cz as a 2-qubit diagonal", {1, 4}, {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
                                                  0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0}},
            {"iswap (sparse: one non-zero a row, complex)", {5, 0}, {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0,
                                                                    0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0}},
            {"swap (a permutation moving 2 of 4 rows)", {2, 6}, {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
                                                                0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0}},
            {"x", {1}, {0, 0, 1, 0, 1, 0, 0, 0}},
        };
        std::mt19937_64 rng(77);
        std::normal_distribution<double> normal;
        std::vector<Case> all = cases;
        for (int k = 2; k <= 4; ++k)   // dense, half zero (sparse), and diagonal with some factors 1
            for (int kind = 0; kind < 3; ++kind) {
                const int dim = 1 << k;
                Case r{"random", {}, std::vector<double>(size_t(2) * dim * dim)};
                for (int j = 0; j < k; ++j)
                    r.targets.push_back(3 * j + kind);
                for (int row = 0; row < dim; ++row)
                    for (int col = 0; col < dim; ++col) {
                        const bool zero = kind == 1 ? std::popcount(unsigned(row ^ col)) % 2 : kind == 2 && row != col;
                        const bool one = kind == 2 && row == col && row % 3 == 0;
                        r.m[2 * (size_t(row) * dim + col)] = zero ? 0 : one ? 1 : normal(rng);
                        r.m[2 * (size_t(row) * dim + col) + 1] = zero || one ? 0 : normal(rng);
                    }
                all.push_back(r);
            }
        for (const Case& t : all)
            for (const std::vector<int>& controls : {std::vector<int>{}, std::vector<int>{9}}) {
                const kernels::PreparedGate g = kernels::prepare(controls, t.targets, t.m);
                const int k = static_cast<int>(t.targets.size());
                kernels::CostShape expected = kernels::shapeOfMatrix(t.m.data(), k).kernel;
                expected.controls = static_cast<int>(controls.size());
                kernels::placeTargets(expected, t.targets.data(), k);
                const kernels::CostShape got = kernels::shapeOf(g);
                QVERIFY2(got.k == expected.k && got.diagonal == expected.diagonal && got.sparse == expected.sparse &&
                             got.permutation == expected.permutation && got.entries == expected.entries &&
                             got.lowestTarget == expected.lowestTarget && got.lowTargets == expected.lowTargets &&
                             got.controls == expected.controls,
                         t.name);
                QCOMPARE(kernels::relativeCost(g), kernels::relativeCost(expected));
            }
        // The rules themselves, on the cases named above.
        QVERIFY(!kernels::shapeOf(kernels::prepare({}, cases[0].targets, cases[0].m)).diagonal);
        QVERIFY(kernels::shapeOf(kernels::prepare({}, cases[1].targets, cases[1].m)).diagonal);
        QCOMPARE(kernels::shapeOf(kernels::prepare({}, cases[3].targets, cases[3].m)).entries, 1);
        QVERIFY(kernels::shapeOf(kernels::prepare({}, cases[4].targets, cases[4].m)).sparse);
        QVERIFY(!kernels::shapeOf(kernels::prepare({}, cases[2].targets, cases[2].m)).sparse);
        const kernels::CostShape swap = kernels::shapeOf(kernels::prepare({}, cases[5].targets, cases[5].m));
        QVERIFY(swap.permutation && !swap.sparse && !swap.diagonal);
        QCOMPARE(swap.entries, 2);
        QVERIFY(kernels::shapeOf(kernels::prepare({}, cases[6].targets, cases[6].m)).permutation);
    }

    // Every wide build against the portable one on a 14-qubit state, where the vector loops run over runs of up to
    // 2^13 amplitudes and the OpenMP split is taken (the 7-qubit judge above stays below it).
    void wideBuildsAgreeWithPortable()
    {
        const int n = 14;
        const auto input = quantum::test::randomState(n, 3);
        const Circuit c = prepareForSimulation(quantum::test::randomCircuit(n, 200, 8), 4);
        std::vector<kernels::PreparedGate> gates;
        for (const Op& op : c.ops)
            gates.push_back(prepareOp(c, op));
        auto run = [&](auto zero, kernels::Isa isa) {
            using T = decltype(zero);
            std::vector<T> a(2 << n);
            for (size_t i = 0; i < input.size(); ++i) {
                a[2 * i] = T(input[i].real());
                a[2 * i + 1] = T(input[i].imag());
            }
            for (const auto& g : gates)
                isa == kernels::Isa::Avx512 ? kernels::avx512::apply(a.data(), n, g)
                : isa == kernels::Isa::Avx2 ? kernels::avx2::apply(a.data(), n, g)
                                            : kernels::generic::apply(a.data(), n, g);
            return a;
        };
        int compared = 0;
        for (kernels::Isa isa : supportedIsas()) {
            if (isa == kernels::Isa::Portable)
                continue;
            ++compared;
            for (bool single : {false, true}) {
                double diff = 0;
                if (single) {
                    const auto a = run(0.0f, isa), b = run(0.0f, kernels::Isa::Portable);
                    for (size_t i = 0; i < a.size(); ++i)
                        diff = std::max(diff, double(std::fabs(a[i] - b[i])));
                } else {
                    const auto a = run(0.0, isa), b = run(0.0, kernels::Isa::Portable);
                    for (size_t i = 0; i < a.size(); ++i)
                        diff = std::max(diff, std::fabs(a[i] - b[i]));
                }
                QVERIFY2(diff < (single ? 1e-5 : 1e-12), qPrintable(QStringLiteral("%1 %2: off by %3")
                                                                         .arg(QLatin1String(kernels::isaName(isa)))
                                                                         .arg(QLatin1String(single ? "complex64" : "complex128"))
                                                                         .arg(diff)));
            }
        }
        if (!compared)
            QSKIP("this CPU runs the portable kernels only");
    }

    // The start-up choice is the widest build the CPU has, and setActiveIsa refuses one it lacks.
    void activeBuildIsTheWidestSupported()
    {
        const kernels::Isa widest = supportedIsas().back();
        if (!std::getenv("SPYGLASS_KERNELS") && !std::getenv("SPYGLASS_NO_AVX2"))
            QCOMPARE(int(kernels::activeIsa()), int(widest));
        for (kernels::Isa isa : {kernels::Isa::Portable, kernels::Isa::Avx2, kernels::Isa::Avx512}) {
            const kernels::Isa before = kernels::activeIsa();
            QCOMPARE(kernels::setActiveIsa(isa), kernels::isaSupported(isa));
            QCOMPARE(int(kernels::activeIsa()), int(kernels::isaSupported(isa) ? isa : before));
        }
        kernels::setActiveIsa(widest);
    }

    void pauliExpectationMatchesExplicitProduct()
    {
        const int n = 5;
        const auto psi = quantum::test::randomState(n, 21);
        const PauliSum h = parsePauliSum("0.5 Z0 Z1 + -1.0 X3\n0.3 Y1 X2 Z4 + Y0 + - 0.25 Y2 Y3 # comment\n", "h.txt");
        QCOMPARE(h.terms.size(), size_t(5));
        QCOMPARE(h.terms[4].coeff, -0.25);
        StateVector sv(n, Precision::Double);
        sv.setAmplitudes(psi);
        // Reference: apply each Pauli string as gates and take <psi|P psi>.
        double expected = 0;
        for (const PauliTerm& t : h.terms) {
            Circuit c;
            c.numQubits = n;
            for (int q = 0; q < n; ++q) {
                const bool x = t.xMask >> q & 1, z = t.zMask >> q & 1;
                if (x || z) {
                    Op op;
                    op.name = x && z ? "y" : x ? "x" : "z";
                    op.qubits = {q};
                    c.ops.push_back(op);
                }
            }
            const auto out = quantum::test::runOn(c, psi);
            cplx s = 0;
            for (size_t i = 0; i < psi.size(); ++i)
                s += std::conj(psi[i]) * out[i];
            expected += t.coeff * s.real();
        }
        QVERIFY(std::fabs(sv.expectation(h) - expected) < 1e-12);
        StateVector sf(n, Precision::Single);
        sf.setAmplitudes(psi);
        QVERIFY(std::fabs(sf.expectation(h) - expected) < 1e-5);
    }

    void pauliFileErrors_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("column");
        QTest::newRow("bad pauli") << QByteArray("0.5 Q0") << 5;
        QTest::newRow("no index") << QByteArray("1.0 X") << 5;
        QTest::newRow("twice") << QByteArray("Z1 X1") << 4;
        QTest::newRow("dangling plus") << QByteArray("Z1 +") << 5;
    }
    void pauliFileErrors()
    {
        QFETCH(QByteArray, text);
        QFETCH(int, column);
        try {
            parsePauliSum(text.toStdString(), "h.txt");
            QFAIL("no error");
        } catch (const InputError& e) {
            QCOMPARE(e.diagnostic().location.line, 1);
            QCOMPARE(e.diagnostic().location.column, column);
        }
    }

    void samplingIsSeeded()
    {
        Circuit c = quantum::test::randomCircuit(6, 40, 4);
        c.numClbits = 6;
        c.cregs.push_back({"c", 6, 0});
        for (int q = 0; q < 6; ++q) {
            Op m;
            m.kind = OpKind::Measure;
            m.name = "measure";
            m.qubits = {q};
            m.clbits = {q};
            c.ops.push_back(m);
        }
        SimOptions a;
        a.seed = 1;
        SimOptions b = a;
        b.seed = 2;
        QCOMPARE(simulate(c, a).counts, simulate(c, a).counts);
        QVERIFY(simulate(c, a).counts != simulate(c, b).counts);
        int total = 0;
        for (const auto& [k, v] : simulate(c, a).counts)
            total += v;
        QCOMPARE(total, 1024);
    }
};

QTEST_GUILESS_MAIN(TestQsim)
#include "tst_qsim.moc"
