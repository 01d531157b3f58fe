#include "views/sticklayoutview.h"

#include "core/spyre/layout_coords.h"
#include "core/spyre/loop_ir.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPaintEvent>
#include <QScrollArea>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace spyglass {

using namespace spyre;

namespace {
constexpr int64_t kMaxDrawnRows = 4096;   // beyond this the grid shows its first rows and says so
QString coordText(const std::vector<int64_t>& c)
{
    QStringList parts;
    for (int64_t v : c)
        parts << QString::number(v);
    return QStringLiteral("[") + parts.join(QStringLiteral(", ")) + QStringLiteral("]");
}
}  // namespace

StickGrid::StickGrid(QWidget* parent) : QWidget(parent) { setMouseTracking(true); }

void StickGrid::setBuffer(std::shared_ptr<const Program> program, int buffer)
{
    program_ = std::move(program);
    buffer_ = program_ && buffer >= 0 && buffer < static_cast<int>(program_->buffers.size()) ? buffer : -1;
    rows_ = cols_ = 0;
    highlightRow_ = highlightCol_ = -1;
    if (buffer_ >= 0) {
        const Buffer& b = program_->buffers[static_cast<size_t>(buffer_)];
        const SpyreTensorLayout l = program_->layoutOf(b);
        const size_t nd = l.deviceSize.size();
        cols_ = nd >= 2 ? l.deviceSize[nd - 2] : 1;
        rows_ = 1;
        for (size_t i = 0; i + 2 < nd; ++i)
            rows_ *= l.deviceSize[i];
        // Wide tensors get narrower cells; the grid scrolls rather than shrinking below a visible size.
        cellW_ = std::clamp(900.0 / static_cast<double>(std::max<int64_t>(1, cols_)), 6.0, 48.0);
        cellH_ = std::clamp(cellW_ * 0.8, 6.0, 16.0);
    }
    const int64_t drawnRows = std::min(rows_, kMaxDrawnRows);
    setMinimumSize(static_cast<int>(std::min(30000.0, cellW_ * static_cast<double>(cols_) + 8)),
                   static_cast<int>(kTop + cellH_ * static_cast<double>(drawnRows) + 24));
    update();
}

QString StickGrid::caption() const
{
    if (buffer_ < 0)
        return {};
    const Buffer& b = program_->buffers[static_cast<size_t>(buffer_)];
    QString s = QStringLiteral("%1 %2 stick d%3: %4")
                    .arg(QString::fromStdString(b.name), QString::fromStdString(shapeText(b.shape)))
                    .arg(b.stickDim)
                    .arg(QString::fromStdString(program_->layoutOf(b).text()));
    if (rows_ > kMaxDrawnRows)
        s += tr(" (first %1 of %2 rows drawn)").arg(kMaxDrawnRows).arg(rows_);
    return s;
}

std::vector<int64_t> StickGrid::stickIndex(int64_t row, int64_t col) const
{
    const SpyreTensorLayout l = program_->layoutOf(program_->buffers[static_cast<size_t>(buffer_)]);
    const size_t nd = l.deviceSize.size();
    std::vector<int64_t> idx(nd, 0);
    if (nd >= 2)
        idx[nd - 2] = col;
    int64_t rest = row;
    for (int i = static_cast<int>(nd) - 3; i >= 0; --i) {
        idx[static_cast<size_t>(i)] = rest % l.deviceSize[static_cast<size_t>(i)];
        rest /= l.deviceSize[static_cast<size_t>(i)];
    }
    return idx;
}

QRectF StickGrid::cell(int64_t row, int64_t col) const
{
    return QRectF(4 + cellW_ * static_cast<double>(col), kTop + cellH_ * static_cast<double>(row), cellW_ - 1, cellH_ - 1);
}

int64_t StickGrid::paddedSticks() const
{
    if (buffer_ < 0)
        return 0;
    const Buffer& b = program_->buffers[static_cast<size_t>(buffer_)];
    const SpyreTensorLayout l = program_->layoutOf(b);
    int64_t padded = 0;
    for (int64_t r = 0; r < rows_; ++r)
        for (int64_t c = 0; c < cols_; ++c)
            if (paddingInStick(l, b.shape, b.strides, stickIndex(r, c)) > 0)
                ++padded;
    return padded;
}

