// The core-split what-if in the main window: pinning an op's split recompiles on the worker, the final program
// and the Work division view show the pinned split, and the banner compares the plan and the simulated time.
#include "common/guitestutil.h"
#include "common/testutil.h"

#include "views/document.h"
#include "views/graphview.h"
#include "views/mainwindow.h"
#include "views/workdivisionview.h"

#include "core/common/units.h"
#include "core/spyre/loop_ir.h"
#include "core/spyre/split_alternatives.h"
#include "core/spyre/spyre_target.h"
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
        isolateAppData(dataHome_);
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
        QVERIFY(QTest::qWaitFor([&] { return !w.views().graph()->isLayingOut(); }, 60000));
        QVERIFY(w.views().graph()->selectNode("op:op0"));
        int busy = 0;
        for (const auto& c : w.views().workDivision()->cells())
            busy += c.busy;
        QCOMPARE(busy, 16);
        const QString headline = w.views().workDivision()->headline();
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

    void aSplitPinStaysOnItsOpWhenAStickPinAddsARestickify()
    {
        // The bug this guards: pin op N's split, then a stick dim whose restickify renumbered the ops, and the split
        // moved to another op while the banner still named op N. Names are identities now; the pin is made the
        // way the user makes it, from the Graph's menu on an op of an earlier pass (lower: before fuse).
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/transpose_restickify.onnxtxt"))));
        int lower = -1;
        for (size_t i = 0; i < w.document()->passes().size(); ++i)
            if (w.document()->passes()[i].name == "lower")
                lower = static_cast<int>(i);
        QVERIFY(lower >= 0);
        w.document()->selectPass(lower);
        const auto shown = w.document()->selectedProgram();
        QCOMPARE(shown->ops.at(2).kind, spyre::OpKind::MatMul);
        QCOMPARE(shown->ops.at(2).name, std::string("op2"));
        QStringList actions;
        QTimer::singleShot(0, &w, [&] {
            if (QWidget* popup = QApplication::activePopupWidget()) {
                for (QAction* a : popup->actions())
                    actions << a->text() + (a->isEnabled() ? QString() : QStringLiteral(" (disabled)"));
                popup->close();
            }
        });
        emit w.views().graph()->nodeContextMenuRequested(QStringLiteral("op:op2"), w.mapToGlobal(QPoint(100, 100)));
        QVERIFY2(actions.contains(QStringLiteral("Pin core split of op2…")), qPrintable(actions.join(QLatin1Char('|'))));

        QSignalSpy opened(&w, &MainWindow::documentOpened);
        w.pinCoreSplit(QStringLiteral("op2"), {{"p0", 4}});
        QVERIFY(opened.wait(60000));
        QCOMPARE(w.document()->compiled().programs.back()->ops.size(), size_t(2));
        w.pinStickDimension(QStringLiteral("r"), 0);
        QVERIFY(opened.wait(60000));
        const spyre::Program& last = *w.document()->compiled().programs.back();
        QCOMPARE(last.ops.size(), size_t(3));   // the restickify op came in before the MatMul
        for (const spyre::Op& op : last.ops) {
            const bool isPinned = op.split.why == "pinned by the user";
            QCOMPARE(isPinned, op.name == "op2");
            if (op.name == "op2") {
                QCOMPARE(op.kind, spyre::OpKind::MatMul);
                QCOMPARE(op.split.ways, (std::vector<int>{4, 1, 1}));
            }
        }
        const QString banner = w.whatIfText();
        QVERIFY2(banner.contains(QStringLiteral("op2 split p0:4 (MatMul 'MatMul_")), qPrintable(banner));
        QVERIFY2(banner.contains(QStringLiteral("r = d0")), qPrintable(banner));
        // The Graph of the final pass labels the MatMul op2 and the new op after the copy it writes.
        w.document()->selectPass(static_cast<int>(w.document()->passes().size()) - 1);
        QStringList labels;
        for (const auto& n : w.views().graph()->graph().nodes)
            labels << n.label.section(QLatin1Char('\n'), 0, 0);
        QVERIFY2(labels.contains(QStringLiteral("op2 MatMul")), qPrintable(labels.join(QLatin1Char('|'))));
        QVERIFY2(labels.filter(QStringLiteral("rs_buf1_stick1 restickify")).size() == 1, qPrintable(labels.join(QLatin1Char('|'))));
    }

    void workDivisionDrawsTheSlicesOnTheTensorWithTheAlternatives()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt"))));
        QSignalSpy opened(&w, &MainWindow::documentOpened);
        w.pinCoreSplit(QStringLiteral("op0"), {{"p0", 8}, {"r0", 2}});
        QVERIFY(opened.wait(60000));
        QVERIFY(QTest::qWaitFor([&] { return !w.views().graph()->isLayingOut(); }, 60000));
        QVERIFY(w.views().graph()->selectNode("op:op0"));   // the Work division view follows the Document's selection
        WorkDivisionView* v = w.views().workDivision();
        // Rows are the split output var p0, columns the other output var p1; r0 (K) is split too, so the two
        // cores of each K half share their rectangle: core = p0 part * 2 + r0 part (innermost var fastest).
        QCOMPARE(v->rowVar(), 0);
        QCOMPARE(v->columnVar(), 1);
        QCOMPARE(v->sliceRect(0), v->sliceRect(1));
        QVERIFY(v->sliceRect(0) != v->sliceRect(2));
        QCOMPARE(v->sliceRect(2).top(), v->sliceRect(0).bottom());
        QCOMPARE(v->sliceRect(0).width(), v->sliceRect(14).width());
        QVERIFY(v->sliceRect(16).isNull());   // 16 cores busy, the rest idle
        // The alternatives: the chosen split first (its model time is the one work_division recorded, and the
        // simulator ran its kernel), then torch-spyre's default division on 1, 2, 4, ... cores.
        const QStringList lines = v->alternativeLines();
        QVERIFY2(lines.size() >= 5, qPrintable(lines.join(QLatin1Char('\n'))));
        QVERIFY2(lines.front().startsWith(QStringLiteral("▶ 16 cores (p0÷8 × r0÷2): model ")) && lines.front().contains(QStringLiteral(", simulated ")),
                 qPrintable(lines.front()));
        QVERIFY2(lines.at(1).contains(QStringLiteral(" 1 core (not split)")), qPrintable(lines.join(QLatin1Char('\n'))));
        const auto& op = w.document()->compiled().programs.back()->ops.at(0);
        QVERIFY2(lines.front().contains(QString::fromStdString(formatDuration(op.split.estimatedUs * 1000.0))), qPrintable(lines.front()));
        bool thirtyTwo = false;
        for (const QString& l : lines)
            thirtyTwo = thirtyTwo || l.contains(QStringLiteral(" 32 cores ("));
        QVERIFY2(thirtyTwo, qPrintable(lines.join(QLatin1Char('\n'))));
        // docs/screenshots/workdivision.png: the same op on its own at a readable size.
        WorkDivisionView big;
        big.resize(1200, 470);
        const auto program = w.document()->compiled().programs.back();
        big.setOp(program, 0, w.document()->compiled().target->cores);
        big.setAlternatives(spyre::splitAlternatives(*program, op, *w.document()->compiled().target),
                            w.document()->compiled().simulation->kernels.at(0).timeNs / 1000.0);
        big.show();
        QVERIFY(QTest::qWaitForWindowExposed(&big));
        QCOMPARE(big.alternativeLines(), lines);
        const QImage img = big.grab().toImage();
        QVERIFY(img.save(outputDir() + QStringLiteral("/view-workdivision-tensor.png")));
        QVERIFY(distinctColours(img) > 16);
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
