#pragma once
// The Tuning chart: the plan tuner's search for one model (Spyre > Tune Plan, or the last search recorded in the
// session by `spyglass-cli run --plan tuned --session`). One point per candidate in the order the tuner simulated
// it (split candidates and device-order candidates apart, the kept ones ringed), the best plan so far as a step
// line and the cost-model plan as a flat line, the whole bundle's simulated time on the y axis. The header says
// the gain of the tuned plan over the cost-model plan.
//
// Wiring (MainWindow): tuning_ = new TuningChart(this); addDock(tr("Tuning"), "tuningDock", tuning_, ...), and a
// menu action calling tuning_->tune(jobs_, path, request, dbPath, sessionId). The job's progress (candidates
// simulated over planned) goes to the window's progress bar through JobRunner::progress like every other job.

#include "core/workbench/tuning_record.h"
#include "core/workbench/workbench.h"

#include <QWidget>

class QChart;
class QChartView;
class QLabel;

namespace spyglass {

class JobRunner;

class TuningChart : public QWidget {
    Q_OBJECT
public:
    explicit TuningChart(QWidget* parent = nullptr);

    // Tunes the model at `path` on `jobs` (a running job is cancelled) for at most budgetMs, records every
    // candidate in session `sessionId` of `dbPath` (when given), then shows the search and emits tuned().
    void tune(JobRunner* jobs, const QString& path, const CompileRequest& request, const QString& dbPath, qint64 sessionId,
              double budgetMs = 10000);
    void showSearch(const TuningSearch& search);
    const TuningSearch& search() const { return search_; }
    QString summary() const;
    QChart* chart() const { return chart_; }

signals:
    // The search finished: its gain over the cost-model plan; `note` is set when the session was not written.
    void tuned(double gain, const QString& note);

private:
    TuningSearch search_;
    double tunedNs_ = 0;
    QLabel* header_ = nullptr;
    QChart* chart_ = nullptr;
    QChartView* view_ = nullptr;
};

}  // namespace spyglass
