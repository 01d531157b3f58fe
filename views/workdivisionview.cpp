#include "views/workdivisionview.h"

#include "views/document.h"
#include "views/spyregraph.h"

#include "core/spyre/loop_ir.h"
#include "core/spyre/op_geometry.h"
#include "core/spyre/pass_codegen.h"
#include "core/spyre/spyre_target.h"
#include "core/spyresim/spyre_simulator.h"
#include "core/common/units.h"

#include <QMouseEvent>
#include <QPainter>

#include <map>
#include <tuple>
#include <QToolTip>

#include <algorithm>

namespace spyglass {

WorkDivisionView::WorkDivisionView(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("workDivisionView"));
    setMouseTracking(true);
    setMinimumSize(240, 160);
    headline_ = tr("Select an op in the Graph to see how its work is divided over the cores.");
}

void WorkDivisionView::setOp(std::shared_ptr<const spyre::Program> program, int op, int cores)
{
    cells_.assign(static_cast<size_t>(std::max(1, cores)), CoreCell{});
    imbalance_ = 1.0;
    maxPoints_ = 0;
    slices_.clear();
    rowVar_ = colVar_ = -1;
    tensorCaption_.clear();
    alternatives_.clear();
    simulatedUs_ = -1;
    if (!program || op < 0 || op >= static_cast<int>(program->ops.size())) {
        headline_ = tr("Select an op in the Graph to see how its work is divided over the cores.");
        update();
        return;
    }
    const spyre::Op& o = program->ops[static_cast<size_t>(op)];
    if (o.split.ways.empty()) {
        headline_ = tr("%1: not divided yet (work_division has not run at this pass)").arg(QString::fromStdString(o.name));
        update();
        return;
    }
    const auto slices = spyre::coreSlicesOf(*program, o);
    int64_t total = 0;
    int busy = 0;
    for (const auto& s : slices) {
        if (s.core < 0 || s.core >= static_cast<int>(cells_.size()))
            continue;
        CoreCell& cell = cells_[static_cast<size_t>(s.core)];
        cell.busy = true;
        cell.points = 1;
        QStringList parts;
        for (size_t v = 0; v < s.extent.size(); ++v) {
            cell.points *= s.extent[v];
            if (o.split.ways[v] > 1)
                parts << QStringLiteral("%1 %2..%3").arg(QString::fromStdString(o.varName(static_cast<int>(v)))).arg(s.start[v]).arg(s.start[v] + s.extent[v]);
        }
        cell.slice = parts.isEmpty() ? tr("whole space") : parts.join(QStringLiteral("\n"));
        total += cell.points;
        maxPoints_ = std::max(maxPoints_, cell.points);
        ++busy;
    }
    // The tensor picture: the output's iteration vars, split ones first, then the largest, as rows and columns.
    slices_ = slices;
    std::vector<int> vars;
    const int nIter = static_cast<int>(o.ranges.size());
    for (int v = 0; v < nIter; ++v)
        if (o.split.ways[static_cast<size_t>(v)] > 1)
            vars.push_back(v);
    std::vector<int> rest;
    for (int v = 0; v < nIter; ++v)
        if (o.split.ways[static_cast<size_t>(v)] <= 1)
            rest.push_back(v);
    std::stable_sort(rest.begin(), rest.end(), [&o](int a, int b) { return o.varRange(a) > o.varRange(b); });
    vars.insert(vars.end(), rest.begin(), rest.end());
    if (vars.size() > 2)
        vars.resize(2);
    std::sort(vars.begin(), vars.end());
    rowVar_ = vars.size() == 2 ? vars[0] : -1;
    colVar_ = vars.empty() ? -1 : vars.back();
    rowExtent_ = rowVar_ >= 0 ? spyre::varTileExtent(o, rowVar_) : 1;
    colExtent_ = colVar_ >= 0 ? spyre::varTileExtent(o, colVar_) : 1;
    QStringList hidden;
    for (int v = 0; v < o.numVars(); ++v)
        if (v != rowVar_ && v != colVar_ && o.split.ways[static_cast<size_t>(v)] > 1)
            hidden << QStringLiteral("%1÷%2").arg(QString::fromStdString(o.varName(v))).arg(o.split.ways[static_cast<size_t>(v)]);
    int64_t tiles = 1;
    for (const auto& t : o.tiles)
        tiles *= t.count;
    tensorCaption_ = tr("Output tile: rows %1 (%2), columns %3 (%4)%5; each core's slice in its colour.%6")
                         .arg(rowVar_ >= 0 ? QString::fromStdString(o.varName(rowVar_)) : QStringLiteral("—"))
                         .arg(rowExtent_)
                         .arg(colVar_ >= 0 ? QString::fromStdString(o.varName(colVar_)) : QStringLiteral("—"))
                         .arg(colExtent_)
                         .arg(tiles > 1 ? tr(", one of %1 tiles").arg(tiles) : QString())
                         .arg(hidden.isEmpty() ? QString() : tr(" Also split %1: those cores share a rectangle (labels list them).").arg(hidden.join(QStringLiteral(", "))));
    const double mean = busy > 0 ? static_cast<double>(total) / busy : 0;
    imbalance_ = mean > 0 ? static_cast<double>(maxPoints_) / mean : 1.0;
    headline_ = tr("%1 (%2): %3 of %4 cores, %5; imbalance %6×%7")
                    .arg(QString::fromStdString(o.name), QString::fromLatin1(spyre::opKindName(o.kind)))
                    .arg(busy)
                    .arg(cells_.size())
                    .arg(QString::fromStdString(spyre::splitText(o, o.split.ways)))
                    .arg(imbalance_, 0, 'f', 2)
                    .arg(o.split.why.empty() ? QString() : QStringLiteral(" — ") + QString::fromStdString(o.split.why));
    update();
}

