#include "views/irview.h"

#include "views/document.h"
#include "views/irhighlighter.h"

#include "core/common/text_diff.h"

#include <QAction>
#include <QCheckBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QGuiApplication>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTextBlock>
#include <QToolButton>
#include <QVBoxLayout>

namespace spyglass {

namespace {
const QColor kAddedBg(0xdd, 0xf6, 0xdd);
const QColor kRemovedBg(0xfb, 0xdd, 0xdd);
}

IrView::IrView(Document* document, QWidget* parent) : QWidget(parent), document_(document)
{
    setObjectName(QStringLiteral("irViewPane"));
    editor_ = new QPlainTextEdit(this);
    editor_->setObjectName(QStringLiteral("irView"));
    editor_->setReadOnly(true);
    editor_->setLineWrapMode(QPlainTextEdit::NoWrap);
    editor_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    editor_->setPlaceholderText(tr("Open a model (.onnx, .onnxtxt) or a circuit (.qasm): File ▸ Open, File ▸ Open "
                                   "Example, or drop a file here."));
    highlighter_ = new IrHighlighter(editor_->document());

    diffToggle_ = new QCheckBox(tr("Diff against previous pass"), this);
    diffToggle_->setObjectName(QStringLiteral("irDiffToggle"));
    stats_ = new QLabel(this);
    stats_->setObjectName(QStringLiteral("irDiffStats"));
    auto* top = new QHBoxLayout;
    top->setContentsMargins(4, 2, 4, 2);
    top->addWidget(diffToggle_);
    top->addStretch(1);
    top->addWidget(stats_);

    findBar_ = new QWidget(this);
    findEdit_ = new QLineEdit(findBar_);
    findEdit_->setObjectName(QStringLiteral("irFind"));
    findEdit_->setPlaceholderText(tr("Find (Enter: next, Shift+Enter: previous, Esc: close)"));
    findEdit_->setClearButtonEnabled(true);
    auto* close = new QToolButton(findBar_);
    close->setText(QStringLiteral("✕"));
    auto* findLayout = new QHBoxLayout(findBar_);
    findLayout->setContentsMargins(4, 2, 4, 2);
    findLayout->addWidget(findEdit_);
    findLayout->addWidget(close);
    findBar_->hide();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(top);
    layout->addWidget(editor_, 1);
    layout->addWidget(findBar_);

    auto* findAction = new QAction(tr("Find"), this);
    findAction->setShortcut(QKeySequence::Find);
    findAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(findAction, &QAction::triggered, this, &IrView::showFind);
    addAction(findAction);
    auto* escape = new QAction(this);
    escape->setShortcut(Qt::Key_Escape);
    escape->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(escape, &QAction::triggered, findBar_, &QWidget::hide);
    addAction(escape);
    connect(close, &QToolButton::clicked, findBar_, &QWidget::hide);
    connect(findEdit_, &QLineEdit::returnPressed, this, [this] {
        findNext(QGuiApplication::keyboardModifiers() & Qt::ShiftModifier);
    });
    connect(findEdit_, &QLineEdit::textChanged, this, &IrView::highlightMatches);

    connect(diffToggle_, &QCheckBox::toggled, this, &IrView::showSelected);
    connect(document_, &Document::selectedPassChanged, this, &IrView::showSelected);
    connect(document_, &Document::documentChanged, this, &IrView::showSelected);
}

void IrView::setDiffMode(bool on) { diffToggle_->setChecked(on); }
bool IrView::diffMode() const { return diffToggle_->isChecked(); }

void IrView::showSelected()
{
    const PassRecord* current = document_->selectedRecord();
    const PassRecord* previous = document_->previousRecord();
    added_ = removed_ = 0;
    QList<QTextEdit::ExtraSelection> shading;
    if (!current) {
        editor_->clear();
        stats_->clear();
    } else if (!diffMode() || !previous) {
        editor_->setPlainText(QString::fromStdString(current->irText));
        stats_->setText(previous ? QString() : tr("first step: nothing to compare"));
    } else {
        const std::vector<DiffLine> diff = diffTexts(previous->irText, current->irText);
        QString text;
        for (const DiffLine& l : diff) {
            text += QString::fromStdString(l.text);
            text += QLatin1Char('\n');
        }
        editor_->setPlainText(text);
        QTextBlock block = editor_->document()->firstBlock();
        for (const DiffLine& l : diff) {
            if (l.kind != DiffLine::Kind::Same) {
                QTextEdit::ExtraSelection sel;
                sel.cursor = QTextCursor(block);
                sel.format.setBackground(l.kind == DiffLine::Kind::Added ? kAddedBg : kRemovedBg);
                sel.format.setProperty(QTextFormat::FullWidthSelection, true);
                shading.append(sel);
                (l.kind == DiffLine::Kind::Added ? added_ : removed_)++;
            }
            block = block.next();
        }
        stats_->setText(tr("+%1  −%2 lines against “%3”").arg(added_).arg(removed_).arg(QString::fromStdString(previous->name)));
    }
    editor_->setExtraSelections(shading);
    if (findBar_->isVisible())
        highlightMatches();
}

void IrView::showFind()
{
    findBar_->show();
    findEdit_->setFocus();
    findEdit_->selectAll();
}

bool IrView::findNext(bool backwards)
{
    const QString needle = findEdit_->text();
    if (needle.isEmpty())
        return false;
    const QTextDocument::FindFlags flags = backwards ? QTextDocument::FindBackward : QTextDocument::FindFlags();
    if (editor_->find(needle, flags))
        return true;
    // Wrap around.
    QTextCursor c = editor_->textCursor();
    c.movePosition(backwards ? QTextCursor::End : QTextCursor::Start);
    editor_->setTextCursor(c);
    return editor_->find(needle, flags);
}

void IrView::highlightMatches()
{
    // Keep the diff shading and add match highlights on top.
    QList<QTextEdit::ExtraSelection> selections;
    for (const auto& s : editor_->extraSelections())
        if (s.format.property(QTextFormat::FullWidthSelection).toBool())
            selections.append(s);
    const QString needle = findEdit_->text();
    if (!needle.isEmpty()) {
        QTextCursor c(editor_->document());
        int count = 0;
        while (count < 10000) {
            c = editor_->document()->find(needle, c);
            if (c.isNull())
                break;
            QTextEdit::ExtraSelection sel;
            sel.cursor = c;
            sel.format.setBackground(QColor(0xff, 0xe0, 0x66));
            selections.append(sel);
            ++count;
        }
    }
    editor_->setExtraSelections(selections);
}

bool IrView::revealText(const QString& needle)
{
    QTextCursor c = editor_->document()->find(needle);
    if (c.isNull())
        return false;
    editor_->setTextCursor(c);
    editor_->centerCursor();
    return true;
}

}  // namespace spyglass
