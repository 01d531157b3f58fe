#pragma once
// The Spyglass main window: menus, docks (arrangement saved in QSettings), a status bar with progress and
// Cancel for the background job, drag-and-drop of files, and the open Document that every view observes.

#include "core/common/document_kind.h"

#include <QMainWindow>
#include <QStringList>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QTabWidget;
class QToolButton;

namespace spyglass::spyre {
struct Program;
struct PlanSummary;
}

namespace spyglass::quantum {
struct VqeOptions;
}

namespace spyglass::plugins {
struct LoadedPlugin;
}

namespace spyglass {

// A core split as the what-if shows and reads it: "p0:4, p1:8" (var -> ways). parseWays checks only the form;
// whether the split is legal for the op is work_division's to say.
QString formatWays(const std::map<std::string, int>& ways);
std::optional<std::map<std::string, int>> parseWays(const QString& text, QString* error);

class ChartsView;
class TuningChart;
class CircuitView;
class WindowSession;
struct CompiledDocument;
struct CompileRequest;
class Document;
class GraphView;
class InspectorView;
class IrView;
class ImGuiHost;
class ScratchpadMapPanel;
class StateView;
class StickLayoutView;
class WorkDivisionView;
class TimelinePanel;
class JobRunner;
class PipelineView;
class ProblemsView;
class VqeView;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a model, circuit or kernel bundle; compiles it on a worker. Errors go to the Problems dock.
    void openFile(const QString& path);
    // File > Load Pass Plugin: loads a pass plugin; its passes join every later compile (and the open document is
    // recompiled with them). A refused plugin is a Problems entry; returns whether it loaded.
    bool loadPassPlugin(const QString& path);
    // Layout what-if: recompiles the open model with `tensor` (ONNX value or buffer name) pinned to stick
    // dimension `dim` (-1 unpins) on top of the current pins, and shows the plan's change in a banner.
    void pinStickDimension(const QString& tensor, int dim);
    // The same what-if for an op's core split: `op` as work_division names it ("op0") or its ONNX node; `ways` is
    // var -> parts ("p0" -> 4); empty unpins. clearPins drops both kinds.
    void pinCoreSplit(const QString& op, const std::map<std::string, int>& ways);
    // The Graph's "Pin core split…": asks for the split of `op` (a final-program op name), prefilled with the current
    // one, then pins it.
    void coreSplitDialog(const QString& op);
    void clearPins();
    QString whatIfText() const;
    // The red banner over the views when the open model's numbers check failed (empty when hidden).
    QString numbersBannerText() const;
    // Quantum > Run VQE: runs the search on the worker (hamiltonianFile empty: the TFIM chain), records it in the
    // window's session as `spyglass-cli vqe --session` does, and shows it in the VQE tab.
    void runVqe(const quantum::VqeOptions& options, const QString& hamiltonianFile = {});
    // Quantum > Open VQE Run: a VQE run recorded in the session store (by this window or by the CLI), in the VQE
    // tab. A run that cannot be shown is a Problems entry; returns whether it was shown.
    bool showRecordedVqeRun(qint64 runId);
    // The status bar's simulator summary ("Spyre sim: kernel time …, roofline …"), empty without a simulation.
    QString simulationStatusText() const;

    Document* document() const { return document_; }
    JobRunner* jobs() const { return jobs_; }
    ProblemsView* problems() const { return problems_; }
    PipelineView* pipeline() const { return pipeline_; }
    QList<QDockWidget*> docks() const { return docks_; }
    QDockWidget* dock(const QString& objectName) const;
    IrView* irView() const { return irView_; }
    CircuitView* circuitView() const { return circuitView_; }
    GraphView* graphView() const { return graphView_; }
    StateView* stateView() const { return stateView_; }
    InspectorView* inspector() const { return inspector_; }
    TimelinePanel* timeline() const { return timeline_; }
    WorkDivisionView* workDivision() const { return workDivision_; }
    StickLayoutView* stickLayout() const { return stickLayout_; }
    ChartsView* charts() const { return charts_; }
    TuningChart* tuning() const { return tuning_; }
    VqeView* vqeView() const { return vqeView_; }
    ScratchpadMapPanel* scratchpad() const { return scratchpad_; }
    WindowSession* windowSession() const { return windowSession_.get(); }
    QTabWidget* centralTabs() const { return centralTabs_; }
    QStringList recentFiles() const;
    // Exports what `choice` names (one of the Export dialog's entries) to `path` (asks when empty).
    // What File > Export offers; the dialog lists the labels of availableExports() for the open document.
    enum class ExportKind { PassDumps, KernelBundle, ChromeTrace, GraphDot, GraphSvg, GraphPng, CircuitQasm, CircuitQir, CircuitSvg, CircuitPng };
    static QString exportLabel(ExportKind kind);
    std::vector<ExportKind> availableExports() const;
    // Writes `kind` to `path` (asks for one when empty). Errors are Problems entries; returns whether it wrote.
    bool exportAs(ExportKind kind, const QString& path = {});