void StickGrid::paintEvent(QPaintEvent* e)
{
    QPainter p(this);
    p.fillRect(rect(), Qt::white);
    if (buffer_ < 0)
        return;
    const Buffer& b = program_->buffers[static_cast<size_t>(buffer_)];
    const SpyreTensorLayout l = program_->layoutOf(b);
    const int64_t elements = l.deviceSize.empty() ? 1 : l.deviceSize.back();
    p.setPen(Qt::black);
    p.drawText(QRectF(4, 0, width() - 8, kTop), Qt::AlignLeft | Qt::AlignVCenter,
               tr("%1 sticks of %2 elements; column = device dim %3, row = outer device dims").arg(rows_ * cols_).arg(elements).arg(std::max<int>(0, static_cast<int>(l.deviceSize.size()) - 2)));
    // Only the sticks inside the exposed rectangle are drawn: big tensors stay cheap.
    const QRectF area = e->rect();
    const int64_t r0 = std::max<int64_t>(0, static_cast<int64_t>((area.top() - kTop) / cellH_));
    const int64_t r1 = std::min<int64_t>(std::min(rows_, kMaxDrawnRows), static_cast<int64_t>((area.bottom() - kTop) / cellH_) + 1);
    const int64_t c0 = std::max<int64_t>(0, static_cast<int64_t>((area.left() - 4) / cellW_));
    const int64_t c1 = std::min<int64_t>(cols_, static_cast<int64_t>((area.right() - 4) / cellW_) + 1);
    const QColor data(0x7a, 0xa6, 0xe0), pad(0xd9, 0xd9, 0xd9);
    for (int64_t r = r0; r < r1; ++r)
        for (int64_t c = c0; c < c1; ++c) {
            const QRectF rc = cell(r, c);
            const int64_t padding = paddingInStick(l, b.shape, b.strides, stickIndex(r, c));
            const double dataFrac = 1.0 - static_cast<double>(padding) / static_cast<double>(elements);
            // Data part of the stick first (elements are in order along the stick), padding after it.
            p.fillRect(QRectF(rc.left(), rc.top(), rc.width() * dataFrac, rc.height()), data);
            p.fillRect(QRectF(rc.left() + rc.width() * dataFrac, rc.top(), rc.width() * (1 - dataFrac), rc.height()), pad);
            if (r == highlightRow_ && c == highlightCol_) {
                p.setPen(QPen(QColor(0xd0, 0x30, 0x20), 2));
                p.drawRect(rc.adjusted(-1, -1, 1, 1));
            }
        }
}

std::vector<int64_t> StickGrid::hostAt(QPointF pos) const
{
    if (buffer_ < 0 || pos.y() < kTop || pos.x() < 4)
        return {};
    const int64_t row = static_cast<int64_t>((pos.y() - kTop) / cellH_);
    const int64_t col = static_cast<int64_t>((pos.x() - 4) / cellW_);
    if (row >= std::min(rows_, kMaxDrawnRows) || col >= cols_)
        return {};
    const Buffer& b = program_->buffers[static_cast<size_t>(buffer_)];
    const SpyreTensorLayout l = program_->layoutOf(b);
    std::vector<int64_t> idx = stickIndex(row, col);
    const double within = (pos.x() - 4 - cellW_ * static_cast<double>(col)) / cellW_;
    idx.back() = std::clamp<int64_t>(static_cast<int64_t>(within * static_cast<double>(l.deviceSize.back())), 0, l.deviceSize.back() - 1);
    const HostCoordinate h = hostCoordinateOf(l, b.shape, b.strides, idx);
    return h.padding ? std::vector<int64_t>{} : h.coord;
}

