#pragma once
// The Charts dock: timings of the runs of a session and of earlier sessions, from the session store.
// Four charts, one tab each:
//   Kernels  — simulated time per kernel of one run (bars)
//   History  — one artifact's runs across all sessions over time (line); a run more than 5% slower than the
//              best earlier one is flagged (red points); tagged runs (what-if, tuning) are marked apart, never flagged
//   Compare  — two runs side by side, per kernel (or per pass when neither simulated)
//   Quantum  — simulation wall time by qubit count for the session's circuit runs
// Export PNG and CSV of the chart on show. The view polls PRAGMA data_version, so runs recorded by another
// process (a CLI with --session) appear without a manual refresh.
//
// Wiring (MainWindow), on the GUI thread:
//   try { windowSession_ = std::make_unique<WindowSession>(); }          // a session per window
//   catch (const InputError& e) { problems_->addProblem(e.diagnostic()); }   // no history, the window still works
//   charts_ = new ChartsView(windowSession_ ? &windowSession_->store() : nullptr, this);
//   if (windowSession_) charts_->selectSession(windowSession_->id());
//   addDock(tr("Charts"), QStringLiteral("chartsDock"), charts_, Qt::BottomDockWidgetArea);
// A compile/simulate job on a worker records with its own store on the same file:
//   session::SessionStore store(windowSession_->store().path());
//   session::SessionRecorder rec(store, windowSession_->id());   // beginRun ... finishRun
// The charts pick new runs up by themselves (they poll PRAGMA data_version and this connection's change
// count every 2 s), whichever connection wrote them.
// The database path is a setting: sessionDatabasePath() / setSessionDatabasePath().

#include "core/session/session_charts.h"
#include "core/session/session_types.h"

#include <QString>
#include <QWidget>

#include <array>
#include <memory>
#include <vector>

class QChart;
class QChartView;
class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QTabWidget;
class QTimer;

namespace spyglass {

namespace session {
class SessionStore;
}

// The database the GUI uses: QSettings "sessions/databasePath", else SessionStore::defaultPath().
QString sessionDatabasePath();
void setSessionDatabasePath(const QString& path);   // empty restores the default

// One main window's session: the store at sessionDatabasePath() (or `databasePath`), a new session named
// `name` (default "window <local date time>"), ended when this object is destroyed. Use store() on the GUI
// thread only; a worker that records runs opens its own SessionStore(store().path()) and a SessionRecorder
// on id(). Throws InputError when the database cannot be used: show it in Problems and run without history.
class WindowSession {
public:
    explicit WindowSession(const QString& name = {}, const QString& databasePath = {});
    ~WindowSession();
    WindowSession(const WindowSession&) = delete;
    WindowSession& operator=(const WindowSession&) = delete;

    session::SessionStore& store() { return *store_; }
    session::RowId id() const { return id_; }
    void rename(const QString& name);

private:
    std::unique_ptr<session::SessionStore> store_;
    session::RowId id_ = 0;
};

class ChartsView : public QWidget {
    Q_OBJECT
public:
    enum class Chart { Kernels = 0, History = 1, Compare = 2, Quantum = 3 };

    explicit ChartsView(session::SessionStore* store, QWidget* parent = nullptr);
    ~ChartsView() override;

    // The store is not owned; nullptr shows an empty view.
    void setStore(session::SessionStore* store);
    session::SessionStore* store() const { return store_; }

    void selectSession(session::RowId id);
    session::RowId selectedSession() const;
    void renameSelectedSession(const QString& name);

    void selectKernelRun(session::RowId runId);
    void selectArtifact(session::RowId artifactId);
    void setHistoryMetric(session::RunMetric metric);
    // Off: runs of these exact bytes. On: every version of the file at this path (edits included).
    void setHistoryFollowsPath(bool followPath);
    void selectComparison(session::RowId firstRun, session::RowId secondRun);
    // The open document: History shows its artifact and Compare its last two runs in this session (the user may
    // pick others until the next document is opened).
    void showArtifact(const QString& path);
    QString shownArtifactPath() const;   // the History's artifact's path

    void showChart(Chart c);
    Chart currentChart() const;
    QChart* chart(Chart c) const;
    QChartView* chartView(Chart c) const;

    // What the charts show, for tests and the CSV export.
    const std::vector<session::HistoryPoint>& history() const { return history_; }
    std::vector<session::RowId> flaggedRuns() const;
    QString chartCsv(Chart c) const;

    bool exportPng(const QString& path, QString* error = nullptr);   // the chart on show
    bool exportCsv(const QString& path, QString* error = nullptr);

public slots:
    // Re-reads the store, keeping the selections that still exist.
    void reload();

signals:
    void sessionSelected(session::RowId id);

private:
    void buildUi();
    void reloadSessionChoices();
    void reloadRunChoices();
    void drawKernels();
    void drawHistory();
    void drawCompare();
    void drawQuantum();
    void pollForChanges();
    void pickMetricWithData();
    void exportPngDialog();
    void exportCsvDialog();
    void renameDialog();

    session::SessionStore* store_ = nullptr;
    qint64 lastDataVersion_ = -1;
    qint64 lastLocalChanges_ = -1;

    QComboBox* sessionCombo_ = nullptr;
    QPushButton* renameButton_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    QComboBox* kernelRunCombo_ = nullptr;
    QComboBox* artifactCombo_ = nullptr;
    QComboBox* metricCombo_ = nullptr;
    QCheckBox* followPath_ = nullptr;
    QComboBox* compareFirstCombo_ = nullptr;
    QComboBox* compareSecondCombo_ = nullptr;
    QLabel* status_ = nullptr;
    QTimer* poll_ = nullptr;
    std::array<QChartView*, 4> views_{};

    std::vector<session::KernelTiming> kernels_;
    std::vector<session::HistoryPoint> history_;
    session::Comparison comparison_;
    std::vector<session::QuantumPoint> quantum_;
    bool reloading_ = false;
};

}  // namespace spyglass
