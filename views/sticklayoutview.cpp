#include "views/sticklayoutview.h"

#include "views/document.h"
#include "views/spyregraph.h"

#include "core/spyre/layout_coords.h"
#include "core/spyre/restickify_trace.h"
#include "core/spyre/loop_ir.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QFontMetricsF>
#include <QMouseEvent>
#include <QPainter>
#include <QPaintEvent>
#include <QPushButton>
#include <QScrollArea>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace spyglass {

using namespace spyre;

namespace {
// Beyond these the grid is summarised: a few hundred sticks tell the layout, thousands of boxes only repeat it.
constexpr int64_t kAllRows = 32, kAllColumns = 64;
constexpr int64_t kHeadColumns = 12, kTailColumns = 4, kAroundColumns = 4;
constexpr double kFoldSize = 30;   // a folded band's height (rows) or width (columns), in pixels
QString coordText(const std::vector<int64_t>& c)
{
    QStringList parts;
    for (int64_t v : c)
        parts << QString::number(v);
    return QStringLiteral("[") + parts.join(QStringLiteral(", ")) + QStringLiteral("]");
}
}  // namespace

StickGrid::StickGrid(QWidget* parent) : QWidget(parent) { setMouseTracking(true); }

QColor StickGrid::colourOf(const std::vector<int64_t>& host, int hueDim, int shadeDim, int64_t stickElements)
{
    // Hue walks one stick's worth of the hue dim (then repeats), shade steps along the other dim in 4 levels: a
    // stick along the hue dim is a rainbow, one along the shade dim a single hue.
    const int64_t e = std::max<int64_t>(1, stickElements);
    const double hue = hueDim >= 0 && hueDim < static_cast<int>(host.size()) ? static_cast<double>(host[static_cast<size_t>(hueDim)] % e) / static_cast<double>(e) : 0.6;
    const int shade = shadeDim >= 0 && shadeDim < static_cast<int>(host.size()) ? static_cast<int>(host[static_cast<size_t>(shadeDim)] % 4) : 1;
    return QColor::fromHsvF(static_cast<float>(hue * 0.85), 0.55f + 0.1f * static_cast<float>(shade), 0.98f - 0.12f * static_cast<float>(shade));
}

void StickGrid::setBuffer(std::shared_ptr<const Program> program, int buffer, int hueDim, int shadeDim)
{
    program_ = std::move(program);
    buffer_ = program_ && buffer >= 0 && buffer < static_cast<int>(program_->buffers.size()) ? buffer : -1;
    rows_ = cols_ = 0;
    highlightRow_ = highlightCol_ = highlightOffset_ = -1;
    padded_ = -1;
    outlined_.clear();
    hueDim_ = hueDim;
    shadeDim_ = shadeDim;
    if (buffer_ >= 0) {
        const Buffer& b = program_->buffers[static_cast<size_t>(buffer_)];
        // A buffer on its own: hue along its stick dim, shade along the dim before it.
        if (hueDim_ == -2) {
            hueDim_ = b.stickDim;
            shadeDim_ = b.stickDim > 0 ? b.stickDim - 1 : (b.shape.size() > 1 ? 1 : -1);
        }
        const SpyreTensorLayout l = program_->layoutOf(b);
        const size_t nd = l.deviceSize.size();
        cols_ = nd >= 2 ? l.deviceSize[nd - 2] : 1;
        rows_ = 1;
        for (size_t i = 0; i + 2 < nd; ++i)
            rows_ *= l.deviceSize[i];
        // Wide tensors get narrower cells, down to a visible size; a summarised one is sized for the most columns its
        // summary shows (head, tail and two kept places), so a click does not resize the cells.
        const int64_t drawnCols = cols_ <= kAllColumns ? cols_ : kHeadColumns + kTailColumns + 2 * (2 * kAroundColumns + 1);
        cellW_ = std::clamp(900.0 / static_cast<double>(std::max<int64_t>(1, drawnCols)), 10.0, 48.0);
        cellH_ = std::clamp(cellW_ * 0.8, 8.0, 16.0);
    }
    summarise();
}

