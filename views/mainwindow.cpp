#include "views/mainwindow.h"

#include "core/common/pass_dump.h"
#include "core/common/units.h"
#include "core/plugins/pass_plugin_loader.h"

#include "views/chartsview.h"
#include "views/circuitinspect.h"
#include "views/circuitview.h"
#include "views/document.h"
#include "views/graphlayout.h"
#include "views/graphview.h"
#include "views/imguihost.h"
#include "views/inspectorview.h"
#include "views/irview.h"
#include "views/scratchpadmappanel.h"
#include "views/stateview.h"
#include "views/symbolicdimsdialog.h"
#include "views/sticklayoutview.h"
#include "views/workdivisionview.h"
#include "views/timelinepanel.h"
#include "views/jobrunner.h"
#include "views/pipelineview.h"
#include "views/problemsview.h"
#include "views/spyregraph.h"
#include "views/spyreinspect.h"
#include "views/vqeview.h"

#include "core/common/resource_paths.h"
#include "core/quantum/circuit.h"
#include "core/quantum/export.h"
#include "core/quantum/vqe_report.h"
#include "core/workbench/vqe_record.h"
#include "core/spyre/kernel_bundle.h"
#include "core/session/session_charts.h"
#include "core/session/session_recorder.h"
#include "core/session/session_store.h"
#include "core/spyre/loop_ir.h"
#include "core/spyre/op_geometry.h"
#include "core/spyre/plan_summary.h"
#include "core/spyre/spyre_target.h"
#include "core/spyresim/spyre_simulator.h"
#include "core/common/versions.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPushButton>
#include <QSpinBox>

#include <algorithm>
#include <QFileInfo>
#include <QInputDialog>
#include <QRegularExpression>
#include <QVBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSaveFile>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QToolBar>
#include <QToolButton>

#include <imgui.h>

#include <optional>
#include <sstream>

// Resources compiled into a static library must be registered by hand.
static void initSpyglassResources() { Q_INIT_RESOURCE(spyglass); }

namespace spyglass {

namespace {
const QString kRecentKey = QStringLiteral("recentFiles");
const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kStateKey = QStringLiteral("window/state");
constexpr int kLayoutVersion = 2;   // bump when docks change so stale saved layouts are ignored

QString formatNs(double ns) { return QString::fromStdString(formatDuration(ns)); }

}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), document_(new Document(this)), jobs_(new JobRunner(this))
{
    initSpyglassResources();
    setObjectName(QStringLiteral("mainWindow"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/spyglass.svg")));
    setAcceptDrops(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);

    centralTabs_ = new QTabWidget(this);
    centralTabs_->setObjectName(QStringLiteral("centralTabs"));
    centralTabs_->setDocumentMode(true);
    irView_ = new IrView(document_, centralTabs_);
    graphView_ = new GraphView(centralTabs_);
    circuitView_ = new CircuitView(centralTabs_);
    centralTabs_->addTab(irView_, tr("IR"));
    centralTabs_->addTab(graphView_, tr("Graph"));
    centralTabs_->addTab(circuitView_, tr("Circuit"));
    vqeView_ = new VqeView(centralTabs_);
    centralTabs_->addTab(vqeView_, tr("VQE"));
    whatIf_ = new QLabel(this);
    whatIf_->setObjectName(QStringLiteral("whatIfBanner"));
    whatIf_->setWordWrap(true);
    whatIf_->setStyleSheet(QStringLiteral("QLabel { background: #fff4d6; border: 1px solid #e0c060; padding: 4px; }"));
    whatIf_->hide();
    auto* centre = new QWidget(this);
    auto* centreLayout = new QVBoxLayout(centre);
    centreLayout->setContentsMargins(0, 0, 0, 0);
    centreLayout->setSpacing(0);
    centreLayout->addWidget(whatIf_);
    centreLayout->addWidget(centralTabs_, 1);
    setCentralWidget(centre);

    createActions();
    createDocks();
    createMenus();
    createStatusBar();
    defaultState_ = saveState(kLayoutVersion);
    restoreLayout();
    applyLayoutFor(DocumentKind::Unknown);
    connect(problems_, &ProblemsView::problemAdded, this, [this] {
        if (QDockWidget* d = dock(QStringLiteral("problemsDock"))) {
            d->show();
            d->raise();
        }
    });

    connect(document_, &Document::documentChanged, this, &MainWindow::updateActions);
    connect(document_, &Document::selectedPassChanged, this, &MainWindow::updateActions);
    connect(document_, &Document::documentChanged, this, &MainWindow::updateTitle);
    // The pictures of the selected pass follow the document themselves.
    circuitView_->followDocument(document_);
    // The State view steps along the circuit the Circuit view draws (connected after it, so its columns are current).
    auto stepColumns = [this] { stateView_->setStepColumns(circuitView_->circuit() ? circuitView_->columnCount() : 0); };
    connect(document_, &Document::documentChanged, this, stepColumns);
    connect(document_, &Document::selectedPassChanged, this, stepColumns);
    connect(stateView_, &StateView::stepRequested, this, &MainWindow::showStateAfterColumn);
    connect(stateView_, &StateView::finalStateShown, circuitView_, [this] { circuitView_->setStepMarker(std::nullopt); });
    followDocument(graphView_, document_);
    followDocument(scratchpad_, scratchpadHost_, document_);
    followDocument(timeline_, timelineHost_, document_);
    followDocument(workDivision_, document_);
    followDocument(stickLayout_, document_);
    connect(document_, &Document::documentChanged, this, [this] {
        applyLayoutFor(document_->kind());
        // Bring forward the picture that fits the document.
        if (document_->kind() == DocumentKind::Circuit)
            centralTabs_->setCurrentWidget(circuitView_);
        else if (document_->kind() == DocumentKind::Model)
            centralTabs_->setCurrentWidget(graphView_);
        inspector_->clear();
        showSimulation();
    });
    // After the layout of the kind is applied, so that a failed numbers check brings Problems forward over it.
    connect(document_, &Document::documentChanged, this, &MainWindow::showNumbersCheck);
    connect(circuitView_, &CircuitView::opSelected, this, &MainWindow::inspectCircuitOp);
    connect(graphView_, &GraphView::nodeSelected, this, &MainWindow::inspectGraphNode);
    connect(graphView_, &GraphView::nodeContextMenuRequested, this, &MainWindow::showGraphNodeMenu);
    updateActions();
    updateTitle();
}

MainWindow::~MainWindow()
{
    jobs_->cancel();
    jobs_->waitForIdle();
    delete charts_;   // it reads the window session's store: gone before the session ends
    charts_ = nullptr;
}

void MainWindow::createActions()
{
    openAction_ = new QAction(tr("&Open…"), this);
    openAction_->setShortcut(QKeySequence::Open);
    connect(openAction_, &QAction::triggered, this, &MainWindow::openDialog);

    exportAction_ = new QAction(tr("&Export…"), this);
    exportAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    connect(exportAction_, &QAction::triggered, this, &MainWindow::exportDialog);

    quitAction_ = new QAction(tr("&Quit"), this);
    quitAction_->setShortcut(QKeySequence::Quit);
    connect(quitAction_, &QAction::triggered, this, &QWidget::close);

    stepBackAction_ = new QAction(style()->standardIcon(QStyle::SP_ArrowBack), tr("Step &Back"), this);
    stepBackAction_->setObjectName(QStringLiteral("stepBack"));
    stepBackAction_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F10));
    connect(stepBackAction_, &QAction::triggered, document_, &Document::stepBack);

    stepForwardAction_ = new QAction(style()->standardIcon(QStyle::SP_ArrowForward), tr("Step &Forward"), this);
    stepForwardAction_->setObjectName(QStringLiteral("stepForward"));
    stepForwardAction_->setShortcut(QKeySequence(Qt::Key_F10));
    connect(stepForwardAction_, &QAction::triggered, document_, &Document::stepForward);

    firstAction_ = new QAction(style()->standardIcon(QStyle::SP_MediaSkipBackward), tr("&Reset to Input"), this);
    firstAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F10));   // editors take Ctrl+Home
    connect(firstAction_, &QAction::triggered, document_, &Document::selectFirst);

    lastAction_ = new QAction(style()->standardIcon(QStyle::SP_MediaSkipForward), tr("Run to &End"), this);
    lastAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F10));
    connect(lastAction_, &QAction::triggered, document_, &Document::selectLast);

    resetLayoutAction_ = new QAction(tr("Reset &Layout"), this);
    connect(resetLayoutAction_, &QAction::triggered, this, [this] {
        restoreState(defaultState_, kLayoutVersion);
        for (QDockWidget* d : docks_)
            d->show();
    });

    auto* toolbar = addToolBar(tr("Pipeline"));
    toolbar->setObjectName(QStringLiteral("pipelineToolbar"));
    toolbar->addAction(openAction_);
    toolbar->addSeparator();
    toolbar->addAction(firstAction_);
    toolbar->addAction(stepBackAction_);
    toolbar->addAction(stepForwardAction_);
    toolbar->addAction(lastAction_);
}