    static constexpr int kMaxRecentFiles = 10;

signals:
    void documentOpened(const QString& path);
    void documentFailed(const QString& path, const QString& message);

protected:
    void closeEvent(QCloseEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    void createActions();
    void createMenus();
    void createDocks();
    void createStatusBar();
    QDockWidget* addDock(const QString& title, const QString& objectName, QWidget* w, Qt::DockWidgetArea area);
    // One layout per document kind: a model shows the Spyre docks, a circuit the State; what does not apply to the
    // open document is out of the way (the View menu still shows any dock).
    void applyLayoutFor(DocumentKind kind);
    void restoreLayout();
    void saveLayout();
    void rebuildRecentMenu();
    void rebuildExamplesMenu();
    void addRecentFile(const QString& path);
    void openDialog();
    void exportDialog();
    void showAbout();
    void updateActions();
    void updateTitle();

    Document* document_;
    JobRunner* jobs_;
    void compile(const QString& path, const CompileRequest& request);
    void recompileWithPins(const std::map<std::string, int>& pins,
                           const std::map<std::string, std::map<std::string, int>>& splitPins);
    void showOpMenu(const spyre::Program& program, int op, const QPoint& globalPos);
    void showWhatIf();
    void showSimulation();
    void showGraphNodeMenu(const QString& id, const QPoint& globalPos);
    void inspectCircuitOp(int index);
    void inspectGraphNode(const QString& id);
    // The State view's step: the state of the circuit on show after drawing column `column` (-1: |0…0⟩).
    void showStateAfterColumn(int column);
    void showNumbersCheck();
    void vqeDialog();
    void recordedVqeDialog();

    QTabWidget* centralTabs_ = nullptr;
    IrView* irView_ = nullptr;
    CircuitView* circuitView_ = nullptr;
    VqeView* vqeView_ = nullptr;
    GraphView* graphView_ = nullptr;
    StateView* stateView_ = nullptr;
    InspectorView* inspector_ = nullptr;
    TimelinePanel* timeline_ = nullptr;
    ImGuiHost* timelineHost_ = nullptr;
    QLabel* simLabel_ = nullptr;
    WorkDivisionView* workDivision_ = nullptr;
    StickLayoutView* stickLayout_ = nullptr;
    std::unique_ptr<WindowSession> windowSession_;
    ChartsView* charts_ = nullptr;
    TuningChart* tuning_ = nullptr;
    QLabel* whatIf_ = nullptr;
    QLabel* numbersBanner_ = nullptr;
    std::vector<const plugins::LoadedPlugin*> passPlugins_;   // loaded by the user, in order
    QAction* loadPluginAction_ = nullptr;
    // What a what-if recompile is compared with: the plan before it, the pass the user was on, the simulated time.
    struct WhatIfBaseline {
        std::shared_ptr<spyre::PlanSummary> plan;
        std::string pass;
        std::optional<double> simulatedNs;
        void reset() { *this = {}; }
    };
    WhatIfBaseline whatIfBaseline_;
    ScratchpadMapPanel* scratchpad_ = nullptr;
    ImGuiHost* scratchpadHost_ = nullptr;
    PipelineView* pipeline_ = nullptr;
    ProblemsView* problems_ = nullptr;
    QList<QDockWidget*> docks_;
    std::optional<DocumentKind> layoutKind_;   // the kind applyLayoutFor last arranged the docks for

    QMenu* viewMenu_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    QMenu* examplesMenu_ = nullptr;
    QAction* openAction_ = nullptr;
    QAction* exportAction_ = nullptr;
    QAction* quitAction_ = nullptr;
    QAction* stepBackAction_ = nullptr;
    QAction* stepForwardAction_ = nullptr;
    QAction* firstAction_ = nullptr;
    QAction* lastAction_ = nullptr;
    QAction* resetLayoutAction_ = nullptr;

    QLabel* statusLabel_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QToolButton* cancelButton_ = nullptr;
    QByteArray defaultState_;
};

}  // namespace spyglass