void StickGrid::Axis::build(int64_t total, int64_t limit, int64_t head, int64_t tail, const std::vector<int64_t>& keep,
                            int64_t around, double cell, double foldSize)
{
    bands.clear();
    extent = 0;
    std::vector<char> shown(static_cast<size_t>(total <= limit ? 0 : total), 0);
    auto run = [&](int64_t first, int64_t count, bool folded) {
        const double size = folded ? foldSize : cell * static_cast<double>(count);
        bands.push_back({first, count, folded, extent, size});
        extent += size;
    };
    if (total <= limit) {
        if (total > 0)
            run(0, total, false);
        return;
    }
    auto show = [&](int64_t from, int64_t to) {
        for (int64_t i = std::max<int64_t>(0, from); i < std::min(total, to); ++i)
            shown[static_cast<size_t>(i)] = 1;
    };
    show(0, head);
    show(total - tail, total);
    for (int64_t k : keep)
        show(k - around, k + around + 1);
    for (int64_t i = 0; i < total;) {
        int64_t j = i;
        while (j < total && shown[static_cast<size_t>(j)] == shown[static_cast<size_t>(i)])
            ++j;
        run(i, j - i, !shown[static_cast<size_t>(i)]);
        i = j;
    }
}

double StickGrid::Axis::startOf(int64_t i) const
{
    for (const Band& b : bands)
        if (i >= b.first && i < b.first + b.count)
            return b.folded ? -1 : b.start + b.size * static_cast<double>(i - b.first) / static_cast<double>(b.count);
    return -1;
}

const StickGrid::Axis::Band* StickGrid::Axis::bandAt(double pos) const
{
    for (const Band& b : bands)
        if (pos >= b.start && pos < b.start + b.size)
            return &b;
    return nullptr;
}

int64_t StickGrid::Axis::shown() const
{
    int64_t n = 0;
    for (const Band& b : bands)
        n += b.folded ? 0 : b.count;
    return n;
}

void StickGrid::summarise()
{
    // Kept: the highlighted stick and the first and last outlined ones (a step's sources run in order), with
    // neighbours, so the eye sees the stick in its context.
    std::vector<int64_t> keepRows, keepCols;
    auto keep = [&](int64_t stick) {
        if (cols_ > 0 && stick >= 0) {
            keepRows.push_back(stick / cols_);
            keepCols.push_back(stick % cols_);
        }
    };
    if (highlightRow_ >= 0)
        keep(highlightRow_ * cols_ + highlightCol_);
    if (!outlined_.empty()) {
        keep(outlined_.front());
        keep(outlined_.back());
    }
    rowAxis_.build(rows_, kAllRows, 4, 2, keepRows, 2, cellH_, kFoldSize);
    colAxis_.build(cols_, kAllColumns, kHeadColumns, kTailColumns, keepCols, kAroundColumns, cellW_, kFoldSize);
    // Wide enough for the caption line above the sticks.
    setMinimumSize(std::max(static_cast<int>(colAxis_.extent + 8), buffer_ >= 0 ? 520 : 0), static_cast<int>(kTop + rowAxis_.extent + 24));
    updateGeometry();
    update();
}

QStringList StickGrid::elidedBands() const
{
    QStringList out;
    for (const auto& [axis, name] : {std::pair{&rowAxis_, tr("rows")}, std::pair{&colAxis_, tr("columns")}})
        for (const Axis::Band& b : axis->bands)
            if (b.folded)
                out << tr("%1 %2–%3 (%4)").arg(name).arg(b.first).arg(b.first + b.count - 1).arg(b.count);
    return out;
}

QRectF StickGrid::stickRect(int64_t stick) const
{
    if (buffer_ < 0 || cols_ <= 0 || stick < 0 || stick >= rows_ * cols_)
        return {};
    return cell(stick / cols_, stick % cols_);
}

QString StickGrid::caption() const
{
    if (buffer_ < 0)
        return {};
    const Buffer& b = program_->buffers[static_cast<size_t>(buffer_)];
    const int64_t padded = paddedSticks();
    QString s = QStringLiteral("%1 %2 stick d%3: %4 sticks (%5 × %6), %7 with padding")
                    .arg(QString::fromStdString(b.name), QString::fromStdString(shapeText(b.shape)))
                    .arg(b.stickDim)
                    .arg(rows_ * cols_)
                    .arg(rows_)
                    .arg(cols_)
                    .arg(padded);
    if (rowAxis_.shown() < rows_ || colAxis_.shown() < cols_)
        s += tr("; summarised: %1 × %2 drawn, grey bands hold the rest").arg(rowAxis_.shown()).arg(colAxis_.shown());
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
    const double x = colAxis_.startOf(col), y = rowAxis_.startOf(row);
    if (x < 0 || y < 0)
        return {};
    return QRectF(4 + x, kTop + y, cellW_ - 1, cellH_ - 1);
}