QDockWidget* MainWindow::addDock(const QString& title, const QString& objectName, QWidget* w, Qt::DockWidgetArea area)
{
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(objectName);
    dock->setWidget(w);
    addDockWidget(area, dock);
    docks_.append(dock);
    return dock;
}

void MainWindow::createDocks()
{
    pipeline_ = new PipelineView(document_, this);
    addDock(tr("Pipeline"), QStringLiteral("pipelineDock"), pipeline_, Qt::LeftDockWidgetArea);
    inspector_ = new InspectorView(this);
    QDockWidget* inspectorDock = addDock(tr("Inspector"), QStringLiteral("inspectorDock"), inspector_, Qt::RightDockWidgetArea);
    stateView_ = new StateView(document_, this);
    QDockWidget* stateDock = addDock(tr("State"), QStringLiteral("stateDock"), stateView_, Qt::RightDockWidgetArea);
    problems_ = new ProblemsView(this);
    QDockWidget* problemsDock = addDock(tr("Problems"), QStringLiteral("problemsDock"), problems_, Qt::BottomDockWidgetArea);
    auto timeline = std::make_unique<TimelinePanel>();
    timeline_ = timeline.get();
    timelineHost_ = new ImGuiHost(std::move(timeline), this);
    QDockWidget* timelineDock = addDock(tr("Timeline"), QStringLiteral("timelineDock"), timelineHost_, Qt::BottomDockWidgetArea);
    tabifyDockWidget(problemsDock, timelineDock);
    workDivision_ = new WorkDivisionView(this);
    QDockWidget* workDock = addDock(tr("Work division"), QStringLiteral("workDivisionDock"), workDivision_, Qt::BottomDockWidgetArea);
    tabifyDockWidget(problemsDock, workDock);
    stickLayout_ = new StickLayoutView(this);
    QDockWidget* stickDock = addDock(tr("Stick layout"), QStringLiteral("stickLayoutDock"), stickLayout_, Qt::BottomDockWidgetArea);
    tabifyDockWidget(problemsDock, stickDock);
    auto scratchpad = std::make_unique<ScratchpadMapPanel>();
    scratchpad_ = scratchpad.get();
    scratchpadHost_ = new ImGuiHost(std::move(scratchpad), this);
    QDockWidget* scratchDock = addDock(tr("Scratchpad"), QStringLiteral("scratchpadDock"), scratchpadHost_, Qt::BottomDockWidgetArea);
    tabifyDockWidget(problemsDock, scratchDock);
    // A session per window in the history database; without one (an unusable database) the window still works.
    try {
        windowSession_ = std::make_unique<WindowSession>();
    } catch (const InputError& e) {
        problems_->addProblem(e.diagnostic());
    }
    charts_ = new ChartsView(windowSession_ ? &windowSession_->store() : nullptr, this);
    if (windowSession_)
        charts_->selectSession(windowSession_->id());
    QDockWidget* chartsDock = addDock(tr("Charts"), QStringLiteral("chartsDock"), charts_, Qt::BottomDockWidgetArea);
    tabifyDockWidget(problemsDock, chartsDock);
    problemsDock->raise();
    resizeDocks({docks_.first(), inspectorDock}, {360, 420}, Qt::Horizontal);
    resizeDocks({inspectorDock, stateDock}, {260, 520}, Qt::Vertical);
    resizeDocks({problemsDock}, {170}, Qt::Vertical);
}

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(openAction_);
    examplesMenu_ = file->addMenu(tr("Open E&xample"));
    recentMenu_ = file->addMenu(tr("&Recent Files"));
    file->addSeparator();
    loadPluginAction_ = file->addAction(tr("Load Pass &Plugin…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Load Pass Plugin"), QString(), tr("Pass plugins (*.so);;All files (*)"));
        if (!path.isEmpty())
            loadPassPlugin(path);
    });
    file->addAction(exportAction_);
    file->addSeparator();
    file->addAction(quitAction_);
    rebuildExamplesMenu();
    rebuildRecentMenu();

    QMenu* pipeline = menuBar()->addMenu(tr("&Pipeline"));
    pipeline->addAction(firstAction_);
    pipeline->addAction(stepBackAction_);
    pipeline->addAction(stepForwardAction_);
    pipeline->addAction(lastAction_);

    QMenu* quantum = menuBar()->addMenu(tr("&Quantum"));
    quantum->addAction(tr("Run &VQE…"), this, &MainWindow::vqeDialog);
    quantum->addAction(tr("&Open VQE Run from the Session History…"), this, &MainWindow::recordedVqeDialog);

    viewMenu_ = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* d : docks_)
        viewMenu_->addAction(d->toggleViewAction());
    viewMenu_->addSeparator();
    viewMenu_->addAction(resetLayoutAction_);
    // Window-wide Ctrl+F brings the Graph forward with its find field (the view's own shortcut needs its focus).
    viewMenu_->addAction(tr("&Find in Graph…"), QKeySequence::Find, this, [this] {
        centralTabs_->setCurrentWidget(graphView_);
        graphView_->showFind();
    });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Spyglass"), this, &MainWindow::showAbout);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::createStatusBar()
{
    statusLabel_ = new QLabel(tr("Ready"), this);
    progress_ = new QProgressBar(this);
    progress_->setObjectName(QStringLiteral("jobProgress"));
    progress_->setRange(0, 1000);
    progress_->setMaximumWidth(220);
    progress_->setVisible(false);
    cancelButton_ = new QToolButton(this);
    cancelButton_->setObjectName(QStringLiteral("cancelJob"));
    cancelButton_->setText(tr("Cancel"));
    cancelButton_->setVisible(false);
    simLabel_ = new QLabel(this);
    simLabel_->setObjectName(QStringLiteral("simulationStatus"));
    simLabel_->setToolTip(tr("The final kernel bundle on the Spyre simulator's timing model: total kernel time, and the roofline bound "
                             "(peak compute or peak bandwidth, whichever binds) it is compared with. The Timeline dock shows the trace."));
    statusBar()->addWidget(statusLabel_, 1);
    statusBar()->addPermanentWidget(simLabel_);
    statusBar()->addPermanentWidget(progress_);
    statusBar()->addPermanentWidget(cancelButton_);
    connect(cancelButton_, &QToolButton::clicked, jobs_, &JobRunner::cancel);

    auto showBusy = [this](bool busy) {
        progress_->setVisible(busy);
        cancelButton_->setVisible(busy);
    };
    connect(jobs_, &JobRunner::started, this, [this, showBusy](const QString& title) {
        showBusy(true);
        progress_->setValue(0);
        statusLabel_->setText(title + QStringLiteral("…"));
        problems_->log(tr("started: %1").arg(title));
    });
    connect(jobs_, &JobRunner::progress, this, [this](double f, const QString& what) {
        progress_->setValue(static_cast<int>(f * 1000));
        progress_->setFormat(what);
    });
    connect(jobs_, &JobRunner::finished, this, [this, showBusy](const QString& title) {
        showBusy(false);
        statusLabel_->setText(tr("%1: done").arg(title));
        problems_->log(tr("finished: %1").arg(title));
    });
    connect(jobs_, &JobRunner::failed, this, [this, showBusy](const QString& title, const QString& message) {
        showBusy(false);
        statusLabel_->setText(tr("%1: failed").arg(title));
        problems_->addErrorText(message);
    });
    connect(jobs_, &JobRunner::cancelled, this, [this, showBusy](const QString& title) {
        showBusy(false);
        statusLabel_->setText(tr("%1: cancelled").arg(title));
        problems_->log(tr("cancelled: %1").arg(title));
    });
}

