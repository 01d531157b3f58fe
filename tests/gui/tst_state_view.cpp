// The State view as a teacher uses it (issue 16 item 6): probabilities in basis order over the measured bits, so that
// the Probabilities tab and the Counts tab agree, with an ancilla shown apart (Bernstein-Vazirani: our example and
// QASMBench's bv_n14); the stated bit order; Bloch spheres; and the step-by-step state along the circuit, so QFT's
// phases can be followed from |0…0⟩ and from a basis state.
#include "common/guitestutil.h"
#include "common/testutil.h"

#include "views/circuitview.h"
#include "views/document.h"
#include "views/mainwindow.h"
#include "views/stateview.h"

#include "core/quantum/circuit.h"

#include <QSettings>
#include <QSlider>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <numbers>

using namespace spyglass;
using namespace spyglass::test;

namespace {

// The QFT of qft4.qasm, after a preparation of `prepare` (QASM lines) and a barrier that ends it in its own column.
QString qftCircuit(const QString& prepare)
{
    return QStringLiteral("OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[4];\ncreg c[4];\n") + prepare +
           QStringLiteral("barrier q;\nh q[3];\ncu1(pi/2) q[2],q[3];\ncu1(pi/4) q[1],q[3];\ncu1(pi/8) q[0],q[3];\nh q[2];\n"
                          "cu1(pi/2) q[1],q[2];\ncu1(pi/4) q[0],q[2];\nh q[1];\ncu1(pi/2) q[0],q[1];\nh q[0];\nswap q[0],q[3];\n"
                          "swap q[1],q[2];\nmeasure q -> c;\n");
}

// Every bar's probability (from the state) equals the fraction of shots within 5 standard deviations; the bars
// sum to 1; every counted outcome has a bar.
void probabilitiesAgreeWithCounts(const StateView& view, const QuantumRunResult& run)
{
    double sum = 0;
    for (const StateView::Bar& b : view.bars()) {
        QVERIFY2(b.shotFraction >= 0, qPrintable(b.label));
        const double sigma = std::sqrt(b.probability * (1 - b.probability) / run.shots);
        QVERIFY2(std::fabs(b.probability - b.shotFraction) <= 5 * sigma + 1e-12,
                 qPrintable(QStringLiteral("%1: state %2, shots %3").arg(b.label).arg(b.probability).arg(b.shotFraction)));
        sum += b.probability;
        const auto it = run.counts.find(b.label.toStdString());
        QCOMPARE(it == run.counts.end() ? 0.0 : double(it->second) / run.shots, b.shotFraction);
    }
    QVERIFY(std::fabs(sum - 1) < 1e-9);
    for (const auto& [key, count] : run.counts) {
        bool found = false;
        for (const StateView::Bar& b : view.bars())
            found = found || b.label == QString::fromStdString(key);
        QVERIFY2(found, key.c_str());
    }
    QCOMPARE(view.countsTable()->rowCount(), static_cast<int>(run.counts.size()));
}

}  // namespace

class TestStateView : public QObject {
    Q_OBJECT
    QTemporaryDir dataHome_;
    QTemporaryDir files_;

    QString write(const QString& name, const QString& text)
    {
        const QString path = files_.filePath(name);
        QFile f(path);
        if (f.open(QIODevice::WriteOnly))
            f.write(text.toUtf8());
        return path;
    }

private slots:
    void initTestCase()
    {
        isolateAppData(dataHome_);
    }

