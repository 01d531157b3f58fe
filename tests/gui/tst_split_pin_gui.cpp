// The core-split what-if in the main window: pinning an op's split recompiles on the worker, the final program
// and the Work division view show the pinned split, and the banner compares the plan and the simulated time.
#include "common/guitestutil.h"
#include "common/testutil.h"

#include "views/document.h"
#include "views/graphview.h"
#include "views/mainwindow.h"
#include "views/workdivisionview.h"

#include "core/spyre/loop_ir.h"
#include "core/spyresim/spyre_simulator.h"

#include <QApplication>
#include <QInputDialog>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace spyglass;
using namespace spyglass::test;

namespace {

const spyre::Op& finalOp0(MainWindow& w) { return w.document()->compiled().programs.back()->ops.at(0); }

}  // namespace

class TestSplitPinGui : public QObject {
    Q_OBJECT
    QTemporaryDir dataHome_;
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        qputenv("XDG_DATA_HOME", dataHome_.path().toLocal8Bit());
    }

    void waysTextRoundTrips()
    {
        QString error;
        const auto ways = parseWays(QStringLiteral(" p0:4 ,r0 : 2"), &error);
        QVERIFY2(ways, qPrintable(error));
        QCOMPARE(*ways, (std::map<std::string, int>{{"p0", 4}, {"r0", 2}}));
        QCOMPARE(formatWays(*ways), QStringLiteral("p0:4, r0:2"));
        QVERIFY(!parseWays(QStringLiteral("p0=4"), &error));
        QVERIFY2(error.contains(QStringLiteral("'p0=4'")), qPrintable(error));
        QVERIFY(!parseWays(QStringLiteral("p0:2, p0:4"), &error));
        QVERIFY(!parseWays(QString(), &error));
    }

    void pinningACoreSplitRecompilesAndShowsTheDifference()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt"))));
        const std::vector<int> chosen = finalOp0(w).split.ways;
        QVERIFY(w.document()->compiled().simulation);
        const double simBefore = w.document()->compiled().simulation->kernelTimeNs;

        // matmul is [256, 512] x [512, 128]: split rows 8 ways and K 2 ways, which the cost model does not choose.
        const std::vector<int> pinned{8, 1, 2};
        QVERIFY(chosen != pinned);
        QSignalSpy opened(&w, &MainWindow::documentOpened);
        w.pinCoreSplit(QStringLiteral("op0"), {{"p0", 8}, {"r0", 2}});
        QVERIFY(opened.wait(60000));
        QCOMPARE(w.document()->compiled().splitPins.at("op0"), (std::map<std::string, int>{{"p0", 8}, {"r0", 2}}));
        QCOMPARE(finalOp0(w).split.ways, pinned);
        QCOMPARE(QString::fromStdString(finalOp0(w).split.why), QStringLiteral("pinned by the user"));
        QVERIFY(w.document()->compiled().simulation);
        const double simAfter = w.document()->compiled().simulation->kernelTimeNs;

        // The Work division view of the final pass: 16 busy cores, p0 in 8 and r0 in 2.
        w.document()->selectPass(static_cast<int>(w.document()->passes().size()) - 1);
        QVERIFY(QTest::qWaitFor([&] { return !w.graphView()->isLayingOut(); }, 60000));
        QVERIFY(w.graphView()->selectNode("op:0"));
        int busy = 0;
        for (const auto& c : w.workDivision()->cells())
            busy += c.busy;
        QCOMPARE(busy, 16);
        const QString headline = w.workDivision()->headline();
        QVERIFY2(headline.contains(QStringLiteral("p0÷8 × r0÷2")) && headline.contains(QStringLiteral("pinned by the user")),
                 qPrintable(headline));

        // The banner names the pin and compares the simulated kernel time of both compiles.
        const QString banner = w.whatIfText();
        QVERIFY2(banner.contains(QStringLiteral("op0 split p0:8, r0:2")), qPrintable(banner));
        QVERIFY2(banner.contains(QStringLiteral("simulated kernel time")) && !banner.contains(QStringLiteral("not available")),
                 qPrintable(banner));
        QVERIFY(simAfter != simBefore);
        const double pct = 100.0 * (simAfter - simBefore) / simBefore;
        const QString expected = QStringLiteral("(%1%2 %)").arg(pct > 0 ? QStringLiteral("+") : QString(), QString::number(pct, 'f', 1));
        QVERIFY2(banner.contains(expected), qPrintable(banner + QStringLiteral("\nexpected ") + expected));

        // Unpinning gives the cost model's split back; a stick pin and a split pin clear together.
        w.pinCoreSplit(QStringLiteral("op0"), {});
        QVERIFY(opened.wait(60000));
        QVERIFY(w.document()->compiled().splitPins.empty());
        QCOMPARE(finalOp0(w).split.ways, chosen);
        // By ONNX node name, the pin follows the MatMul when a stick pin inserts a restickify op before it.
        w.pinCoreSplit(QStringLiteral("MatMul_0"), {{"p0", 2}});
        QVERIFY(opened.wait(60000));
        w.pinStickDimension(QStringLiteral("A"), 0);
        QVERIFY(opened.wait(60000));
        bool matmulPinned = false;
        for (const spyre::Op& op : w.document()->compiled().programs.back()->ops)
            if (op.kind == spyre::OpKind::MatMul)
                matmulPinned = op.split.ways == std::vector<int>{2, 1, 1};
        QVERIFY(matmulPinned);
        QCOMPARE(w.document()->compiled().pins.size(), size_t(1));
        QCOMPARE(w.document()->compiled().splitPins.size(), size_t(1));
        w.clearPins();
        QVERIFY(opened.wait(60000));
        QVERIFY(w.document()->compiled().pins.empty());
        QVERIFY(w.document()->compiled().splitPins.empty());
        QCOMPARE(finalOp0(w).split.ways, chosen);
    }

    void theDialogShowsTheVarsAndPinsWhatIsTyped()
    {
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt"))));
        QString label, prefill;
        QTimer::singleShot(0, &w, [&] {
            auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
            if (!dialog)
                return;
            label = dialog->labelText();
            prefill = dialog->textValue();
            dialog->setTextValue(QStringLiteral("p0:8, r0:2"));
            dialog->accept();
        });
        QSignalSpy opened(&w, &MainWindow::documentOpened);
        w.coreSplitDialog(QStringLiteral("op0"));
        std::map<std::string, int> chosen;   // the cost model's split, every var it cuts
        for (int v = 0; v < static_cast<int>(finalOp0(w).split.ways.size()); ++v)
            if (finalOp0(w).split.ways[v] > 1)
                chosen[finalOp0(w).varName(v)] = finalOp0(w).split.ways[v];
        QCOMPARE(prefill, formatWays(chosen));
        QVERIFY2(label.contains(QStringLiteral("p0: 256, p1: 2 sticks, r0: 512 (reduction)")), qPrintable(label));
        QVERIFY2(label.contains(QStringLiteral("at most 32 cores")), qPrintable(label));
        QVERIFY(opened.wait(60000));
        QCOMPARE(finalOp0(w).split.ways, (std::vector<int>{8, 1, 2}));
    }

    void anIllegalSplitFailsWithTheReason()
    {
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt"))));
        QSignalSpy failed(&w, &MainWindow::documentFailed);
        w.pinCoreSplit(QStringLiteral("op0"), {{"p1", 4}});   // p1 is 128 elements: 2 sticks
        QVERIFY(QTest::qWaitFor([&] { return !failed.isEmpty(); }, 60000));
        const QString message = failed.at(0).at(1).toString();
        QVERIFY2(message.contains(QStringLiteral("p1 has 2 sticks per tile, which 4 does not divide")), qPrintable(message));
    }
};

QTEST_MAIN(TestSplitPinGui)
#include "tst_split_pin_gui.moc"
