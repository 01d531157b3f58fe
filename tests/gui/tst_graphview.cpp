// The Graph view: Graphviz layout on a worker, drawing, selection, search, export, and a 2 000-node graph
// that is laid out without freezing the GUI.
#include "common/testutil.h"

#include "views/graphview.h"

#include <QElapsedTimer>
#include <QFile>
#include <QGraphicsItem>
#include <QImage>
#include <QSignalSpy>
#include <QtTest>

using namespace spyglass;
using namespace spyglass::test;

namespace {

GraphSpec smallGraph()
{
    GraphSpec g;
    g.clusters.push_back({QStringLiteral("fused group 0")});
    auto node = [&g](const char* id, const char* label, GraphSpec::NodeKind k, int cluster = -1) {
        g.nodes.push_back({id, QString::fromLatin1(label), QString(), k, cluster, {}, GraphSpec::Node::Change::Same, QString()});
        return static_cast<int>(g.nodes.size()) - 1;
    };
    const int in = node("arg0", "arg0\n[256, 512]", GraphSpec::NodeKind::Input);
    const int mm = node("op0", "op0 MatMul", GraphSpec::NodeKind::Op, 0);
    const int relu = node("op1", "op1 Relu", GraphSpec::NodeKind::Op, 0);
    const int rs = node("op2", "restickify buf1\n131072 elements", GraphSpec::NodeKind::Restickify);
    const int out = node("out", "output", GraphSpec::NodeKind::Output);
    g.edges = {{in, mm, QStringLiteral("[256, 512] stick d1")}, {mm, relu, QString()}, {relu, rs, QStringLiteral("stick d1")},
               {rs, out, QStringLiteral("stick d0")}};
    return g;
}

GraphSpec bigGraph(int layers, int width)
{
    GraphSpec g;
    for (int l = 0; l < layers; ++l)
        for (int w = 0; w < width; ++w)
            g.nodes.push_back({"n" + std::to_string(l) + "_" + std::to_string(w), QStringLiteral("op %1.%2").arg(l).arg(w), QString(),
                               w % 9 == 4 ? GraphSpec::NodeKind::Restickify : GraphSpec::NodeKind::Op, -1, {}, GraphSpec::Node::Change::Same, QString()});
    for (int l = 1; l < layers; ++l)
        for (int w = 0; w < width; ++w) {
            g.edges.push_back({(l - 1) * width + w, l * width + w, QString()});
            if (w + 1 < width)
                g.edges.push_back({(l - 1) * width + w, l * width + w + 1, QString()});
        }
    return g;
}

}  // namespace

