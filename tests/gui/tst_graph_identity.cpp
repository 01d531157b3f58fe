// The Graph across passes: ops keep their names (their identity) from lower to codegen, so stepping marks what a
// pass added or changed, lists what it merged away, keeps the selection on the same op when positions shift, and
// the search finds an op by the buffer it writes or the ONNX value it holds; the Graph, the Timeline, Work division
// and Stick layout share one selection through the Document. Run on a real compile of
// transpose_restickify with r pinned to d0, which makes insert_restickify put a copy before the MatMul.
#include "common/guitestutil.h"
#include "common/testutil.h"

#include "views/document.h"
#include "views/graphview.h"
#include "views/imguihost.h"
#include "views/inspectorview.h"
#include "views/sticklayoutview.h"
#include "views/timelinepanel.h"
#include "views/workdivisionview.h"
#include "views/mainwindow.h"

#include "core/common/units.h"
#include "core/spyre/loop_ir.h"
#include "core/spyresim/spyre_simulator.h"

#include <QDockWidget>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QLineEdit>
#include <QTreeWidget>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace spyglass;
using namespace spyglass::test;

namespace {

int passIndex(const Document& d, const std::string& name)
{
    for (size_t i = 0; i < d.passes().size(); ++i)
        if (d.passes()[i].name == name)
            return static_cast<int>(i);
    return -1;
}

const GraphSpec::Node* nodeById(const GraphView& v, const std::string& id)
{
    for (const auto& n : v.graph().nodes)
        if (n.id == id)
            return &n;
    return nullptr;
}

}  // namespace

class TestGraphIdentity : public QObject {
    Q_OBJECT
    QTemporaryDir dataHome_;
    std::unique_ptr<MainWindow> w_;

private slots:
    void initTestCase()
    {
        isolateAppData(dataHome_);
        w_ = std::make_unique<MainWindow>();
        w_->resize(1400, 900);
        w_->show();
        QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
        QVERIFY(openAndWait(*w_, sourcePath(QStringLiteral("resources/examples/transpose_restickify.onnxtxt"))));
        QSignalSpy opened(w_.get(), &MainWindow::documentOpened);
        w_->pinStickDimension(QStringLiteral("r"), 0);
        QVERIFY(opened.wait(60000));
    }

    void steppingMarksWhatThePassDid()
    {
        Document& d = *w_->document();
        GraphView& g = *w_->views().graph();
        // fuse merged op0 (Transpose) into op1 (Relu): op1 changed, op0 is listed as gone into op1.
        d.selectPass(passIndex(d, "fuse"));
        QVERIFY(nodeById(g, "op:op1"));
        QCOMPARE(nodeById(g, "op:op1")->change, GraphSpec::Node::Change::Changed);
        QCOMPARE(nodeById(g, "op:op2")->change, GraphSpec::Node::Change::Same);
        QVERIFY(!nodeById(g, "op:op0"));
        QCOMPARE(g.graph().removed, QStringList{QStringLiteral("op0 → fused into op1")});
        QVERIFY2(g.legendLines().last().contains(QStringLiteral("0 new, 1 changed, 1 gone (op0 → fused into op1)")),
                 qPrintable(g.legendLines().join(QLatin1Char('\n'))));

        // insert_restickify: the copy is new; the MatMul now reads it, so it changed; the Relu did not.
        d.selectPass(passIndex(d, "insert_restickify"));
        const GraphSpec::Node* rs = nodeById(g, "op:rs_buf1_stick1");
        QVERIFY(rs);
        QCOMPARE(rs->kind, GraphSpec::NodeKind::Restickify);
        QCOMPARE(rs->change, GraphSpec::Node::Change::New);
        QCOMPARE(nodeById(g, "op:op2")->change, GraphSpec::Node::Change::Changed);
        QCOMPARE(nodeById(g, "op:op1")->change, GraphSpec::Node::Change::Same);
        QVERIFY(g.graph().removed.isEmpty());

        // coarse_tiling changes nothing here (every op fits untiled): no marks, and the legend says only shapes.
        d.selectPass(passIndex(d, "coarse_tiling"));
        for (const auto& n : g.graph().nodes)
            QVERIFY2(n.change == GraphSpec::Node::Change::Same, n.id.c_str());
        QCOMPARE(g.legendLines().size(), 3);
        QVERIFY(g.legendLines().first().contains(QStringLiteral("red hexagon: restickify")));
    }

