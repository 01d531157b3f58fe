// The plan tuner in the explorer: Pipeline > Tune Plan runs the search on the worker with the window's progress bar
// moving candidate by candidate, records every candidate in the window's session (runs of kind "tuning"), and the
// Tuning dock draws the search: one point per candidate, the best plan so far never above the cost-model plan.
#include "common/guitestutil.h"
#include "common/testutil.h"

#include "views/jobrunner.h"
#include "views/mainwindow.h"
#include "views/tuningchart.h"

#include "core/session/session_store.h"
#include "core/workbench/tuning_record.h"

#include <QChart>
#include <QDockWidget>
#include <QLineSeries>
#include <QMenuBar>
#include <QProgressBar>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace spyglass;
using namespace spyglass::test;

namespace {

int scatterPoints(QChart* chart, const QString& name)
{
    for (QAbstractSeries* s : chart->series())
        if (s->name() == name)
            return static_cast<int>(static_cast<QScatterSeries*>(s)->count());
    return -1;
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

class TestTuningGui : public QObject {
    Q_OBJECT
    QTemporaryDir dataHome_;
private slots:
    void initTestCase() { isolateAppData(dataHome_); }

    // The attention model's batched matmuls give split and device-order candidates; the recorded search reads
    // back as the chart drew it.
    void tuningChartShowsAndRecordsTheSearch()
    {
        const QString db = dataHome_.filePath(QStringLiteral("tuning.db"));
        session::SessionStore store(db.toStdString());
        const session::RowId sid = store.createSession("tuning test");
        JobRunner jobs;
        TuningChart chart;
        chart.resize(900, 500);
        chart.show();
        QSignalSpy progress(&jobs, &JobRunner::progress);
        QSignalSpy tuned(&chart, &TuningChart::tuned);
        QSignalSpy failed(&jobs, &JobRunner::failed);
        chart.tune(&jobs, test::dataPath(QStringLiteral("spyre/models/attention.onnxtxt")), {}, db, sid);
        QVERIFY(QTest::qWaitFor([&] { return !tuned.isEmpty() || !failed.isEmpty(); }, 60000));
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(1).toString()));
        QVERIFY(tuned.first().at(0).toDouble() >= 1.0);
        QVERIFY2(tuned.first().at(1).toString().isEmpty(), qPrintable(tuned.first().at(1).toString()));

        const TuningSearch& s = chart.search();
        int splits = 0, orders = 0;
        for (const TuningPoint& p : s.points)
            (p.what == "order" ? orders : splits) += 1;
        qInfo("%s", qPrintable(chart.summary()));
        QVERIFY(splits > 0);
        QVERIFY(orders > 0);
        // Progress: one report per candidate, rising to 1 (the cost-model compile reports 0 first).
        double last = -1;
        int candidateReports = 0;
        for (const QList<QVariant>& r : progress) {
            if (!r.at(1).toString().startsWith(QStringLiteral("tuning: ")) || !r.at(1).toString().contains(QStringLiteral("candidates")))
                continue;
            QVERIFY(r.at(0).toDouble() > last);
            last = r.at(0).toDouble();
            ++candidateReports;
        }
        QCOMPARE(candidateReports, static_cast<int>(s.points.size()));
        QVERIFY(last > 0 && last <= 1.0);

        QCOMPARE(scatterPoints(chart.chart(), QStringLiteral("split candidates")), splits);
        QCOMPARE(scatterPoints(chart.chart(), QStringLiteral("device-order candidates")), orders);
        for (QAbstractSeries* series : chart.chart()->series())
            if (series->name() == QStringLiteral("best plan so far")) {
                const auto* line = static_cast<QLineSeries*>(series);
                for (const QPointF& p : line->points())
                    QVERIFY(p.y() <= s.costModelNs * 1e-3 + 1e-9);
            }
        QCoreApplication::processEvents();   // the chart lays its axes out on the next event loop pass
        const QImage picture = chart.grab().toImage();
        picture.save(test::outputDir() + QStringLiteral("/tuning-chart.png"));   // to look at when this fails
        QVERIFY(distinctColours(picture) > 8);

        // In the session: the same candidates, in the same order, as runs of kind "tuning".
        const TuningSearch recorded = recordedTuning(store, sid);
        QCOMPARE(recorded.points.size(), s.points.size());
        QCOMPARE(recorded.costModelNs, s.costModelNs);
        for (size_t i = 0; i < s.points.size(); ++i) {
            QCOMPARE(recorded.points[i].label, s.points[i].label);
            QCOMPARE(recorded.points[i].simulatedNs, s.points[i].simulatedNs);
            QCOMPARE(recorded.points[i].kept, s.points[i].kept);
            QVERIFY(recorded.points[i].runId > 0);
        }
        int tuningRuns = 0;
        for (const session::RunInfo& r : store.runs(sid))
            tuningRuns += r.kind == kTuningRunKind;
        QCOMPARE(tuningRuns, static_cast<int>(s.points.size()));
    }

    // The menu action on the open document, through the window's job runner and progress bar.
    void tunePlanActionMovesTheProgressBar()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, test::sourcePath(QStringLiteral("resources/examples/mlp.onnxtxt"))));
        auto* bar = w.findChild<QProgressBar*>(QStringLiteral("jobProgress"));
        QVERIFY(bar);
        QStringList formats;
        connect(bar, &QProgressBar::valueChanged, this, [&] { formats << bar->format(); });
        QAction* tune = menuAction(w.menuBar(), QStringLiteral("Tune Plan"));
        QVERIFY(tune);
        QSignalSpy tuned(w.views().tuning(), &TuningChart::tuned);
        tune->trigger();
        QVERIFY(QTest::qWaitFor([&] { return !tuned.isEmpty(); }, 60000));
        QVERIFY2(formats.filter(QStringLiteral("candidates")).size() > 0, qPrintable(formats.join(QStringLiteral(" | "))));
        QVERIFY(!w.views().tuning()->search().points.empty());
        QVERIFY(w.findChild<QDockWidget*>(QStringLiteral("tuningDock")));
    }
};

QTEST_MAIN(TestTuningGui)
#include "tst_tuning_gui.moc"
