#pragma once
// The open document: which file, what kind, the per-pass snapshots its compiler produced, and which
// snapshot is selected. Views observe this object and redraw for the selected snapshot; they never
// compile or simulate themselves.

#include "core/workbench/workbench.h"

#include <QObject>
#include <QString>

#include <array>
#include <complex>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace spyglass {

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

    // The op or buffer the user picked in any view, as a Graph node id ("op:op3", "buf:buf2"): ids are identities,
    // so the selection stays on the same op when the pass changes and across a recompile with other pins. Views
    // that show "the selected op" follow this; the one that was clicked sets it.
    const std::string& selectedNode() const { return selectedNode_; }
    void selectNode(const std::string& id);

public slots:
    void selectPass(int index);
    void stepForward();
    void stepBack();
    void selectFirst();
    void selectLast();

signals:
    void documentChanged();          // a new compile result replaced everything
    void selectedPassChanged(int index);
    void selectedNodeChanged();

private:
    CompiledDocument doc_;
    int selected_ = -1;
    std::string selectedNode_;
};

}  // namespace spyglass
