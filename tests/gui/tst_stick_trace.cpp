// The Stick layout view teaching a restickify: the reason in words, one element traced from its source stick to
// its destination stick with the core that moves it, a step through the move, and a click doing the same as the
// trace. transpose_restickify with r pinned to d0: Relu writes r [512, 256] sticked on d0, the MatMul reads it
// along d1, so rs_buf1_stick1 copies it.
#include "common/guitestutil.h"
#include "common/testutil.h"

#include "views/document.h"
#include "views/graphview.h"
#include "views/mainwindow.h"
#include "views/sticklayoutview.h"

#include "core/spyre/kernel_bundle.h"
#include "core/spyre/loop_ir.h"
#include "core/spyre/restickify_trace.h"

#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace spyglass;
using namespace spyglass::test;

class TestStickTrace : public QObject {
    Q_OBJECT
    QTemporaryDir dataHome_;
    std::unique_ptr<MainWindow> w_;
    std::shared_ptr<const spyre::Program> last_;
    int rs_ = -1;

private slots:
    void initTestCase()
    {
        isolateAppData(dataHome_);
        w_ = std::make_unique<MainWindow>();
        w_->resize(1600, 1000);
        w_->show();
        QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
        QVERIFY(openAndWait(*w_, sourcePath(QStringLiteral("resources/examples/transpose_restickify.onnxtxt"))));
        QSignalSpy opened(w_.get(), &MainWindow::documentOpened);
        w_->pinStickDimension(QStringLiteral("r"), 0);
        QVERIFY(opened.wait(60000));
        Document& d = *w_->document();
        d.selectPass(static_cast<int>(d.passes().size()) - 1);
        last_ = d.selectedProgram();
        rs_ = last_->findOp("rs_buf1_stick1");
        QVERIFY(rs_ >= 0);
        QVERIFY(QTest::qWaitFor([&] { return !w_->views().graph()->isLayingOut(); }, 60000));
        QVERIFY(w_->views().graph()->selectNode("op:rs_buf1_stick1"));
    }

    void theReasonIsSaidInWords()
    {
        const QString h = w_->views().stickLayout()->headline();
        QVERIFY2(h.contains(QStringLiteral("Why: op2 (MatMul '")) && h.contains(QStringLiteral("reads r along d1; op1 (Relu '")) &&
                     h.contains(QStringLiteral("produced it sticked on d0")),
                 qPrintable(h));
    }

    void anElementIsTracedFromSourceToDestination()
    {
        const spyre::Op& rs = last_->ops[static_cast<size_t>(rs_)];
        const spyre::Buffer& src = last_->buffers[static_cast<size_t>(rs.loads[0].buffer)];
        const spyre::Buffer& dst = last_->buffers[static_cast<size_t>(rs.store.buffer)];
        // The device layouts the numbers below are read from (codegen prints the same):
        // source device_size [8, 256, 64] = (d0 / 64, d1, d0 % 64); destination [4, 512, 64] = (d1 / 64, d0, d1 % 64).
        QCOMPARE(last_->layoutOf(src).deviceSize, (spyre::Shape{8, 256, 64}));
        QCOMPARE(last_->layoutOf(dst).deviceSize, (spyre::Shape{4, 512, 64}));
        // r[70, 3]: source stick (70 / 64) * 256 + 3 = 259, element 70 % 64 = 6; destination stick (3 / 64) * 512 + 70
        // = 70, element 3.
        w_->views().stickLayout()->traceHost({70, 3});
        const QString t = w_->views().stickLayout()->traceText();
        QVERIFY2(t.startsWith(QStringLiteral("r[70, 3]: source stick 259, element 6 → destination stick 70, element 3; moved by core ")), qPrintable(t));
        QCOMPARE(w_->views().stickLayout()->source()->highlightedStick(), int64_t(259));
        QCOMPARE(w_->views().stickLayout()->source()->highlightedOffset(), int64_t(6));
        QCOMPARE(w_->views().stickLayout()->destination()->highlightedStick(), int64_t(70));
        QCOMPARE(w_->views().stickLayout()->destination()->highlightedOffset(), int64_t(3));
        // The core is the one whose slice in the bundle's kernel holds the point (the kernel is not tiled here).
        QVERIFY(rs.tiles.empty());
        const spyre::Kernel* k = nullptr;
        for (const auto& kk : last_->bundle->kernels)
            if (kk.name == rs.name)
                k = &kk;
        QVERIFY(k);
        int core = -1;
        for (const auto& s : k->slices)
            if (s.start[0] <= 70 && 70 < s.start[0] + s.extent[0] && s.start[1] <= 3 && 3 < s.start[1] + s.extent[1])
                core = s.core;
        QVERIFY(core >= 0);
        QVERIFY2(t.endsWith(QStringLiteral("moved by core %1.").arg(core)), qPrintable(t));
    }