void WorkDivisionView::setAlternatives(std::vector<spyre::SplitAlternative> alternatives, double simulatedUs)
{
    alternatives_ = std::move(alternatives);
    simulatedUs_ = simulatedUs;
    update();
}

QStringList WorkDivisionView::alternativeLines() const
{
    QStringList lines;
    for (const auto& a : alternatives_) {
        QString line = tr("%1 %2 core%3 (%4): model %5")
                           .arg(a.chosen ? QStringLiteral("▶") : QStringLiteral("  "))
                           .arg(a.cores)
                           .arg(a.cores == 1 ? QString() : QStringLiteral("s"))
                           .arg(QString::fromStdString(a.text))
                           .arg(QString::fromStdString(formatDuration(a.modelUs * 1000.0)));
        if (a.chosen)
            line += simulatedUs_ >= 0 ? tr(", simulated %1 — chosen").arg(QString::fromStdString(formatDuration(simulatedUs_ * 1000.0))) : tr(" — chosen");
        else if (!alternatives_.empty() && alternatives_.front().modelUs > 0)
            line += tr(" (%1× the chosen)").arg(a.modelUs / alternatives_.front().modelUs, 0, 'f', 2);
        lines << line;
    }
    return lines;
}

int WorkDivisionView::columns() const { return cells_.size() >= 16 ? 8 : std::max<int>(1, static_cast<int>(std::min<size_t>(cells_.size(), 4))); }

QRectF WorkDivisionView::tensorRect() const
{
    // Left 40 % when there is a tensor to draw; its caption above it and the alternatives below.
    if (slices_.empty())
        return {};
    const double top = 40 + 34, bottom = height() - 8.0 - 14.0 * static_cast<double>(alternatives_.size() + (alternatives_.empty() ? 0 : 1));
    return QRectF(6, top, std::max(40.0, width() * 0.4 - 12), std::max(30.0, bottom - top));
}

QRectF WorkDivisionView::cellRect(int core) const
{
    const int cols = columns();
    const int rows = (static_cast<int>(cells_.size()) + cols - 1) / cols;
    const double top = 40;
    const double left = slices_.empty() ? 4.0 : width() * 0.4 + 4;
    const double w = (width() - left - 4.0) / cols, h = std::max(30.0, (height() - top - 4.0) / std::max(1, rows));
    return QRectF(left + w * (core % cols), top + h * (core / cols), w - 4, h - 4);
}

QRectF WorkDivisionView::sliceRect(int core) const
{
    const QRectF t = tensorRect();
    for (const auto& s : slices_)
        if (s.core == core) {
            const double x0 = colVar_ >= 0 ? static_cast<double>(s.start[static_cast<size_t>(colVar_)]) / static_cast<double>(colExtent_) : 0;
            const double x1 = colVar_ >= 0 ? static_cast<double>(s.start[static_cast<size_t>(colVar_)] + s.extent[static_cast<size_t>(colVar_)]) / static_cast<double>(colExtent_) : 1;
            const double y0 = rowVar_ >= 0 ? static_cast<double>(s.start[static_cast<size_t>(rowVar_)]) / static_cast<double>(rowExtent_) : 0;
            const double y1 = rowVar_ >= 0 ? static_cast<double>(s.start[static_cast<size_t>(rowVar_)] + s.extent[static_cast<size_t>(rowVar_)]) / static_cast<double>(rowExtent_) : 1;
            return QRectF(t.left() + t.width() * x0, t.top() + t.height() * y0, t.width() * (x1 - x0), t.height() * (y1 - y0));
        }
    return {};
}

namespace {
QColor coreColour(int core, int cores) { return QColor::fromHsvF(static_cast<float>(core) / static_cast<float>(std::max(1, cores)) * 0.9f, 0.45f, 0.95f); }
}  // namespace

