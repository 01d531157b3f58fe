// Charts that do not mislead (issue 16 item 9): History and Compare follow the open document, and a what-if
// recompile (a pinned stick dimension) is recorded as a "what-if" run, drawn apart and never flagged as a regression
// nor taken as the baseline, though pinning matmul's A on d0 makes it slower.
#include "common/guitestutil.h"
#include "common/testutil.h"

#include "views/chartsview.h"
#include "views/document.h"
#include "views/mainwindow.h"

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
};

QTEST_MAIN(TestChartsOpenArtifact)
#include "tst_charts_open_artifact.moc"