void MainWindow::inspectGraphNode(const QString& id)
{
    const auto program = document_->selectedProgram();
    if (!program)
        return;
    const InspectorContent c = inspectSpyreNode(*program, document_->compiled().target.get(), id.toStdString());
    if (!c.found)
        return;
    inspector_->show(c.heading, c.sections);
    // Show the selected op's or buffer's text in the IR view too.
    irView_->revealText(c.heading.section(QLatin1Char(' '), 0, 0) + QLatin1Char(':'))
        || irView_->revealText(c.heading.section(QLatin1Char(' '), 0, 0));
}

void MainWindow::inspectCircuitOp(int index)
{
    const quantum::Circuit* c = circuitView_->circuit();
    if (!c || index < 0 || index >= static_cast<int>(c->ops.size()))
        return;
    const InspectorContent content = inspectCircuitOpContent(*c, index, document_->selectedRecord() ? document_->selectedRecord()->name : std::string(),
                                                             circuitView_->opColumns()[static_cast<size_t>(index)], circuitView_->columnCount());
    inspector_->show(content.heading, content.sections);
    // Picking a gate picks its column: the State view shows the state just after it.
    stateView_->stepTo(circuitView_->opColumns()[static_cast<size_t>(index)] + 1);
}

void MainWindow::showNumbersCheck()
{
    const QString failure = document_->compiled().numbersFailure;
    if (!numbersBanner_) {
        if (failure.isEmpty())
            return;
        numbersBanner_ = new QLabel(this);
        numbersBanner_->setObjectName(QStringLiteral("numbersBanner"));
        numbersBanner_->setWordWrap(true);
        numbersBanner_->setTextInteractionFlags(Qt::TextSelectableByMouse);
        numbersBanner_->setStyleSheet(QStringLiteral("QLabel { background: #fde2e1; color: #7a1010; border: 1px solid #d04040; padding: 4px; }"));
        if (auto* layout = qobject_cast<QVBoxLayout*>(centralWidget()->layout()))
            layout->insertWidget(0, numbersBanner_);
    }
    numbersBanner_->setVisible(!failure.isEmpty());
    if (QDockWidget* d = dock(QStringLiteral("problemsDock")); d && !failure.isEmpty()) {
        d->show();
        d->raise();
    }
    numbersBanner_->setText(failure.isEmpty() ? QString()
                                              : tr("<b>Numbers check failed:</b> the Spyre simulator's outputs differ from the reference interpreter's "
                                                   "(%1). The compile is shown, but this program computes the wrong result; the error is in Problems.")
                                                    .arg(failure.toHtmlEscaped()));
}

QString MainWindow::numbersBannerText() const { return numbersBanner_ && !numbersBanner_->isHidden() ? numbersBanner_->text() : QString(); }

