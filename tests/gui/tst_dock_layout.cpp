// One layout per document kind: a model shows the Spyre docks (Timeline, Work division, Stick layout, Scratchpad)
// and not State; a circuit shows State and none of the Spyre docks; an empty Problems dock is out of the way at
// start-up and comes forward with the first problem.
#include "common/guitestutil.h"
#include "common/testutil.h"

#include "views/mainwindow.h"
#include "views/imguihost.h"
#include "views/problemsview.h"
#include "views/timelinepanel.h"

#include <QApplication>
#include <QDockWidget>
#include <QMouseEvent>
#include <QWheelEvent>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace spyglass;
using namespace spyglass::test;

namespace {

bool shown(const MainWindow& w, const char* dock) { return w.dock(QLatin1String(dock)) && w.dock(QLatin1String(dock))->isVisible(); }

const char* const kSpyreDocks[] = {"timelineDock", "workDivisionDock", "stickLayoutDock", "scratchpadDock"};

}  // namespace

class TestDockLayout : public QObject {
    Q_OBJECT
    QTemporaryDir dataHome_;
private slots:
    void initTestCase()
    {
        isolateAppData(dataHome_);
    }

    void startUpShowsNoEmptyOrIrrelevantDock()
    {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(!shown(w, "problemsDock"));
        QVERIFY(!shown(w, "stateDock"));
        for (const char* d : kSpyreDocks)
            QVERIFY2(!shown(w, d), d);
        QVERIFY(shown(w, "pipelineDock"));
    }

    void eachKindGetsItsDocks()
    {
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt"))));
        for (const char* d : kSpyreDocks)
            QVERIFY2(shown(w, d), d);
        QVERIFY(!shown(w, "stateDock"));
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/ghz5.qasm"))));
        QVERIFY(shown(w, "stateDock"));
        for (const char* d : kSpyreDocks)
            QVERIFY2(!shown(w, d), d);
        // A user's choice stands while the kind stays the same.
        w.dock(QStringLiteral("stateDock"))->hide();
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/qft4.qasm"))));
        QVERIFY(!shown(w, "stateDock"));
    }

    void everyTimelineLaneIsReachableWhenDocked()
    {
        // At 1600×1000 with the model layout, the docked Timeline shows several lanes at once, and its scroll bar
        // (and the wheel over the lane names) reaches the last one.
        if (!ImGuiHost::glAvailable())
            QSKIP("the Timeline needs OpenGL (run under xvfb-run)");
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/mlp.onnxtxt"))));
        QDockWidget* dock = w.dock(QStringLiteral("timelineDock"));
        QVERIFY(dock && dock->isVisible() && !dock->isFloating());
        dock->raise();
        auto* host = qobject_cast<ImGuiHost*>(dock->widget());
        QVERIFY(host && host->usesGL());
        TimelinePanel* panel = w.views().timeline();
        QWidget* gl = host->glWidget();
        auto frame = [&] {
            const int n = host->glWidget()->framesRendered();
            host->refresh();
            return QTest::qWaitFor([&] { return host->glWidget()->framesRendered() > n; }, 3000);
        };
        QVERIFY(QTest::qWaitFor([&] { return gl->isVisible() && host->glWidget()->framesRendered() > 0 && panel->laneCount() > 0; }, 10000));
        QVERIFY(frame());
        qInfo("docked Timeline %dx%d: %d of %d lanes shown", gl->width(), gl->height(), panel->visibleLanes(), panel->laneCount());
        QVERIFY2(panel->visibleLanes() >= std::min(4, panel->laneCount()),
                 qPrintable(QStringLiteral("%1 lanes fit in %2 px").arg(panel->visibleLanes()).arg(gl->height())));
        if (panel->laneCount() <= panel->visibleLanes())
            return;   // every lane is on screen
        // Dragging the bar's thumb to the bottom shows the last lane.
        QVERIFY(panel->scrollbarLeft() > 0);
        const QPoint onBar(static_cast<int>(panel->scrollbarLeft()) + 7, static_cast<int>(panel->lanesTop()) + 3);
        QTest::mouseMove(gl, onBar);
        QVERIFY(frame());
        QTest::mousePress(gl, Qt::LeftButton, {}, onBar);
        QVERIFY(frame());
        const QPoint bottom(onBar.x(), static_cast<int>(panel->lanesBottom()) - 2);
        QMouseEvent drag(QEvent::MouseMove, QPointF(bottom), gl->mapToGlobal(QPointF(bottom)), Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(gl, &drag);
        QVERIFY(frame());
        QTest::mouseRelease(gl, Qt::LeftButton, {}, bottom);
        QVERIFY(frame());
        QCOMPARE(panel->firstLane() + panel->visibleLanes(), panel->laneCount());
        // And back to the first with the wheel over the lane names.
        const QPoint overNames(30, static_cast<int>(panel->lanesTop()) + 10);
        QTest::mouseMove(gl, overNames);
        QVERIFY(frame());
        for (int i = 0; i < 40 && panel->firstLane() > 0; ++i) {
            QWheelEvent up(overNames, gl->mapToGlobal(overNames), QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
            QApplication::sendEvent(gl, &up);
            QVERIFY(frame());
        }
        QCOMPARE(panel->firstLane(), 0);
    }

    void aProblemBringsTheProblemsDock()
    {
        MainWindow w;
        w.show();
        QVERIFY(!shown(w, "problemsDock"));
        QVERIFY(!openAndWait(w, dataPath(QStringLiteral("bad/missing_semicolon.qasm"))));
        QVERIFY(shown(w, "problemsDock"));
        QVERIFY(w.views().problems()->problemCount() >= 1);
    }
};

QTEST_MAIN(TestDockLayout)
#include "tst_dock_layout.moc"
