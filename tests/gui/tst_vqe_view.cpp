// The VQE view (views/vqeview.h) against `spyglass-cli vqe --json`, a separate process: the energy after every
// iteration, the exact ground-energy line, the Hamiltonian's terms and the optimiser's settings the view shows
// are the CLI's, for a run made in the window (Quantum > Run VQE) and for the CLI's own run read back from the
// session store (Quantum > Open VQE Run).
#include "common/guitestutil.h"
#include "common/testutil.h"

#include "views/chartsview.h"
#include "views/document.h"
#include "views/mainwindow.h"
#include "views/problemsview.h"
#include "views/vqeview.h"

#include "core/quantum/circuit.h"
#include "core/quantum/vqe_report.h"
#include "views/circuitview.h"
#include "core/session/session_store.h"
#include "core/workbench/vqe_record.h"

#include <QDockWidget>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineSeries>
#include <QSettings>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QtTest>

#include <cmath>

using namespace spyglass;
using namespace spyglass::test;

namespace {

// Small enough to take milliseconds, long enough that the energy falls over many iterations.
const QStringList kRecipe = {QStringLiteral("--qubits"), QStringLiteral("4"),         QStringLiteral("--layers"),     QStringLiteral("2"),
                             QStringLiteral("--optimizer"), QStringLiteral("nelder-mead"), QStringLiteral("--iterations"), QStringLiteral("150"),
                             QStringLiteral("--seed"),      QStringLiteral("7")};

quantum::VqeOptions recipeOptions()
{
    quantum::VqeOptions o;
    o.qubits = 4;
    o.layers = 2;
    o.optimizer = "nelder-mead";
    o.iterations = 150;
    o.seed = 7;
    return o;
}

QJsonObject cliVqe(const QStringList& extra = {})
{
    const CliResult r = runCli(QStringList{QStringLiteral("vqe")} + kRecipe + extra + QStringList{QStringLiteral("--json")});
    if (r.exitCode != 0)
        qWarning() << r.err;
    return QJsonDocument::fromJson(r.out).object();
}

// The view's curve equals the CLI's history, point by point; the exact line sits at the CLI's exact energy.
// `field`: the X terms' coefficient (the TFIM chain's is -1).
void compareWithCli(const VqeView& view, const QJsonObject& cli, const QString& field = QStringLiteral("-1"))
{
    const QJsonArray history = cli.value(QLatin1String("history")).toArray();
    QCOMPARE(history.size(), 150);
    const QList<QPointF> points = view.energySeries()->points();
    QCOMPARE(points.size(), history.size());
    for (int i = 0; i < points.size(); ++i) {
        QCOMPARE(points[i].x(), double(i + 1));
        const double want = history[i].toDouble();
        QVERIFY2(std::fabs(points[i].y() - want) <= 1e-12 * std::fabs(want),
                 qPrintable(QStringLiteral("iteration %1: view %2, CLI %3").arg(i + 1).arg(points[i].y(), 0, 'g', 17).arg(want, 0, 'g', 17)));
    }
    const double exact = cli.value(QLatin1String("exact_energy")).toDouble();
    const QList<QPointF> line = view.exactSeries()->points();
    QCOMPARE(line.size(), 2);
    QCOMPARE(line[0].y(), exact);
    QCOMPARE(line[1].y(), exact);
    QCOMPARE(line[1].x(), double(history.size()));
    // The energy axis fits the data: the exact line and the first (highest) energy both inside, no empty half.
    const double first = history.first().toDouble(), best = history.last().toDouble();
    QVERIFY(view.energyAxis()->min() < exact && view.energyAxis()->max() > first);
    QVERIFY(view.energyAxis()->max() - view.energyAxis()->min() < 1.2 * (first - exact));
    QVERIFY2(best < first && best > exact, qPrintable(QStringLiteral("%1 .. %2, exact %3").arg(first).arg(best).arg(exact)));
    // The Hamiltonian's terms: a 4-qubit periodic TFIM chain has 4 ZZ and 4 X terms.
    QCOMPARE(view.termsTable()->rowCount(), 8);
    QCOMPARE(view.termsTable()->item(0, 1)->text(), QStringLiteral("Z0 Z1"));
    QCOMPARE(view.termsTable()->item(7, 1)->text(), QStringLiteral("X3"));
    QCOMPARE(view.termsTable()->item(7, 0)->text(), field);
    // The optimiser's settings, as the CLI reports them.
    const QJsonObject settings = cli.value(QLatin1String("optimizer_settings")).toObject();
    QCOMPARE(view.settingsTable()->rowCount(), 3 + static_cast<int>(settings.size()));
    for (int row = 3; row < view.settingsTable()->rowCount(); ++row) {
        const QString name = view.settingsTable()->item(row, 0)->text();
        QVERIFY2(settings.contains(name), qPrintable(name));
        QCOMPARE(view.settingsTable()->item(row, 1)->text().toDouble(), settings.value(name).toDouble());
    }
    QVERIFY(view.summary()->text().contains(QString::number(cli.value(QLatin1String("energy")).toDouble(), 'f', 6)));
    QVERIFY(view.summary()->text().contains(QString::number(exact, 'f', 6)));
    QVERIFY(view.ansatz()->text().contains(QStringLiteral("12 parameters")));
    // The ansatz drawn with the CLI's best parameters: 3 RY layers of 4 and 2 CZ rings of 4, in 6 columns.
    const quantum::Circuit* c = view.ansatzCircuit()->circuit();
    QVERIFY(c);
    QCOMPARE(c->ops.size(), size_t(20));
    const QJsonArray theta = cli.value(QLatin1String("best_parameters")).toArray();
    QCOMPARE(theta.size(), 12);
    int ry = 0;
    for (const quantum::Op& op : c->ops)
        if (op.name == "ry")
            QCOMPARE(op.params[0], theta[ry++].toDouble());
    QCOMPARE(ry, 12);
}

}  // namespace