void MainWindow::showStateAfterColumn(int column)
{
    const quantum::Circuit* c = circuitView_->circuit();
    if (!c)
        return;
    // Small teaching circuits take microseconds; stateAfterColumn itself refuses states beyond the State view's limit.
    JobControl control;
    stateView_->showStep(stateAfterColumn(*c, circuitView_->opColumns(), column, control));
    circuitView_->setStepMarker(column);
}

void MainWindow::openFile(const QString& path)
{
    // A what-if whose recompile failed must not compare its plan with the next file opened.
    whatIfBaseline_.reset();
    CompileRequest request;
    if (SymbolicDimsDialog::ask(this, path, request.load.dimValues))
        compile(path, request);
}

bool MainWindow::loadPassPlugin(const QString& path)
{
    try {
        const plugins::LoadedPlugin& p = plugins::loadPassPlugin(path.toStdString());
        if (std::find(passPlugins_.begin(), passPlugins_.end(), &p) == passPlugins_.end())
            passPlugins_.push_back(&p);
        QStringList passes;
        for (const auto& i : p.spyrePasses)
            passes << tr("Spyre pass at %1").arg(QString::fromStdString(i.at.text()));
        for (const auto& i : p.quantumPasses)
            passes << tr("quantum pass at %1").arg(QString::fromStdString(i.at.text()));
        problems_->log(tr("Loaded pass plugin '%1' (%2): %3").arg(QString::fromStdString(p.name), path, passes.join(QStringLiteral(", "))));
    } catch (const InputError& e) {
        problems_->addProblem(e.diagnostic());
        return false;
    }
    if (!document_->path().isEmpty()) {
        CompileRequest request;
        request.spyre.pins = document_->compiled().pins;
        request.spyre.splitPins = document_->compiled().splitPins;
        compile(document_->path(), request);
    }
    return true;
}

void MainWindow::pinStickDimension(const QString& tensor, int dim)
{
    if (document_->kind() != DocumentKind::Model)
        return;
    std::map<std::string, int> pins = document_->compiled().pins;
    if (dim < 0)
        pins.erase(tensor.toStdString());
    else
        pins[tensor.toStdString()] = dim;
    recompileWithPins(pins, document_->compiled().splitPins);
}

void MainWindow::pinCoreSplit(const QString& op, const std::map<std::string, int>& ways)
{
    if (document_->kind() != DocumentKind::Model)
        return;
    auto splitPins = document_->compiled().splitPins;
    if (ways.empty())
        splitPins.erase(op.toStdString());
    else
        splitPins[op.toStdString()] = ways;
    recompileWithPins(document_->compiled().pins, splitPins);
}

void MainWindow::clearPins() { recompileWithPins({}, {}); }

QString MainWindow::whatIfText() const { return whatIf_->isVisible() || !whatIf_->isHidden() ? whatIf_->text() : QString(); }

void MainWindow::recompileWithPins(const std::map<std::string, int>& pins,
                                   const std::map<std::string, std::map<std::string, int>>& splitPins)
{
    if (document_->compiled().programs.empty())
        return;
    // Remember the plan before, so the new one can be shown with its difference.
    whatIfBaseline_.plan = std::make_shared<spyre::PlanSummary>(spyre::summarizePlan(*document_->compiled().programs.back()));
    whatIfBaseline_.pass = document_->selectedRecord() ? document_->selectedRecord()->name : std::string();
    whatIfBaseline_.simulatedNs.reset();
    if (document_->compiled().simulation)
        whatIfBaseline_.simulatedNs = document_->compiled().simulation->kernelTimeNs;
    CompileRequest request;
    request.spyre.pins = pins;
    request.spyre.splitPins = splitPins;
    compile(document_->path(), request);
}

void MainWindow::showWhatIf()
{
    if (!whatIfBaseline_.plan || document_->compiled().programs.empty()) {
        whatIf_->setVisible(!document_->compiled().pins.empty() || !document_->compiled().splitPins.empty());
        return;
    }
    const spyre::PlanSummary& a = *whatIfBaseline_.plan;
    const spyre::PlanSummary b = spyre::summarizePlan(*document_->compiled().programs.back());
    QStringList pins;
    for (const auto& [t, d] : document_->compiled().pins)
        pins << QStringLiteral("%1 = d%2").arg(QString::fromStdString(t)).arg(d);
    // Each split pin with the op it landed on, found by identity, so a pin that moved would show it.
    const spyre::Program& last = *document_->compiled().programs.back();
    for (const auto& [op, ways] : document_->compiled().splitPins) {
        const int at = last.findOp(op);
        const QString where = at < 0 || last.ops[static_cast<size_t>(at)].origins.empty()
                                  ? QString()
                                  : QStringLiteral(" (%1)").arg(QString::fromStdString(last.ops[static_cast<size_t>(at)].origins.front()));
        pins << tr("%1 split %2%3").arg(QString::fromStdString(op), formatWays(ways), where);
    }
    std::optional<double> simBefore, simAfter;
    if (document_->compiled().simulation)
        simAfter = document_->compiled().simulation->kernelTimeNs;
    if (whatIfBaseline_.simulatedNs)
        simBefore = *whatIfBaseline_.simulatedNs;
    whatIf_->setText(tr("<b>Layout what-if</b> — pins: %1.<br>%2. "
                        "<i>Right-click a buffer in the Graph to pin another stick dimension, an op to pin its core split, or clear the pins.</i>")
                         .arg(pins.isEmpty() ? tr("none") : pins.join(QStringLiteral(", ")),
                              QString::fromStdString(spyre::comparePlans(a, b, simBefore, simAfter)).toHtmlEscaped()));
    whatIf_->show();
    problems_->log(whatIf_->text().remove(QRegularExpression(QStringLiteral("<[^>]*>"))));
    // Stay on the pass the user was looking at.
    const std::string pass = whatIfBaseline_.pass;
    whatIfBaseline_.reset();
    const auto& passes = document_->passes();
    for (size_t i = 0; i < passes.size(); ++i)
        if (passes[i].name == pass)
            document_->selectPass(static_cast<int>(i));
}

QString MainWindow::simulationStatusText() const { return simLabel_->text(); }

void MainWindow::showSimulation()
{
    const auto& sim = document_->compiled().simulation;
    if (sim)
        simLabel_->setText(tr("Spyre sim: %1 (roofline %2)").arg(formatNs(sim->kernelTimeNs), formatNs(sim->rooflineNs)));
    else
        simLabel_->clear();
}