class TestGraphView : public QObject {
    Q_OBJECT
private slots:
    void laysOutDrawsAndSelects()
    {
        GraphView v;
        v.resize(800, 600);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        QSignalSpy ready(&v, &GraphView::layoutReady);
        v.setGraph(smallGraph());
        QVERIFY(ready.wait(20000));
        const auto& L = v.layout();
        QCOMPARE(L.nodes.size(), size_t(5));
        QCOMPARE(L.clusters.size(), size_t(1));
        // Nodes do not overlap; top-to-bottom order follows the edges.
        for (size_t i = 0; i < L.nodes.size(); ++i)
            for (size_t j = i + 1; j < L.nodes.size(); ++j)
                QVERIFY(!L.nodes[i].box.intersects(L.nodes[j].box));
        QVERIFY(L.nodes[0].box.center().y() < L.nodes[1].box.center().y());
        QVERIFY(L.nodes[3].box.center().y() < L.nodes[4].box.center().y());
        // The fused ops sit inside their cluster.
        QVERIFY(L.clusters[0].box.contains(L.nodes[1].box));
        QVERIFY(L.clusters[0].box.contains(L.nodes[2].box));
        QVERIFY(!L.clusters[0].box.contains(L.nodes[3].box));
        // Edges start at their source and end (arrow tip) at their target.
        for (size_t e = 0; e < L.edges.size(); ++e) {
            const auto& edge = v.graph().edges[e];
            QVERIFY(L.edges[e].bezier.size() >= 4);
            QVERIFY(L.nodes[static_cast<size_t>(edge.from)].box.adjusted(-3, -3, 3, 3).contains(L.edges[e].bezier.front()));
            const QPointF tip = L.edges[e].hasArrow ? L.edges[e].arrowTip : L.edges[e].bezier.back();
            QVERIFY(L.nodes[static_cast<size_t>(edge.to)].box.adjusted(-3, -3, 3, 3).contains(tip));
        }
        // Clicking a node selects it and reports its id.
        QSignalSpy selected(&v, &GraphView::nodeSelected);
        const QPoint at = v.mapFromScene(L.nodes[3].box.center());
        QTest::mouseClick(v.viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(selected.size(), 1);
        QCOMPARE(selected.first().first().toString(), QStringLiteral("op2"));
        QVERIFY(v.selectNode("op0"));
        QCOMPARE(v.selectedNode(), std::string("op0"));
        QVERIFY(!v.selectNode("nope"));
    }

    void searchAndExport()
    {
        GraphView v;
        v.resize(800, 600);
        v.show();
        QSignalSpy ready(&v, &GraphView::layoutReady);
        v.setGraph(smallGraph());
        QVERIFY(ready.wait(20000));
        QCOMPARE(v.search(QStringLiteral("relu")), 1);
        QCOMPARE(v.search(QStringLiteral("op")), 3);   // op0, op1 by label, op2 by id
        QCOMPARE(v.search(QString()), 0);

        const QString dir = outputDir();
        QVERIFY(v.exportDot(dir + QStringLiteral("/graph.dot")));
        QFile dot(dir + QStringLiteral("/graph.dot"));
        QVERIFY(dot.open(QIODevice::ReadOnly));
        const QByteArray text = dot.readAll();
        QVERIFY(text.startsWith("digraph"));
        QVERIFY(text.contains("subgraph cluster_0"));
        QVERIFY(text.contains("shape=hexagon"));
        QCOMPARE(text.count("->"), 4);
        QVERIFY(v.exportSvg(dir + QStringLiteral("/graph.svg")));
        QFile svg(dir + QStringLiteral("/graph.svg"));
        QVERIFY(svg.open(QIODevice::ReadOnly) && svg.readAll().contains("<svg"));
        QVERIFY(v.exportPng(dir + QStringLiteral("/graph.png")));
        const QImage png(dir + QStringLiteral("/graph.png"));
        QVERIFY(!png.isNull() && png.width() > 50);
    }

    void twoThousandNodesDoNotFreezeTheGui()
    {
        GraphView v;
        v.resize(1000, 700);
        v.show();
        QSignalSpy ready(&v, &GraphView::layoutReady);
        QElapsedTimer clock;
        clock.start();
        v.setGraph(bigGraph(100, 20));
        QVERIFY2(ready.isEmpty() && clock.elapsed() < 1000, "setGraph laid the graph out on the GUI thread");
        qint64 last = clock.elapsed(), worst = 0, slowMs = 0;
        int slowTurns = 0;
        while (ready.isEmpty() && clock.elapsed() < 240000) {
            QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
            if (ready.isEmpty()) {   // the last turn builds the scene: timed separately below
                const qint64 gap = clock.elapsed() - last;
                worst = std::max(worst, gap);
                if (gap >= 100) {
                    ++slowTurns;
                    slowMs += gap;
                }
            }
            last = clock.elapsed();
        }
        const qint64 waited = std::max<qint64>(last, 1);
        QVERIFY2(!ready.isEmpty(), "layout of 2000 nodes did not finish in 4 minutes");
        qInfo("2000 nodes: layout %.0f ms (Graphviz, worker), worst GUI gap while waiting %lld ms (%d over 100 ms), scene build %.0f ms",
              v.layout().layoutMs, worst, slowTurns, v.lastSceneBuildMs());
        // The layout itself takes seconds, so running it on the GUI thread (or waiting for it there) shows as one
        // gap of seconds. On 2 shared cores (ctest -j2, another build, ASan's slowdown) the GUI thread can also just
        // not be scheduled for a while: some gaps over 100 ms, none near a second, and most of the wait responsive.
        QVERIFY2(worst < 1000 && slowMs * 4 <= waited,
                 qPrintable(QStringLiteral("GUI blocked for %1 ms; %2 event-loop turns over 100 ms, %3 of %4 ms").arg(worst).arg(slowTurns).arg(slowMs).arg(waited)));
        QCOMPARE(v.layout().nodes.size(), size_t(2000));
        // Zoomed out, the whole graph repaints (text is skipped by level of detail).
        QElapsedTimer paint;
        paint.start();
        v.viewport()->repaint();
        qInfo("2000 nodes: full repaint %lld ms", paint.elapsed());
    }
};

QTEST_MAIN(TestGraphView)
#include "tst_graphview.moc"
