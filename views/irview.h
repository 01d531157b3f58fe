#pragma once
// The IR view: the canonical text (LoopLevelIR, QPIR, or the source for the first record) of the selected
// pass, as the compiler's printer wrote it.

#include <QPlainTextEdit>

namespace spyglass {

class Document;

class IrView : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit IrView(Document* document, QWidget* parent = nullptr);

private:
    void showSelected();
    Document* document_;
};

}  // namespace spyglass
