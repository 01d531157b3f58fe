#pragma once
// The open document: which file, what kind, the per-pass snapshots its compiler produced, and which
// snapshot is selected. Views observe this object and redraw for the selected snapshot; they never
// compile or simulate themselves.

#include "core/common/diagnostics.h"
#include "core/common/document_kind.h"
#include "core/common/pass_record.h"

#include <QObject>
#include <QString>

#include <array>
#include <complex>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace spyglass::quantum {
struct Circuit;
}
namespace spyglass::spyre {
struct Program;
struct SpyreTarget;
}
namespace spyglass::spyresim {
struct SimResult;
}

namespace spyglass {

// The simulator's answer for a circuit document (computed once, after the last pass).
struct QuantumRunResult {
    int qubits = 0;
    int shots = 0;
    uint64_t seed = 0;
    std::map<std::string, int> counts;     // Qiskit-convention keys
    double simMs = 0;
    bool hasState = false;                 // false for mid-circuit measurement or too many qubits
    struct Amplitude {
        uint64_t index = 0;                // bit k = qubit k
        std::complex<double> value;
        double probability = 0;
    };
    std::vector<Amplitude> topAmplitudes;  // most probable first
    std::vector<std::array<double, 3>> bloch;   // per qubit
    QString note;                          // why something is missing, in plain words
};

struct CompiledDocument {
    QString path;
    DocumentKind kind = DocumentKind::Unknown;
    QString sourceText;                   // the file as read (empty for binary models)
    PassRecords passes;                   // one record per pass, in order
    std::vector<Diagnostic> diagnostics;  // warnings that did not stop the compile
    // Circuit documents: the circuit after each pass (parallel to `passes`) and the simulation.
    std::vector<std::shared_ptr<const quantum::Circuit>> circuits;
    std::shared_ptr<const QuantumRunResult> quantumRun;
    // Model documents: the Spyre program after each pass (parallel to `passes`) and the target used.
    std::vector<std::shared_ptr<const spyre::Program>> programs;
    std::shared_ptr<const spyre::SpyreTarget> target;
    std::map<std::string, int> pins;       // the stick-dimension pins this compile was asked for
    std::map<std::string, std::map<std::string, int>> splitPins;   // and the core-split pins (op -> var -> ways)
    // The Spyre simulator on the final kernel bundle: kernel times and the trace (its first lane, "kernels", spans
    // each kernel including its fixed overhead, so the trace ends at the total kernel time). Null when the
    // compile produced no bundle or the simulator refused it (then simulationNote says why).
    std::shared_ptr<const spyresim::SimResult> simulation;
    // One line for the log: the numerics check against the reference interpreter, or why there was none.
    QString simulationNote;
};

class Document : public QObject {
    Q_OBJECT
public:
    explicit Document(QObject* parent = nullptr);

    bool isOpen() const { return !doc_.path.isEmpty(); }
    const QString& path() const { return doc_.path; }
    DocumentKind kind() const { return doc_.kind; }
    const QString& sourceText() const { return doc_.sourceText; }
    const PassRecords& passes() const { return doc_.passes; }
    const std::vector<Diagnostic>& diagnostics() const { return doc_.diagnostics; }
    const CompiledDocument& compiled() const { return doc_; }
    // The circuit of the selected pass (circuit documents), or null.
    std::shared_ptr<const quantum::Circuit> selectedCircuit() const;
    // The Spyre program of the selected pass (model documents), or null.
    std::shared_ptr<const spyre::Program> selectedProgram() const;

    int selectedPass() const { return selected_; }
    const PassRecord* selectedRecord() const;
    const PassRecord* previousRecord() const;   // the pass before the selected one, for diffs

    void setCompiled(CompiledDocument doc);
    void clear();

public slots:
    void selectPass(int index);
    void stepForward();
    void stepBack();
    void selectFirst();
    void selectLast();

signals:
    void documentChanged();          // a new compile result replaced everything
    void selectedPassChanged(int index);

private:
    CompiledDocument doc_;
    int selected_ = -1;
};

}  // namespace spyglass
