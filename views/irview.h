#pragma once
// The IR view: the canonical text (LoopLevelIR, QPIR, or the source for the first record) of the selected
// pass, highlighted; optionally as an inline diff against the pass before (added lines green, removed red);
// Ctrl+F finds text, and revealText() scrolls to what another view selected.

#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QToolButton;

namespace spyglass {

class Document;
class IrHighlighter;

class IrView : public QWidget {
    Q_OBJECT
public:
    explicit IrView(Document* document, QWidget* parent = nullptr);

    QPlainTextEdit* editor() const { return editor_; }
    void setDiffMode(bool on);
    bool diffMode() const;
    int addedLines() const { return added_; }
    int removedLines() const { return removed_; }
    // Scrolls to and selects the first line containing `needle` (e.g. a buffer or op name).
    bool revealText(const QString& needle);

public slots:
    void showFind();
    bool findNext(bool backwards = false);

private:
    void showSelected();
    void highlightMatches();

    Document* document_;
    QPlainTextEdit* editor_;
    IrHighlighter* highlighter_;
    QCheckBox* diffToggle_;
    QLabel* stats_;
    QWidget* findBar_;
    QLineEdit* findEdit_;
    int added_ = 0;
    int removed_ = 0;
};

}  // namespace spyglass
