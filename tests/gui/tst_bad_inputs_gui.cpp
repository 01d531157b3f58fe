// The bad-input corpus (tests/data/bad) opened in the real main window under X: each model and circuit file fails
// to open with its expected message and file:line:column in the Problems dock, the window stays usable (a good
// file opens afterwards), and nothing crashes or hangs.
#include "common/guitestutil.h"
#include "common/testutil.h"
#include "hardening/hardening_util.h"

#include "views/document.h"
#include "views/mainwindow.h"
#include "views/problemsview.h"

#include <QDockWidget>
#include <QElapsedTimer>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace spyglass;
using namespace spyglass::test;

namespace {

// Rows the explorer cannot show: Hamiltonians are read by `vqe` only, kernel bundles by `run-bundle` only (the
// explorer opens models and circuits), and the explorer does not simulate a circuit too large to simulate on open
// (it opens with a note; the CLI's qsim is what refuses it for memory), and it asks for the sizes of a model's
// symbolic dims instead of failing (tst_symbolic_dims_gui).
bool openedByTheExplorer(const BadInput& b)
{
    return b.suffix() != QLatin1String("ham") && b.suffix() != QLatin1String("bundle") && b.file != QLatin1String("qubits_beyond_memory.qasm") &&
           b.file != QLatin1String("symbolic_dim.onnxtxt");
}

}  // namespace

class TestBadInputsGui : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);   // QSettings go to a test location, not the user's
        QSettings().clear();
        qputenv("XDG_DATA_HOME", dataHome_.path().toLocal8Bit());   // the session database too
        window_ = std::make_unique<MainWindow>();
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    }

    void cleanupTestCase() { window_.reset(); }

    void problemsDockShowsTheError_data()
    {
        QTest::addColumn<int>("row");
        QString error;
        const QVector<BadInput> rows = readBadInputs(&error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        int shown = 0;
        for (int i = 0; i < rows.size(); ++i)
            if (openedByTheExplorer(rows[i])) {
                QTest::newRow(qPrintable(rows[i].file)) << i;
                ++shown;
            }
        QVERIFY(shown >= 35);
    }

    // One window for the whole corpus, as a user opening one bad file after another would have.
    void problemsDockShowsTheError()
    {
        QFETCH(int, row);
        const BadInput b = readBadInputs().at(row);
        MainWindow& w = *window_;
        QSignalSpy opened(&w, &MainWindow::documentOpened);
        QSignalSpy failed(&w, &MainWindow::documentFailed);
        QElapsedTimer timer;
        timer.start();
        w.openFile(b.path());
        QVERIFY2(QTest::qWaitFor([&] { return !opened.isEmpty() || !failed.isEmpty(); }, 60000), "no answer within 60 s");
        QVERIFY2(opened.isEmpty(), "the bad file was opened");
        QCOMPARE(failed.first().at(0).toString(), b.path());

        ProblemsView* problems = w.views().problems();
        QCOMPARE(problems->problemCount(), 1);
        const QString text = problems->problemText(0);
        QVERIFY2(text.startsWith(b.location() + QStringLiteral(": ")),
                 qPrintable(QStringLiteral("expected location '%1' in: %2").arg(b.location(), text)));
        QVERIFY2(text.contains(b.expected), qPrintable(QStringLiteral("expected '%1' in: %2").arg(b.expected, text)));
        QDockWidget* dock = w.findChild<QDockWidget*>(QStringLiteral("problemsDock"));
        QVERIFY(dock && dock->isVisible());
        QVERIFY(!w.document()->isOpen());
    }

    // After the whole corpus the same window still opens and compiles a good model and a good circuit.
    void windowStillWorksAfterwards()
    {
        QVERIFY(openAndWait(*window_, sourcePath(QStringLiteral("resources/examples/mlp.onnxtxt"))));
        QVERIFY(window_->document()->isOpen());
        QVERIFY(openAndWait(*window_, sourcePath(QStringLiteral("resources/examples/qft4.qasm"))));
        QCOMPARE(window_->views().problems()->problemCount(), 0);
    }

private:
    QTemporaryDir dataHome_;
    std::unique_ptr<MainWindow> window_;
};

QTEST_MAIN(TestBadInputsGui)
#include "tst_bad_inputs_gui.moc"