class TestVqeView : public QObject {
    Q_OBJECT
    QTemporaryDir dataHome_;
    QString db_;
private slots:
    void initTestCase()
    {
        isolateAppData(dataHome_);
        db_ = dataHome_.filePath(QStringLiteral("vqe.db"));
        setSessionDatabasePath(db_);
    }
    void cleanupTestCase() { setSessionDatabasePath(QString()); }

    void runInTheWindowEqualsCli()
    {
        const QJsonObject cli = cliVqe();
        QVERIFY(!cli.isEmpty());
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.runVqe(recipeOptions());
        QVERIFY(QTest::qWaitFor([&] { return w.views().vqe()->report().has_value(); }, 60000));
        QCOMPARE(w.views().centralTabs()->currentWidget(), static_cast<QWidget*>(w.views().vqe()));
        compareWithCli(*w.views().vqe(), cli);
        // The window recorded the run in its session: it can be reopened from the store with the same curve.
        const auto runs = recordedVqeRuns(w.windowSession()->store());
        QVERIFY(!runs.empty());
        QCOMPARE(runs.front().run.sessionId, w.windowSession()->id());
        w.views().vqe()->clear();
        QVERIFY(w.showRecordedVqeRun(runs.front().run.id));
        compareWithCli(*w.views().vqe(), cli);
        QTest::qWait(100);
        const QImage shot = w.views().vqe()->grab().toImage();
        QVERIFY(distinctColours(shot) > 8);
        QVERIFY(shot.save(outputDir() + QStringLiteral("/view-vqe.png")));
        QVERIFY(w.grab().save(outputDir() + QStringLiteral("/mainwindow-vqe.png")));
    }

    void cliRunFromTheSessionStore()
    {
        const QJsonObject cli = cliVqe({QStringLiteral("--session"), QStringLiteral("from-cli"), QStringLiteral("--db"), db_});
        QVERIFY(!cli.isEmpty());
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        session::RowId cliRun = 0;
        for (const RecordedVqeRun& r : recordedVqeRuns(w.windowSession()->store()))
            if (r.sessionName == "from-cli")
                cliRun = r.run.id;
        QVERIFY(cliRun != 0);
        QVERIFY(w.showRecordedVqeRun(cliRun));
        compareWithCli(*w.views().vqe(), cli);
        QVERIFY(w.views().vqe()->summary()->text().contains(QStringLiteral("from-cli")));
    }

    void aRunThatIsNotVqeIsAProblem()
    {
        MainWindow w;
        const int before = w.views().problems()->problemCount();
        QVERIFY(!w.showRecordedVqeRun(987654));
        QCOMPARE(w.views().problems()->problemCount(), before + 1);
        QVERIFY(!w.views().vqe()->report());
    }

