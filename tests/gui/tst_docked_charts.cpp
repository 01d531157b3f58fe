// Issue 16 items 2 and 9: docked in the default layout of a 1600x1000 window, every chart (Charts: Kernels, History,
// Compare, Quantum; the Tuning dock) has a plot area a reader can read and axis labels that are whole (Qt Charts
// elides a label that has no room with "..."), do not overlap their neighbours, are not cut off by the view and
// are not said twice.
#include "common/guitestutil.h"
#include "common/testutil.h"

#include "views/chartsview.h"
#include "views/mainwindow.h"
#include "views/tuningchart.h"

#include <QAbstractAxis>
#include <QChart>
#include <QChartView>
#include <QDockWidget>
#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QMenuBar>
#include <QTemporaryDir>
#include <QTextDocument>
#include <QtTest>

using namespace spyglass;
using namespace spyglass::test;

namespace {

// Smaller than this a chart shows a sliver: a few bars or points with no room between the axis labels.
constexpr qreal kMinPlotWidth = 400, kMinPlotHeight = 120;

struct Label {
    QString text;
    QPolygonF shape;   // in view coordinates, rotated labels included
};

QList<Label> labels(QChartView* view)
{
    QList<Label> out;
    for (QGraphicsItem* item : view->scene()->items()) {
        if (!item->isVisible())
            continue;
        QString text;
        QFont font;
        qreal margin = 0;
        if (auto* t = qgraphicsitem_cast<QGraphicsTextItem*>(item)) {
            text = t->toPlainText();
            font = t->font();
            margin = t->document()->documentMargin();
        } else if (auto* s = qgraphicsitem_cast<QGraphicsSimpleTextItem*>(item)) {
            text = s->text();
            font = s->font();
        } else {
            continue;
        }
        if (text.trimmed().isEmpty())
            continue;
        // The glyphs' ink, not the item's line box: neighbours whose line boxes touch (an axis's "0" beside the
        // first time label below it) do not overlap on screen.
        const QFontMetricsF fm(font);
        const QRectF ink = fm.tightBoundingRect(text).translated(item->boundingRect().left() + margin, item->boundingRect().top() + margin + fm.ascent());
        out.append({text, view->mapFromScene(item->mapToScene(ink))});
    }
    return out;
}

// Every problem a reader would see in this chart, as text for the failure message; empty when it reads well.
QStringList readability(const QString& name, QChartView* view)
{
    QStringList problems;
    const QRectF plot = view->chart()->plotArea();
    qInfo("%s: view %dx%d, plot area %.0fx%.0f", qPrintable(name), view->width(), view->height(), plot.width(), plot.height());
    if (plot.width() < kMinPlotWidth || plot.height() < kMinPlotHeight)
        problems << QStringLiteral("%1: plot area %2x%3").arg(name).arg(plot.width()).arg(plot.height());
    const QList<Label> all = labels(view);
    const QRectF inside = QRectF(view->rect()).adjusted(-1, -1, 1, 1);
    // Below the plot: the x axis's tick labels and its title. A tick label said twice (two ticks within one second
    // of a time axis labelled in seconds) misreads as two runs at the same time.
    QStringList titles, ticks;
    for (QAbstractAxis* axis : view->chart()->axes())
        titles << axis->titleText();
    for (const Label& l : all)
        if (l.shape.boundingRect().center().y() > view->mapFromScene(view->chart()->mapToScene(plot.bottomLeft())).y() && !titles.contains(l.text)) {
            if (ticks.contains(l.text))
                problems << QStringLiteral("%1: tick label '%2' twice").arg(name, l.text);
            ticks << l.text;
        }
    for (int i = 0; i < all.size(); ++i) {
        if (all[i].text.endsWith(QLatin1String("...")) || all[i].text.endsWith(QChar(0x2026)))
            problems << QStringLiteral("%1: elided '%2'").arg(name, all[i].text);
        if (!inside.contains(all[i].shape.boundingRect()))
            problems << QStringLiteral("%1: '%2' cut off by the view").arg(name, all[i].text);
        for (int j = i + 1; j < all.size(); ++j)
            if (all[i].shape.intersects(all[j].shape) && all[i].shape.intersected(all[j].shape).boundingRect().width() > 1
                && all[i].shape.intersected(all[j].shape).boundingRect().height() > 1)
                problems << QStringLiteral("%1: '%2' overlaps '%3'").arg(name, all[i].text, all[j].text);
    }
    return problems;
}

QAction* menuAction(QMenuBar* bar, const QString& text)
{
    for (QAction* menu : bar->actions())
        if (menu->menu())
            for (QAction* a : menu->menu()->actions())
                if (a->text().remove(QLatin1Char('&')).startsWith(text))
                    return a;
    return nullptr;
}

}  // namespace

class TestDockedCharts : public QObject {
    Q_OBJECT
    QTemporaryDir dataHome_;
private slots:
    void initTestCase() { isolateAppData(dataHome_); }

    void chartsAreReadableDockedAt1600x1000()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // A circuit for the Quantum chart, then the attention block twice: its many kernels with long names are the
        // hardest category axis, and two runs give Compare something to compare.
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/qft8.qasm"))));
        const QString model = sourcePath(QStringLiteral("resources/examples/attention_block.onnxtxt"));
        QVERIFY(openAndWait(w, model));
        QVERIFY(openAndWait(w, model));
        QAction* tune = menuAction(w.menuBar(), QStringLiteral("Tune Plan"));
        QVERIFY(tune);
        QSignalSpy tuned(w.views().tuning(), &TuningChart::tuned);
        tune->trigger();
        QVERIFY(QTest::qWaitFor([&] { return !tuned.isEmpty(); }, 60000));

        QStringList problems;
        ChartsView* charts = w.views().charts();
        w.dock(QStringLiteral("chartsDock"))->raise();
        const std::pair<ChartsView::Chart, const char*> all[] = {{ChartsView::Chart::Kernels, "kernels"},
                                                                 {ChartsView::Chart::History, "history"},
                                                                 {ChartsView::Chart::Compare, "compare"},
                                                                 {ChartsView::Chart::Quantum, "quantum"}};
        for (const auto& [c, name] : all) {
            charts->showChart(c);
            QTest::qWait(20);   // the chart lays its axes out on the next event loop passes
            QVERIFY2(charts->chartView(c)->isVisible(), name);
            QVERIFY2(!charts->chart(c)->series().isEmpty(), name);
            problems += readability(QString::fromLatin1(name), charts->chartView(c));
            // docs/screenshots/charts-kernels.png and charts-compare.png are these: the whole dock as docked.
            const QImage shot = w.dock(QStringLiteral("chartsDock"))->grab().toImage();
            QVERIFY2(distinctColours(shot) > 8, name);
            shot.save(outputDir() + QStringLiteral("/charts-%1.png").arg(QLatin1String(name)));
        }
        w.dock(QStringLiteral("tuningDock"))->raise();
        QTest::qWait(20);
        auto* tuningView = w.views().tuning()->findChild<QChartView*>();
        QVERIFY(tuningView && tuningView->isVisible());
        QVERIFY(!w.views().tuning()->chart()->series().isEmpty());
        problems += readability(QStringLiteral("tuning"), tuningView);
        // docs/screenshots/tuning.png: the Tuning dock after Pipeline > Tune Plan on the attention block.
        const QImage shot = w.dock(QStringLiteral("tuningDock"))->grab().toImage();
        QVERIFY(distinctColours(shot) > 8);
        shot.save(outputDir() + QStringLiteral("/tuning.png"));
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }
};

QTEST_MAIN(TestDockedCharts)
#include "tst_docked_charts.moc"