    void stepsDoNotMoveWhatThePassKept()
    {
        // Every loop-level pass is drawn at the positions of one layout of all of them: a node two passes share is
        // at the same scene position in both, even when a pass adds (insert_restickify's copy) or fuses ops away.
        Document& d = *w_->document();
        GraphView& g = *w_->views().graph();
        auto boxes = [&g] {
            std::map<std::string, QRectF> out;
            for (QGraphicsItem* item : g.scene()->items())
                if (!item->data(0).toString().isEmpty())
                    out[item->data(0).toString().toStdString()] = item->sceneBoundingRect();
            return out;
        };
        auto clusterLabels = [&g] {
            QStringList out;
            for (QGraphicsItem* item : g.scene()->items())
                if (auto* t = dynamic_cast<QGraphicsSimpleTextItem*>(item); t && t->text().startsWith(QStringLiteral("fused: ")))
                    out << t->text();
            return out;
        };
        std::map<std::string, QRectF> previous;
        int compared = 0, passesSeen = 0;
        bool sawNew = false;
        for (size_t i = 0; i < d.passes().size(); ++i) {
            if (d.compiled().programs[i]->stage != spyre::Stage::Loop)
                continue;
            d.selectPass(static_cast<int>(i));
            QVERIFY(QTest::qWaitFor([&] { return !g.isLayingOut(); }, 60000));
            const auto now = boxes();
            QCOMPARE(now.size(), g.graph().nodes.size());
            for (const auto& n : g.graph().nodes) {
                sawNew = sawNew || (n.change == GraphSpec::Node::Change::New && !previous.empty());
                const auto was = previous.find(n.id);
                if (was == previous.end())
                    continue;
                QVERIFY2(was->second.center() == now.at(n.id).center(),
                         qPrintable(QStringLiteral("%1 moved at %2").arg(QString::fromStdString(n.id), QString::fromStdString(d.passes()[i].name))));
                ++compared;
            }
            // A cluster frame is labelled with this pass's names.
            QStringList expected;
            for (const auto& c : g.graph().clusters)
                expected << c.label;
            QStringList labels = clusterLabels();
            labels.sort();
            expected.sort();
            QCOMPARE(labels, expected);
            previous = now;
            ++passesSeen;
        }
        QVERIFY(passesSeen >= 6);
        QVERIFY(sawNew);   // the restickify copy came in along the way
        QVERIFY2(compared > 20, qPrintable(QString::number(compared)));
        // At fuse the frame names what op1 absorbed.
        d.selectPass(passIndex(d, "fuse"));
        QVERIFY(QTest::qWaitFor([&] { return !g.isLayingOut(); }, 60000));
        QVERIFY2(clusterLabels().contains(QStringLiteral("fused: op0, op1")), qPrintable(clusterLabels().join(QLatin1Char(','))));

        // docs/screenshots/graph-step.png: insert_restickify, its new copy and the changed MatMul marked, the legend
        // saying what the pass did; and pipeline-explained.png: the Pipeline with that pass and fuse opened.
        d.selectPass(passIndex(d, "insert_restickify"));
        QVERIFY(QTest::qWaitFor([&] { return !g.isLayingOut(); }, 60000));
        QTest::qWait(50);
        QVERIFY(g.grab().save(outputDir() + QStringLiteral("/view-graph-step.png")));
        QDockWidget* pipelineDock = w_->findChild<QDockWidget*>(QStringLiteral("pipelineDock"));
        auto* tree = w_->findChild<QTreeWidget*>(QStringLiteral("pipelineTree"));
        QVERIFY(pipelineDock && tree);
        pipelineDock->setFloating(true);
        pipelineDock->resize(1100, 420);
        for (const char* pass : {"fuse", "insert_restickify", "work_division"})
            tree->topLevelItem(passIndex(d, pass))->setExpanded(true);
        QTest::qWait(100);
        QVERIFY(pipelineDock->widget()->grab().save(outputDir() + QStringLiteral("/view-pipeline-explained.png")));
        pipelineDock->setFloating(false);
    }