    void badHamiltonianIsAProblemNotACrash()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.txt"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("0.5 Z0 Z1 +\n-1.0 Q3\n");
        f.close();
        MainWindow w;
        const int before = w.views().problems()->problemCount();
        w.runVqe(recipeOptions(), path);
        QVERIFY(QTest::qWaitFor([&] { return w.views().problems()->problemCount() > before; }, 30000));
        QVERIFY(!w.views().vqe()->report());
    }

    void aVqeDocumentOpensWithTheVqeLayout()
    {
        // A .vqe recipe (the CLI's flags as "key value" lines) with a Pauli-sum file beside it: opening it runs the
        // search the CLI runs with those flags, shows it in the VQE view, and the window takes the VQE layout (no
        // passes, no Spyre or State docks).
        QTemporaryDir dir;
        QFile h(dir.filePath(QStringLiteral("ring.pauli")));
        QVERIFY(h.open(QIODevice::WriteOnly));
        h.write("# a 4-site transverse-field ring, h = 0.5\n-1 Z0 Z1 + -1 Z1 Z2 + -1 Z2 Z3 + -1 Z3 Z0\n-0.5 X0 + -0.5 X1 + -0.5 X2 + -0.5 X3\n");
        h.close();
        const QString recipe = dir.filePath(QStringLiteral("ring.vqe"));
        QFile r(recipe);
        QVERIFY(r.open(QIODevice::WriteOnly));
        r.write("# spyglass-cli vqe --qubits 4 --layers 2 --optimizer nelder-mead --iterations 150 --seed 7 --hamiltonian ring.pauli\n"
                "qubits 4\nlayers 2\noptimizer nelder-mead\niterations 150\nseed 7\nhamiltonian ring.pauli\n");
        r.close();
        const QJsonObject cli = cliVqe({QStringLiteral("--hamiltonian"), dir.filePath(QStringLiteral("ring.pauli"))});
        QVERIFY(!cli.isEmpty());

        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt"))));   // a model's layout first
        QVERIFY(w.dock(QStringLiteral("timelineDock"))->isVisible());
        QVERIFY(openAndWait(w, recipe));
        QCOMPARE(w.document()->kind(), DocumentKind::Vqe);
        QCOMPARE(w.views().centralTabs()->currentWidget(), static_cast<QWidget*>(w.views().vqe()));
        for (const char* d : {"timelineDock", "workDivisionDock", "stickLayoutDock", "scratchpadDock", "stateDock", "pipelineDock", "inspectorDock"})
            QVERIFY2(!w.dock(QLatin1String(d))->isVisible(), d);
        QVERIFY(w.views().vqe()->report().has_value());
        compareWithCli(*w.views().vqe(), cli, QStringLiteral("-0.5"));
        QVERIFY(w.views().vqe()->summary()->text().contains(QStringLiteral("ring.vqe")));
        // Recorded as a VQE run of this window's session.
        bool recorded = false;
        for (const RecordedVqeRun& run : recordedVqeRuns(w.windowSession()->store()))
            recorded = recorded || run.run.sessionId == w.windowSession()->id();
        QVERIFY(recorded);
        QTest::qWait(50);
        QVERIFY(w.grab().save(outputDir() + QStringLiteral("/mainwindow-vqe-document.png")));

        // A bad recipe is a problem with its line and column.
        QFile bad(dir.filePath(QStringLiteral("bad.vqe")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("qubits 4\nlayers many\n");
        bad.close();
        QVERIFY(!openAndWait(w, bad.fileName()));
        bool located = false;
        for (int i = 0; i < w.views().problems()->problemCount(); ++i)
            located = located || w.views().problems()->problemText(i).contains(QStringLiteral("bad.vqe:2:8: 'layers' must be an integer in 0..1000, got 'many'"));
        QVERIFY2(located, qPrintable(w.views().problems()->problemText(0)));
        // Back to a model: its passes and Inspector come back.
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt"))));
        QVERIFY(w.dock(QStringLiteral("pipelineDock"))->isVisible() && w.dock(QStringLiteral("inspectorDock"))->isVisible());
    }
};

QTEST_MAIN(TestVqeView)
#include "tst_vqe_view.moc"
