// One layout per document kind: a model shows the Spyre docks (Timeline, Work division, Stick layout, Scratchpad)
// and not State; a circuit shows State and none of the Spyre docks; an empty Problems dock is out of the way at
// start-up and comes forward with the first problem.
#include "common/guitestutil.h"
#include "common/testutil.h"

#include "views/mainwindow.h"
#include "views/problemsview.h"

#include <QDockWidget>
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
