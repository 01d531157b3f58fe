#include "views/workdivisionview.h"

#include "views/document.h"
#include "views/spyregraph.h"

#include "core/spyre/loop_ir.h"
#include "core/spyre/pass_codegen.h"

#include <QMouseEvent>
#include <QPainter>
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
    const double mean = busy > 0 ? static_cast<double>(total) / busy : 0;
    imbalance_ = mean > 0 ? static_cast<double>(maxPoints_) / mean : 1.0;
    QStringList ways;
    for (size_t v = 0; v < o.split.ways.size(); ++v)
        if (o.split.ways[v] > 1)
            ways << QStringLiteral("%1÷%2").arg(QString::fromStdString(o.varName(static_cast<int>(v)))).arg(o.split.ways[v]);
    headline_ = tr("%1 (%2): %3 of %4 cores, %5; imbalance %6×%7")
                    .arg(QString::fromStdString(o.name), QString::fromLatin1(spyre::opKindName(o.kind)))
                    .arg(busy)
                    .arg(cells_.size())
                    .arg(ways.isEmpty() ? tr("not split") : ways.join(QStringLiteral(" × ")))
                    .arg(imbalance_, 0, 'f', 2)
                    .arg(o.split.why.empty() ? QString() : QStringLiteral(" — ") + QString::fromStdString(o.split.why));
    update();
}

int WorkDivisionView::columns() const { return cells_.size() >= 16 ? 8 : std::max<int>(1, static_cast<int>(std::min<size_t>(cells_.size(), 4))); }

QRectF WorkDivisionView::cellRect(int core) const
{
    const int cols = columns();
    const int rows = (static_cast<int>(cells_.size()) + cols - 1) / cols;
    const double top = 40;
    const double w = (width() - 8.0) / cols, h = std::max(30.0, (height() - top - 4.0) / std::max(1, rows));
    return QRectF(4 + w * (core % cols), top + h * (core / cols), w - 4, h - 4);
}

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
            // Full work blue; less work lighter: an even split is one colour everywhere.
            const double share = static_cast<double>(cell.points) / static_cast<double>(maxPoints_);
            fill = QColor::fromHsvF(0.58, 0.15 + 0.6 * share, 0.95);
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
    };
    QObject::connect(document, &Document::documentChanged, view, show);
    QObject::connect(document, &Document::selectedPassChanged, view, show);
    QObject::connect(document, &Document::selectedNodeChanged, view, show);
}

}  // namespace spyglass
