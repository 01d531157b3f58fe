// The application shell under a real X server: opening documents, stepping, docks and their saved
// layout, recent files, drag-and-drop, errors in the Problems dock, the job runner, the ImGui host, and
// a screenshot of the main window.
#include "common/guitestutil.h"
#include "common/testutil.h"

#include "views/chartsview.h"
#include "views/circuitview.h"
#include "views/document.h"
#include "views/graphview.h"
#include "views/inspectorview.h"
#include "views/irview.h"
#include "views/stateview.h"

#include "core/quantum/circuit.h"
#include "core/session/session_store.h"
#include "views/imguihost.h"
#include "views/jobrunner.h"
#include "views/mainwindow.h"
#include "views/pipelineview.h"
#include "views/problemsview.h"

#include <QAction>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QImage>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QSettings>
#include <QTabWidget>
#include <QTableWidget>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QSlider>
#include <QtTest>

#include <imgui.h>

#include <set>
#include <thread>

using namespace spyglass;
using namespace spyglass::test;

namespace {

class ClickCounterPanel : public ImGuiPanel {
public:
    int clicks = 0;
    void draw() override
    {
        if (ImGuiHost::beginFullWindow("test")) {
            ImGui::SetCursorPos(ImVec2(10, 10));
            if (ImGui::Button("Press me", ImVec2(120, 40)))
                ++clicks;
        }
        ImGui::End();
    }
};

}  // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
    QTemporaryDir dataHome_;
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);   // QSettings go to a test location, not the user's
        QSettings().clear();
        qputenv("XDG_DATA_HOME", dataHome_.path().toLocal8Bit());   // the session database too
    }

    void opensExampleCircuitAndShowsItsPasses()
    {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/qft4.qasm"))));
        QVERIFY(w.document()->kind() == DocumentKind::Circuit);
        QVERIFY(w.document()->passes().size() >= 1);
        QCOMPARE(w.views().pipeline()->tree()->topLevelItemCount(), static_cast<int>(w.document()->passes().size()));
        auto* ir = w.findChild<QPlainTextEdit*>(QStringLiteral("irView"));
        QVERIFY(ir);
        QCOMPARE(ir->toPlainText().toStdString(), w.document()->selectedRecord()->irText);
        QVERIFY(w.windowTitle().startsWith(QStringLiteral("qft4.qasm")));
        QCOMPARE(w.recentFiles().value(0), QFileInfo(sourcePath(QStringLiteral("resources/examples/qft4.qasm"))).absoluteFilePath());
        // The compile was recorded in this window's session, in the database under XDG_DATA_HOME.
        QVERIFY(w.windowSession());
        QVERIFY(QString::fromStdString(w.windowSession()->store().path()).startsWith(dataHome_.path()));
        const auto runs = w.windowSession()->store().runs(w.windowSession()->id());
        QCOMPARE(runs.size(), size_t(1));
        const auto detail = w.windowSession()->store().runDetail(runs.front().id);
        QVERIFY(detail);
        QCOMPARE(detail->passes.size(), w.document()->passes().size());
    }

    void modelShowsGraphAndInspectorForEveryPass()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt"))));
        QCOMPARE(w.document()->kind(), DocumentKind::Model);
        QVERIFY(w.document()->passes().size() >= 10);
        QCOMPARE(w.document()->compiled().programs.size(), w.document()->passes().size());
        QCOMPARE(w.views().centralTabs()->currentWidget(), static_cast<QWidget*>(w.views().graph()));
        // Every pass: the graph shows that pass's program, and the IR view its text.
        for (int i = 0; i < static_cast<int>(w.document()->passes().size()); ++i) {
            w.document()->selectPass(i);
            QSignalSpy ready(w.views().graph(), &GraphView::layoutReady);
            QVERIFY(!w.views().graph()->isLayingOut() || ready.wait(20000));
            QVERIFY(w.views().graph()->graph().nodes.size() >= 3);   // two inputs and at least one op
            QCOMPARE(w.views().ir()->editor()->toPlainText().toStdString(), w.document()->selectedRecord()->irText);
        }
        // Clicking the output buffer fills the Inspector with its device layout.
        const auto& spec = w.views().graph()->graph();
        const auto it = std::find_if(spec.nodes.begin(), spec.nodes.end(), [](const GraphSpec::Node& n) { return n.kind == GraphSpec::NodeKind::Output; });
        QVERIFY(it != spec.nodes.end());
        QVERIFY(w.views().graph()->selectNode(it->id));
        QVERIFY(w.views().inspector()->value(QStringLiteral("layout")).startsWith(QStringLiteral("SpyreTensorLayout(")));
        QCOMPARE(w.views().inspector()->value(QStringLiteral("shape")), QStringLiteral("[256, 128]"));
    }

    void circuitViewFollowsPassesAndInspectsGates()
    {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/qft4.qasm"))));
        QCOMPARE(w.views().centralTabs()->currentWidget(), static_cast<QWidget*>(w.views().circuit()));
        for (int i = 0; i < static_cast<int>(w.document()->passes().size()); ++i) {
            w.document()->selectPass(i);
            QVERIFY(w.views().circuit()->circuit());
            QCOMPARE(w.views().circuit()->circuit(), w.document()->compiled().circuits[static_cast<size_t>(i)].get());
            QCOMPARE(w.views().circuit()->opColumns().size(), w.views().circuit()->circuit()->ops.size());
        }
        QVERIFY(w.views().circuit()->selectOp(0));
        QVERIFY(!w.views().inspector()->value(QStringLiteral("qubits")).isEmpty());
        // Picking op 0 stepped the State view to its column; the slider's end is the final state again.
        QVERIFY(w.views().state()->shownRun() && w.views().state()->shownRun()->column);
        w.views().state()->stepTo(w.views().state()->stepSlider()->maximum());
        // The State view shows the simulation of the final circuit: QFT of a basis state is uniform.
        const auto run = w.document()->compiled().quantumRun;
        QVERIFY(run && run->hasState);
        QCOMPARE(run->qubits, 4);
        for (const auto& a : run->topAmplitudes)
            QVERIFY(std::abs(a.probability - 1.0 / 16) < 1e-9);
        QCOMPARE(w.views().state()->amplitudeTable()->rowCount(), 16);
        int shots = 0;
        for (const auto& [k, v] : run->counts)
            shots += v;
        QCOMPARE(shots, run->shots);
        QCOMPARE(w.views().state()->countsTable()->rowCount(), static_cast<int>(run->counts.size()));
    }

    void exportsWhatIsOpen()
    {
        QTemporaryDir dir;
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/mlp.onnxtxt"))));
        QVERIFY(w.exportAs(ExportKind::KernelBundle, dir.filePath(QStringLiteral("bundle"))));
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("bundle/manifest.json"))));
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("bundle/listing.txt"))));
        QVERIFY(w.exportAs(ExportKind::PassDumps, dir.filePath(QStringLiteral("dumps"))));
        QCOMPARE(QDir(dir.filePath(QStringLiteral("dumps"))).entryList(QDir::Files).size(), static_cast<int>(w.document()->passes().size()));

        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/qft4.qasm"))));
        const QString qasm = dir.filePath(QStringLiteral("out.qasm"));
        QVERIFY(w.exportAs(ExportKind::CircuitQasm, qasm));
        QFile f(qasm);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readAll().startsWith("OPENQASM 2.0;"));
        QVERIFY(w.exportAs(ExportKind::CircuitSvg, dir.filePath(QStringLiteral("c.svg"))));
        QVERIFY(QFileInfo(dir.filePath(QStringLiteral("c.svg"))).size() > 1000);
        // A place that cannot be written is reported, not ignored.
        QVERIFY(!w.exportAs(ExportKind::CircuitQasm, QStringLiteral("/proc/nope/out.qasm")));
        QVERIFY(w.views().problems()->problemCount() >= 1);
    }

    void stepsThroughPassesWithKeys()
    {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt"))));
        const int last = static_cast<int>(w.document()->passes().size()) - 1;
        QCOMPARE(w.document()->selectedPass(), last);
        QVERIFY(last >= 5);
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));   // window shortcuts need the active window
        QTest::keyClick(&w, Qt::Key_F10, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(w.document()->selectedPass(), 0);
        for (int i = 1; i <= last; ++i) {
            QTest::keyClick(&w, Qt::Key_F10);
            QCOMPARE(w.document()->selectedPass(), i);
            QCOMPARE(w.views().pipeline()->tree()->currentItem(), w.views().pipeline()->tree()->topLevelItem(i));
        }
        QTest::keyClick(&w, Qt::Key_F10);   // past the end stays at the end
        QCOMPARE(w.document()->selectedPass(), last);
        QTest::keyClick(&w, Qt::Key_F10, Qt::ShiftModifier);
        QCOMPARE(w.document()->selectedPass(), last - 1);
        QTest::keyClick(&w, Qt::Key_F10, Qt::ControlModifier);
        QCOMPARE(w.document()->selectedPass(), last);
    }

    void badFileGoesToProblemsDockWithLocation()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("notes.txt"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("hello");
        f.close();
        MainWindow w;
        w.show();
        QSignalSpy failed(&w, &MainWindow::documentFailed);
        w.openFile(path);
        QVERIFY(QTest::qWaitFor([&] { return !failed.isEmpty(); }, 10000));
        QCOMPARE(w.views().problems()->problemCount(), 1);
        QVERIFY2(w.views().problems()->problemText(0).contains(path), qPrintable(w.views().problems()->problemText(0)));
        QVERIFY(!w.document()->isOpen());
    }

    void missingFileIsReportedNotCrashing()
    {
        MainWindow w;
        QSignalSpy failed(&w, &MainWindow::documentFailed);
        w.openFile(QStringLiteral("/nonexistent/circuit.qasm"));
        QVERIFY(QTest::qWaitFor([&] { return !failed.isEmpty(); }, 10000));
        QVERIFY(w.views().problems()->problemText(0).contains(QStringLiteral("no such file")));
    }

    void dropOpensFile()
    {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy opened(&w, &MainWindow::documentOpened);
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(sourcePath(QStringLiteral("resources/examples/qft4.qasm")))});
        QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &drop);
        QVERIFY(QTest::qWaitFor([&] { return !opened.isEmpty(); }, 30000));
        QCOMPARE(w.document()->kind(), DocumentKind::Circuit);
    }

    void dockLayoutIsSavedAndRestored()
    {
        {
            MainWindow w;
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QDockWidget* pipeline = w.findChild<QDockWidget*>(QStringLiteral("pipelineDock"));
            QVERIFY(pipeline && pipeline->isVisible());
            pipeline->hide();
            w.close();
        }
        {
            MainWindow w;
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QDockWidget* pipeline = w.findChild<QDockWidget*>(QStringLiteral("pipelineDock"));
            QVERIFY(!pipeline->isVisible());
            pipeline->show();   // leave a normal layout for the next tests
            w.close();
        }
    }

    void viewMenuTogglesEveryDock()
    {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.docks().size() >= 2);
        for (QDockWidget* d : w.docks()) {
            const bool before = d->isVisible();
            d->toggleViewAction()->trigger();
            QCOMPARE(d->isVisible(), !before);
            d->toggleViewAction()->trigger();
            QCOMPARE(d->isVisible(), before);
        }
    }

    void jobRunnerCancelsAndKeepsGuiResponsive()
    {
        JobRunner runner;
        QSignalSpy cancelled(&runner, &JobRunner::cancelled);
        QSignalSpy finished(&runner, &JobRunner::finished);
        std::atomic<bool> started{false};
        runner.start(QStringLiteral("spin"), [&started](JobControl& c) -> std::any {
            started = true;
            for (;;) {   // a long job that only stops when cancelled
                c.checkpoint();
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        }, nullptr);
        // The GUI thread keeps turning while the job runs: measure the worst gap between timer ticks.
        QElapsedTimer clock;
        clock.start();
        qint64 last = 0, worst = 0;
        while (clock.elapsed() < 300) {
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
            worst = std::max(worst, clock.elapsed() - last);
            last = clock.elapsed();
        }
        QVERIFY(started);
        QVERIFY2(worst < 100, qPrintable(QStringLiteral("worst event-loop gap %1 ms").arg(worst)));
        runner.cancel();
        QCOMPARE(cancelled.size(), 1);
        runner.waitForIdle();
        QCoreApplication::processEvents();
        QCOMPARE(finished.size(), 0);   // a cancelled job never reports a result
    }

    void jobRunnerDeliversResultsOnGuiThread()
    {
        JobRunner runner;
        QSignalSpy finished(&runner, &JobRunner::finished);
        int value = 0;
        QThread* guiThread = QThread::currentThread();
        QThread* doneThread = nullptr;
        runner.start(QStringLiteral("sum"), [](JobControl&) -> std::any { return 6 * 7; },
                     [&](std::any r) {
                         value = std::any_cast<int>(r);
                         doneThread = QThread::currentThread();
                     });
        QVERIFY(QTest::qWaitFor([&] { return !finished.isEmpty(); }, 5000));
        QCOMPARE(value, 42);
        QCOMPARE(doneThread, guiThread);
    }

    void imguiHostDrawsAndTakesClicks()
    {
        auto panel = std::make_unique<ClickCounterPanel>();
        ClickCounterPanel* p = panel.get();
        ImGuiHost host(std::move(panel));
        host.resize(300, 200);
        host.show();
        QVERIFY(QTest::qWaitForWindowExposed(&host));
        if (!ImGuiHost::glAvailable()) {
            QVERIFY(!host.usesGL());
            QSKIP("no OpenGL on this platform: the host shows its placeholder (checked above)");
        }
        QVERIFY(host.usesGL());
        QVERIFY(QTest::qWaitFor([&] { return host.glWidget()->framesRendered() > 0; }, 5000));
        const QImage frame = host.glWidget()->grabFramebuffer();
        QVERIFY2(distinctColours(frame) > 3, "the ImGui panel drew nothing");
        QTest::mouseMove(host.glWidget(), QPoint(60, 30));
        QTest::qWait(50);
        QTest::mouseClick(host.glWidget(), Qt::LeftButton, {}, QPoint(60, 30));
        QVERIFY(QTest::qWaitFor([&] { return p->clicks == 1; }, 3000));
        QTest::mouseClick(host.glWidget(), Qt::LeftButton, {}, QPoint(250, 180));   // outside the button
        QTest::qWait(100);
        QCOMPARE(p->clicks, 1);
    }

    void screenshotOfMainWindowIsNotBlank()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/qft4.qasm"))));
        QTest::qWait(200);
        const QImage shot = w.grab().toImage();
        const QString out = outputDir() + QStringLiteral("/mainwindow.png");
        QVERIFY(shot.save(out));
        QVERIFY2(distinctColours(shot) > 20, qPrintable(QStringLiteral("blank screenshot: %1").arg(out)));
    }

    void guiBinaryOpensFileAndSavesScreenshot()
    {
        // What `make run` does, checked end to end: the real binary opens a file and shows its window.
        const QString out = outputDir() + QStringLiteral("/spyglass-run.png");
        QFile::remove(out);
        QProcess p;
        p.start(spyglass::test::guiPath(),
                {QStringLiteral("--screenshot"), out, sourcePath(QStringLiteral("resources/examples/qft4.qasm"))});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QImage img(out);
        QVERIFY(!img.isNull());
        QVERIFY(distinctColours(img) > 20);
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
