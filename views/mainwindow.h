#pragma once
// The Spyglass main window: menus, docks (arrangement saved in QSettings), a status bar with progress and
// Cancel for the background job, drag-and-drop of files, and the open Document that every view observes.

#include "core/common/document_kind.h"
#include "views/documentexports.h"
#include "views/whatif.h"
#include "views/windowviews.h"

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

namespace spyglass::quantum {
struct VqeOptions;
}

namespace spyglass::plugins {
struct LoadedPlugin;
}

namespace spyglass {

class Document;
class JobRunner;
class WindowSession;
struct CompileRequest;

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
    // Every view of the window (WindowViews), and its docks.
    const WindowViews& views() const { return *views_; }
    QDockWidget* dock(const QString& objectName) const { return views_->dock(objectName); }
    QList<QDockWidget*> docks() const;
    WindowSession* windowSession() const { return windowSession_.get(); }
    QStringList recentFiles() const;
    // File > Export offers availableExports() of the open document (documentexports.h). Writes `kind` to `path`
    // (asks for one when empty). Errors are Problems entries; returns whether it wrote.
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
    void createStatusBar();
    // One layout per document kind: each dock is shown for the kinds WindowViews gives it (a model shows the Spyre
    // docks, a circuit the State); the View menu still shows any dock.
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
    void compile(const QString& path, const CompileRequest& request);
    void recompileWithPins(const StickPins& pins, const SplitPins& splitPins);
    void showOpMenu(const spyre::Program& program, int op, const QPoint& globalPos);
    void showWhatIf();
    void showSimulation();
    void showGraphNodeMenu(const QString& id, const QPoint& globalPos);
    void showNumbersCheck();

    Document* document_;
    JobRunner* jobs_;
    std::unique_ptr<WindowSession> windowSession_;   // before the views: the Charts read its store
    WindowViews* views_ = nullptr;
    WhatIf whatIf_;
    QLabel* whatIfBanner_ = nullptr;
    QLabel* numbersBanner_ = nullptr;
    QLabel* simLabel_ = nullptr;
    std::vector<const plugins::LoadedPlugin*> passPlugins_;   // loaded by the user, in order
    QAction* loadPluginAction_ = nullptr;
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
