#pragma once
// The Pipeline dock: every pass of the open document with a mark on those that changed the IR, their
// one-line summary and wall time. Selecting a row selects that snapshot for every view.

#include <QWidget>

class QCheckBox;
class QTreeWidget;

namespace spyglass {

class Document;

class PipelineView : public QWidget {
    Q_OBJECT
public:
    explicit PipelineView(Document* document, QWidget* parent = nullptr);

    QTreeWidget* tree() const { return tree_; }
    void setHideUnchanged(bool hide);

private:
    void rebuild();
    void syncSelection(int index);
    void applyFilter();

    Document* document_;
    QTreeWidget* tree_;
    QCheckBox* hideUnchanged_;
    bool syncing_ = false;
};

}  // namespace spyglass
