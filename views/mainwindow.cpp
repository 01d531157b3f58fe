#include "views/mainwindow.h"

#include "core/common/pass_dump.h"
#include "core/common/units.h"
#include "core/plugins/pass_plugin_loader.h"

#include "views/chartsview.h"
#include "views/tuningchart.h"
#include "views/document.h"
#include "views/graphlayout.h"
#include "views/graphview.h"
#include "views/jobrunner.h"
#include "views/problemsview.h"
#include "views/spyregraph.h"
#include "views/symbolicdimsdialog.h"
#include "views/vqedialogs.h"
#include "views/vqeview.h"

#include "core/common/resource_paths.h"
#include "core/common/units.h"
#include "core/common/versions.h"
#include "core/plugins/pass_plugin_loader.h"
#include "core/quantum/vqe_report.h"
#include "core/session/session_store.h"
#include "core/spyre/loop_ir.h"
#include "core/spyre/spyre_target.h"
#include "core/spyresim/spyre_simulator.h"
#include "core/workbench/vqe_record.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QRegularExpression>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

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

    // A session per window in the history database; without one (an unusable database) the window still works.
    std::optional<Diagnostic> noHistory;
    try {
        windowSession_ = std::make_unique<WindowSession>();
    } catch (const InputError& e) {
        noHistory = e.diagnostic();
    }
    views_ = new WindowViews(document_, this, windowSession_ ? &windowSession_->store() : nullptr);
    if (noHistory)
        views_->problems()->addProblem(*noHistory);
    if (windowSession_)
        views_->charts()->selectSession(windowSession_->id());
    offerNumbersBisect(views_->problems(), document_, jobs_);
    whatIfBanner_ = new QLabel(this);
    whatIfBanner_->setObjectName(QStringLiteral("whatIfBanner"));
    whatIfBanner_->setWordWrap(true);
    whatIfBanner_->setStyleSheet(QStringLiteral("QLabel { background: #fff4d6; border: 1px solid #e0c060; padding: 4px; }"));
    whatIfBanner_->hide();
    auto* centre = new QWidget(this);
    auto* centreLayout = new QVBoxLayout(centre);
    centreLayout->setContentsMargins(0, 0, 0, 0);
    centreLayout->setSpacing(0);
    centreLayout->addWidget(whatIfBanner_);
    centreLayout->addWidget(views_->centralTabs(), 1);
    setCentralWidget(centre);

    createActions();
    createMenus();
    createStatusBar();
    defaultState_ = saveState(kLayoutVersion);
    restoreLayout();
    applyLayoutFor(DocumentKind::Unknown);
    connect(views_->problems(), &ProblemsView::problemAdded, this, [this] {
        if (QDockWidget* d = dock(QStringLiteral("problemsDock"))) {
            d->show();
            d->raise();
        }
    });

    connect(document_, &Document::documentChanged, this, &MainWindow::updateActions);
    connect(document_, &Document::selectedPassChanged, this, &MainWindow::updateActions);
    connect(document_, &Document::documentChanged, this, &MainWindow::updateTitle);
    connect(document_, &Document::documentChanged, this, [this] {
        applyLayoutFor(document_->kind());
        showSimulation();
    });
    // After the layout of the kind is applied, so that a failed numbers check brings Problems forward over it.
    connect(document_, &Document::documentChanged, this, &MainWindow::showNumbersCheck);
    connect(views_->graph(), &GraphView::nodeContextMenuRequested, this, &MainWindow::showGraphNodeMenu);
    updateActions();
    updateTitle();
}

