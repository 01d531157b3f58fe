#include "views/whatif.h"

#include "core/spyre/loop_ir.h"
#include "core/spyre/op_geometry.h"
#include "core/spyre/plan_summary.h"
#include "core/spyresim/spyre_simulator.h"

#include <QInputDialog>
#include <QLineEdit>
#include <QMessageBox>
#include <QObject>
#include <QRegularExpression>
#include <QStringList>

namespace spyglass {

QString formatWays(const std::map<std::string, int>& ways)
{
    QStringList parts;
    for (const auto& [var, n] : ways)
        parts << QStringLiteral("%1:%2").arg(QString::fromStdString(var)).arg(n);
    return parts.join(QStringLiteral(", "));
}

std::optional<std::map<std::string, int>> parseWays(const QString& text, QString* error)
{
    std::map<std::string, int> ways;
    for (const QString& raw : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QString item = raw.trimmed();
        static const QRegularExpression re(QStringLiteral("^([pr][0-9]+)\\s*:\\s*([0-9]{1,4})$"));
        const QRegularExpressionMatch m = re.match(item);
        if (!m.hasMatch()) {
            *error = QObject::tr("'%1' is not VAR:WAYS (such as p0:4)").arg(item);
            return std::nullopt;
        }
        const std::string var = m.captured(1).toStdString();
        if (ways.count(var)) {
            *error = QObject::tr("%1 is given twice").arg(m.captured(1));
            return std::nullopt;
        }
        ways[var] = m.captured(2).toInt();
    }
    if (ways.empty()) {
        *error = QObject::tr("no VAR:WAYS given");
        return std::nullopt;
    }
    return ways;
}

const spyre::Op* finalOpOf(const spyre::Program& shown, int op, const spyre::Program& last)
{
    if (shown.stage != spyre::Stage::Loop)
        return nullptr;
    const int found = last.findOp(shown.ops[static_cast<size_t>(op)].name);
    return found < 0 ? nullptr : &last.ops[static_cast<size_t>(found)];
}

namespace {

QString currentSplitText(const spyre::Op& op)
{
    std::map<std::string, int> ways;
    for (size_t v = 0; v < op.split.ways.size(); ++v)
        if (op.split.ways[v] > 1)
            ways[op.varName(static_cast<int>(v))] = op.split.ways[v];
    if (ways.empty() && op.numVars() > 0)
        ways[op.varName(0)] = 1;
    return formatWays(ways);
}

}  // namespace

CompileRequest WhatIf::recompile(const CompiledDocument& current, const std::string& pass, const StickPins& pins, const SplitPins& splitPins)
{
    baseline_.plan = std::make_shared<spyre::PlanSummary>(spyre::summarizePlan(*current.programs.back()));
    baseline_.pass = pass;
    baseline_.simulatedNs.reset();
    if (current.simulation)
        baseline_.simulatedNs = current.simulation->kernelTimeNs;
    CompileRequest request;
    request.spyre.pins = pins;
    request.spyre.splitPins = splitPins;
    return request;
}

WhatIf::Outcome WhatIf::compiled(const CompiledDocument& now)
{
    Outcome out;
    if (!baseline_.plan || now.programs.empty()) {
        out.shown = !now.pins.empty() || !now.splitPins.empty();
        return out;
    }
    const spyre::PlanSummary b = spyre::summarizePlan(*now.programs.back());
    QStringList pins;
    for (const auto& [t, d] : now.pins)
        pins << QStringLiteral("%1 = d%2").arg(QString::fromStdString(t)).arg(d);
    // Each split pin with the op it landed on, found by identity, so a pin that moved would show it.
    const spyre::Program& last = *now.programs.back();
    for (const auto& [op, ways] : now.splitPins) {
        const int at = last.findOp(op);
        const QString where = at < 0 || last.ops[static_cast<size_t>(at)].origins.empty()
                                  ? QString()
                                  : QStringLiteral(" (%1)").arg(QString::fromStdString(last.ops[static_cast<size_t>(at)].origins.front()));
        pins << QObject::tr("%1 split %2%3").arg(QString::fromStdString(op), formatWays(ways), where);
    }
    std::optional<double> simAfter;
    if (now.simulation)
        simAfter = now.simulation->kernelTimeNs;
    out.bannerHtml = QObject::tr("<b>Layout what-if</b> — pins: %1.<br>%2. "
                                 "<i>Right-click a buffer in the Graph to pin another stick dimension, an op to pin its core split, or clear the pins.</i>")
                         .arg(pins.isEmpty() ? QObject::tr("none") : pins.join(QStringLiteral(", ")),
                              QString::fromStdString(spyre::comparePlans(*baseline_.plan, b, baseline_.simulatedNs, simAfter)).toHtmlEscaped());
    out.shown = true;
    out.pass = baseline_.pass;
    reset();
    return out;
}

std::optional<std::map<std::string, int>> WhatIf::askCoreSplit(QWidget* parent, const spyre::Program& last, const QString& opName, int cores)
{
    const spyre::Op* op = nullptr;
    for (const spyre::Op& o : last.ops)
        if (QString::fromStdString(o.name) == opName)
            op = &o;
    if (!op)
        return std::nullopt;
    // The legal ways of a var divide its units (sticks along the stick var); the label lists them so the user can
    // pick without a round trip through the compiler.
    QStringList vars;
    for (int v = 0; v < op->numVars(); ++v)
        vars << QObject::tr("%1: %2%3%4")
                    .arg(QString::fromStdString(op->varName(v)))
                    .arg(spyre::varUnits(last, *op, v))
                    .arg(v == op->stickVar() ? QObject::tr(" sticks") : QString())
                    .arg(v >= static_cast<int>(op->ranges.size()) ? QObject::tr(" (reduction)") : QString());
    const QString label = QObject::tr("Core split of %1 (%2), as VAR:WAYS; unnamed vars are not split.\n"
                                      "Units per tile — %3. Ways must divide them; at most %4 cores in all.\n"
                                      "Now: %5 (%6)")
                              .arg(opName, QString::fromLatin1(spyre::opKindName(op->kind)), vars.join(QStringLiteral(", ")))
                              .arg(cores)
                              .arg(currentSplitText(*op), QString::fromStdString(op->split.why));
    bool ok = false;
    const QString text = QInputDialog::getText(parent, QObject::tr("Pin core split"), label, QLineEdit::Normal, currentSplitText(*op), &ok);
    if (!ok)
        return std::nullopt;
    QString error;
    const auto ways = parseWays(text, &error);
    if (!ways)
        QMessageBox::warning(parent, QObject::tr("Pin core split"), error);
    return ways;
}

}  // namespace spyglass