    void steppingShowsWhichSourceSticksADestinationStickGathers()
    {
        // Destination stick 70 is r[70, 0:64]: one element from each of source sticks 256..319 (d0 = 70 is in the
        // second block of 64 rows, d1 = 0..63), each at element 6.
        w_->views().stickLayout()->stepTo(70);
        const QString t = w_->views().stickLayout()->traceText();
        QVERIFY2(t.startsWith(QStringLiteral("Step 71 of 2048: destination stick 70 gathers 64 elements from 64 source sticks (256…319, outlined)")),
                 qPrintable(t));
        const auto moves = spyre::movesIntoStick(*last_, last_->ops[static_cast<size_t>(rs_)], 70);
        QCOMPARE(moves.size(), size_t(64));
        for (size_t e = 0; e < moves.size(); ++e) {
            QCOMPARE(moves[e].host, (std::vector<int64_t>{70, static_cast<int64_t>(e)}));
            QCOMPARE(moves[e].from, (spyre::StickPlace{256 + static_cast<int64_t>(e), 6}));
            QCOMPARE(moves[e].to, (spyre::StickPlace{70, static_cast<int64_t>(e)}));
        }
        // The strip draws the first 16 of those source sticks, each with element 6 framed.
        const auto& rows = w_->views().stickLayout()->moveStrip()->sources();
        QCOMPARE(rows.size(), size_t(16));
        QCOMPARE(rows.front().label, QStringLiteral("src 256"));
        QCOMPARE(rows.back().label, QStringLiteral("src 271"));
        for (const auto& r : rows)
            QCOMPARE(r.moved, int64_t(6));
        w_->views().stickLayout()->stepBy(1);
        QCOMPARE(w_->views().stickLayout()->currentStep(), int64_t(71));
        QCOMPARE(w_->views().stickLayout()->destination()->highlightedStick(), int64_t(71));
    }

    void aClickTracesTheElementUnderTheMouse()
    {
        StickGrid* g = w_->views().stickLayout()->destination();
        const QPoint at(30, 26);
        const std::vector<int64_t> host = g->hostAt(at);
        QCOMPARE(host.size(), size_t(2));
        QTest::mouseClick(g, Qt::LeftButton, {}, at);
        const QString t = w_->views().stickLayout()->traceText();
        QVERIFY2(t.startsWith(QStringLiteral("r[%1, %2]: ").arg(host[0]).arg(host[1])), qPrintable(t));
        QCOMPARE(w_->views().stickLayout()->source()->highlightedStick(),
                 spyre::stickPlaceOf(*last_, last_->buffers[static_cast<size_t>(last_->ops[static_cast<size_t>(rs_)].loads[0].buffer)], host).stick);
        // Neighbours along the source's stick dim differ in colour (hue), and so do those along the destination's
        // (shade): a stick of either side is not one flat colour.
        QVERIFY(StickGrid::colourOf({70, 3}, 0, 1, 64) != StickGrid::colourOf({71, 3}, 0, 1, 64));
        QVERIFY(StickGrid::colourOf({70, 3}, 0, 1, 64) != StickGrid::colourOf({70, 4}, 0, 1, 64));
    }

    void aBigTensorIsSummarisedAndStillTraces()
    {
        // The destination is 2 048 sticks (4 rows × 512 columns): drawn as the first and last columns, the ones
        // around the traced element and a folded band saying how many it leaves out, not 2 048 boxes.
        StickLayoutView v;
        v.resize(1250, 600);
        v.showRestickify(last_, rs_);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        StickGrid* dst = v.destination();
        QCOMPARE(dst->stickCount(), int64_t(2048));
        QCOMPARE(dst->shownRows(), int64_t(4));
        QVERIFY2(dst->shownColumns() <= 16, qPrintable(QString::number(dst->shownColumns())));
        QCOMPARE(dst->elidedBands(), QStringList{QStringLiteral("columns 12–507 (496)")});
        dst->grab();
        QVERIFY2(dst->paintedSticks() > 0 && dst->paintedSticks() <= 4 * 16, qPrintable(QString::number(dst->paintedSticks())));
        QVERIFY(dst->minimumWidth() < 900);
        // Column 11 is the last drawn before the band; a point in the band is no element.
        QVERIFY(!dst->stickRect(11).isEmpty() && dst->stickRect(12).isEmpty());
        QVERIFY(dst->hostAt(QPointF(dst->stickRect(11).right() + 6, dst->stickRect(11).center().y())).empty());
        // r[500, 200]: source stick (500 / 64) * 256 + 200 = 1992, element 500 % 64 = 52; destination stick
        // (200 / 64) * 512 + 500 = 2036, element 200 % 64 = 8. Both are in folded bands until traced, then drawn.
        StickGrid* src = v.source();
        QVERIFY(src->stickRect(1992).isEmpty());
        v.traceHost({500, 200});
        QVERIFY2(v.traceText().startsWith(QStringLiteral("r[500, 200]: source stick 1992, element 52 → destination stick 2036, element 8")),
                 qPrintable(v.traceText()));
        const QRectF s = src->stickRect(1992), d = dst->stickRect(2036);
        QVERIFY(!s.isEmpty() && !d.isEmpty());
        // A click on the drawn element finds it again.
        QCOMPARE(src->hostAt(QPointF(s.left() + s.width() * 52.5 / 64, s.center().y())), (std::vector<int64_t>{500, 200}));
        QCOMPARE(dst->hostAt(QPointF(d.left() + d.width() * 8.5 / 64, d.center().y())), (std::vector<int64_t>{500, 200}));
        src->grab();
        QVERIFY2(src->paintedSticks() <= 8 * 32, qPrintable(QString::number(src->paintedSticks())));
    }

    void screenshot()
    {
        // docs/screenshots/restickify.png is this picture: the move of destination stick 70 with its sources outlined.
        StickLayoutView v;
        v.resize(1250, 600);
        v.showRestickify(last_, rs_);
        v.stepTo(70);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        const QImage img = v.grab().toImage();
        QVERIFY(img.save(outputDir() + QStringLiteral("/view-restickify-trace.png")));
        QVERIFY(distinctColours(img) > 64);   // element colours, not one flat blue
    }

    void cleanupTestCase() { w_.reset(); }
};

QTEST_MAIN(TestStickTrace)
#include "tst_stick_trace.moc"