    void selectionFollowsTheOpWhenItsPositionShifts()
    {
        Document& d = *w_->document();
        GraphView& g = *w_->views().graph();
        d.selectPass(passIndex(d, "optimize_layouts"));
        QVERIFY(QTest::qWaitFor([&] { return !g.isLayingOut(); }, 60000));
        QCOMPARE(d.selectedProgram()->ops.at(1).name, std::string("op2"));   // position 1 before the copy comes in
        QVERIFY(g.selectNode("op:op2"));
        QCOMPARE(w_->views().inspector()->heading().section(QLatin1Char(' '), 0, 0), QStringLiteral("op2"));
        d.selectPass(passIndex(d, "insert_restickify"));
        QVERIFY(QTest::qWaitFor([&] { return !g.isLayingOut(); }, 60000));
        QCOMPARE(d.selectedProgram()->ops.at(2).name, std::string("op2"));   // position 2 after
        QCOMPARE(g.selectedNode(), std::string("op:op2"));
        QCOMPARE(w_->views().inspector()->heading().section(QLatin1Char(' '), 0, 0), QStringLiteral("op2"));
    }

    void searchFindsOpsBuffersAndTensors()
    {
        Document& d = *w_->document();
        GraphView& g = *w_->views().graph();
        d.selectPass(static_cast<int>(d.passes().size()) - 1);
        QVERIFY(QTest::qWaitFor([&] { return !g.isLayingOut(); }, 60000));
        // By op name, by the intermediate buffer an op writes (buffers between ops are edges, not nodes), by the
        // ONNX value it holds, and by an input buffer's ONNX name.
        QCOMPARE(g.search(QStringLiteral("op2")), 1);
        QCOMPARE(g.search(QStringLiteral("buf1_stick1")), 1);
        QCOMPARE(g.search(QStringLiteral("Relu")), 1);
        QCOMPARE(g.search(QStringLiteral("arg1_1")), 1);
        QCOMPARE(g.search(QStringLiteral("no such thing")), 0);
        // Ctrl+F in the window opens the Graph's find field; typing searches and says how many nodes match.
        w_->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(w_.get()));
        QTest::keyClick(w_.get(), Qt::Key_F, Qt::ControlModifier);
        auto* field = g.findChild<QLineEdit*>(QStringLiteral("graphFind"));
        QVERIFY(field && field->isVisible());
        QTest::keyClicks(field, QStringLiteral("buf1"));
        QCOMPARE(g.findStatus(), QStringLiteral("2 matches"));   // op1 writes buf1; rs_buf1_stick1 writes buf1_stick1
        QTest::keyClick(field, Qt::Key_Escape);
        QVERIFY(!field->isVisible());
    }

    void timelineGraphAndSpyreViewsShareTheSelection()
    {
        Document& d = *w_->document();
        GraphView& g = *w_->views().graph();
        d.selectPass(static_cast<int>(d.passes().size()) - 1);
        QVERIFY(QTest::qWaitFor([&] { return !g.isLayingOut(); }, 60000));
        // Graph -> Document -> Timeline, Work division and Stick layout.
        QVERIFY(g.selectNode("op:op1"));
        QCOMPARE(d.selectedNode(), std::string("op:op1"));
        QCOMPARE(w_->views().timeline()->selectedKernel(), std::string("op1"));
        QVERIFY2(w_->views().workDivision()->headline().startsWith(QStringLiteral("op1 ")), qPrintable(w_->views().workDivision()->headline()));
        QVERIFY2(w_->views().stickLayout()->headline().startsWith(QStringLiteral("buf1 ")), qPrintable(w_->views().stickLayout()->headline()));
        // Selecting a buffer outlines its producer's kernel.
        QVERIFY(g.selectNode("buf:buf2"));
        QCOMPARE(w_->views().timeline()->selectedKernel(), std::string("op2"));

        // Timeline -> Document -> Graph: zoom the Timeline into the middle of op2's kernel, where every lane's event
        // belongs to it, and click there.
        QVERIFY(g.selectNode("op:op1"));
        if (!ImGuiHost::glAvailable())
            QSKIP("the Timeline needs OpenGL (run under xvfb-run)");
        QDockWidget* dock = w_->findChild<QDockWidget*>(QStringLiteral("timelineDock"));
        QVERIFY(dock);
        dock->show();
        dock->raise();
        auto* host = qobject_cast<ImGuiHost*>(dock->widget());
        QVERIFY(host && host->usesGL());
        const Trace* trace = w_->views().timeline()->trace();
        QVERIFY(trace);
        int64_t start = INT64_MAX, end = 0;
        for (const TraceEvent& e : trace->events)
            if (e.kernel == "op2") {
                start = std::min(start, e.startNs);
                end = std::max(end, e.endNs);
            }
        QVERIFY(end > start);
        const int64_t mid = (start + end) / 2;
        // Compute events run inside the kernel span; a narrow window around its middle keeps every event wide.
        w_->views().timeline()->setView(static_cast<double>(mid) - 1, static_cast<double>(mid) + 1);
        host->refresh();
        QWidget* gl = host->glWidget();
        QVERIFY(QTest::qWaitFor([&] { return gl->isVisible() && host->glWidget()->framesRendered() > 0; }, 5000));
        // Lanes start below the header, the legend and the ruler; walk down the first lanes until a click lands on one.
        for (int y = 40; y < 200 && d.selectedNode() != "op:op2"; y += 6) {
            const QPoint at(gl->width() / 2, y);
            QTest::mouseMove(gl, at);
            QTest::qWait(20);
            QTest::mouseClick(gl, Qt::LeftButton, {}, at);
            QTest::qWait(40);
        }
        QCOMPARE(d.selectedNode(), std::string("op:op2"));
        QCOMPARE(g.selectedNode(), std::string("op:op2"));
        QCOMPARE(w_->views().timeline()->selectedKernel(), std::string("op2"));
        QVERIFY2(w_->views().workDivision()->headline().startsWith(QStringLiteral("op2 ")), qPrintable(w_->views().workDivision()->headline()));
        QCOMPARE(w_->views().inspector()->heading().section(QLatin1Char(' '), 0, 0), QStringLiteral("op2"));
    }

    void pipelineRowsExplainWhatEachPassDid()
    {
        auto* tree = w_->findChild<QTreeWidget*>(QStringLiteral("pipelineTree"));
        QVERIFY(tree);
        Document& d = *w_->document();
        auto linesOf = [&](const char* pass) {
            QStringList lines;
            QTreeWidgetItem* item = tree->topLevelItem(passIndex(d, pass));
            for (int c = 0; item && c < item->childCount(); ++c)
                lines << item->child(c)->text(0);
            return lines;
        };
        // The simulated time quoted is the final bundle's kernel of that name.
        double rsNs = -1;
        for (const auto& k : d.compiled().simulation->kernels)
            if (k.name == "rs_buf1_stick1")
                rsNs = k.timeNs;
        QVERIFY(rsNs > 0);
        const QStringList inserted = linesOf("insert_restickify");
        QCOMPARE(inserted.size(), 1);
        QVERIFY2(inserted.front().startsWith(QStringLiteral("inserted rs_buf1_stick1: op2 (MatMul '")) &&
                     inserted.front().contains(QStringLiteral("reads r along d1; op1 (Relu '")) &&
                     inserted.front().endsWith(QStringLiteral("produced it sticked on d0; 131 072 elements, %1 simulated")
                                                   .arg(QString::fromStdString(formatDuration(rsNs)))),
                 qPrintable(inserted.front()));
        const QStringList fused = linesOf("fuse");
        QCOMPARE(fused.size(), 1);
        QVERIFY2(fused.front().startsWith(QStringLiteral("op0 (Transpose '")) && fused.front().contains(QStringLiteral(" fused into op1 (Relu '")),
                 qPrintable(fused.front()));
        // work_division: one line per op with its split and why; the MatMul's quotes its simulated time.
        const QStringList split = linesOf("work_division");
        QCOMPARE(split.size(), 3);
        QVERIFY2(split.filter(QStringLiteral("op2 on ")).size() == 1 && split.filter(QStringLiteral("op2 on ")).front().endsWith(QStringLiteral(" simulated")),
                 qPrintable(split.join(QLatin1Char('\n'))));
        // A line belongs to its pass: selecting it selects the pass.
        tree->setCurrentItem(tree->topLevelItem(passIndex(d, "fuse"))->child(0));
        QCOMPARE(d.selectedPass(), passIndex(d, "fuse"));
    }

    void cleanupTestCase() { w_.reset(); }
};

QTEST_MAIN(TestGraphIdentity)
#include "tst_graph_identity.moc"
