// The Spyre views inside the main window, checked against what core/ computed for the selected pass:
// Graph (restickify count), Work division (slices cover the iteration space once), Stick layout (sticks,
// padding, restickify source and destination), Scratchpad map (peak, no overlap, within usable LX);
// and a non-blank screenshot of every view.
#include "common/guitestutil.h"
#include "common/testutil.h"

#include "views/document.h"
#include "views/graphview.h"
#include "views/imguihost.h"
#include "views/mainwindow.h"
#include "views/scratchpadmappanel.h"

#include "core/common/units.h"
#include "views/sticklayoutview.h"
#include "views/workdivisionview.h"

#include "core/spyre/loop_ir.h"
#include "core/spyre/plan_summary.h"
#include "core/spyre/spyre_target.h"

#include <QDockWidget>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <set>

using namespace spyglass;
using namespace spyglass::test;

namespace {

bool waitForGraph(MainWindow& w)
{
    return QTest::qWaitFor([&] { return !w.views().graph()->isLayingOut(); }, 60000);
}

void saveShot(QWidget* widget, const QString& name)
{
    // A GL panel is read back from its framebuffer: a plain grab of its parent shows black there.
    auto* host = qobject_cast<ImGuiHost*>(widget);
    const QImage img = host && host->usesGL() ? host->glWidget()->grabFramebuffer() : widget->grab().toImage();
    QVERIFY(img.save(outputDir() + QStringLiteral("/view-") + name + QStringLiteral(".png")));
    QVERIFY2(distinctColours(img) > 4, qPrintable(QStringLiteral("blank screenshot of %1").arg(name)));
}

}  // namespace

class TestSpyreViews : public QObject {
    Q_OBJECT
    QTemporaryDir dataHome_;
private slots:
    void initTestCase()
    {
        isolateAppData(dataHome_);
    }

