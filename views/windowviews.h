#pragma once
// Every view of a main window, created once: the central tabs (IR, Graph, Circuit, VQE) and the docks (Pipeline,
// Inspector, State, Problems, Timeline, Work division, Stick layout, Scratchpad, Charts, Tuning), each subscribed to the
// Document it observes, and wired to one another where a pick in one view answers in another (a gate picked in the
// Circuit steps the State; a node picked in the Graph fills the Inspector and reveals its IR). Each dock says for
// which document kinds it is shown. MainWindow arranges the docks, owns the menus and actions, and holds no view.

#include "core/common/document_kind.h"

#include <QList>
#include <QObject>

#include <vector>

class QDockWidget;
class QMainWindow;
class QTabWidget;

namespace spyglass::session {
class SessionStore;
}

namespace spyglass {

class ChartsView;
class CircuitView;
class Document;
class GraphView;
class ImGuiHost;
class InspectorView;
class IrView;
class PipelineView;
class ProblemsView;
class ScratchpadMapPanel;
class StateView;
class StickLayoutView;
class TimelinePanel;
class TuningChart;
class VqeView;
class WorkDivisionView;

class WindowViews : public QObject {
    Q_OBJECT
public:
    // Adds the docks to `window`; `history` (may be null: no usable database) feeds the Charts.
    WindowViews(Document* document, QMainWindow* window, session::SessionStore* history);
    ~WindowViews() override;

    QTabWidget* centralTabs() const { return centralTabs_; }
    IrView* ir() const { return ir_; }
    GraphView* graph() const { return graph_; }
    CircuitView* circuit() const { return circuit_; }
    VqeView* vqe() const { return vqe_; }
    PipelineView* pipeline() const { return pipeline_; }
    InspectorView* inspector() const { return inspector_; }
    StateView* state() const { return state_; }
    ProblemsView* problems() const { return problems_; }
    TimelinePanel* timeline() const { return timeline_; }
    WorkDivisionView* workDivision() const { return workDivision_; }
    StickLayoutView* stickLayout() const { return stickLayout_; }
    ScratchpadMapPanel* scratchpad() const { return scratchpad_; }
    ChartsView* charts() const { return charts_; }
    TuningChart* tuning() const { return tuning_; }

    // A dock and the document kinds it is shown for; empty: every kind but those it is hidden for, and otherwise
    // as the user left it (leaving a kind that hid it shows it again). Problems is shown when it has one.
    struct Dock {
        QDockWidget* dock = nullptr;
        std::vector<DocumentKind> shownFor;
        std::vector<DocumentKind> hiddenFor;
        bool shows(DocumentKind kind) const;
        bool hides(DocumentKind kind) const;
    };
    const std::vector<Dock>& docks() const { return docks_; }
    QDockWidget* dock(const QString& objectName) const;

    // Brings forward the central picture that fits the document kind (Graph for a model, Circuit for a circuit,
    // VQE for a recipe).
    void showPictureFor(DocumentKind kind);

private:
    QDockWidget* addDock(QMainWindow* window, const QString& title, const QString& objectName, QWidget* w, Qt::DockWidgetArea area,
                         std::vector<DocumentKind> shownFor, std::vector<DocumentKind> hiddenFor = {});
    void inspectGraphNode(const QString& id);
    void inspectCircuitOp(int index);
    void showStateAfterColumn(int column);

    Document* document_;
    QTabWidget* centralTabs_ = nullptr;
    IrView* ir_ = nullptr;
    GraphView* graph_ = nullptr;
    CircuitView* circuit_ = nullptr;
    VqeView* vqe_ = nullptr;
    PipelineView* pipeline_ = nullptr;
    InspectorView* inspector_ = nullptr;
    StateView* state_ = nullptr;
    ProblemsView* problems_ = nullptr;
    TimelinePanel* timeline_ = nullptr;
    ImGuiHost* timelineHost_ = nullptr;
    WorkDivisionView* workDivision_ = nullptr;
    StickLayoutView* stickLayout_ = nullptr;
    ScratchpadMapPanel* scratchpad_ = nullptr;
    ImGuiHost* scratchpadHost_ = nullptr;
    ChartsView* charts_ = nullptr;
    TuningChart* tuning_ = nullptr;
    std::vector<Dock> docks_;
};

}  // namespace spyglass