void MainWindow::showGraphNodeMenu(const QString& id, const QPoint& globalPos)
{
    const auto program = document_->selectedProgram();
    const SpyreNodeRef ref = program ? resolveSpyreNode(*program, id.toStdString()) : SpyreNodeRef{};
    if (ref.kind == SpyreNodeRef::Kind::Op) {
        showOpMenu(*program, ref.index, globalPos);
        return;
    }
    if (ref.kind != SpyreNodeRef::Kind::Buffer)
        return;
    const int index = ref.index;
    const spyre::Buffer& b = program->buffers[static_cast<size_t>(index)];
    const QString tensor = QString::fromStdString(b.origin.empty() ? b.name : b.origin);
    QMenu menu(this);
    QMenu* pin = menu.addMenu(tr("Pin stick dimension of %1").arg(tensor));
    for (int d = 0; d < static_cast<int>(b.shape.size()); ++d) {
        QAction* a = pin->addAction(tr("d%1 (size %2)%3").arg(d).arg(b.shape[static_cast<size_t>(d)]).arg(d == b.stickDim ? tr(" — current") : QString()));
        connect(a, &QAction::triggered, this, [this, tensor, d] { pinStickDimension(tensor, d); });
    }
    if (document_->compiled().pins.count(tensor.toStdString()))
        menu.addAction(tr("Unpin %1").arg(tensor), this, [this, tensor] { pinStickDimension(tensor, -1); });
    if (!document_->compiled().pins.empty() || !document_->compiled().splitPins.empty())
        menu.addAction(tr("Clear all pins"), this, &MainWindow::clearPins);
    menu.exec(globalPos);
}

namespace {

// The op of the final program that `op` of an earlier pass becomes: the op's name is its identity from lower to
// codegen (fuse keeps one of the merged names and lists the others), so this is a lookup, not a guess. Null
// before lower (graph ops have no final op of their own) or when the op was dropped.
const spyre::Op* finalOpOf(const spyre::Program& shown, int op, const spyre::Program& last)
{
    if (shown.stage != spyre::Stage::Loop)
        return nullptr;
    const int found = last.findOp(shown.ops[static_cast<size_t>(op)].name);
    return found < 0 ? nullptr : &last.ops[static_cast<size_t>(found)];
}

QString currentSplitText(const spyre::Op& op)
{
    std::map<std::string, int> ways;
    for (size_t v = 0; v < op.split.ways.size(); ++v)
        if (op.split.ways[v] > 1)
            ways[op.varName(static_cast<int>(v))] = op.split.ways[v];
    if (ways.empty() && op.numVars() > 0)
        ways[op.varName(0)] = 1;
    return formatWays(ways);
}

}  // namespace

QString formatWays(const std::map<std::string, int>& ways)
{
    QStringList parts;
    for (const auto& [var, n] : ways)
        parts << QStringLiteral("%1:%2").arg(QString::fromStdString(var)).arg(n);
    return parts.join(QStringLiteral(", "));
}

std::optional<std::map<std::string, int>> parseWays(const QString& text, QString* error)
{
    std::map<std::string, int> ways;
    for (const QString& raw : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QString item = raw.trimmed();
        static const QRegularExpression re(QStringLiteral("^([pr][0-9]+)\\s*:\\s*([0-9]{1,4})$"));
        const QRegularExpressionMatch m = re.match(item);
        if (!m.hasMatch()) {
            *error = QObject::tr("'%1' is not VAR:WAYS (such as p0:4)").arg(item);
            return std::nullopt;
        }
        const std::string var = m.captured(1).toStdString();
        if (ways.count(var)) {
            *error = QObject::tr("%1 is given twice").arg(m.captured(1));
            return std::nullopt;
        }
        ways[var] = m.captured(2).toInt();
    }
    if (ways.empty()) {
        *error = QObject::tr("no VAR:WAYS given");
        return std::nullopt;
    }
    return ways;
}

void MainWindow::showOpMenu(const spyre::Program& program, int op, const QPoint& globalPos)
{
    QMenu menu(this);
    const spyre::Op* final = finalOpOf(program, op, *document_->compiled().programs.back());
    const QString name = final ? QString::fromStdString(final->name) : QString();
    QAction* pin = menu.addAction(final ? tr("Pin core split of %1…").arg(name) : tr("Pin core split…"));
    if (final)
        connect(pin, &QAction::triggered, this, [this, name] { coreSplitDialog(name); });
    else {
        pin->setEnabled(false);
        pin->setToolTip(tr("This op is not one op of the final program; select it at the work_division pass."));
    }
    if (final && document_->compiled().splitPins.count(name.toStdString()))
        menu.addAction(tr("Unpin core split of %1").arg(name), this, [this, name] { pinCoreSplit(name, {}); });
    if (!document_->compiled().pins.empty() || !document_->compiled().splitPins.empty())
        menu.addAction(tr("Clear all pins"), this, &MainWindow::clearPins);
    menu.exec(globalPos);
}

void MainWindow::coreSplitDialog(const QString& opName)
{
    const auto& last = *document_->compiled().programs.back();
    const spyre::Op* op = nullptr;
    for (const spyre::Op& o : last.ops)
        if (QString::fromStdString(o.name) == opName)
            op = &o;
    if (!op)
        return;
    // The legal ways of a var divide its units (sticks along the stick var); the label lists them so the user can
    // pick without a round trip through the compiler.
    QStringList vars;
    for (int v = 0; v < op->numVars(); ++v)
        vars << tr("%1: %2%3%4")
                    .arg(QString::fromStdString(op->varName(v)))
                    .arg(spyre::varUnits(last, *op, v))
                    .arg(v == op->stickVar() ? tr(" sticks") : QString())
                    .arg(v >= static_cast<int>(op->ranges.size()) ? tr(" (reduction)") : QString());
    const int cores = document_->compiled().target ? document_->compiled().target->cores : 0;
    const QString label = tr("Core split of %1 (%2), as VAR:WAYS; unnamed vars are not split.\n"
                             "Units per tile — %3. Ways must divide them; at most %4 cores in all.\n"
                             "Now: %5 (%6)")
                              .arg(opName, QString::fromLatin1(spyre::opKindName(op->kind)), vars.join(QStringLiteral(", ")))
                              .arg(cores)
                              .arg(currentSplitText(*op), QString::fromStdString(op->split.why));
    bool ok = false;
    const QString text = QInputDialog::getText(this, tr("Pin core split"), label, QLineEdit::Normal, currentSplitText(*op), &ok);
    if (!ok)
        return;
    QString error;
    const auto ways = parseWays(text, &error);
    if (!ways) {
        QMessageBox::warning(this, tr("Pin core split"), error);
        return;
    }
    pinCoreSplit(opName, *ways);
}