int64_t StickGrid::paddedSticks() const
{
    if (buffer_ < 0)
        return 0;
    if (padded_ >= 0)
        return padded_;
    const Buffer& b = program_->buffers[static_cast<size_t>(buffer_)];
    const SpyreTensorLayout l = program_->layoutOf(b);
    int64_t padded = 0;
    for (int64_t r = 0; r < rows_; ++r)
        for (int64_t c = 0; c < cols_; ++c)
            if (paddingInStick(l, b.shape, b.strides, stickIndex(r, c)) > 0)
                ++padded;
    padded_ = padded;
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
    // Only the sticks inside the exposed rectangle are drawn, and of a big tensor only the summary's.
    const QRectF area = e->rect();
    painted_ = 0;
    QFont small = font();
    small.setPointSizeF(7.5);
    for (const Axis::Band& rb : rowAxis_.bands) {
        const double y = kTop + rb.start;
        if (y > area.bottom() || y + rb.size < area.top())
            continue;
        if (rb.folded) {
            const QRectF band(4, y + 2, colAxis_.extent - 1, rb.size - 4);
            p.fillRect(band, QColor(0xe4, 0xe7, 0xec));
            p.setPen(QColor(0x40, 0x46, 0x50));
            p.setFont(small);
            p.drawText(band, Qt::AlignCenter, tr("⋮ %1 more rows of sticks (rows %2–%3), not drawn").arg(rb.count).arg(rb.first).arg(rb.first + rb.count - 1));
            continue;
        }
        for (const Axis::Band& cb : colAxis_.bands) {
            const double x = 4 + cb.start;
            if (x > area.right() || x + cb.size < area.left())
                continue;
            if (cb.folded) {
                const QRectF band(x + 2, y, cb.size - 4, rb.size - 1);
                p.fillRect(band, QColor(0xe4, 0xe7, 0xec));
                if (rb.first == rowAxis_.bands.front().first) {
                    // The count once, at the top of the column band: "⋯" over how many columns it holds.
                    p.setPen(QColor(0x40, 0x46, 0x50));
                    p.setFont(small);
                    p.drawText(QRectF(band.left() - 4, band.top(), band.width() + 8, 2 * QFontMetricsF(small).height()), Qt::AlignHCenter | Qt::AlignTop,
                               QStringLiteral("⋯\n%1").arg(cb.count));
                }
                continue;
            }
            for (int64_t r = rb.first; r < rb.first + rb.count; ++r)
                for (int64_t c = cb.first; c < cb.first + cb.count; ++c) {
                    const QRectF rc = cell(r, c);
                    if (!rc.intersects(area))
                        continue;
                    ++painted_;
                    drawStick(p, l, b, r, c, rc, elements);
                }
        }
    }
}

