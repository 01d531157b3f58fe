#include "views/irhighlighter.h"

namespace spyglass {

namespace {
QTextCharFormat fmt(const QColor& c, bool bold = false, bool italic = false)
{
    QTextCharFormat f;
    f.setForeground(c);
    if (bold)
        f.setFontWeight(QFont::Bold);
    f.setFontItalic(italic);
    return f;
}
}  // namespace

IrHighlighter::IrHighlighter(QTextDocument* parent) : QSyntaxHighlighter(parent)
{
    auto add = [this](const char* re, const QTextCharFormat& f) {
        rules_.push_back({QRegularExpression(QString::fromLatin1(re)), f});
    };
    // Later rules win where they overlap: comments and strings last.
    add(R"(\b(-?\d+(\.\d+)?([eE][-+]?\d+)?|pi)\b)", fmt(QColor(0x09, 0x86, 0x58)));
    add(R"(\b(def|class|return|for|in|if|else|self|ops|gate|opaque|qreg|creg|measure|reset|barrier|include|OPENQASM|func|module|loop|tile)\b)",
        fmt(QColor(0x00, 0x33, 0xb3), true));
    add(R"(\b(SchedulerNode|FusedSchedulerNode|ComputedBuffer|Pointwise|Reduction|MatMul|MemoryDep|FixedLayout|FixedTiledLayout|SpyreTensorLayout|Restickify|InputBuffer)\b)",
        fmt(QColor(0x80, 0x20, 0x80), true));
    add(R"(\b(buf|op|arg|tmp|kernel)\d+(_\d+)?\b)", fmt(QColor(0x8a, 0x4b, 0x00)));
    add(R"([%@][A-Za-z_][\w.$]*)", fmt(QColor(0x8a, 0x4b, 0x00)));
    add(R"(\b[a-z_]+\.[a-z_]+\b)", fmt(QColor(0x26, 0x5c, 0x8c)));
    add(R"(\brestickify\w*\b)", fmt(QColor(0xc0, 0x30, 0x10), true));
    add(R"('[^']*'|"[^"]*")", fmt(QColor(0xa3, 0x15, 0x15)));
    add(R"((//|#).*$)", fmt(QColor(0x6a, 0x73, 0x7d), false, true));
}

void IrHighlighter::highlightBlock(const QString& text)
{
    for (const Rule& r : rules_) {
        auto it = r.pattern.globalMatch(text);
        while (it.hasNext()) {
            const auto m = it.next();
            setFormat(static_cast<int>(m.capturedStart()), static_cast<int>(m.capturedLength()), r.format);
        }
    }
}

}  // namespace spyglass
