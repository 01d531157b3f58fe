#pragma once
// Syntax colours for the IR texts Spyglass prints (LoopLevelIR in Inductor's dump style, QPIR in an MLIR-like
// style, OpenQASM and ONNX text sources): comments, strings, numbers, keywords, SSA/buffer names, op names.
// Lines the selected pass added or removed are shaded by the IR view, not here.

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

#include <vector>

namespace spyglass {

class IrHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    explicit IrHighlighter(QTextDocument* parent);

protected:
    void highlightBlock(const QString& text) override;

private:
    struct Rule {
        QRegularExpression pattern;
        QTextCharFormat format;
    };
    std::vector<Rule> rules_;
};

}  // namespace spyglass