    void bernsteinVaziraniWithAnAncilla()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/bernstein_vazirani6.qasm"))));
        const auto run = w.document()->compiled().quantumRun;
        QVERIFY(run && run->hasState && run->measured);
        // The whole state has two basis states (the ancilla q[6] is |−⟩); the measured bits have one outcome, the
        // hidden string 101101 (cx from q0, q2, q3, q5), which every shot gives.
        int nonzero = 0;
        for (double p : run->probabilities)
            nonzero += p > 1e-9;
        QCOMPARE(nonzero, 2);
        QCOMPARE(w.views().state()->histogramBars(), 1);
        QCOMPARE(w.views().state()->bars()[0].label, QStringLiteral("101101"));
        QVERIFY(std::fabs(w.views().state()->bars()[0].probability - 1) < 1e-9);
        QCOMPARE(w.views().state()->bars()[0].shotFraction, 1.0);
        probabilitiesAgreeWithCounts(*w.views().state(), *run);
        QVERIFY2(w.views().state()->ancillaText().contains(QStringLiteral("q[6]: P(1) = 0.500")), qPrintable(w.views().state()->ancillaText()));
        QVERIFY(w.views().state()->bitOrderText().contains(QStringLiteral("c[5] … c[0]")));
        w.resizeDocks({w.dock(QStringLiteral("stateDock"))}, {760}, Qt::Horizontal);   // a readable screenshot
        QTest::qWait(50);
        QVERIFY(w.views().state()->grab().save(outputDir() + QStringLiteral("/view-state-bv.png")));
        // The Bloch tab: the ancilla points along -x, the measured qubits along ±z.
        w.views().state()->tabs()->setCurrentIndex(2);
        QTest::qWait(50);
        QVERIFY(distinctColours(w.views().state()->tabs()->currentWidget()->grab().toImage()) > 8);
        QVERIFY(std::fabs(run->bloch[6][0] + 1) < 1e-9);
        QVERIFY(w.views().state()->grab().save(outputDir() + QStringLiteral("/view-bloch.png")));
    }

    void qasmBenchBernsteinVazirani()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, dataPath(QStringLiteral("qasmbench/medium/bv_n14/bv_n14.qasm"))));
        const auto run = w.document()->compiled().quantumRun;
        QVERIFY(run && run->measured);
        QCOMPARE(w.views().state()->histogramBars(), 1);
        QCOMPARE(w.views().state()->bars()[0].label, QStringLiteral("1111111111111"));   // its header's hidden string
        probabilitiesAgreeWithCounts(*w.views().state(), *run);
        QVERIFY(w.views().state()->ancillaText().contains(QStringLiteral("q[13]")));
    }

    void ghzOutcomesAgreeWithinShotNoise()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/ghz5.qasm"))));
        const auto run = w.document()->compiled().quantumRun;
        QCOMPARE(w.views().state()->histogramBars(), 2);
        QCOMPARE(w.views().state()->bars()[0].label, QStringLiteral("00000"));   // basis order
        QCOMPARE(w.views().state()->bars()[1].label, QStringLiteral("11111"));
        probabilitiesAgreeWithCounts(*w.views().state(), *run);
        QVERIFY(w.views().state()->ancillaText().isEmpty());
    }

    void qftFromABasisStateStepByStep()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, write(QStringLiteral("qft_of_5.qasm"), qftCircuit(QStringLiteral("x q[0];\nx q[2];\n")))));
        w.document()->selectPass(0);   // the circuit as written
        const quantum::Circuit* c = w.views().circuit()->circuit();
        QVERIFY(c);
        StateView* view = w.views().state();
        QCOMPARE(view->stepSlider()->maximum(), w.views().circuit()->columnCount());
        // Before any gate: |0000⟩.
        view->stepTo(0);
        QVERIFY(view->shownRun() && view->shownRun()->column == -1);
        QCOMPARE(view->shownRun()->probabilities[0], 1.0);
        // After the barrier that ends the preparation: the basis state |0101⟩ (index 5), one bar.
        int barrier = -1;
        for (size_t i = 0; i < c->ops.size(); ++i)
            if (c->ops[i].kind == quantum::OpKind::Barrier)
                barrier = w.views().circuit()->opColumns()[i];
        QVERIFY(barrier >= 0);
        view->stepTo(barrier + 1);
        QCOMPARE(*view->shownRun()->column, barrier);
        QCOMPARE(w.views().circuit()->stepMarker(), std::optional<int>(barrier));   // the Circuit view marks where
        QVERIFY(std::fabs(view->shownRun()->probabilities[5] - 1) < 1e-12);
        QCOMPARE(view->histogramBars(), 16);   // every basis state of 4 qubits, in basis order
        QCOMPARE(view->bars()[5].label, QStringLiteral("|0101⟩"));
        QCOMPARE(view->bars()[5].probability, 1.0);
        // Picking a gate in the Circuit view shows the state after its column.
        int firstCu1 = -1;
        for (size_t i = 0; i < c->ops.size() && firstCu1 < 0; ++i)
            if (c->ops[i].name == "cu1")
                firstCu1 = static_cast<int>(i);
        QVERIFY(w.views().circuit()->selectOp(firstCu1));
        QCOMPARE(view->stepPosition(), w.views().circuit()->opColumns()[static_cast<size_t>(firstCu1)] + 1);
        QCOMPARE(*view->shownRun()->column, w.views().circuit()->opColumns()[static_cast<size_t>(firstCu1)]);
        view->tabs()->setCurrentIndex(1);
        w.resizeDocks({w.dock(QStringLiteral("stateDock"))}, {640}, Qt::Horizontal);
        QTest::qWait(50);
        QVERIFY(w.grab().save(outputDir() + QStringLiteral("/mainwindow-circuit-step.png")));
        // After the last gate (before the measurements): QFT|5⟩ = ¼ Σ_k e^{2πi·5k/16} |k⟩.
        view->stepTo(view->stepSlider()->maximum() - 1);
        const QuantumRunResult* s = view->shownRun();
        QVERIFY(s && s->column && s->hasState);
        QCOMPARE(s->topAmplitudes.size(), size_t(16));
        for (const auto& a : s->topAmplitudes) {
            QVERIFY(std::fabs(std::abs(a.value) - 0.25) < 1e-12);
            const std::complex<double> want = std::polar(0.25, 2 * std::numbers::pi * 5 * double(a.index) / 16);
            QVERIFY2(std::abs(a.value - want) < 1e-12, qPrintable(QStringLiteral("k = %1: %2%3i").arg(a.index).arg(a.value.real()).arg(a.value.imag())));
        }
        view->tabs()->setCurrentIndex(1);
        w.resizeDocks({w.dock(QStringLiteral("stateDock"))}, {640}, Qt::Horizontal);
        QTest::qWait(50);
        QVERIFY(view->grab().save(outputDir() + QStringLiteral("/view-state-qft-step.png")));
        // The end of the slider is the final state again, with its shots.
        view->stepTo(view->stepSlider()->maximum());
        QCOMPARE(view->shownRun(), w.document()->compiled().quantumRun.get());
        QVERIFY(!view->shownRun()->column);
        QVERIFY(!w.views().circuit()->stepMarker());
    }

    void qftFromZeroIsUniformWithNoPhase()
    {
        MainWindow w;
        QVERIFY(openAndWait(w, write(QStringLiteral("qft_of_0.qasm"), qftCircuit(QString()))));
        w.document()->selectPass(0);
        StateView* view = w.views().state();
        view->stepTo(view->stepSlider()->maximum() - 1);
        const QuantumRunResult* s = view->shownRun();
        QVERIFY(s && s->hasState);
        for (const auto& a : s->topAmplitudes)
            QVERIFY(std::abs(a.value - std::complex<double>(0.25, 0)) < 1e-12);
        // Another pass draws another circuit: the step starts again at the final state.
        w.document()->selectPass(static_cast<int>(w.document()->passes().size()) - 1);
        QCOMPARE(view->stepSlider()->maximum(), w.views().circuit()->columnCount());
        QVERIFY(!view->shownRun()->column);
    }
};

QTEST_MAIN(TestStateView)
#include "tst_state_view.moc"