void StickGrid::drawStick(QPainter& p, const SpyreTensorLayout& l, const Buffer& b, int64_t r, int64_t c, const QRectF& rc, int64_t elements) const
{
    std::vector<int64_t> idx = stickIndex(r, c);
    // One strip per pixel column (at most one per element): each coloured by the element it shows.
    const int strips = static_cast<int>(std::clamp<double>(std::floor(rc.width()), 1.0, static_cast<double>(elements)));
    for (int j = 0; j < strips; ++j) {
        idx.back() = static_cast<int64_t>(j) * elements / strips;
        const HostCoordinate h = hostCoordinateOf(l, b.shape, b.strides, idx);
        const QRectF strip(rc.left() + rc.width() * j / strips, rc.top(), rc.width() / strips + 0.5, rc.height());
        if (h.padding) {
            p.fillRect(strip, QColor(0xee, 0xee, 0xee));
            p.fillRect(strip, QBrush(QColor(0xa0, 0xa0, 0xa0), Qt::BDiagPattern));
        } else {
            p.fillRect(strip, colourOf(h.coord, hueDim_, shadeDim_, elements));
        }
    }
    if (std::binary_search(outlined_.begin(), outlined_.end(), r * cols_ + c)) {
        p.setPen(QPen(QColor(0x20, 0x20, 0x20), 1.5, Qt::DotLine));
        p.setBrush(Qt::NoBrush);
        p.drawRect(rc);
    }
    if (r == highlightRow_ && c == highlightCol_) {
        p.setPen(QPen(QColor(0xd0, 0x30, 0x20), 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(rc.adjusted(-1, -1, 1, 1));
        if (highlightOffset_ >= 0) {
            // The element itself: a black tick at its place along the stick.
            const double x = rc.left() + rc.width() * (static_cast<double>(highlightOffset_) + 0.5) / static_cast<double>(elements);
            p.setPen(QPen(Qt::black, 2));
            p.drawLine(QPointF(x, rc.top() - 3), QPointF(x, rc.bottom() + 3));
        }
    }
}

std::vector<int64_t> StickGrid::hostAt(QPointF pos) const
{
    if (buffer_ < 0 || pos.y() < kTop || pos.x() < 4)
        return {};
    const Axis::Band* rb = rowAxis_.bandAt(pos.y() - kTop);
    const Axis::Band* cb = colAxis_.bandAt(pos.x() - 4);
    if (!rb || !cb || rb->folded || cb->folded)
        return {};
    const int64_t row = rb->first + static_cast<int64_t>((pos.y() - kTop - rb->start) / cellH_);
    const int64_t col = cb->first + static_cast<int64_t>((pos.x() - 4 - cb->start) / cellW_);
    if (row >= rb->first + rb->count || col >= cb->first + cb->count)
        return {};
    const Buffer& b = program_->buffers[static_cast<size_t>(buffer_)];
    const SpyreTensorLayout l = program_->layoutOf(b);
    std::vector<int64_t> idx = stickIndex(row, col);
    // The same geometry the paint uses: elements spread over the drawn cell.
    const QRectF rc = cell(row, col);
    const double within = (pos.x() - rc.left()) / rc.width();
    idx.back() = std::clamp<int64_t>(static_cast<int64_t>(within * static_cast<double>(l.deviceSize.back())), 0, l.deviceSize.back() - 1);
    const HostCoordinate h = hostCoordinateOf(l, b.shape, b.strides, idx);
    return h.padding ? std::vector<int64_t>{} : h.coord;
}

void StickGrid::highlightHost(const std::vector<int64_t>& coord)
{
    highlightRow_ = highlightCol_ = highlightOffset_ = -1;
    if (buffer_ >= 0 && !coord.empty() && cols_ > 0) {
        const StickPlace at = stickPlaceOf(*program_, program_->buffers[static_cast<size_t>(buffer_)], coord);
        if (at.stick >= 0) {
            highlightRow_ = at.stick / cols_;
            highlightCol_ = at.stick % cols_;
            highlightOffset_ = at.offset;
        }
    }
    summarise();
}

void StickGrid::outlineSticks(std::vector<int64_t> sticks)
{
    std::sort(sticks.begin(), sticks.end());
    outlined_ = std::move(sticks);
    summarise();
}

void StickGrid::mouseMoveEvent(QMouseEvent* e)
{
    const std::vector<int64_t> host = hostAt(e->position());
    if (buffer_ >= 0 && e->position().y() >= kTop) {
        const Axis::Band* rb = rowAxis_.bandAt(e->position().y() - kTop);
        const Axis::Band* cb = colAxis_.bandAt(e->position().x() - 4);
        QString tip = host.empty() ? tr("padding") : tr("host %1").arg(coordText(host));
        if (rb && rb->folded)
            tip = tr("%1 rows of sticks (%2–%3) not drawn; trace an element there to see it").arg(rb->count).arg(rb->first).arg(rb->first + rb->count - 1);
        else if (cb && cb->folded)
            tip = tr("%1 columns of sticks (%2–%3) not drawn; trace an element there to see it").arg(cb->count).arg(cb->first).arg(cb->first + cb->count - 1);
        if (!rb || !cb)
            tip.clear();
        QToolTip::showText(e->globalPosition().toPoint(), tip, this);
        emit hovered(host);
    }
}

void StickGrid::mousePressEvent(QMouseEvent* e)
{
    const std::vector<int64_t> host = hostAt(e->position());
    if (!host.empty())
        emit clicked(host);
}

void StickGrid::leaveEvent(QEvent*) { emit hovered({}); }

StickMoveStrip::StickMoveStrip(QWidget* parent) : QWidget(parent) { setMinimumHeight(60); }

void StickMoveStrip::setRows(std::vector<Row> sources, Row destination, int64_t moreSources)
{
    sources_ = std::move(sources);
    destination_ = std::move(destination);
    more_ = moreSources;
    setMinimumHeight(static_cast<int>(24 + 9 * sources_.size() + 28));
    update();
}

void StickMoveStrip::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), Qt::white);
    if (destination_.elements.empty())
        return;
    const int labelW = 70;
    const double n = static_cast<double>(destination_.elements.size());
    const double bw = std::max(3.0, (width() - labelW - 10) / n);
    QFont f = font();
    f.setPointSizeF(7.5);
    p.setFont(f);
    auto drawRow = [&](const Row& r, double y, double h) {
        p.setPen(QColor(0x30, 0x30, 0x30));
        p.drawText(QRectF(2, y, labelW - 4, h), Qt::AlignVCenter | Qt::AlignRight, r.label);
        for (size_t e = 0; e < r.elements.size(); ++e) {
            const QRectF box(labelW + bw * static_cast<double>(e), y, bw - 0.5, h);
            if (r.elements[e].isValid())
                p.fillRect(box, r.elements[e]);
            else
                p.fillRect(box, QBrush(QColor(0xa0, 0xa0, 0xa0), Qt::BDiagPattern));
        }
        if (r.moved >= 0) {
            p.setPen(QPen(Qt::black, 1.5));
            p.setBrush(Qt::NoBrush);
            p.drawRect(QRectF(labelW + bw * static_cast<double>(r.moved) - 1, y - 1, bw + 1, h + 1));
        }
    };
    p.setPen(QColor(0x30, 0x30, 0x30));
    p.drawText(QRectF(labelW, 0, width() - labelW, 14), Qt::AlignLeft | Qt::AlignVCenter,
               tr("source sticks (the framed element moves)%1").arg(more_ > 0 ? tr(" — and %1 more not drawn").arg(more_) : QString()));
    double y = 16;
    for (const Row& r : sources_) {
        drawRow(r, y, 7);
        y += 9;
    }
    p.setPen(QColor(0x30, 0x30, 0x30));
    p.drawText(QRectF(labelW, y, width() - labelW, 12), Qt::AlignLeft | Qt::AlignVCenter, tr("↓ into the destination stick, element by element"));
    drawRow(destination_, y + 13, 12);
}

