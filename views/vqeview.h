#pragma once
// The VQE view: one variational ground-state search explained. The best energy after every iteration against the
// iteration, with the exact ground energy as a dashed line when the Lanczos reference was computed (small n), so
// the gap the optimiser left is visible; beside it the Hamiltonian's terms, the ansatz, the optimiser and its
// settings, and the numbers (energy, exact, error, evaluations, wall time). It draws a quantum::VqeReport: one the
// explorer computed (Quantum > Run VQE) or one read back from the session store (Quantum > Open VQE Run).

#include "core/quantum/vqe_report.h"

#include <QWidget>

#include <optional>

class QChartView;
class QLabel;
class QLineSeries;
class QTableWidget;
class QValueAxis;

namespace spyglass {
class CircuitView;
}

namespace spyglass {

class VqeView : public QWidget {
    Q_OBJECT
public:
    explicit VqeView(QWidget* parent = nullptr);

    // `origin` says where the run came from ("run in this window", "session 'x', run 7").
    void setReport(quantum::VqeReport report, const QString& origin);
    void clear();
    const std::optional<quantum::VqeReport>& report() const { return report_; }

    // What is drawn, for tests and screenshots.
    QLineSeries* energySeries() const { return energy_; }
    QLineSeries* exactSeries() const { return exact_; }
    QValueAxis* energyAxis() const { return yAxis_; }
    QTableWidget* termsTable() const { return terms_; }
    QTableWidget* settingsTable() const { return settings_; }
    QLabel* summary() const { return summary_; }
    QLabel* ansatz() const { return ansatz_; }
    QChartView* chartView() const { return chartView_; }
    // The ansatz with the parameters of the best energy (empty when the run did not keep them).
    CircuitView* ansatzCircuit() const { return circuit_; }

private:
    std::optional<quantum::VqeReport> report_;
    QChartView* chartView_;
    QLineSeries* energy_;
    QLineSeries* exact_;
    QValueAxis* xAxis_;
    QValueAxis* yAxis_;
    QLabel* summary_;
    QLabel* ansatz_;
    QTableWidget* terms_;
    QTableWidget* settings_;
    CircuitView* circuit_;
};

class Document;
// A VQE document (.vqe recipe) shows its run here once opened; other documents leave the last run shown.
void followDocument(VqeView* view, const Document* document);

}  // namespace spyglass
