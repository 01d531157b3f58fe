// The Spyre simulator in the explorer, under a real X server: opening a model compiles it and runs the simulator on
// the final bundle. The Timeline shows that trace (checked against the simulator called directly on the same file),
// the status bar and Timeline header name the kernel time, the window's session records the kernel timings for the
// Charts dock, File > Export writes the trace as Chrome JSON, and the layout what-if banner compares simulated time.
#include "common/guitestutil.h"
#include "common/testutil.h"

#include "views/chartsview.h"
#include "views/document.h"
#include "views/imguihost.h"
#include "views/mainwindow.h"
#include "views/problemsview.h"
#include "views/timelinepanel.h"

#include "core/common/job_control.h"
#include "core/common/resource_paths.h"
#include "core/model/model_loader.h"
#include "core/session/session_charts.h"
#include "core/session/session_store.h"
#include "core/spyre/spyre_pipeline.h"
#include "core/spyre/spyre_target.h"
#include "core/spyresim/spyre_simulator.h"

#include <QDockWidget>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <set>

using namespace spyglass;
using namespace spyglass::test;

namespace {

// What the GUI should show, computed without the GUI: compile the file and simulate its bundle for time.
spyresim::SimResult simulateDirectly(const QString& path, const std::map<std::string, int>& pins = {})
{
    const model::ModelGraph graph = model::loadModel(path.toStdString());
    const spyre::SpyreTarget target = spyre::SpyreTarget::load(spyre::SpyreTarget::defaultPath());
    spyre::CompileOptions options;
    options.pins = pins;
    JobControl job;
    const auto snaps = spyre::SpyrePipeline::run(graph, target, options, job);
    spyresim::SimOptions timing;
    timing.numerics = false;
    return spyresim::simulate(*snaps.back().ir->bundle, target, {}, timing);
}

QString logText(MainWindow& w) { return w.views().problems()->findChild<QPlainTextEdit*>(QStringLiteral("logText"))->toPlainText(); }

bool renderFrame(ImGuiHost& host)
{
    const int before = host.glWidget()->framesRendered();
    host.glWidget()->update();
    return QTest::qWaitFor([&] { return host.glWidget()->framesRendered() > before; }, 5000);
}

}  // namespace

class TestSimulationGui : public QObject {
    Q_OBJECT
    QTemporaryDir dataHome_;
private slots:
    void initTestCase()
    {
        isolateAppData(dataHome_);
    }