MainWindow::~MainWindow()
{
    jobs_->cancel();
    jobs_->waitForIdle();
    delete views_;   // its Charts read the window session's store: gone before the session ends
    views_ = nullptr;
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
        for (const WindowViews::Dock& d : views_->docks())
            d.dock->show();
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
    pipeline->addSeparator();
    pipeline->addAction(tr("&Tune Plan (Splits and Device Orders)"), this, [this] {
        if (document_->kind() != DocumentKind::Model) {
            views_->problems()->log(tr("Tune Plan needs an open model"));
            return;
        }
        CompileRequest request;
        request.spyre.pins = document_->compiled().pins;
        request.spyre.splitPins = document_->compiled().splitPins;   // the tuner leaves pinned ops as they are
        request.plugins = passPlugins_;
        views_->tuning()->tune(jobs_, document_->path(), request, windowSession_ ? QString::fromStdString(windowSession_->store().path()) : QString(),
                               windowSession_ ? windowSession_->id() : 0);
        views_->tuning()->parentWidget()->raise();
    });

    QMenu* quantum = menuBar()->addMenu(tr("&Quantum"));
    quantum->addAction(tr("Run &VQE…"), this, [this] {
        if (const auto request = askVqeRun(this))
            runVqe(request->options, request->hamiltonianFile);
    });
    quantum->addAction(tr("&Open VQE Run from the Session History…"), this, [this] {
        if (!windowSession_)
            showRecordedVqeRun(0);   // says why there is nothing
        else if (const auto run = askRecordedVqeRun(this, windowSession_->store()))
            showRecordedVqeRun(*run);
    });

    viewMenu_ = menuBar()->addMenu(tr("&View"));
    for (const WindowViews::Dock& d : views_->docks())
        viewMenu_->addAction(d.dock->toggleViewAction());
    viewMenu_->addSeparator();
    viewMenu_->addAction(resetLayoutAction_);
    // Window-wide Ctrl+F brings the Graph forward with its find field (the view's own shortcut needs its focus).
    viewMenu_->addAction(tr("&Find in Graph…"), QKeySequence::Find, this, [this] {
        views_->centralTabs()->setCurrentWidget(views_->graph());
        views_->graph()->showFind();
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
        views_->problems()->log(tr("started: %1").arg(title));
    });
    connect(jobs_, &JobRunner::progress, this, [this](double f, const QString& what) {
        progress_->setValue(static_cast<int>(f * 1000));
        progress_->setFormat(what);
    });
    connect(jobs_, &JobRunner::finished, this, [this, showBusy](const QString& title) {
        showBusy(false);
        statusLabel_->setText(tr("%1: done").arg(title));
        views_->problems()->log(tr("finished: %1").arg(title));
    });
    connect(jobs_, &JobRunner::failed, this, [this, showBusy](const QString& title, const QString& message) {
        showBusy(false);
        statusLabel_->setText(tr("%1: failed").arg(title));
        views_->problems()->addErrorText(message);
    });
    connect(jobs_, &JobRunner::cancelled, this, [this, showBusy](const QString& title) {
        showBusy(false);
        statusLabel_->setText(tr("%1: cancelled").arg(title));
        views_->problems()->log(tr("cancelled: %1").arg(title));
    });
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

void MainWindow::openFile(const QString& path)
{
    // A what-if whose recompile failed must not compare its plan with the next file opened.
    whatIf_.reset();
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
        views_->problems()->log(tr("Loaded pass plugin '%1' (%2): %3").arg(QString::fromStdString(p.name), path, passes.join(QStringLiteral(", "))));
    } catch (const InputError& e) {
        views_->problems()->addProblem(e.diagnostic());
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

QString MainWindow::whatIfText() const { return whatIfBanner_->isHidden() ? QString() : whatIfBanner_->text(); }

void MainWindow::recompileWithPins(const StickPins& pins, const SplitPins& splitPins)
{
    if (document_->compiled().programs.empty())
        return;
    const std::string pass = document_->selectedRecord() ? document_->selectedRecord()->name : std::string();
    compile(document_->path(), whatIf_.recompile(document_->compiled(), pass, pins, splitPins));
}

void MainWindow::showWhatIf()
{
    const WhatIf::Outcome out = whatIf_.compiled(document_->compiled());
    if (out.bannerHtml.isEmpty()) {
        whatIfBanner_->setVisible(out.shown);
        return;
    }
    whatIfBanner_->setText(out.bannerHtml);
    whatIfBanner_->show();
    views_->problems()->log(QString(out.bannerHtml).remove(QRegularExpression(QStringLiteral("<[^>]*>"))));
    // Stay on the pass the user was looking at.
    const auto& passes = document_->passes();
    for (size_t i = 0; i < passes.size(); ++i)
        if (passes[i].name == out.pass)
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
    const int cores = document_->compiled().target ? document_->compiled().target->cores : 0;
    if (const auto ways = WhatIf::askCoreSplit(this, *document_->compiled().programs.back(), opName, cores))
        pinCoreSplit(opName, *ways);
}

void MainWindow::compile(const QString& path, const CompileRequest& given)
{
    CompileRequest request = given;
    request.plugins = passPlugins_;
    if (request.load.dimValues.empty())
        request.load.dimValues = SymbolicDimsDialog::remembered(path);
    const QString title = tr("Compiling %1").arg(QFileInfo(path).fileName());
    views_->problems()->clearProblems();
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
                views_->problems()->addProblem(d);
            if (!doc.simulationNote.isEmpty())
                views_->problems()->log(doc.simulationNote);
            document_->setCompiled(std::move(doc));
            showWhatIf();
            views_->charts()->showArtifact(path);
            emit documentOpened(path);
        });
}

void MainWindow::openDialog()
{
    QSettings settings;
    const QString dir = settings.value(QStringLiteral("lastOpenDir"), QDir::homePath()).toString();
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Model or Circuit"), dir,
        tr("Models, circuits and VQE recipes (*.onnx *.onnxtxt *.qasm *.vqe);;ONNX models (*.onnx *.onnxtxt);;OpenQASM circuits (*.qasm);;VQE recipes (*.vqe);;All files (*)"));
    if (path.isEmpty())
        return;
    settings.setValue(QStringLiteral("lastOpenDir"), QFileInfo(path).absolutePath());
    openFile(path);
}

