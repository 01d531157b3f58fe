#pragma once
// The State view: after a quantum run, the probabilities in basis order (for a circuit that measures, those of the
// measured bits, the marginal its shot counts estimate, with the counts drawn on the same bars; unmeasured qubits
// such as an ancilla are listed apart), the amplitude table (magnitude, phase), per-qubit Bloch vectors from
// reduced density matrices, and the shot counts beside the probability the state gives each. The bit order is
// stated. A step slider shows the state part-way along the circuit (after column k of the Circuit view, from
// |0…0⟩ before the first column); MainWindow computes that state (stateAfterColumn) when stepRequested fires.

#include <QWidget>

#include <memory>
#include <utility>
#include <vector>

class QLabel;
class QPushButton;
class QSlider;
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
    // The bars as drawn, left to right: label (ket or counts key), probability, fraction of shots (-1: none).
    struct Bar {
        QString label;
        double probability = 0;
        double shotFraction = -1;
    };
    const std::vector<Bar>& bars() const;
    QString bitOrderText() const;
    QString ancillaText() const;
    QString summaryText() const;

    // Stepping along the circuit: `columns` drawing columns (0 for no circuit). The slider runs from 0 (|0…0⟩)
    // to columns (the final state, with the shots); every other position asks for the state after column k - 1.
    void setStepColumns(int columns);
    void stepTo(int position);   // as if the slider were moved there
    int stepPosition() const;
    QSlider* stepSlider() const { return step_; }
    // The state after a column (from stateAfterColumn), shown until the next step or document change.
    void showStep(std::shared_ptr<const QuantumRunResult> run);
    const QuantumRunResult* shownRun() const { return shown_.get(); }

signals:
    // column -1 is the initial state, before any gate.
    void stepRequested(int column);
    void finalStateShown();

private:
    void showDocumentRun();
    void display(std::shared_ptr<const QuantumRunResult> run);

    Document* document_;
    QLabel* summary_;
    QLabel* bitOrder_;
    QLabel* ancillas_;
    QSlider* step_;
    QLabel* stepLabel_;
    QPushButton* finalButton_;
    std::shared_ptr<const QuantumRunResult> shown_;
    QTabWidget* tabs_;
    ProbabilityHistogram* histogram_;
    QTableWidget* amplitudes_;
    BlochGrid* bloch_;
    QTableWidget* counts_;
};

}  // namespace spyglass
