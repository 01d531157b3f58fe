// The Charts dock on a temporary session database: every chart's series hold the stored numbers, the
// history flags the run more than 5% slower than the best earlier one, runs written by another process show up
// on their own, renaming works, and PNG/CSV exports are real (a PNG with many colours, a CSV with the numbers).
#include "common/testutil.h"

#include "core/common/diagnostics.h"
#include "core/session/session_recorder.h"
#include "core/session/session_store.h"
#include "views/chartsview.h"

#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QImage>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QValueAxis>
#include <QScatterSeries>
#include <QTemporaryDir>
#include <QtTest>

#include <set>

using namespace spyglass;
using namespace spyglass::session;

namespace {

template <typename T>
T* seriesNamed(QChart* chart, const QString& prefix)
{
    for (QAbstractSeries* s : chart->series())
        if (auto* typed = qobject_cast<T*>(s); typed && s->name().startsWith(prefix))
            return typed;
    return nullptr;
}

QBarSeries* barSeries(QChart* chart)
{
    for (QAbstractSeries* s : chart->series())
        if (auto* b = qobject_cast<QBarSeries*>(s))
            return b;
    return nullptr;
}

int distinctColours(const QImage& img)
{
    std::set<QRgb> colours;
    for (int y = 0; y < img.height(); y += 2)
        for (int x = 0; x < img.width(); x += 2)
            colours.insert(img.pixel(x, y));
    return static_cast<int>(colours.size());
}

RowId recordKernels(SessionStore& store, RowId session, const std::vector<std::pair<std::string, double>>& kernels)
{
    SessionRecorder rec(store, session);
    rec.beginRun({.kind = "run", .artifactPath = "models/mlp.onnx", .artifactKind = "onnx", .artifactHash = "mlp-hash"});
    rec.addPassTiming("lower", 1.5);
    for (const auto& [name, ns] : kernels)
        rec.addKernelTiming(name, ns, 1024, 2048);
    return rec.finishRun(RunStatus::Ok);
}

}  // namespace