void MainWindow::exportDialog()
{
    // What can be exported depends on what is open; the dialog offers exactly that.
    const std::vector<ExportKind> kinds = availableExports(*document_);
    if (kinds.empty())
        return;
    // Each entry carries its kind: the choice is never recovered from a (translated) label.
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Export"));
    auto* layout = new QVBoxLayout(&dialog);
    layout->addWidget(new QLabel(tr("What to export:"), &dialog));
    auto* list = new QListWidget(&dialog);
    list->setObjectName(QStringLiteral("exportChoices"));
    for (ExportKind k : kinds) {
        auto* item = new QListWidgetItem(exportLabel(k), list);
        item->setData(Qt::UserRole, static_cast<int>(k));
    }
    list->setCurrentRow(0);
    layout->addWidget(list);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    connect(list, &QListWidget::itemDoubleClicked, &dialog, &QDialog::accept);
    layout->addWidget(buttons);
    if (dialog.exec() == QDialog::Accepted && list->currentItem())
        exportAs(static_cast<ExportKind>(list->currentItem()->data(Qt::UserRole).toInt()));
}

bool MainWindow::exportAs(ExportKind kind, const QString& givenPath)
{
    const QString label = exportLabel(kind);
    QString target = givenPath;
    if (target.isEmpty())
        target = exportIsFolder(kind) ? QFileDialog::getExistingDirectory(this, label) : QFileDialog::getSaveFileName(this, label, QString(), exportFilter(kind));
    if (target.isEmpty())
        return false;
    const QString error = writeExport(kind, target, *document_, *views_->graph(), *views_->circuit());
    if (!error.isEmpty()) {
        views_->problems()->addErrorText(target + QStringLiteral(": error: export failed: ") + error);
        return false;
    }
    views_->problems()->log(tr("exported %1 to %2").arg(label, target));
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

QList<QDockWidget*> MainWindow::docks() const
{
    QList<QDockWidget*> all;
    for (const WindowViews::Dock& d : views_->docks())
        all.append(d.dock);
    return all;
}

void MainWindow::applyLayoutFor(DocumentKind kind)
{
    if (layoutKind_ == kind)
        return;   // the same kind again: keep what the user arranged
    const std::optional<DocumentKind> previous = layoutKind_;
    layoutKind_ = kind;
    for (const WindowViews::Dock& d : views_->docks()) {
        if (!d.shownFor.empty())
            d.dock->setVisible(d.shows(kind));
        else if (d.hides(kind))
            d.dock->hide();
        else if (previous && d.hides(*previous))
            d.dock->show();   // leaving a kind that hid it brings it back
    }
    // Problems only when there is one (problemAdded brings it back); an empty one at start-up is noise.
    if (views_->problems()->problemCount() == 0)
        dock(QStringLiteral("problemsDock"))->hide();
    const bool model = kind == DocumentKind::Model || kind == DocumentKind::KernelBundle;
    if (QDockWidget* d = dock(model ? QStringLiteral("timelineDock") : QStringLiteral("chartsDock")); d && d->isVisible())
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
            const std::string note = dbPath.isEmpty() ? std::string() : recordVqeRun(report, hfile, dbPath.toStdString(), sessionId);
            return std::make_pair(std::move(report), note);
        },
        [this](std::any result) {
            auto [report, note] = std::any_cast<std::pair<quantum::VqeReport, std::string>>(std::move(result));
            if (!note.empty())
                views_->problems()->log(QString::fromStdString(note));
            views_->vqe()->setReport(std::move(report), tr("run in this window"));
            views_->centralTabs()->setCurrentWidget(views_->vqe());
        });
}

bool MainWindow::showRecordedVqeRun(qint64 runId)
{
    if (!windowSession_) {
        views_->problems()->addProblem(Diagnostic{Severity::Error, {}, "no session history is open, so there are no recorded VQE runs", {}, {}});
        return false;
    }
    try {
        session::SessionStore& store = windowSession_->store();
        quantum::VqeReport report = recordedVqeReport(store, runId);
        QString origin = tr("run %1").arg(runId);
        if (const auto detail = store.runDetail(runId))
            if (const auto s = store.session(detail->run.sessionId))
                origin = tr("run %1 of session '%2', %3").arg(runId).arg(QString::fromStdString(s->name), QString::fromStdString(detail->run.startedAt));
        views_->vqe()->setReport(std::move(report), origin);
        views_->centralTabs()->setCurrentWidget(views_->vqe());
        return true;
    } catch (const InputError& e) {
        views_->problems()->addProblem(e.diagnostic());
        return false;
    }
}

}  // namespace spyglass