    void layoutWhatIfRecompilesWithAPinAndShowsTheDifference()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt"))));
        const auto before = spyre::summarizePlan(*w.document()->compiled().programs.back());
        QCOMPARE(before.restickifyCount, int64_t(0));
        QSignalSpy opened(&w, &MainWindow::documentOpened);
        w.pinStickDimension(QStringLiteral("A"), 0);   // A is [256, 512]: its stick on d0 does not suit MatMul
        QVERIFY(opened.wait(60000));
        QCOMPARE(w.document()->compiled().pins.at("A"), 0);
        const auto after = spyre::summarizePlan(*w.document()->compiled().programs.back());
        QVERIFY(after.restickifyCount > before.restickifyCount);
        QVERIFY2(w.whatIfText().contains(QStringLiteral("restickify ops 0 → %1").arg(after.restickifyCount)), qPrintable(w.whatIfText()));
        // Clearing the pins gives the original plan back.
        w.clearPins();
        QVERIFY(opened.wait(60000));
        QVERIFY(w.document()->compiled().pins.empty());
        QCOMPARE(spyre::summarizePlan(*w.document()->compiled().programs.back()).restickifyCount, before.restickifyCount);
    }

    void viewsShowWhatTheCompilerComputed()
    {
        MainWindow w;
        w.resize(1500, 950);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/attention_block.onnxtxt"))));
        QVERIFY(waitForGraph(w));
        const auto program = w.document()->selectedProgram();
        QVERIFY(program && program->stage == spyre::Stage::Loop);

        // Graph: one restickify node per restickify op of the final program.
        int restickOps = 0;
        for (const auto& op : program->ops)
            restickOps += op.kind == spyre::OpKind::Restickify;
        int restickNodes = 0;
        for (const auto& n : w.views().graph()->graph().nodes)
            restickNodes += n.kind == GraphSpec::NodeKind::Restickify;
        QCOMPARE(restickNodes, restickOps);
        QVERIFY(restickOps >= 1);

        // Work division: select the biggest op; busy cores = its split, slices cover its points exactly.
        int biggest = 0;
        for (int i = 0; i < static_cast<int>(program->ops.size()); ++i)
            if (program->ops[static_cast<size_t>(i)].iterationPoints() > program->ops[static_cast<size_t>(biggest)].iterationPoints())
                biggest = i;
        QVERIFY(w.views().graph()->selectNode("op:" + program->ops[static_cast<size_t>(biggest)].name));
        const auto& op = program->ops[static_cast<size_t>(biggest)];
        int busy = 0;
        int64_t points = 0;
        for (const auto& c : w.views().workDivision()->cells()) {
            busy += c.busy;
            points += c.points;
        }
        QCOMPARE(busy, op.split.cores);
        // Per-core slices are of the tile: tiles x slices = the whole iteration space.
        int64_t tiles = 1;
        for (const auto& t : op.tiles)
            tiles *= t.count;
        QCOMPARE(points * tiles, op.iterationPoints());
        QCOMPARE(static_cast<int>(w.views().workDivision()->cells().size()), w.document()->compiled().target->cores);
        saveShot(w.views().workDivision(), QStringLiteral("workdivision"));

        // Stick layout of that op's output: as many sticks as the device layout has.
        const spyre::Buffer& out = program->buffers[static_cast<size_t>(op.store.buffer)];
        const int64_t sticks = program->layoutOf(out).deviceElements() / program->stickElements;
        QCOMPARE(w.views().stickLayout()->source()->stickCount(), sticks);
        saveShot(w.views().stickLayout(), QStringLiteral("sticklayout"));

        // A restickify op shows its source and destination side by side.
        int restick = -1;
        for (int i = 0; i < static_cast<int>(program->ops.size()); ++i)
            if (program->ops[static_cast<size_t>(i)].kind == spyre::OpKind::Restickify)
                restick = i;
        QVERIFY(w.views().graph()->selectNode("op:" + program->ops[static_cast<size_t>(restick)].name));
        QVERIFY(w.views().stickLayout()->source()->hasBuffer());
        QVERIFY(w.views().stickLayout()->destination()->hasBuffer());
        QVERIFY(w.views().stickLayout()->headline().contains(QStringLiteral("restickify")));
        saveShot(w.views().stickLayout(), QStringLiteral("restickify"));

        // Scratchpad map: per-core peak matches the plan; live blocks never overlap; all within usable LX.
        ScratchpadMapPanel* map = w.views().scratchpad();
        QVERIFY(program->scratchpad.planned);
        QCOMPARE(map->peak(0), program->scratchpad.peakBytes);
        const int64_t usable = w.document()->compiled().target->usableLxBytes();
        // The usable limit's make-up, with the target's numbers (2 MiB - 64 KiB, × 0.8, 128 B aligned).
        const std::string& breakdown = map->usableBreakdown();
        const auto& t = *w.document()->compiled().target;
        const std::string expected = groupDigits(t.lxBytes) + " B LX - " + groupDigits(t.lxProgramReservationBytes) + " B program reservation = " +
                                     groupDigits(t.lxBytes - t.lxProgramReservationBytes) + " B; × 0.8 the backend may use (the rest is its reserve), "
                                     "aligned down to 128 B = " + groupDigits(usable) + " B (" + formatBytes(static_cast<double>(usable)) + ")";
        QCOMPARE(QString::fromStdString(breakdown), QString::fromStdString(expected));
        QCOMPARE(breakdown.rfind("2 097 152 B LX - 65 536 B program reservation = 2 031 616 B", 0), size_t(0));
        // The time axis is named by op, and hovering a column lists what is resident then: on core 0 (which holds
        // every LX buffer) exactly the buffers the plan keeps in LX over that op.
        int listed = 0;
        for (int t = 0; t < static_cast<int>(program->ops.size()); ++t) {
            QCOMPARE(map->opName(t), program->ops[static_cast<size_t>(t)].name);
            std::set<std::string> expected, shown;
            for (const auto& b : program->buffers)
                if (b.lx.inLx && b.lx.firstUse <= t && t <= std::max(b.lx.firstUse, b.lx.lastUse))
                    expected.insert(b.name);
            for (const auto* b : map->liveAt(0, t))
                shown.insert(b->name);
            QCOMPARE(shown, expected);
            listed += static_cast<int>(shown.size());
        }
        QVERIFY(listed > 0);
        for (int c = 0; c < map->cores(); ++c) {
            const auto& blocks = map->blocks(c);
            for (size_t i = 0; i < blocks.size(); ++i) {
                QVERIFY(blocks[i].offset + blocks[i].bytes <= usable);
                QVERIFY(!blocks[i].overflow);
                for (size_t j = i + 1; j < blocks.size(); ++j) {
                    const bool liveTogether = blocks[i].firstUse <= blocks[j].lastUse && blocks[j].firstUse <= blocks[i].lastUse;
                    const bool sameAddresses = blocks[i].offset < blocks[j].offset + blocks[j].bytes && blocks[j].offset < blocks[i].offset + blocks[i].bytes;
                    // A buffer may take over a dying one's block at the op where the old one is last read.
                    const bool handOver = blocks[i].lastUse == blocks[j].firstUse || blocks[j].lastUse == blocks[i].firstUse;
                    QVERIFY2(!(liveTogether && sameAddresses && !handOver),
                             qPrintable(QStringLiteral("%1 and %2 overlap on core %3").arg(QString::fromStdString(blocks[i].name), QString::fromStdString(blocks[j].name)).arg(c)));
                }
            }
        }

        // Every dock that the model layout shows, brought to the front of its tab group in turn (none forced
        // visible: State and an empty Problems stay out of the way, as the layout has them).
        QVERIFY(!w.dock(QStringLiteral("stateDock"))->isVisible());
        QVERIFY(!w.dock(QStringLiteral("problemsDock"))->isVisible());
        for (QDockWidget* d : w.docks())
            if (d->isVisible()) {
                d->raise();
                QTest::qWait(100);
                saveShot(d->widget(), d->objectName());
            }
        // The main window as a model opens, at the size the issue asks views to be readable at, with the Inspector
        // on the restickify and the Timeline in front at the bottom.
        w.resize(1600, 1000);
        w.dock(QStringLiteral("timelineDock"))->raise();
        QVERIFY(w.views().graph()->selectNode("op:" + program->ops[static_cast<size_t>(restick)].name));
        QTest::qWait(300);
        QVERIFY(!w.dock(QStringLiteral("stateDock"))->isVisible());
        saveShot(&w, QStringLiteral("mainwindow-model"));

        // The same views on their own at a readable size (what README.md shows).
        StickLayoutView stickView;
        stickView.resize(1100, 360);
        stickView.showRestickify(program, restick);
        stickView.show();
        QVERIFY(QTest::qWaitForWindowExposed(&stickView));
        saveShot(&stickView, QStringLiteral("standalone-restickify"));
        WorkDivisionView work;
        work.resize(900, 330);
        work.setOp(program, biggest, w.document()->compiled().target->cores);
        work.show();
        QVERIFY(QTest::qWaitForWindowExposed(&work));
        saveShot(&work, QStringLiteral("standalone-workdivision"));
        if (ImGuiHost::glAvailable()) {
            auto panel = std::make_unique<ScratchpadMapPanel>();
            const auto& target = *w.document()->compiled().target;
            panel->setProgram(program, target.lxBytes, target.usableLxBytes(), target.cores);
            panel->setUsableBreakdown(w.views().scratchpad()->usableBreakdown());
            ImGuiHost host(std::move(panel));
            host.resize(1100, 380);
            host.show();
            QVERIFY(QTest::qWaitForWindowExposed(&host));
            QVERIFY(QTest::qWaitFor([&] { return host.glWidget()->framesRendered() > 0; }, 5000));
            saveShot(&host, QStringLiteral("standalone-scratchpad"));
        }
    }
};

QTEST_MAIN(TestSpyreViews)
#include "tst_spyreviews.moc"