void MainWindow::compile(const QString& path, const CompileRequest& given)
{
    CompileRequest request = given;
    request.plugins = passPlugins_;
    if (request.load.dimValues.empty())
        request.load.dimValues = SymbolicDimsDialog::remembered(path);
    const QString title = tr("Compiling %1").arg(QFileInfo(path).fileName());
    problems_->clearProblems();
    addRecentFile(QFileInfo(path).absoluteFilePath());
    connect(
        jobs_, &JobRunner::failed, this,
        [this, path](const QString&, const QString& message) { emit documentFailed(path, message); },
        Qt::SingleShotConnection);
    const QString dbPath = windowSession_ ? QString::fromStdString(windowSession_->store().path()) : QString();
    const session::RowId sessionId = windowSession_ ? windowSession_->id() : 0;
    // A pinned recompile is an experiment: its history point is tagged, never a regression.
    const bool whatIf = !request.spyre.pins.empty() || !request.spyre.splitPins.empty();
    jobs_->start(
        title,
        [path, dbPath, sessionId, request, whatIf](JobControl& control) -> std::any {
            CompiledDocument doc = compileDocument(path, control, request);
            if (!dbPath.isEmpty())
                recordRun(doc, dbPath.toStdString(), sessionId, whatIf ? session::kWhatIfRunKind : "compile");
            return doc;
        },
        [this, path](std::any result) {
            auto doc = std::any_cast<CompiledDocument>(std::move(result));
            for (const Diagnostic& d : doc.diagnostics)
                problems_->addProblem(d);
            if (!doc.simulationNote.isEmpty())
                problems_->log(doc.simulationNote);
            document_->setCompiled(std::move(doc));
            showWhatIf();
            charts_->showArtifact(path);
            emit documentOpened(path);
        });
}

void MainWindow::openDialog()
{
    QSettings settings;
    const QString dir = settings.value(QStringLiteral("lastOpenDir"), QDir::homePath()).toString();
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Model or Circuit"), dir,
        tr("Models and circuits (*.onnx *.onnxtxt *.qasm);;ONNX models (*.onnx *.onnxtxt);;OpenQASM circuits (*.qasm);;All files (*)"));
    if (path.isEmpty())
        return;
    settings.setValue(QStringLiteral("lastOpenDir"), QFileInfo(path).absolutePath());
    openFile(path);
}

namespace {

bool writeFile(const QString& path, const std::string& text, QString* error)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), static_cast<qint64>(text.size())) < 0 || !f.commit()) {
        *error = f.errorString();
        return false;
    }
    return true;
}

}  // namespace

QString MainWindow::exportLabel(ExportKind kind)
{
    switch (kind) {
    case ExportKind::PassDumps: return tr("IR of every pass (folder of NN-pass.txt)");
    case ExportKind::KernelBundle: return tr("Kernel bundle (folder)");
    case ExportKind::ChromeTrace: return tr("Chrome trace of the Spyre simulation (JSON)");
    case ExportKind::GraphDot: return tr("Graph of this pass as DOT");
    case ExportKind::GraphSvg: return tr("Graph of this pass as SVG");
    case ExportKind::GraphPng: return tr("Graph of this pass as PNG");
    case ExportKind::CircuitQasm: return tr("Optimised circuit as OpenQASM 2.0");
    case ExportKind::CircuitQir: return tr("Optimised circuit as QIR (LLVM IR)");
    case ExportKind::CircuitSvg: return tr("Circuit of this pass as SVG");
    case ExportKind::CircuitPng: return tr("Circuit of this pass as PNG");
    }
    return {};
}

std::vector<MainWindow::ExportKind> MainWindow::availableExports() const
{
    std::vector<ExportKind> kinds;
    if (document_->passes().empty())
        return kinds;
    kinds.push_back(ExportKind::PassDumps);
    const bool model = document_->kind() == DocumentKind::Model;
    const auto program = document_->compiled().programs.empty() ? nullptr : document_->compiled().programs.back();
    if (model && program && program->bundle)
        kinds.push_back(ExportKind::KernelBundle);
    if (model && document_->compiled().simulation && document_->compiled().simulation->trace)
        kinds.push_back(ExportKind::ChromeTrace);
    if (model)
        kinds.insert(kinds.end(), {ExportKind::GraphDot, ExportKind::GraphSvg, ExportKind::GraphPng});
    if (document_->kind() == DocumentKind::Circuit)
        kinds.insert(kinds.end(), {ExportKind::CircuitQasm, ExportKind::CircuitQir, ExportKind::CircuitSvg, ExportKind::CircuitPng});
    return kinds;
}

void MainWindow::exportDialog()
{
    // What can be exported depends on what is open; the dialog offers exactly that.
    const std::vector<ExportKind> kinds = availableExports();
    if (kinds.empty())
        return;
    QStringList labels;
    for (ExportKind k : kinds)
        labels << exportLabel(k);
    bool ok = false;
    const QString choice = QInputDialog::getItem(this, tr("Export"), tr("What to export:"), labels, 0, false, &ok);
    if (ok && labels.contains(choice))
        exportAs(kinds[static_cast<size_t>(labels.indexOf(choice))]);
}