StickLayoutView::StickLayoutView(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("stickLayoutView"));
    headline_ = new QLabel(tr("Select a buffer or a restickify op in the Graph to see its sticks."), this);
    headline_->setWordWrap(true);
    headline_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    trace_ = new QLabel(this);
    trace_->setWordWrap(true);
    trace_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    trace_->setStyleSheet(QStringLiteral("QLabel { background: #f4f6fa; padding: 2px; }"));
    trace_->hide();
    prev_ = new QPushButton(tr("◀ Prev stick"), this);
    next_ = new QPushButton(tr("Next stick ▶"), this);
    prev_->setToolTip(tr("Step back through the move: the destination stick before, and the source sticks it gathers from"));
    next_->setToolTip(tr("Step through the move one destination stick at a time"));
    connect(prev_, &QPushButton::clicked, this, [this] { stepBy(-1); });
    connect(next_, &QPushButton::clicked, this, [this] { stepBy(1); });
    auto* steps = new QHBoxLayout;
    steps->addWidget(trace_, 1);
    steps->addWidget(prev_);
    steps->addWidget(next_);
    prev_->hide();
    next_->hide();
    auto* row = new QHBoxLayout;
    for (int i = 0; i < 2; ++i) {
        grids_[i] = new StickGrid(this);
        auto* scroll = new QScrollArea(this);
        scroll->setWidget(grids_[i]);
        scroll->setWidgetResizable(false);
        panes_[i] = scroll;
        row->addWidget(scroll, 1);
        connect(grids_[i], &StickGrid::clicked, this, &StickLayoutView::traceHost);
    }
    panes_[1]->hide();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(headline_);
    layout->addLayout(steps);
    strip_ = new StickMoveStrip(this);
    strip_->hide();
    layout->addWidget(strip_);
    layout->addLayout(row, 1);
    // Hovering an element on one side highlights the stick it lives in on the other.
    connect(grids_[0], &StickGrid::hovered, grids_[1], &StickGrid::highlightHost);
    connect(grids_[1], &StickGrid::hovered, grids_[0], &StickGrid::highlightHost);
}