    void timelineShowsTheSimulatorTrace_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("softmax") << QStringLiteral("resources/examples/softmax.onnxtxt");
        QTest::newRow("matmul") << QStringLiteral("resources/examples/matmul.onnxtxt");
    }

    void timelineShowsTheSimulatorTrace()
    {
        QFETCH(QString, file);
        const QString path = sourcePath(file);
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, path));
        const spyresim::SimResult direct = simulateDirectly(path);
        QVERIFY(direct.kernelTimeNs > 0);

        // The document holds the same timing the simulator computes on its own.
        const auto& sim = w.document()->compiled().simulation;
        QVERIFY(sim);
        QCOMPARE(sim->kernels.size(), direct.kernels.size());
        QCOMPARE(sim->kernelTimeNs, direct.kernelTimeNs);
        QCOMPARE(sim->rooflineNs, direct.rooflineNs);

        // The Timeline shows it: the trace ends at the total kernel time (the kernels lane includes each kernel's fixed
        // overhead; the core lanes end before the last one's).
        const Trace* trace = w.views().timeline()->trace();
        QVERIFY(trace);
        QCOMPARE(trace, sim->trace.get());
        QCOMPARE(trace->endNs(), static_cast<int64_t>(std::llround(direct.kernelTimeNs)));
        QCOMPARE(w.views().timeline()->traceEndNs(), trace->endNs());
        QCOMPARE(trace->lanes.front().name, std::string("kernels"));
        const auto [k0, k1] = trace->laneRange(0);
        QCOMPARE(k1 - k0, direct.kernels.size());

        // A compute lane and a DMA lane for every core any kernel runs on, and no lane for a core none uses.
        std::set<std::string> expected{"kernels"}, got;
        for (const spyresim::KernelTime& k : direct.kernels)
            for (const spyresim::CoreTime& c : k.perCore) {
                if (c.computeNs > 0)
                    expected.insert("core " + std::to_string(c.core));
                if (c.dmaNs > 0)
                    expected.insert("core " + std::to_string(c.core) + " DMA");
            }
        for (int l = 0; l < static_cast<int>(trace->lanes.size()); ++l) {
            const auto [a, b] = trace->laneRange(l);
            QVERIFY2(b > a, trace->lanes[static_cast<size_t>(l)].name.c_str());   // every lane has events
            got.insert(trace->lanes[static_cast<size_t>(l)].name);
        }
        QCOMPARE(got, expected);
        QVERIFY(expected.size() > 2);

        // The header and the status bar name the kernel time and the roofline bound.
        QVERIFY2(QString::fromStdString(w.views().timeline()->header()).contains(QStringLiteral("kernel time")), w.views().timeline()->header().c_str());
        QVERIFY2(w.simulationStatusText().contains(QStringLiteral("roofline")), qPrintable(w.simulationStatusText()));

        // The window's session has the kernel timings: the Charts dock's "simulated time" is the total kernel time.
        const auto runs = w.windowSession()->store().runs(w.windowSession()->id());
        QVERIFY(!runs.empty());
        const auto detail = w.windowSession()->store().runDetail(runs.back().id);
        QVERIFY(detail);
        QCOMPARE(detail->kernels.size(), direct.kernels.size());
        for (size_t i = 0; i < direct.kernels.size(); ++i) {
            QCOMPARE(detail->kernels[i].name, direct.kernels[i].name);
            QCOMPARE(detail->kernels[i].simNs, direct.kernels[i].timeNs);
            QCOMPARE(detail->kernels[i].bytesMoved, direct.kernels[i].bytesRead + direct.kernels[i].bytesWritten);
        }
        w.views().charts()->reload();
        w.views().charts()->setHistoryMetric(session::RunMetric::SimulatedTime);
        QVERIFY(!w.views().charts()->history().empty());
        QVERIFY(std::fabs(w.views().charts()->history().back().value - direct.kernelTimeNs) <= 1e-6 * direct.kernelTimeNs);
    }

    // Every bundled example model opens with a simulation whose trace the Timeline shows, one window for all of them
    // (a window reused after a bigger model must not keep the old trace).
    void everyExampleModelIsSimulated()
    {
        MainWindow w;
        w.show();
        int models = 0;
        for (const std::string& file : listResourceFiles("examples")) {
            const QString path = QString::fromStdString(file);
            if (!path.endsWith(QLatin1String(".onnx")) && !path.endsWith(QLatin1String(".onnxtxt")))
                continue;
            ++models;
            QVERIFY2(openAndWait(w, path), qPrintable(path));
            const auto& sim = w.document()->compiled().simulation;
            QVERIFY2(sim && sim->trace, qPrintable(path + QStringLiteral(": ") + w.document()->compiled().simulationNote));
            QCOMPARE(w.views().timeline()->trace(), sim->trace.get());
            // Trace events are whole nanoseconds and at least 1 ns long: a kernel shorter than that (convnet's last
            // Pointwise, 0.9 ns) can end the trace a nanosecond after the kernel time.
            const int64_t end = w.views().timeline()->traceEndNs(), kernelNs = std::llround(sim->kernelTimeNs);
            QVERIFY2(end >= kernelNs && end <= kernelNs + 1, qPrintable(QStringLiteral("%1: trace ends at %2 ns, kernel time %3 ns").arg(path).arg(end).arg(sim->kernelTimeNs)));
            QVERIFY(sim->rooflineNs > 0 && sim->rooflineNs <= sim->kernelTimeNs);
            qInfo("%s: %s", qPrintable(QFileInfo(path).fileName()), qPrintable(w.document()->compiled().simulationNote));
        }
        QVERIFY(models >= 5);
        // A circuit has no Spyre trace: the Timeline and the status bar are cleared.
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/qft4.qasm"))));
        QVERIFY(!w.views().timeline()->trace());
        QVERIFY(w.simulationStatusText().isEmpty());
    }

    void smallModelsAreCheckedForNumbers()
    {
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/softmax.onnxtxt"))));
        const QString note = w.document()->compiled().simulationNote;
        QVERIFY2(note.contains(QStringLiteral("max abs error")), qPrintable(note));
        QVERIFY2(logText(w).contains(note), qPrintable(logText(w)));
        // softmax's outputs lie in [0, 1]: an fp16 simulation within tolerance is far below 1e-2 off.
        QVERIFY2(note.contains(QStringLiteral("within tolerance")), qPrintable(note));
        QCOMPARE(w.views().problems()->problemCount(), 0);

        // A verdict outside tolerance is also a warning in the Problems dock, naming the output; within, none.
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt"))));
        const QString matmulNote = w.document()->compiled().simulationNote;
        QVERIFY2(matmulNote.contains(QStringLiteral("max abs error")), qPrintable(matmulNote));
        bool warned = false;
        for (int i = 0; i < w.views().problems()->problemCount(); ++i)
            warned = warned || (w.views().problems()->problemText(i).contains(QStringLiteral("differ from the reference interpreter")) &&
                                w.views().problems()->problemText(i).contains(QStringLiteral("'C'")));
        qInfo("%s", qPrintable(matmulNote));
        QCOMPARE(warned, matmulNote.contains(QStringLiteral("OUTSIDE tolerance")));
    }

    void exportsTheTraceAsChromeJson()
    {
        QTemporaryDir dir;
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt"))));
        const QString out = dir.filePath(QStringLiteral("trace.json"));
        QVERIFY(w.exportAs(ExportKind::ChromeTrace, out));
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
        QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(err.errorString()));
        const QJsonArray events = doc.object().value(QStringLiteral("traceEvents")).toArray();
        const Trace& trace = *w.document()->compiled().simulation->trace;
        int complete = 0;
        std::set<QString> threadNames;
        for (const QJsonValue& v : events) {
            const QJsonObject e = v.toObject();
            if (e.value(QStringLiteral("ph")).toString() == QLatin1String("X"))
                ++complete;
            else if (e.value(QStringLiteral("name")).toString() == QLatin1String("thread_name"))
                threadNames.insert(e.value(QStringLiteral("args")).toObject().value(QStringLiteral("name")).toString());
        }
        QCOMPARE(complete, static_cast<int>(trace.events.size()));
        for (const TraceLane& l : trace.lanes)
            QVERIFY2(threadNames.count(QString::fromStdString(l.name)), l.name.c_str());

        // A circuit has no simulator trace to export: the choice fails with a message instead of writing a file.
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/qft4.qasm"))));
        QVERIFY(!w.exportAs(ExportKind::ChromeTrace, dir.filePath(QStringLiteral("none.json"))));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("none.json"))));
    }

    void whatIfBannerComparesSimulatedTime()
    {
        const QString path = sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt"));
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, path));
        const double before = w.document()->compiled().simulation->kernelTimeNs;
        QSignalSpy opened(&w, &MainWindow::documentOpened);
        w.pinStickDimension(QStringLiteral("A"), 0);   // A [256, 512] sticked on d0: a restickify before the MatMul
        QVERIFY(opened.wait(60000));
        const spyresim::SimResult direct = simulateDirectly(path, {{"A", 0}});
        QCOMPARE(w.document()->compiled().simulation->kernelTimeNs, direct.kernelTimeNs);
        QVERIFY(direct.kernelTimeNs != before);
        const double pct = 100.0 * (direct.kernelTimeNs - before) / before;
        const QString expected = QStringLiteral("(%1%2 %)").arg(pct > 0 ? QStringLiteral("+") : QString(), QString::number(pct, 'f', 1));
        QVERIFY2(w.whatIfText().contains(QStringLiteral("simulated kernel time")), qPrintable(w.whatIfText()));
        QVERIFY2(w.whatIfText().contains(expected), qPrintable(w.whatIfText() + QStringLiteral("\nexpected ") + expected));
        // The Timeline follows the recompile.
        QCOMPARE(w.views().timeline()->traceEndNs(), static_cast<int64_t>(std::llround(direct.kernelTimeNs)));

        // A what-if the compiler rejects fails; the next file opened gets no banner comparing it with matmul's plan.
        QSignalSpy failed(&w, &MainWindow::documentFailed);
        w.pinStickDimension(QStringLiteral("no_such_tensor"), 0);
        QVERIFY(QTest::qWaitFor([&] { return !failed.isEmpty(); }, 60000));
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/softmax.onnxtxt"))));
        QVERIFY2(w.whatIfText().isEmpty(), qPrintable(w.whatIfText()));
    }

    void screenshotOfTheTimeline()
    {
        if (!ImGuiHost::glAvailable())
            QSKIP("needs OpenGL (run under xvfb-run)");
        MainWindow w;
        w.resize(1500, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/softmax.onnxtxt"))));
        QDockWidget* dock = w.findChild<QDockWidget*>(QStringLiteral("timelineDock"));
        QVERIFY(dock);
        dock->show();
        dock->raise();
        w.resizeDocks({dock}, {420}, Qt::Vertical);
        auto* host = qobject_cast<ImGuiHost*>(dock->widget());
        QVERIFY(host && host->usesGL());
        w.raise();
        w.activateWindow();
        QVERIFY(QTest::qWaitFor([&] { return host->isVisible() && host->glWidget()->height() > 200; }, 5000));
        QVERIFY(renderFrame(*host));
        QVERIFY(renderFrame(*host));   // the first frame after a resize may lay out only
        QVERIFY(w.views().timeline()->lastDrawnEvents() + w.views().timeline()->lastMergedSpans() > 0);
        const QImage shot = host->glWidget()->grabFramebuffer();
        const QString out = outputDir() + QStringLiteral("/timeline-softmax.png");
        QVERIFY(shot.save(out));
        QVERIFY2(distinctColours(shot) > 20, qPrintable(QStringLiteral("blank timeline screenshot: %1").arg(out)));
        // The event colours appear: compute (blue) and DMA in (green) bars were drawn.
        bool compute = false, dmaIn = false;
        for (int y = 0; y < shot.height(); y += 2)
            for (int x = 0; x < shot.width(); x += 2) {
                const QRgb p = shot.pixel(x, y);
                compute = compute || (qRed(p) == 76 && qGreen(p) == 154 && qBlue(p) == 255);
                dmaIn = dmaIn || (qRed(p) == 76 && qGreen(p) == 200 && qBlue(p) == 120);
            }
        QVERIFY2(compute && dmaIn, qPrintable(out));

        // The whole window as a user sees it: the graph above, the Timeline dock below, the kernel time in the status bar.
        const QImage window = w.grab().toImage();
        const QString windowOut = outputDir() + QStringLiteral("/mainwindow-timeline.png");
        QVERIFY(window.save(windowOut));
        QVERIFY2(distinctColours(window) > 50, qPrintable(windowOut));
    }
};

QTEST_MAIN(TestSimulationGui)
#include "tst_simulation_gui.moc"
