#include "views/irview.h"

#include "views/document.h"

#include <QFontDatabase>

namespace spyglass {

IrView::IrView(Document* document, QWidget* parent) : QPlainTextEdit(parent), document_(document)
{
    setObjectName(QStringLiteral("irView"));
    setReadOnly(true);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setPlaceholderText(tr("Open a model (.onnx, .onnxtxt) or a circuit (.qasm): File ▸ Open, File ▸ Open Example, "
                          "or drop a file here."));
    connect(document_, &Document::selectedPassChanged, this, &IrView::showSelected);
    connect(document_, &Document::documentChanged, this, &IrView::showSelected);
}

void IrView::showSelected()
{
    const PassRecord* r = document_->selectedRecord();
    setPlainText(r ? QString::fromStdString(r->irText) : QString());
}

}  // namespace spyglass