void StickGrid::highlightHost(const std::vector<int64_t>& coord)
{
    highlightRow_ = highlightCol_ = -1;
    if (buffer_ >= 0 && !coord.empty()) {
        const Buffer& b = program_->buffers[static_cast<size_t>(buffer_)];
        const SpyreTensorLayout l = program_->layoutOf(b);
        const std::vector<int64_t> idx = deviceIndexOf(l, b.strides, coord);
        const size_t nd = idx.size();
        highlightCol_ = nd >= 2 ? idx[nd - 2] : 0;
        int64_t row = 0;
        for (size_t i = 0; i + 2 < nd; ++i)
            row = row * l.deviceSize[i] + idx[i];
        highlightRow_ = row;
    }
    update();
}

void StickGrid::mouseMoveEvent(QMouseEvent* e)
{
    const std::vector<int64_t> host = hostAt(e->position());
    if (buffer_ >= 0 && e->position().y() >= kTop) {
        QToolTip::showText(e->globalPosition().toPoint(), host.empty() ? tr("padding") : tr("host %1").arg(coordText(host)), this);
        emit hovered(host);
    }
}

void StickGrid::leaveEvent(QEvent*) { emit hovered({}); }

StickLayoutView::StickLayoutView(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("stickLayoutView"));
    headline_ = new QLabel(tr("Select a buffer or a restickify op in the Graph to see its sticks."), this);
    headline_->setWordWrap(true);
    auto* row = new QHBoxLayout;
    for (int i = 0; i < 2; ++i) {
        grids_[i] = new StickGrid(this);
        auto* scroll = new QScrollArea(this);
        scroll->setWidget(grids_[i]);
        scroll->setWidgetResizable(false);
        panes_[i] = scroll;
        row->addWidget(scroll, 1);
    }
    panes_[1]->hide();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(headline_);
    layout->addLayout(row, 1);
    // Hovering an element on one side highlights the stick it lives in on the other.
    connect(grids_[0], &StickGrid::hovered, grids_[1], &StickGrid::highlightHost);
    connect(grids_[1], &StickGrid::hovered, grids_[0], &StickGrid::highlightHost);
}

QString StickLayoutView::headline() const { return headline_->text(); }

void StickLayoutView::clear()
{
    grids_[0]->setBuffer(nullptr, -1);
    grids_[1]->setBuffer(nullptr, -1);
    panes_[1]->hide();
    headline_->setText(tr("Select a buffer or a restickify op in the Graph to see its sticks."));
}

void StickLayoutView::showBuffer(std::shared_ptr<const Program> program, int buffer)
{
    program_ = program;
    grids_[0]->setBuffer(program, buffer);
    grids_[1]->setBuffer(nullptr, -1);
    panes_[1]->hide();
    const Buffer* b = program && buffer >= 0 && buffer < static_cast<int>(program->buffers.size()) ? &program->buffers[static_cast<size_t>(buffer)] : nullptr;
    if (!b || b->stickDim < 0)
        headline_->setText(b ? tr("%1: no device layout yet (before optimize_layouts)").arg(QString::fromStdString(b->name)) : QString());
    else
        headline_->setText(grids_[0]->caption() + tr("\n%1 of %2 sticks carry padding (grey).").arg(grids_[0]->paddedSticks()).arg(grids_[0]->stickCount()));
}

void StickLayoutView::showRestickify(std::shared_ptr<const Program> program, int op)
{
    program_ = program;
    if (!program || op < 0 || op >= static_cast<int>(program->ops.size()) || program->ops[static_cast<size_t>(op)].loads.empty())
        return clear();
    const Op& o = program->ops[static_cast<size_t>(op)];
    grids_[0]->setBuffer(program, o.loads.front().buffer);
    grids_[1]->setBuffer(program, o.store.buffer);
    panes_[1]->show();
    headline_->setText(tr("%1 restickify: stick d%2 → d%3, %4 elements. Left: source %5. Right: destination %6. Hover an element to see the stick it moves to.")
                           .arg(QString::fromStdString(o.name))
                           .arg(o.fromStickDim)
                           .arg(o.toStickDim)
                           .arg(o.iterationPoints())
                           .arg(grids_[0]->caption(), grids_[1]->caption()));
}

}  // namespace spyglass
