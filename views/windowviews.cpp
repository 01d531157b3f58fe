#include "views/windowviews.h"

#include "views/chartsview.h"
#include "views/circuitinspect.h"
#include "views/circuitview.h"
#include "views/document.h"
#include "views/graphview.h"
#include "views/imguihost.h"
#include "views/inspectorview.h"
#include "views/irview.h"
#include "views/pipelineview.h"
#include "views/problemsview.h"
#include "views/scratchpadmappanel.h"
#include "views/spyregraph.h"
#include "views/spyreinspect.h"
#include "views/stateview.h"
#include "views/sticklayoutview.h"
#include "views/timelinepanel.h"
#include "views/tuningchart.h"
#include "views/vqeview.h"
#include "views/workdivisionview.h"

#include "core/quantum/circuit.h"
#include "core/workbench/workbench.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QTabWidget>

#include <algorithm>

namespace spyglass {

bool WindowViews::Dock::shows(DocumentKind kind) const
{
    return shownFor.empty() ? !hides(kind) : std::find(shownFor.begin(), shownFor.end(), kind) != shownFor.end();
}

bool WindowViews::Dock::hides(DocumentKind kind) const { return std::find(hiddenFor.begin(), hiddenFor.end(), kind) != hiddenFor.end(); }

QDockWidget* WindowViews::addDock(QMainWindow* window, const QString& title, const QString& objectName, QWidget* w, Qt::DockWidgetArea area,
                                  std::vector<DocumentKind> shownFor, std::vector<DocumentKind> hiddenFor)
{
    auto* dock = new QDockWidget(title, window);
    dock->setObjectName(objectName);
    dock->setWidget(w);
    window->addDockWidget(area, dock);
    docks_.push_back(Dock{dock, std::move(shownFor), std::move(hiddenFor)});
    return dock;
}

QDockWidget* WindowViews::dock(const QString& objectName) const
{
    for (const Dock& d : docks_)
        if (d.dock->objectName() == objectName)
            return d.dock;
    return nullptr;
}

WindowViews::WindowViews(Document* document, QMainWindow* window, session::SessionStore* history) : QObject(window), document_(document)
{
    centralTabs_ = new QTabWidget(window);
    centralTabs_->setObjectName(QStringLiteral("centralTabs"));
    centralTabs_->setDocumentMode(true);
    ir_ = new IrView(document_, centralTabs_);
    graph_ = new GraphView(centralTabs_);
    circuit_ = new CircuitView(centralTabs_);
    vqe_ = new VqeView(centralTabs_);
    centralTabs_->addTab(ir_, tr("IR"));
    centralTabs_->addTab(graph_, tr("Graph"));
    centralTabs_->addTab(circuit_, tr("Circuit"));
    centralTabs_->addTab(vqe_, tr("VQE"));

    const std::vector<DocumentKind> spyre{DocumentKind::Model, DocumentKind::KernelBundle};
    // A VQE recipe has no passes to step through and no ops to inspect.
    pipeline_ = new PipelineView(document_, window);
    QDockWidget* pipelineDock =
        addDock(window, tr("Pipeline"), QStringLiteral("pipelineDock"), pipeline_, Qt::LeftDockWidgetArea, {}, {DocumentKind::Vqe});
    inspector_ = new InspectorView(window);
    QDockWidget* inspectorDock =
        addDock(window, tr("Inspector"), QStringLiteral("inspectorDock"), inspector_, Qt::RightDockWidgetArea, {}, {DocumentKind::Vqe});
    state_ = new StateView(document_, window);
    QDockWidget* stateDock = addDock(window, tr("State"), QStringLiteral("stateDock"), state_, Qt::RightDockWidgetArea, {DocumentKind::Circuit});
    problems_ = new ProblemsView(window);
    QDockWidget* problemsDock = addDock(window, tr("Problems"), QStringLiteral("problemsDock"), problems_, Qt::BottomDockWidgetArea, {});
    auto timeline = std::make_unique<TimelinePanel>();
    timeline_ = timeline.get();
    timelineHost_ = new ImGuiHost(std::move(timeline), window);
    window->tabifyDockWidget(problemsDock, addDock(window, tr("Timeline"), QStringLiteral("timelineDock"), timelineHost_, Qt::BottomDockWidgetArea, spyre));
    workDivision_ = new WorkDivisionView(window);
    window->tabifyDockWidget(problemsDock,
                             addDock(window, tr("Work division"), QStringLiteral("workDivisionDock"), workDivision_, Qt::BottomDockWidgetArea, spyre));
    stickLayout_ = new StickLayoutView(window);
    window->tabifyDockWidget(problemsDock,
                             addDock(window, tr("Stick layout"), QStringLiteral("stickLayoutDock"), stickLayout_, Qt::BottomDockWidgetArea, spyre));
    auto scratchpad = std::make_unique<ScratchpadMapPanel>();
    scratchpad_ = scratchpad.get();
    scratchpadHost_ = new ImGuiHost(std::move(scratchpad), window);
    window->tabifyDockWidget(problemsDock,
                             addDock(window, tr("Scratchpad"), QStringLiteral("scratchpadDock"), scratchpadHost_, Qt::BottomDockWidgetArea, spyre));
    charts_ = new ChartsView(history, window);
    QDockWidget* chartsDock = addDock(window, tr("Charts"), QStringLiteral("chartsDock"), charts_, Qt::BottomDockWidgetArea, {});
    window->tabifyDockWidget(problemsDock, chartsDock);
    tuning_ = new TuningChart(window);
    window->tabifyDockWidget(chartsDock, addDock(window, tr("Tuning"), QStringLiteral("tuningDock"), tuning_, Qt::BottomDockWidgetArea, spyre));
    connect(tuning_, &TuningChart::tuned, this, [this](double, const QString& note) {
        problems_->log(tuning_->summary() + (note.isEmpty() ? QString() : QStringLiteral("; ") + note));
    });
    problemsDock->raise();
    window->resizeDocks({pipelineDock, inspectorDock}, {360, 420}, Qt::Horizontal);
    window->resizeDocks({inspectorDock, stateDock}, {260, 520}, Qt::Vertical);
    window->resizeDocks({problemsDock}, {170}, Qt::Vertical);

    // The pictures of the selected pass follow the document themselves.
    circuit_->followDocument(document_);
    // The State view steps along the circuit the Circuit view draws (connected after it, so its columns are current).
    auto stepColumns = [this] { state_->setStepColumns(circuit_->circuit() ? circuit_->columnCount() : 0); };
    connect(document_, &Document::documentChanged, this, stepColumns);
    connect(document_, &Document::selectedPassChanged, this, stepColumns);
    connect(state_, &StateView::stepRequested, this, &WindowViews::showStateAfterColumn);
    connect(state_, &StateView::finalStateShown, circuit_, [this] { circuit_->setStepMarker(std::nullopt); });
    followDocument(graph_, document_);
    followDocument(scratchpad_, scratchpadHost_, document_);
    followDocument(timeline_, timelineHost_, document_);
    followDocument(workDivision_, document_);
    followDocument(stickLayout_, document_);
    followDocument(vqe_, document_);
    connect(document_, &Document::documentChanged, this, [this] {
        showPictureFor(document_->kind());
        inspector_->clear();
    });
    connect(circuit_, &CircuitView::opSelected, this, &WindowViews::inspectCircuitOp);
    connect(graph_, &GraphView::nodeSelected, this, &WindowViews::inspectGraphNode);
}

WindowViews::~WindowViews()
{
    delete charts_;   // it reads the window session's store, which its owner ends after this
}

void WindowViews::showPictureFor(DocumentKind kind)
{
    if (kind == DocumentKind::Circuit)
        centralTabs_->setCurrentWidget(circuit_);
    else if (kind == DocumentKind::Model)
        centralTabs_->setCurrentWidget(graph_);
    else if (kind == DocumentKind::Vqe)
        centralTabs_->setCurrentWidget(vqe_);
}

void WindowViews::inspectGraphNode(const QString& id)
{
    const auto program = document_->selectedProgram();
    if (!program)
        return;
    const InspectorContent c = inspectSpyreNode(*program, document_->compiled().target.get(), id.toStdString());
    if (!c.found)
        return;
    inspector_->show(c.heading, c.sections);
    // Show the selected op's or buffer's text in the IR view too.
    ir_->revealText(c.heading.section(QLatin1Char(' '), 0, 0) + QLatin1Char(':')) || ir_->revealText(c.heading.section(QLatin1Char(' '), 0, 0));
}

void WindowViews::inspectCircuitOp(int index)
{
    const quantum::Circuit* c = circuit_->circuit();
    if (!c || index < 0 || index >= static_cast<int>(c->ops.size()))
        return;
    const int column = circuit_->opColumns()[static_cast<size_t>(index)];
    const InspectorContent content =
        inspectCircuitOpContent(*c, index, document_->selectedRecord() ? document_->selectedRecord()->name : std::string(), column, circuit_->columnCount());
    inspector_->show(content.heading, content.sections);
    // Picking a gate picks its column: the State view shows the state just after it.
    state_->stepTo(column + 1);
}

void WindowViews::showStateAfterColumn(int column)
{
    const quantum::Circuit* c = circuit_->circuit();
    if (!c)
        return;
    // Small teaching circuits take microseconds; stateAfterColumn itself refuses states beyond the State view's limit.
    JobControl control;
    state_->showStep(stateAfterColumn(*c, circuit_->opColumns(), column, control));
    circuit_->setStepMarker(column);
}

}  // namespace spyglass