class TestChartsView : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    std::unique_ptr<SessionStore> store_;
    RowId earlier_ = 0, session_ = 0, runFast_ = 0, runSlow_ = 0, runLatest_ = 0;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        store_ = std::make_unique<SessionStore>(tmp_.filePath(QStringLiteral("charts.db")).toStdString());
        // Last week's session: the best run of the model so far (1000 ns in total).
        earlier_ = store_->createSession("last week");
        recordKernels(*store_, earlier_, {{"matmul_0", 800}, {"relu_1", 200}});
        session_ = store_->createSession("today");
        runFast_ = recordKernels(*store_, session_, {{"matmul_0", 790}, {"relu_1", 240}});            // 1030: within 5%
        runSlow_ = recordKernels(*store_, session_, {{"matmul_0", 900}, {"relu_1", 200}, {"restick", 60}});  // 1160: flagged
        runLatest_ = recordKernels(*store_, session_, {{"matmul_0", 700}, {"relu_1", 250}});          // 950: new best
        for (int qubits : {4, 8, 8, 12}) {
            SessionRecorder rec(*store_, session_);
            rec.beginRun({.kind = "qsim", .artifactPath = "ghz.qasm", .artifactKind = "qasm", .artifactHash = "ghz"});
            rec.addCircuitTiming(qubits, qubits * 2, qubits * 0.25);
            rec.finishRun(RunStatus::Ok);
        }
    }

    void kernelBarsHoldTheStoredTimes()
    {
        ChartsView view(store_.get());
        view.resize(1000, 650);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(view.selectedSession(), session_);   // newest session by default
        view.selectKernelRun(runSlow_);
        QBarSeries* bars = barSeries(view.chart(ChartsView::Chart::Kernels));
        QVERIFY(bars);
        QCOMPARE(bars->barSets().size(), 1);
        QBarSet* set = bars->barSets().at(0);
        QCOMPARE(set->count(), 3);
        QCOMPARE(set->at(0), 900.0);
        QCOMPARE(set->at(1), 200.0);
        QCOMPARE(set->at(2), 60.0);
        QVERIFY(view.chartCsv(ChartsView::Chart::Kernels).contains(QStringLiteral("restick,60,1024,2048")));
    }

    void historyFlagsTheSlowRunAcrossSessions()
    {
        ChartsView view(store_.get());
        view.resize(1000, 650);
        view.show();
        view.showChart(ChartsView::Chart::History);
        // The newest artifact of the session is the circuit: it has no simulated kernel time, so the view
        // offers the simulation wall time of its runs.
        const RowId circuit = store_->runDetail(store_->runIds(session_).back())->run.artifact.id;
        QCOMPARE(view.findChild<QComboBox*>(QStringLiteral("artifactCombo"))->currentData().toLongLong(), circuit);
        QCOMPARE(view.findChild<QComboBox*>(QStringLiteral("metricCombo"))->currentData().toInt(),
                 static_cast<int>(RunMetric::SimulationWallTime));
        QCOMPARE(view.history().size(), size_t(4));
        view.selectArtifact(store_->runDetail(runSlow_)->run.artifact.id);
        view.setHistoryMetric(RunMetric::SimulatedTime);
        QLineSeries* line = seriesNamed<QLineSeries>(view.chart(ChartsView::Chart::History), QStringLiteral("runs"));
        QVERIFY(line);
        QCOMPARE(line->count(), 4);   // last week's run and today's three
        QCOMPARE(line->at(0).y(), 1000.0);
        QCOMPARE(line->at(1).y(), 1030.0);
        QCOMPARE(line->at(2).y(), 1160.0);
        QCOMPARE(line->at(3).y(), 950.0);
        QVERIFY(line->at(0).x() <= line->at(3).x());
        QScatterSeries* flagged = seriesNamed<QScatterSeries>(view.chart(ChartsView::Chart::History), QStringLiteral("more than 5%"));
        QVERIFY(flagged);
        QCOMPARE(flagged->count(), 1);
        QCOMPARE(flagged->at(0).y(), 1160.0);
        QCOMPARE(view.flaggedRuns(), std::vector<RowId>{runSlow_});

        // The same path with other contents: only counted when the history follows the path.
        {
            SessionStore other(store_->path());
            SessionRecorder rec(other, earlier_);
            rec.beginRun({.kind = "run", .artifactPath = "models/mlp.onnx", .artifactKind = "onnx", .artifactHash = "mlp-edited"});
            rec.addKernelTiming("matmul_0", 5000, 1, 1);
            rec.finishRun(RunStatus::Ok);
        }
        view.reload();
        QCOMPARE(view.history().size(), size_t(4));
        view.setHistoryFollowsPath(true);
        QCOMPARE(view.history().size(), size_t(5));
        QCOMPARE(view.history().back().value, 5000.0);
        QVERIFY(view.history().back().regression);
        view.setHistoryFollowsPath(false);
        QCOMPARE(view.history().size(), size_t(4));

        // Compile wall time: every run has one pass of 1.5 ms, nothing is flagged.
        view.setHistoryMetric(RunMetric::CompileWallTime);
        line = seriesNamed<QLineSeries>(view.chart(ChartsView::Chart::History), QStringLiteral("runs"));
        QVERIFY(line);
        QCOMPARE(line->count(), 4);
        QCOMPARE(line->at(2).y(), 1.5);
        QVERIFY(view.flaggedRuns().empty());
    }

    void comparesTwoRunsSideBySide()
    {
        ChartsView view(store_.get());
        view.resize(1000, 650);
        view.show();
        view.showChart(ChartsView::Chart::Compare);
        view.selectComparison(runFast_, runSlow_);
        QBarSeries* bars = barSeries(view.chart(ChartsView::Chart::Compare));
        QVERIFY(bars);
        QCOMPARE(bars->barSets().size(), 2);
        QBarSet* a = bars->barSets().at(0);
        QBarSet* b = bars->barSets().at(1);
        QCOMPARE(a->count(), 3);   // matmul_0, relu_1, restick
        QCOMPARE(a->at(0), 790.0);
        QCOMPARE(b->at(0), 900.0);
        QCOMPARE(a->at(1), 240.0);
        QCOMPARE(a->at(2), 0.0);   // the fast run has no restick kernel
        QCOMPARE(b->at(2), 60.0);
        QVERIFY(view.chartCsv(ChartsView::Chart::Compare).contains(QStringLiteral("restick,,60")));
    }

    void quantumRunsByQubitCount()
    {
        ChartsView view(store_.get());
        view.resize(1000, 650);
        view.show();
        view.showChart(ChartsView::Chart::Quantum);
        QScatterSeries* points = seriesNamed<QScatterSeries>(view.chart(ChartsView::Chart::Quantum), QStringLiteral("circuit runs"));
        QVERIFY(points);
        QCOMPARE(points->count(), 4);
        QCOMPARE(points->at(0), QPointF(4, 1.0));
        QCOMPARE(points->at(3), QPointF(12, 3.0));
        QLineSeries* best = seriesNamed<QLineSeries>(view.chart(ChartsView::Chart::Quantum), QStringLiteral("fastest"));
        QVERIFY(best);
        QCOMPARE(best->count(), 3);   // 4, 8, 12 qubits
        QVERIFY(qobject_cast<QValueAxis*>(view.chart(ChartsView::Chart::Quantum)->axes(Qt::Vertical).value(0)));

        // Times spanning orders of magnitude get a log axis.
        SessionStore other(store_->path());
        const RowId wide = other.createSession("wide");
        for (double ms : {0.01, 0.5, 40.0}) {
            SessionRecorder rec(other, wide);
            rec.beginRun({.kind = "qsim", .artifactHash = "w"});
            rec.addCircuitTiming(static_cast<int>(ms * 10) + 2, 1, ms);
            rec.finishRun(RunStatus::Ok);
        }
        view.reload();
        view.selectSession(wide);
        QVERIFY(qobject_cast<QLogValueAxis*>(view.chart(ChartsView::Chart::Quantum)->axes(Qt::Vertical).value(0)));
        points = seriesNamed<QScatterSeries>(view.chart(ChartsView::Chart::Quantum), QStringLiteral("circuit runs"));
        QCOMPARE(points->count(), 3);
        QCOMPARE(points->at(2).y(), 40.0);
    }

    void exportsPngAndCsv_data()
    {
        QTest::addColumn<int>("chart");
        QTest::newRow("kernels") << static_cast<int>(ChartsView::Chart::Kernels);
        QTest::newRow("history") << static_cast<int>(ChartsView::Chart::History);
        QTest::newRow("compare") << static_cast<int>(ChartsView::Chart::Compare);
        QTest::newRow("quantum") << static_cast<int>(ChartsView::Chart::Quantum);
    }

    void exportsPngAndCsv()
    {
        QFETCH(int, chart);
        ChartsView view(store_.get());
        view.resize(1000, 650);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.selectSession(session_);
        view.showChart(static_cast<ChartsView::Chart>(chart));
        QTest::qWait(50);
        const QString png = test::outputDir() + QStringLiteral("/chartsview_%1.png").arg(chart);
        QString error;
        QVERIFY2(view.exportPng(png, &error), qPrintable(error));
        QImage img(png);
        QVERIFY(!img.isNull());
        QVERIFY(img.width() >= 800 && img.height() >= 500);
        QVERIFY2(distinctColours(img) > 20, qPrintable(QStringLiteral("%1 colours").arg(distinctColours(img))));
        const QString csv = tmp_.filePath(QStringLiteral("chart%1.csv").arg(chart));
        QVERIFY2(view.exportCsv(csv, &error), qPrintable(error));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
        QVERIFY(lines.size() >= 3);   // a header and at least two data rows for each chart here
        QVERIFY(!view.exportPng(QStringLiteral("/no/such/dir/x.png"), &error));
        QVERIFY(!error.isEmpty());
    }

    void picksUpRunsFromAnotherConnectionAndRenames()
    {
        ChartsView view(store_.get());
        view.resize(1000, 650);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.selectSession(session_);
        {
            // Another connection, as a CLI process with --session would be.
            SessionStore other(store_->path());
            recordKernels(other, session_, {{"matmul_0", 123}});
        }
        QVERIFY(QTest::qWaitFor([&] {
            const QBarSeries* bars = barSeries(view.chart(ChartsView::Chart::Kernels));
            return bars && bars->barSets().at(0)->count() == 1 && bars->barSets().at(0)->at(0) == 123.0;
        }, 6000));
        // And runs recorded through the view's own connection (a GUI recording on the GUI thread).
        recordKernels(*store_, session_, {{"matmul_0", 321}, {"relu_1", 1}});
        QVERIFY(QTest::qWaitFor([&] {
            const QBarSeries* bars = barSeries(view.chart(ChartsView::Chart::Kernels));
            return bars && bars->barSets().at(0)->count() == 2 && bars->barSets().at(0)->at(0) == 321.0;
        }, 6000));
        view.renameSelectedSession(QStringLiteral("today, renamed"));
        QCOMPARE(store_->session(session_)->name, std::string("today, renamed"));
        QVERIFY(view.findChild<QComboBox*>(QStringLiteral("sessionCombo"))->currentText().contains(QStringLiteral("today, renamed")));
        QCOMPARE(view.selectedSession(), session_);
    }

    void windowSessionIsNamedRenamableAndEnded()
    {
        const QString path = tmp_.filePath(QStringLiteral("window.db"));
        RowId id = 0;
        {
            WindowSession ws(QString(), path);
            id = ws.id();
            const auto s = ws.store().session(id);
            QVERIFY(s);
            QVERIFY(QString::fromStdString(s->name).startsWith(QStringLiteral("window ")));
            QVERIFY(s->endedAt.empty());
            ws.rename(QStringLiteral("layout experiments"));
            ChartsView view(&ws.store());
            view.selectSession(ws.id());
            QCOMPARE(view.selectedSession(), id);
        }
        SessionStore store(path.toStdString());
        QCOMPARE(store.session(id)->name, std::string("layout experiments"));
        QVERIFY(!store.session(id)->endedAt.empty());
        // The database comes from the settings unless given.
        setSessionDatabasePath(path);
        QCOMPARE(sessionDatabasePath(), path);
        setSessionDatabasePath(QString());
        QCOMPARE(sessionDatabasePath().toStdString(), SessionStore::defaultPath());
        const QString bad = tmp_.filePath(QStringLiteral("bad.db"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(512, 'x'));
        f.close();
        QVERIFY_THROWS_EXCEPTION(InputError, WindowSession(QStringLiteral("w"), bad));
    }

    void emptyStoreAndNoStoreAreHarmless()
    {
        SessionStore empty(tmp_.filePath(QStringLiteral("empty.db")).toStdString());
        ChartsView view(&empty);
        view.show();
        QCOMPARE(view.selectedSession(), RowId(0));
        QVERIFY(view.chart(ChartsView::Chart::Kernels)->series().isEmpty());
        view.setStore(nullptr);
        QVERIFY(view.chart(ChartsView::Chart::History)->series().isEmpty());
        QString error;
        QVERIFY(view.exportCsv(tmp_.filePath(QStringLiteral("empty.csv")), &error));
    }
};

QTEST_MAIN(TestChartsView)
#include "tst_chartsview.moc"