QString StickLayoutView::headline() const { return headline_->text(); }
QString StickLayoutView::traceText() const { return trace_->isHidden() ? QString() : trace_->text(); }

void StickLayoutView::clear()
{
    op_ = -1;
    step_ = -1;
    grids_[0]->setBuffer(nullptr, -1);
    grids_[1]->setBuffer(nullptr, -1);
    panes_[1]->hide();
    trace_->hide();
    prev_->hide();
    next_->hide();
    strip_->hide();
    headline_->setText(tr("Select a buffer or a restickify op in the Graph to see its sticks."));
}

void StickLayoutView::showBuffer(std::shared_ptr<const Program> program, int buffer)
{
    clear();
    program_ = program;
    grids_[0]->setBuffer(program, buffer);
    const Buffer* b = program && buffer >= 0 && buffer < static_cast<int>(program->buffers.size()) ? &program->buffers[static_cast<size_t>(buffer)] : nullptr;
    if (!b || b->stickDim < 0)
        headline_->setText(b ? tr("%1: no device layout yet (before optimize_layouts)").arg(QString::fromStdString(b->name)) : QString());
    else
        headline_->setText(grids_[0]->caption() +
                           tr("\nColour: hue follows d%1 (one rainbow per stick), shade d%2; grey hatched = padding. Hover for an element's host coordinate.")
                               .arg(b->stickDim)
                               .arg(b->stickDim > 0 ? b->stickDim - 1 : 1));
}

void StickLayoutView::showRestickify(std::shared_ptr<const Program> program, int op)
{
    clear();
    program_ = program;
    if (!program || op < 0 || op >= static_cast<int>(program->ops.size()) || program->ops[static_cast<size_t>(op)].loads.empty())
        return;
    const Op& o = program->ops[static_cast<size_t>(op)];
    op_ = op;
    // Both sides colour by the same host dims: hue along the source's stick dim, shade along the destination's.
    grids_[0]->setBuffer(program, o.loads.front().buffer, o.fromStickDim, o.toStickDim);
    grids_[1]->setBuffer(program, o.store.buffer, o.fromStickDim, o.toStickDim);
    panes_[1]->show();
    prev_->show();
    next_->show();
    headline_->setText(tr("%1 restickify: stick d%2 → d%3, %4 elements. Why: %5.\nLeft: source %6. Right: destination %7.\n"
                          "Same colour = same element (hue along d%2, shade along d%3). Click an element to trace it; Prev/Next step through the move.")
                           .arg(QString::fromStdString(o.name))
                           .arg(o.fromStickDim)
                           .arg(o.toStickDim)
                           .arg(o.iterationPoints())
                           .arg(QString::fromStdString(restickifyReason(*program, op)), grids_[0]->caption(), grids_[1]->caption()));
}

void StickLayoutView::traceHost(const std::vector<int64_t>& host)
{
    if (!program_ || op_ < 0 || host.empty())
        return;
    const Op& o = program_->ops[static_cast<size_t>(op_)];
    const Buffer& src = program_->buffers[static_cast<size_t>(o.loads.front().buffer)];
    const ElementMove m = traceElement(*program_, o, host);
    grids_[0]->highlightHost(host);
    grids_[1]->highlightHost(host);
    grids_[0]->outlineSticks({});
    QStringList c;
    for (int64_t v : host)
        c << QString::number(v);
    trace_->setText(tr("%1[%2]: source stick %3, element %4 → destination stick %5, element %6; moved by core %7%8.")
                        .arg(QString::fromStdString(src.origin.empty() ? src.name : src.origin), c.join(QStringLiteral(", ")))
                        .arg(m.from.stick)
                        .arg(m.from.offset)
                        .arg(m.to.stick)
                        .arg(m.to.offset)
                        .arg(m.by.core)
                        .arg(o.tiles.empty() ? QString() : tr(" in tile %1").arg(m.by.tile)));
    trace_->show();
}