void WorkDivisionView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setPen(palette().text().color());
    p.drawText(QRectF(6, 2, width() - 12, 36), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, headline_);
    QFont small = font();
    small.setPointSizeF(std::max(6.5, small.pointSizeF() - 2));
    for (int c = 0; c < static_cast<int>(cells_.size()); ++c) {
        const CoreCell& cell = cells_[static_cast<size_t>(c)];
        const QRectF r = cellRect(c);
        QColor fill(0xe6, 0xe6, 0xe6);
        if (cell.busy && maxPoints_ > 0) {
            // The core's own colour (the one its slice has in the tensor); less work lighter.
            const double share = static_cast<double>(cell.points) / static_cast<double>(maxPoints_);
            fill = coreColour(c, static_cast<int>(cells_.size()));
            fill.setHsvF(fill.hsvHueF(), static_cast<float>(0.1 + 0.45 * share), fill.valueF());
        }
        p.fillRect(r, fill);
        p.setPen(QColor(0x88, 0x88, 0x88));
        p.drawRect(r);
        p.setPen(Qt::black);
        p.setFont(small);
        p.drawText(r.adjusted(3, 2, -3, -2), Qt::AlignLeft | Qt::AlignTop, QStringLiteral("core %1").arg(c));
        if (cell.busy)
            p.drawText(r.adjusted(3, 14, -3, -2), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, cell.slice);
        else
            p.drawText(r, Qt::AlignCenter, tr("idle"));
    }
    const QRectF t = tensorRect();
    if (t.isEmpty())
        return;
    p.setPen(palette().text().color());
    p.drawText(QRectF(6, 40, t.width(), 34), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, tensorCaption_);
    p.fillRect(t, QColor(0xf4, 0xf4, 0xf4));
    // Slices that cover the same rectangle (a var not drawn is split) share it: one label lists their cores.
    std::map<std::tuple<double, double, double, double>, QStringList> labels;
    for (const auto& sl : slices_) {
        const QRectF r = sliceRect(sl.core);
        p.fillRect(r, coreColour(sl.core, static_cast<int>(cells_.size())));
        p.setPen(QColor(0x50, 0x50, 0x50));
        p.drawRect(r);
        labels[{r.left(), r.top(), r.width(), r.height()}] << QString::number(sl.core);
    }
    p.setFont(small);
    p.setPen(Qt::black);
    for (const auto& [key, cores] : labels) {
        const QRectF r(std::get<0>(key), std::get<1>(key), std::get<2>(key), std::get<3>(key));
        if (r.width() > 14 && r.height() > 10)
            p.drawText(r, Qt::AlignCenter | Qt::TextWordWrap, QStringLiteral("c") + cores.join(QStringLiteral("+")));
    }
    p.setPen(QColor(0x30, 0x30, 0x30));
    p.drawRect(t);
    if (!alternatives_.empty()) {
        double y = t.bottom() + 4;
        p.drawText(QRectF(6, y, width() * 0.4, 14), Qt::AlignLeft | Qt::AlignVCenter, tr("Cost model (timing model of the kernel) per split:"));
        for (const QString& line : alternativeLines()) {
            y += 14;
            p.drawText(QRectF(6, y, width() * 0.4 + 200, 14), Qt::AlignLeft | Qt::AlignVCenter, line);
        }
    }
}

void WorkDivisionView::mouseMoveEvent(QMouseEvent* e)
{
    for (int c = 0; c < static_cast<int>(cells_.size()); ++c)
        if (cellRect(c).contains(e->position())) {
            const CoreCell& cell = cells_[static_cast<size_t>(c)];
            QToolTip::showText(e->globalPosition().toPoint(),
                               cell.busy ? tr("core %1\n%2\n%3 iteration points").arg(c).arg(cell.slice).arg(cell.points) : tr("core %1: idle").arg(c), this);
            return;
        }
    QToolTip::hideText();
}

void followDocument(WorkDivisionView* view, const Document* document)
{
    auto show = [view, document] {
        const auto program = document->selectedProgram();
        const SpyreNodeRef ref = program ? resolveSpyreNode(*program, document->selectedNode()) : SpyreNodeRef{};
        const int cores = document->compiled().target ? document->compiled().target->cores : 1;
        int op = -1;
        if (ref.kind == SpyreNodeRef::Kind::Op)
            op = ref.index;
        else if (ref.kind == SpyreNodeRef::Kind::Buffer)
            op = program->buffers[static_cast<size_t>(ref.index)].producer;
        view->setOp(op >= 0 ? program : nullptr, op, cores);
        if (op < 0 || !document->compiled().target)
            return;
        // The simulated time exists for the final bundle only: at the last pass, the kernel named like the op.
        double simulatedUs = -1;
        const auto& sim = document->compiled().simulation;
        if (sim && program == document->compiled().programs.back())
            for (const auto& k : sim->kernels)
                if (k.name == program->ops[static_cast<size_t>(op)].name)
                    simulatedUs = k.timeNs / 1000.0;
        view->setAlternatives(spyre::splitAlternatives(*program, program->ops[static_cast<size_t>(op)], *document->compiled().target), simulatedUs);
    };
    QObject::connect(document, &Document::documentChanged, view, show);
    QObject::connect(document, &Document::selectedPassChanged, view, show);
    QObject::connect(document, &Document::selectedNodeChanged, view, show);
}

}  // namespace spyglass
