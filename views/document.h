#pragma once
// The open document: which file, what kind, the per-pass snapshots its compiler produced, and which
// snapshot is selected. Views observe this object and redraw for the selected snapshot; they never
// compile or simulate themselves.

#include "core/common/diagnostics.h"
#include "core/common/document_kind.h"
#include "core/common/pass_record.h"

#include <QObject>
#include <QString>

#include <vector>

namespace spyglass {

struct CompiledDocument {
    QString path;
    DocumentKind kind = DocumentKind::Unknown;
    QString sourceText;                   // the file as read (empty for binary models)
    PassRecords passes;                   // one record per pass, in order
    std::vector<Diagnostic> diagnostics;  // warnings that did not stop the compile
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