void StickLayoutView::stepTo(int64_t stick)
{
    if (!program_ || op_ < 0)
        return;
    const Op& o = program_->ops[static_cast<size_t>(op_)];
    const int64_t count = grids_[1]->stickCount();
    if (count <= 0)
        return;
    step_ = std::clamp<int64_t>(stick, 0, count - 1);
    const std::vector<ElementMove> moves = movesIntoStick(*program_, o, step_);
    std::vector<int64_t> from;
    std::vector<int> cores;
    for (const ElementMove& m : moves) {
        if (std::find(from.begin(), from.end(), m.from.stick) == from.end())
            from.push_back(m.from.stick);
        if (std::find(cores.begin(), cores.end(), m.by.core) == cores.end())
            cores.push_back(m.by.core);
    }
    grids_[0]->outlineSticks(from);
    if (!moves.empty()) {
        grids_[0]->highlightHost(moves.front().host);
        grids_[1]->highlightHost(moves.front().host);
    }
    // The strip: each source stick in its own colours with the moved element framed, then the destination stick.
    const Buffer& src = program_->buffers[static_cast<size_t>(o.loads.front().buffer)];
    const Buffer& dst = program_->buffers[static_cast<size_t>(o.store.buffer)];
    auto rowOf = [this, &o](const Buffer& b, int64_t stick, const QString& label) {
        StickMoveStrip::Row r;
        r.label = label;
        const SpyreTensorLayout l = program_->layoutOf(b);
        std::vector<int64_t> idx = stickIndexOf(l, stick);
        for (int64_t e = 0; e < l.deviceSize.back(); ++e) {
            idx.back() = e;
            const HostCoordinate h = hostCoordinateOf(l, b.shape, b.strides, idx);
            r.elements.push_back(h.padding ? QColor() : StickGrid::colourOf(h.coord, o.fromStickDim, o.toStickDim, l.deviceSize.back()));
        }
        return r;
    };
    std::vector<StickMoveStrip::Row> rows;
    constexpr size_t kRows = 16;
    for (const ElementMove& m : moves) {
        if (rows.size() == kRows)
            break;
        if (!rows.empty() && rows.back().label == tr("src %1").arg(m.from.stick))
            continue;
        rows.push_back(rowOf(src, m.from.stick, tr("src %1").arg(m.from.stick)));
        rows.back().moved = m.from.offset;
    }
    strip_->setRows(std::move(rows), rowOf(dst, step_, tr("dst %1").arg(step_)), static_cast<int64_t>(from.size()) - static_cast<int64_t>(std::min(from.size(), kRows)));
    strip_->show();
    QStringList coreList;
    for (int c : cores)
        coreList << QString::number(c);
    std::sort(from.begin(), from.end());
    trace_->setText(tr("Step %1 of %2: destination stick %3 gathers %4 elements from %5 source sticks (%6, outlined); moved by core %7.")
                        .arg(step_ + 1)
                        .arg(count)
                        .arg(step_)
                        .arg(moves.size())
                        .arg(from.size())
                        .arg(from.empty() ? QString() : from.size() == 1 ? QString::number(from.front()) : QStringLiteral("%1…%2").arg(from.front()).arg(from.back()))
                        .arg(coreList.join(QStringLiteral(", "))));
    trace_->show();
}

void StickLayoutView::stepBy(int delta) { stepTo(step_ < 0 ? 0 : step_ + delta); }

void followDocument(StickLayoutView* view, const Document* document)
{
    auto show = [view, document] {
        const auto program = document->selectedProgram();
        const SpyreNodeRef ref = program ? resolveSpyreNode(*program, document->selectedNode()) : SpyreNodeRef{};
        if (ref.kind == SpyreNodeRef::Kind::Op) {
            const Op& op = program->ops[static_cast<size_t>(ref.index)];
            if (op.kind == OpKind::Restickify)
                view->showRestickify(program, ref.index);
            else
                view->showBuffer(program, op.store.buffer);
        } else if (ref.kind == SpyreNodeRef::Kind::Buffer) {
            view->showBuffer(program, ref.index);
        } else {
            view->clear();
        }
    };
    QObject::connect(document, &Document::documentChanged, view, show);
    QObject::connect(document, &Document::selectedPassChanged, view, show);
    QObject::connect(document, &Document::selectedNodeChanged, view, show);
}

}  // namespace spyglass
