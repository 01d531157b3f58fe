// Charts that do not mislead (issue 16 item 9): History and Compare follow the open document, and a what-if
// recompile (a pinned stick dimension) is recorded as a "what-if" run, drawn apart and never flagged as a regression
// nor taken as the baseline, though pinning matmul's A on d0 makes it slower.
#include "common/guitestutil.h"
#include "common/testutil.h"

#include "views/chartsview.h"
#include "views/document.h"
#include "views/mainwindow.h"

#include "core/workbench/workbench.h"

#include "core/session/session_charts.h"
#include "core/session/session_store.h"
#include "core/spyresim/spyre_simulator.h"

#include <QComboBox>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace spyglass;
using namespace spyglass::test;

class TestChartsOpenArtifact : public QObject {
    Q_OBJECT
    QTemporaryDir dataHome_;
private slots:
    void initTestCase()
    {
        isolateAppData(dataHome_);
    }

    void historyAndCompareFollowTheOpenDocument()
    {
        const QString mlp = sourcePath(QStringLiteral("resources/examples/mlp.onnxtxt"));
        const QString softmax = sourcePath(QStringLiteral("resources/examples/softmax.onnxtxt"));
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, softmax));
        QVERIFY(openAndWait(w, mlp));
        QCOMPARE(w.views().charts()->shownArtifactPath(), mlp);
        QVERIFY(openAndWait(w, softmax));
        QCOMPARE(w.views().charts()->shownArtifactPath(), softmax);
        QVERIFY(openAndWait(w, mlp));
        QCOMPARE(w.views().charts()->shownArtifactPath(), mlp);
        QCOMPARE(w.views().charts()->history().size(), size_t(2));   // mlp's two runs
        // Compare: mlp's last two runs, not whichever two runs came last in the session.
        auto& store = w.windowSession()->store();
        const auto combos = w.views().charts()->findChildren<QComboBox*>();
        std::vector<session::RowId> mlpRuns;
        for (const auto& r : store.runs(w.windowSession()->id()))
            if (QFileInfo(QString::fromStdString(r.artifact.path)) == QFileInfo(mlp))
                mlpRuns.push_back(r.id);
        QCOMPARE(mlpRuns.size(), size_t(2));
        int matched = 0;
        for (QComboBox* c : combos)
            if (c->currentIndex() >= 0 && c->currentText().contains(QStringLiteral("#%1 ").arg(mlpRuns[0])))
                ++matched;
        for (QComboBox* c : combos)
            if (c->currentIndex() >= 0 && c->currentText().contains(QStringLiteral("#%1 ").arg(mlpRuns[1])))
                ++matched;
        QVERIFY2(matched >= 2, "Compare shows the open model's last two runs");
    }

    void whatIfRunsAreTaggedNotRegressions()
    {
        const QString path = sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt"));
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, path));
        const double plain = w.document()->compiled().simulation->kernelTimeNs;
        QSignalSpy opened(&w, &MainWindow::documentOpened);
        w.pinStickDimension(QStringLiteral("A"), 0);   // A [256, 512] sticked on d0: a restickify before the MatMul
        QVERIFY(opened.wait(60000));
        const double pinned = w.document()->compiled().simulation->kernelTimeNs;
        QVERIFY2(pinned > plain * (1 + session::kRegressionThreshold), qPrintable(QStringLiteral("%1 vs %2 ns").arg(pinned).arg(plain)));
        w.views().charts()->setHistoryMetric(session::RunMetric::SimulatedTime);
        w.views().charts()->showArtifact(path);
        const auto& h = w.views().charts()->history();
        QVERIFY(h.size() >= 2);
        const session::HistoryPoint& last = h.back();
        QVERIFY(last.whatIf);
        QCOMPARE(last.value, pinned);
        QVERIFY(!last.regression);   // slower, but an experiment
        QVERIFY(w.views().charts()->flaggedRuns().empty());
        const auto detail = w.windowSession()->store().runDetail(last.runId);
        QCOMPARE(detail->run.kind, std::string(session::kWhatIfRunKind));
        // The pins dropped again: an ordinary run, compared with the best ordinary one (not the what-if).
        w.clearPins();
        QVERIFY(opened.wait(60000));
        w.views().charts()->showArtifact(path);
        QVERIFY(!w.views().charts()->history().back().whatIf);
        QVERIFY(w.views().charts()->history().back().bestEarlier);
        QCOMPARE(*w.views().charts()->history().back().bestEarlier, plain);
        w.views().charts()->showChart(ChartsView::Chart::History);
        w.views().charts()->resize(1000, 420);
        QTest::qWait(50);
        QVERIFY(w.views().charts()->grab().save(outputDir() + QStringLiteral("/view-charts-history-whatif.png")));
    }
    void kernelsAreComparedByOpAndTaggedRunsAreNoBaseline()
    {
        // Two real compiles of matmul: plain, and with A pinned on d0, which puts a restickify kernel in front of the
        // MatMul, so the MatMul's kernel moves from position 0 to 1. Recorded into a fresh store as: pinned
        // (ordinary), plain tagged "tuning" (as the tuner records its candidates), pinned again (ordinary).
        const QString path = sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt"));
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, path));
        CompiledDocument plain = w.document()->compiled();
        QSignalSpy opened(&w, &MainWindow::documentOpened);
        w.pinStickDimension(QStringLiteral("A"), 0);
        QVERIFY(opened.wait(60000));
        CompiledDocument pinned = w.document()->compiled();
        const auto& pk = plain.simulation->kernels;
        const auto& qk = pinned.simulation->kernels;
        QCOMPARE(qk.size(), pk.size() + 1);
        const std::string matmulOp = pk.front().name;
        QVERIFY(qk.front().name != matmulOp);   // the new restickify kernel comes first
        QCOMPARE(qk.at(1).name, matmulOp);

        QTemporaryDir dir;
        const std::string db = QString(dir.path() + QStringLiteral("/tagged.db")).toStdString();
        session::RowId sessionId = 0;
        {
            session::SessionStore store(db);
            sessionId = store.createSession("tagged");
        }
        recordRun(pinned, db, sessionId, "compile");
        recordRun(plain, db, sessionId, "run", std::string(R"({"tag": ")") + session::kTuningRunTag + "\"}");
        recordRun(pinned, db, sessionId, "compile");

        session::SessionStore store(db);
        ChartsView charts(&store);
        charts.selectSession(sessionId);
        charts.setHistoryMetric(session::RunMetric::SimulatedTime);
        charts.showArtifact(path);
        const auto& h = charts.history();
        QCOMPARE(h.size(), size_t(3));
        QCOMPARE(h[1].tag, std::string(session::kTuningRunTag));
        QVERIFY(!h[1].regression);
        // The plain compile is faster than the pinned one, but a tuning candidate is not what later runs are held to:
        // the third run is measured against the first and not flagged.
        QVERIFY(h[1].value * (1 + session::kRegressionThreshold) < h[2].value);
        QCOMPARE(*h[2].bestEarlier, h[0].value);
        QVERIFY(!h[2].regression);
        QVERIFY(charts.flaggedRuns().empty());
        const QStringList csv = charts.chartCsv(ChartsView::Chart::History).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(csv.size(), 4);
        QVERIFY2(csv[0].endsWith(QStringLiteral(",regression,tag")), qPrintable(csv[0]));
        QVERIFY2(csv[1].endsWith(QStringLiteral(",no,")), qPrintable(csv[1]));
        QVERIFY2(csv[2].endsWith(QStringLiteral(",no,tuning")), qPrintable(csv[2]));

        // Compare the plain run (2) with the pinned one (3): each kernel beside the same op's kernel, the restickify
        // only in the pinned run; index by index would have set the MatMul against the restickify.
        std::vector<session::RowId> runs;
        for (const auto& r : store.runs(sessionId))
            runs.push_back(r.id);
        std::sort(runs.begin(), runs.end());
        QCOMPARE(runs.size(), size_t(3));
        charts.selectComparison(runs[1], runs[2]);
        const QStringList rows = charts.chartCsv(ChartsView::Chart::Compare).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(rows.size(), static_cast<int>(qk.size()) + 1);
        auto timeOf = [](const auto& kernels, const std::string& name) {
            for (const auto& k : kernels)
                if (k.name == name)
                    return k.timeNs;
            return -1.0;
        };
        int matched = 0;
        for (int i = 1; i < rows.size(); ++i) {
            const QStringList f = rows[i].split(QLatin1Char(','));
            QCOMPARE(f.size(), 3);
            const std::string name = f[0].toStdString();
            const double inPinned = timeOf(qk, name), inPlain = timeOf(pk, name);
            QVERIFY2(inPinned > 0, name.c_str());
            QCOMPARE(f[2].toDouble(), inPinned);
            if (inPlain < 0) {
                QVERIFY2(f[1].isEmpty(), qPrintable(rows[i]));   // the restickify: no kernel in the plain run
            } else {
                QCOMPARE(f[1].toDouble(), inPlain);
                ++matched;
            }
        }
        QCOMPARE(matched, static_cast<int>(pk.size()));
    }
};

QTEST_MAIN(TestChartsOpenArtifact)
#include "tst_charts_open_artifact.moc"
