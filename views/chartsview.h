#pragma once
// The Charts dock: timings of the runs of a session and of earlier sessions, from the session store.
// Four charts, one tab each:
//   Kernels  — simulated time per kernel of one run (bars)
//   History  — one artifact's runs across all sessions over time (line); a run more than 5% slower than the
//              best earlier one is flagged (red points)
//   Compare  — two runs side by side, per kernel (or per pass when neither simulated)
//   Quantum  — simulation wall time by qubit count for the session's circuit runs
// Export PNG and CSV of the chart on show. The view polls PRAGMA data_version, so runs recorded by another
// process (a CLI with --session) appear without a manual refresh.
//
// Wiring (MainWindow): keep one SessionStore per window on the GUI thread, e.g.
//   store_ = std::make_unique<session::SessionStore>(sessionDatabasePath().toStdString());
//   sessionId_ = store_->createSession("window " + ...);           // a session per window, renamable here
//   charts_ = new ChartsView(store_.get(), this);
//   charts_->selectSession(sessionId_);
//   addDock(tr("Charts"), QStringLiteral("chartsDock"), charts_, Qt::BottomDockWidgetArea);
// Record runs with a session::SessionRecorder (on a worker, through its own SessionStore on the same path)
// and call store_->endSession(sessionId_) when the window closes.

#include "core/session/session_charts.h"
#include "core/session/session_types.h"

#include <QString>
#include <QWidget>

#include <array>
#include <vector>

class QChart;
class QChartView;
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
    void selectComparison(session::RowId firstRun, session::RowId secondRun);

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

    QComboBox* sessionCombo_ = nullptr;
    QPushButton* renameButton_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    QComboBox* kernelRunCombo_ = nullptr;
    QComboBox* artifactCombo_ = nullptr;
    QComboBox* metricCombo_ = nullptr;
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
