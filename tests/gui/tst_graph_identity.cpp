// The Graph across passes: ops keep their names (their identity) from lower to codegen, so stepping marks what a
// pass added or changed, lists what it merged away, keeps the selection on the same op when positions shift, and
// the search finds an op by the buffer it writes or the ONNX value it holds. Run on a real compile of
// transpose_restickify with r pinned to d0, which makes insert_restickify put a copy before the MatMul.
#include "common/guitestutil.h"
#include "common/testutil.h"

#include "views/document.h"
#include "views/graphview.h"
#include "views/inspectorview.h"
#include "views/mainwindow.h"

#include "core/spyre/loop_ir.h"

#include <QLineEdit>
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
        QStandardPaths::setTestModeEnabled(true);
        qputenv("XDG_DATA_HOME", dataHome_.path().toLocal8Bit());
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
        GraphView& g = *w_->graphView();
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

    void selectionFollowsTheOpWhenItsPositionShifts()
    {
        Document& d = *w_->document();
        GraphView& g = *w_->graphView();
        d.selectPass(passIndex(d, "optimize_layouts"));
        QVERIFY(QTest::qWaitFor([&] { return !g.isLayingOut(); }, 60000));
        QCOMPARE(d.selectedProgram()->ops.at(1).name, std::string("op2"));   // position 1 before the copy comes in
        QVERIFY(g.selectNode("op:op2"));
        QCOMPARE(w_->inspector()->heading().section(QLatin1Char(' '), 0, 0), QStringLiteral("op2"));
        d.selectPass(passIndex(d, "insert_restickify"));
        QVERIFY(QTest::qWaitFor([&] { return !g.isLayingOut(); }, 60000));
        QCOMPARE(d.selectedProgram()->ops.at(2).name, std::string("op2"));   // position 2 after
        QCOMPARE(g.selectedNode(), std::string("op:op2"));
        QCOMPARE(w_->inspector()->heading().section(QLatin1Char(' '), 0, 0), QStringLiteral("op2"));
    }

    void searchFindsOpsBuffersAndTensors()
    {
        Document& d = *w_->document();
        GraphView& g = *w_->graphView();
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

    void cleanupTestCase() { w_.reset(); }
};

QTEST_MAIN(TestGraphIdentity)
#include "tst_graph_identity.moc"