bool MainWindow::exportAs(ExportKind kind, const QString& givenPath)
{
    const QString label = exportLabel(kind);
    auto askFile = [&](const QString& filter) {
        return givenPath.isEmpty() ? QFileDialog::getSaveFileName(this, label, QString(), filter) : givenPath;
    };
    auto askDir = [&]() { return givenPath.isEmpty() ? QFileDialog::getExistingDirectory(this, label) : givenPath; };
    QString error;
    QString target;
    bool done = false;
    try {
        switch (kind) {
        case ExportKind::PassDumps:
            target = askDir();
            if (target.isEmpty())
                return false;
            writePassDumps(target.toStdString(), document_->passes());
            done = true;
            break;
        case ExportKind::KernelBundle:
            target = askDir();
            if (target.isEmpty())
                return false;
            spyre::exportKernelBundle(*document_->compiled().programs.back()->bundle, target.toStdString());
            done = true;
            break;
        case ExportKind::ChromeTrace: {
            const auto& sim = document_->compiled().simulation;
            if (!sim || !sim->trace) {
                target = givenPath;
                error = tr("the open document has no simulator trace");
                break;
            }
            target = askFile(QStringLiteral("*.json"));
            if (target.isEmpty())
                return false;
            std::ostringstream json;
            writeChromeTrace(*sim->trace, json, "Spyre simulator: " + QFileInfo(document_->path()).fileName().toStdString());
            done = writeFile(target, json.str(), &error);
            break;
        }
        case ExportKind::GraphDot:
        case ExportKind::GraphSvg:
        case ExportKind::GraphPng:
            target = askFile(kind == ExportKind::GraphDot ? QStringLiteral("*.dot") : kind == ExportKind::GraphSvg ? QStringLiteral("*.svg") : QStringLiteral("*.png"));
            if (target.isEmpty())
                return false;
            done = kind == ExportKind::GraphDot ? graphView_->exportDot(target) : kind == ExportKind::GraphSvg ? graphView_->exportSvg(target) : graphView_->exportPng(target);
            break;
        case ExportKind::CircuitQasm:
        case ExportKind::CircuitQir: {
            const bool qir = kind == ExportKind::CircuitQir;
            target = askFile(qir ? QStringLiteral("*.ll") : QStringLiteral("*.qasm"));
            if (target.isEmpty())
                return false;
            const quantum::Circuit& c = *document_->compiled().circuits.back();
            done = writeFile(target, qir ? quantum::exportQir(c) : quantum::exportQasm(c), &error);
            break;
        }
        case ExportKind::CircuitSvg:
        case ExportKind::CircuitPng:
            target = askFile(kind == ExportKind::CircuitSvg ? QStringLiteral("*.svg") : QStringLiteral("*.png"));
            if (target.isEmpty())
                return false;
            done = kind == ExportKind::CircuitSvg ? circuitView_->exportSvg(target) : circuitView_->exportPng(target);
            break;
        }
    } catch (const std::exception& e) {
        error = QString::fromStdString(e.what());
        done = false;
    }
    if (!done) {
        problems_->addErrorText(target + QStringLiteral(": error: export failed") + (error.isEmpty() ? QString() : QStringLiteral(": ") + error));
        return false;
    }
    problems_->log(tr("exported %1 to %2").arg(label, target));
    return true;
}

void MainWindow::showAbout()
{
    QString text = tr("<h3>Spyglass %1</h3><p>Watch a Spyre accelerator compiler and a quantum circuit compiler "
                      "work, pass by pass, and run what they produce on built-in simulators.</p><table>")
                       .arg(QString::fromStdString(spyglassVersion()));
    auto row = [&text](const QString& name, const QString& version) {
        text += QStringLiteral("<tr><td>%1</td><td>&nbsp;%2</td></tr>").arg(name, version);
    };
    for (const auto& [name, version] : coreLibraryVersions())
        row(QString::fromStdString(name), QString::fromStdString(version));
    row(QStringLiteral("Dear ImGui"), QString::fromLatin1(IMGUI_VERSION));
    row(QStringLiteral("Graphviz"), graphvizVersion());
    text += QStringLiteral("</table>");
    QMessageBox::about(this, tr("About Spyglass"), text);
}

QStringList MainWindow::recentFiles() const { return QSettings().value(kRecentKey).toStringList(); }

void MainWindow::addRecentFile(const QString& path)
{
    QStringList files = recentFiles();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    QSettings().setValue(kRecentKey, files);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    recentMenu_->clear();
    const QStringList files = recentFiles();
    for (const QString& f : files)
        recentMenu_->addAction(QFileInfo(f).fileName() + QStringLiteral("  —  ") + QFileInfo(f).absolutePath(), this,
                               [this, f] { openFile(f); });
    if (!files.isEmpty()) {
        recentMenu_->addSeparator();
        recentMenu_->addAction(tr("Clear Recent Files"), this, [this] {
            QSettings().remove(kRecentKey);
            rebuildRecentMenu();
        });
    }
    recentMenu_->setEnabled(!files.isEmpty());
}

void MainWindow::rebuildExamplesMenu()
{
    examplesMenu_->clear();
    for (const std::string& file : listResourceFiles("examples")) {
        const QString path = QString::fromStdString(file);
        examplesMenu_->addAction(QFileInfo(path).fileName(), this, [this, path] { openFile(path); });
    }
    examplesMenu_->setEnabled(!examplesMenu_->isEmpty());
}

QDockWidget* MainWindow::dock(const QString& objectName) const
{
    for (QDockWidget* d : docks_)
        if (d->objectName() == objectName)
            return d;
    return nullptr;
}

void MainWindow::applyLayoutFor(DocumentKind kind)
{
    if (layoutKind_ == kind)
        return;   // the same kind again: keep what the user arranged
    layoutKind_ = kind;
    const bool model = kind == DocumentKind::Model || kind == DocumentKind::KernelBundle;
    const bool circuit = kind == DocumentKind::Circuit;
    auto setShown = [this](const char* name, bool shown) {
        if (QDockWidget* d = dock(QLatin1String(name)))
            d->setVisible(shown);
    };
    setShown("stateDock", circuit);
    for (const char* name : {"timelineDock", "workDivisionDock", "stickLayoutDock", "scratchpadDock"})
        setShown(name, model);
    // Problems only when there is one (problemAdded brings it back); an empty one at start-up is noise.
    if (problems_->problemCount() == 0)
        setShown("problemsDock", false);
    if (QDockWidget* d = dock(QLatin1String(model ? "timelineDock" : "chartsDock")); d && d->isVisible())
        d->raise();
}

void MainWindow::restoreLayout()
{
    QSettings settings;
    restoreGeometry(settings.value(kGeometryKey).toByteArray());
    if (!restoreState(settings.value(kStateKey).toByteArray(), kLayoutVersion))
        resize(1400, 900);
}

void MainWindow::saveLayout()
{
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState(kLayoutVersion));
}

void MainWindow::closeEvent(QCloseEvent* e)
{
    jobs_->cancel();
    saveLayout();
    e->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e)
{
    if (!e->mimeData()->hasUrls())
        return;
    for (const QUrl& url : e->mimeData()->urls())
        if (url.isLocalFile()) {
            e->acceptProposedAction();
            return;
        }
}

void MainWindow::dropEvent(QDropEvent* e)
{
    for (const QUrl& url : e->mimeData()->urls())
        if (url.isLocalFile()) {
            openFile(url.toLocalFile());
            e->acceptProposedAction();
            return;
        }
}

void MainWindow::updateActions()
{
    const int n = static_cast<int>(document_->passes().size());
    const int sel = document_->selectedPass();
    stepBackAction_->setEnabled(sel > 0);
    firstAction_->setEnabled(sel > 0);
    stepForwardAction_->setEnabled(sel >= 0 && sel < n - 1);
    lastAction_->setEnabled(sel >= 0 && sel < n - 1);
    exportAction_->setEnabled(n > 0);
}

