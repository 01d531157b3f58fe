#pragma once
// The State view: after a quantum run, the most probable basis states as a histogram, the amplitude table
// (magnitude, phase), per-qubit Bloch vectors from reduced density matrices, and the shot counts.

#include <QWidget>

#include <memory>

class QLabel;
class QTableWidget;
class QTabWidget;

namespace spyglass {

class Document;
struct QuantumRunResult;
class ProbabilityHistogram;
class BlochGrid;

class StateView : public QWidget {
    Q_OBJECT
public:
    explicit StateView(Document* document, QWidget* parent = nullptr);

    QTableWidget* amplitudeTable() const { return amplitudes_; }
    QTableWidget* countsTable() const { return counts_; }
    QTabWidget* tabs() const { return tabs_; }
    int histogramBars() const;

private:
    void showRun();

    Document* document_;
    QLabel* summary_;
    QTabWidget* tabs_;
    ProbabilityHistogram* histogram_;
    QTableWidget* amplitudes_;
    BlochGrid* bloch_;
    QTableWidget* counts_;
};

}  // namespace spyglass