void MainWindow::updateTitle()
{
    setWindowFilePath(document_->path());
    setWindowTitle(document_->isOpen() ? QFileInfo(document_->path()).fileName() + QStringLiteral(" — Spyglass")
                                       : QStringLiteral("Spyglass"));
}

void MainWindow::runVqe(const quantum::VqeOptions& options, const QString& hamiltonianFile)
{
    const QString dbPath = windowSession_ ? QString::fromStdString(windowSession_->store().path()) : QString();
    const session::RowId sessionId = windowSession_ ? windowSession_->id() : 0;
    const std::string hfile = hamiltonianFile.toStdString();
    // A bad Hamiltonian file fails the job: the runner's failed() puts its file:line:column in Problems.
    jobs_->start(
        tr("VQE, %1 qubits").arg(options.qubits),
        [options, hfile, dbPath, sessionId](JobControl& control) -> std::any {
            quantum::VqeReport report = quantum::runVqeReport(options, hfile, true, &control);
            QString note;
            if (!dbPath.isEmpty()) {
                // Its own connection on the worker; a store that cannot be written costs the history, not the run.
                try {
                    session::SessionStore store(dbPath.toStdString());
                    session::SessionRecorder recorder(store, sessionId);
                    recordVqeRun(report, hfile, recorder);
                } catch (const std::exception& e) {
                    note = QStringLiteral("this VQE run was not recorded in the session history: %1").arg(QString::fromUtf8(e.what()));
                }
            }
            return std::make_pair(std::move(report), note);
        },
        [this](std::any result) {
            auto [report, note] = std::any_cast<std::pair<quantum::VqeReport, QString>>(std::move(result));
            if (!note.isEmpty())
                problems_->log(note);
            vqeView_->setReport(std::move(report), tr("run in this window"));
            centralTabs_->setCurrentWidget(vqeView_);
        });
}

bool MainWindow::showRecordedVqeRun(qint64 runId)
{
    if (!windowSession_) {
        problems_->addProblem(Diagnostic{Severity::Error, {}, "no session history is open, so there are no recorded VQE runs", {}, {}});
        return false;
    }
    try {
        session::SessionStore& store = windowSession_->store();
        quantum::VqeReport report = recordedVqeReport(store, runId);
        QString origin = tr("run %1").arg(runId);
        if (const auto detail = store.runDetail(runId))
            if (const auto s = store.session(detail->run.sessionId))
                origin = tr("run %1 of session '%2', %3").arg(runId).arg(QString::fromStdString(s->name), QString::fromStdString(detail->run.startedAt));
        vqeView_->setReport(std::move(report), origin);
        centralTabs_->setCurrentWidget(vqeView_);
        return true;
    } catch (const InputError& e) {
        problems_->addProblem(e.diagnostic());
        return false;
    }
}

void MainWindow::vqeDialog()
{
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Run VQE"));
    auto* form = new QFormLayout(&dialog);
    auto spin = [&](int lo, int hi, int value) {
        auto* s = new QSpinBox(&dialog);
        s->setRange(lo, hi);
        s->setValue(value);
        return s;
    };
    const quantum::VqeOptions defaults;
    QSpinBox* qubits = spin(1, 24, defaults.qubits);
    QSpinBox* layers = spin(0, 50, defaults.layers);
    auto* optimizer = new QComboBox(&dialog);
    optimizer->addItems({QStringLiteral("nelder-mead"), QStringLiteral("spsa")});
    QSpinBox* iterations = spin(0, 1000000, defaults.iterations);
    QSpinBox* seed = spin(0, std::numeric_limits<int>::max(), static_cast<int>(defaults.seed));
    auto* hamiltonian = new QLineEdit(&dialog);
    hamiltonian->setPlaceholderText(tr("empty: the transverse-field Ising chain"));
    auto* browse = new QPushButton(tr("Browse…"), &dialog);
    connect(browse, &QPushButton::clicked, &dialog, [&] {
        const QString f = QFileDialog::getOpenFileName(&dialog, tr("Hamiltonian"), QString(), tr("Pauli sums (*.txt *.ham *.pauli);;All files (*)"));
        if (!f.isEmpty())
            hamiltonian->setText(f);
    });
    auto* hrow = new QHBoxLayout;
    hrow->addWidget(hamiltonian, 1);
    hrow->addWidget(browse);
    form->addRow(tr("Qubits"), qubits);
    form->addRow(tr("Ansatz layers"), layers);
    form->addRow(tr("Optimiser"), optimizer);
    form->addRow(tr("Iterations"), iterations);
    form->addRow(tr("Seed"), seed);
    form->addRow(tr("Hamiltonian file"), hrow);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    form->addRow(buttons);
    if (dialog.exec() != QDialog::Accepted)
        return;
    quantum::VqeOptions o;
    o.qubits = qubits->value();
    o.layers = layers->value();
    o.optimizer = optimizer->currentText().toStdString();
    o.iterations = iterations->value();
    o.seed = static_cast<uint64_t>(seed->value());
    runVqe(o, hamiltonian->text().trimmed());
}

void MainWindow::recordedVqeDialog()
{
    if (!windowSession_) {
        showRecordedVqeRun(0);   // says why there is nothing
        return;
    }
    const std::vector<RecordedVqeRun> runs = recordedVqeRuns(windowSession_->store());
    if (runs.empty()) {
        QMessageBox::information(this, tr("Open VQE Run"),
                                 tr("The session history has no VQE runs yet. Run one with Quantum > Run VQE… or "
                                    "spyglass-cli vqe --session NAME."));
        return;
    }
    QStringList labels;
    for (const RecordedVqeRun& r : runs) {
        const QJsonObject result = QJsonDocument::fromJson(QByteArray::fromStdString(r.run.resultJson)).object();
        labels << tr("run %7 · %1 · session '%2' · %3 qubits, %4, %5 iterations · E = %6")
                      .arg(QString::fromStdString(r.run.startedAt), QString::fromStdString(r.sessionName))
                      .arg(result.value(QLatin1String("qubits")).toInt())
                      .arg(result.value(QLatin1String("optimizer")).toString())
                      .arg(result.value(QLatin1String("iterations")).toInt())
                      .arg(result.value(QLatin1String("energy")).toDouble(), 0, 'f', 6)
                      .arg(r.run.id);
    }
    bool ok = false;
    const QString choice = QInputDialog::getItem(this, tr("Open VQE Run"), tr("Recorded VQE runs, newest first:"), labels, 0, false, &ok);
    if (ok)
        showRecordedVqeRun(runs[static_cast<size_t>(labels.indexOf(choice))].run.id);
}

}  // namespace spyglass
