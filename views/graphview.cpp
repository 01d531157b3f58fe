#include "views/graphview.h"

#include "views/sceneexport.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QFile>
#include <QFontMetricsF>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QElapsedTimer>
#include <QImage>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QAction>
#include <QHBoxLayout>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QWheelEvent>

#include <cmath>
#include <thread>

namespace spyglass {

namespace {

QColor fillFor(GraphSpec::NodeKind k)
{
    switch (k) {
    case GraphSpec::NodeKind::Op: return QColor(0xdc, 0xe9, 0xf7);
    case GraphSpec::NodeKind::Buffer: return QColor(0xf3, 0xf3, 0xf3);
    case GraphSpec::NodeKind::Input:
    case GraphSpec::NodeKind::Output: return QColor(0xe2, 0xf2, 0xe2);
    case GraphSpec::NodeKind::Restickify: return QColor(0xf4, 0xb6, 0xa8);
    case GraphSpec::NodeKind::Constant: return QColor(0xf6, 0xee, 0xcf);
    }
    return Qt::white;
}

QFont graphFont()
{
    QFont f = QApplication::font();
    f.setPointSizeF(9);
    return f;
}

QColor changeColour(GraphSpec::Node::Change c)
{
    return c == GraphSpec::Node::Change::New ? QColor(0x2e, 0x9a, 0x3e) : QColor(0xe0, 0x8a, 0x00);
}

// A tag at a node's top-right corner: "new" (green) or "changed" (orange) in this pass.
void drawChangeMark(QPainter* p, QPointF topRight, GraphSpec::Node::Change c)
{
    const QString text = c == GraphSpec::Node::Change::New ? QObject::tr("new") : QObject::tr("changed");
    QFont f = graphFont();
    f.setPointSizeF(7);
    f.setBold(true);
    const QFontMetricsF fm(f);
    const QRectF tag(topRight.x() - fm.horizontalAdvance(text) - 6, topRight.y() - fm.height() / 2 - 1, fm.horizontalAdvance(text) + 8, fm.height() + 2);
    p->setPen(Qt::NoPen);
    p->setBrush(changeColour(c));
    p->drawRoundedRect(tag, 3, 3);
    p->setPen(Qt::white);
    p->setFont(f);
    p->drawText(tag, Qt::AlignCenter, text);
}

}  // namespace

class GraphNodeItem : public QGraphicsItem {
public:
    GraphNodeItem(const GraphSpec::Node& node, const QRectF& box) : node_(node), box_(box)
    {
        setFlag(ItemIsSelectable);
        setToolTip(node.tooltip.isEmpty() ? node.label : node.tooltip);
        setData(0, QString::fromStdString(node.id));
    }
    QRectF boundingRect() const override { return box_.adjusted(-2, -2, 2, 2); }
    void setHighlighted(bool on)
    {
        highlighted_ = on;
        update();
    }
    const GraphSpec::Node& node() const { return node_; }
    bool isHighlighted() const { return highlighted_; }

    void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override
    {
        const bool restick = node_.kind == GraphSpec::NodeKind::Restickify;
        QPen pen(isSelected() ? QColor(0x10, 0x60, 0xd0) : restick ? QColor(0xc0, 0x30, 0x10) : QColor(0x55, 0x5a, 0x64));
        pen.setWidthF(isSelected() || restick ? 2.2 : 1.0);
        p->setPen(pen);
        p->setBrush(highlighted_ ? QColor(0xff, 0xe0, 0x66) : fillFor(node_.kind));
        switch (node_.kind) {
        case GraphSpec::NodeKind::Buffer: p->drawEllipse(box_); break;
        case GraphSpec::NodeKind::Restickify: {
            const double d = box_.height() / 2;
            const QPolygonF hex({QPointF(box_.left() + d, box_.top()), QPointF(box_.right() - d, box_.top()),
                                 QPointF(box_.right(), box_.center().y()), QPointF(box_.right() - d, box_.bottom()),
                                 QPointF(box_.left() + d, box_.bottom()), QPointF(box_.left(), box_.center().y())});
            p->drawPolygon(hex);
            break;
        }
        default: p->drawRoundedRect(box_, 4, 4); break;
        }
        // Level of detail: text is unreadable (and costly) when zoomed far out.
        if (option->levelOfDetailFromTransform(p->worldTransform()) < 0.35)
            return;
        p->setPen(Qt::black);
        p->setFont(graphFont());
        p->drawText(box_.adjusted(4, 2, -4, -2), Qt::AlignCenter, node_.label);
        if (node_.change != GraphSpec::Node::Change::Same)
            drawChangeMark(p, box_.topRight(), node_.change);
    }

private:
    GraphSpec::Node node_;
    QRectF box_;
    bool highlighted_ = false;
};

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent), alive_(std::make_shared<bool>(true))
{
    setObjectName(QStringLiteral("graphView"));
    setScene(new QGraphicsScene(this));
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setOptimizationFlags(QGraphicsView::DontSavePainterState | QGraphicsView::DontAdjustForAntialiasing);
    setBackgroundBrush(QColor(0xfb, 0xfb, 0xfc));
    auto* find = new QAction(tr("Find in graph"), this);
    find->setShortcut(QKeySequence::Find);
    find->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(find, &QAction::triggered, this, &GraphView::showFind);
    addAction(find);
    findField_ = new QLineEdit(this);
    findField_->setObjectName(QStringLiteral("graphFind"));
    findField_->setPlaceholderText(tr("Find op, buffer or tensor"));
    findField_->setClearButtonEnabled(true);
    findField_->setFixedWidth(240);
    findField_->hide();
    findCount_ = new QLabel(this);
    findCount_->setStyleSheet(QStringLiteral("QLabel { background: rgba(255,255,255,220); padding: 1px 4px; }"));
    findCount_->hide();
    connect(findField_, &QLineEdit::textChanged, this, [this](const QString& text) {
        findNext_ = 1;
        const int n = search(text);
        findCount_->setText(text.isEmpty() ? QString() : n == 0 ? tr("no match") : n == 1 ? tr("1 match") : tr("%1 matches").arg(n));
        findCount_->adjustSize();
        findCount_->setVisible(!text.isEmpty());
    });
    connect(findField_, &QLineEdit::returnPressed, this, [this] {
        std::vector<GraphNodeItem*> matches;
        for (GraphNodeItem* item : nodeItems_)
            if (item->isHighlighted())
                matches.push_back(item);
        if (matches.empty())
            return;
        centerOn(matches[static_cast<size_t>(findNext_++) % matches.size()]);
    });
    auto* escape = new QAction(findField_);
    escape->setShortcut(Qt::Key_Escape);
    escape->setShortcutContext(Qt::WidgetShortcut);
    connect(escape, &QAction::triggered, this, [this] {
        findField_->clear();
        findField_->hide();
        findCount_->hide();
        setFocus();
    });
    findField_->addAction(escape);
    connect(scene(), &QGraphicsScene::selectionChanged, this, [this] {
        const std::string id = selectedNode();
        if (!id.empty())
            emit nodeSelected(QString::fromStdString(id));
    });
}

GraphView::~GraphView()
{
    *alive_ = false;
    // The scene is our child and is destroyed after this destructor body: clearing its items then emits
    // selectionChanged, whose handler would call into a GraphView that no longer exists (UBSan under ASan).
    scene()->disconnect(this);
}

void GraphView::clearGraph()
{
    ++generation_;
    spec_ = GraphSpec{};
    layout_ = GraphLayoutResult{};
    nodeItems_.clear();
    scene()->clear();
}

void GraphView::measureNodes(GraphSpec& spec)
{
    const QFontMetricsF fm(graphFont());
    for (auto& n : spec.nodes) {
        const QRectF r = fm.boundingRect(QRectF(0, 0, 400, 400), Qt::AlignCenter, n.label);
        const double pad = n.kind == GraphSpec::NodeKind::Buffer || n.kind == GraphSpec::NodeKind::Restickify ? 26 : 14;
        n.size = QSizeF(r.width() + pad, r.height() + 10);
    }
}

void GraphView::setGraph(GraphSpec spec) { setGraph(std::move(spec), nullptr); }

void GraphView::setGraph(GraphSpec spec, std::shared_ptr<const GraphSpec> frame)
{
    // Measure labels with the view's font here, on the GUI thread; Graphviz gets fixed node sizes.
    measureNodes(spec);
    spec_ = std::move(spec);
    const quint64 gen = ++generation_;
    ++pending_;
    auto alive = alive_;
    // A frame already laid out is reused as it is: its positions are what keeps the picture still.
    std::shared_ptr<const GraphLayoutResult> known = frame && frame == frame_ ? frameLayout_ : nullptr;
    std::thread([this, alive, gen, spec = spec_, frame, known]() {
        GraphLayoutResult result;
        std::shared_ptr<const GraphLayoutResult> frameLayout = known;
        QString error;
        try {
            if (frame && !frameLayout)
                frameLayout = std::make_shared<const GraphLayoutResult>(layoutGraph(*frame));
            std::optional<GraphLayoutResult> placed = frame ? placeInFrame(spec, *frame, *frameLayout) : std::nullopt;
            result = placed ? std::move(*placed) : layoutGraph(spec);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(qApp, [this, alive, gen, result = std::move(result), error, frame, frameLayout]() mutable {
            if (!*alive)
                return;
            --pending_;
            if (frame && frameLayout) {
                frame_ = frame;
                frameLayout_ = frameLayout;
            }
            if (gen != generation_)
                return;   // a newer graph replaced this one while it was laid out
            if (!error.isEmpty()) {
                emit layoutFailed(error);
                return;
            }
            layout_ = std::move(result);
            buildScene();
            emit layoutReady();
        }, Qt::QueuedConnection);
    }).detach();
}

void GraphView::updateRenderQuality()
{
    // Antialiasing thousands of tiny curves costs more than it shows: only when zoomed in enough to read.
    setRenderHint(QPainter::Antialiasing, transform().m11() > 0.5);
}

void GraphView::buildScene()
{
    QElapsedTimer timer;
    timer.start();
    QGraphicsScene* s = scene();
    s->clear();
    nodeItems_.clear();
    s->setSceneRect(layout_.bounds.adjusted(-20, -20, 20, 20));

    for (size_t c = 0; c < layout_.clusters.size(); ++c) {
        auto* rect = s->addRect(layout_.clusters[c].box, QPen(QColor(0x9a, 0xa5, 0xb1), 1, Qt::DashLine), QColor(0xf0, 0xf4, 0xfa));
        rect->setZValue(-2);
        auto* label = s->addSimpleText(spec_.clusters[c].label, graphFont());
        label->setPos(layout_.clusters[c].box.topLeft() + QPointF(6, 2));
        label->setBrush(QColor(0x50, 0x5a, 0x66));
        label->setZValue(-1);
    }
    const QPen edgePen(QColor(0x60, 0x66, 0x70), 1.0);
    for (size_t i = 0; i < layout_.edges.size() && i < spec_.edges.size(); ++i) {
        const auto& e = layout_.edges[i];
        if (e.bezier.size() < 4)
            continue;
        QPainterPath path(e.bezier[0]);
        for (size_t k = 1; k + 2 < e.bezier.size(); k += 3)
            path.cubicTo(e.bezier[k], e.bezier[k + 1], e.bezier[k + 2]);
        QPointF tip = e.bezier.back();
        if (e.hasArrow) {
            path.lineTo(e.arrowTip);
            tip = e.arrowTip;
        }
        // Arrowhead along the last segment, drawn by the same item as the curve (half the scene items).
        const QPointF from = e.hasArrow ? e.bezier.back() : e.bezier[e.bezier.size() - 2];
        const QLineF dir(tip, from);
        if (dir.length() > 0.01) {
            QLineF a = dir;
            a.setLength(7);
            QLineF l = a, r = a;
            l.setAngle(a.angle() + 22);
            r.setAngle(a.angle() - 22);
            path.moveTo(tip);
            path.lineTo(l.p2());
            path.lineTo(r.p2());
            path.closeSubpath();
        }
        auto* item = s->addPath(path, edgePen);
        item->setZValue(0);
        item->setToolTip(spec_.edges[i].label);
        if (e.hasLabel && !spec_.edges[i].label.isEmpty()) {
            auto* label = s->addSimpleText(spec_.edges[i].label, graphFont());
            label->setBrush(QColor(0x40, 0x46, 0x50));
            const QRectF br = label->boundingRect();
            label->setPos(e.labelPos - QPointF(br.width() / 2, br.height() / 2));
            label->setZValue(0.5);
        }
    }
    for (size_t i = 0; i < layout_.nodes.size() && i < spec_.nodes.size(); ++i) {
        auto* item = new GraphNodeItem(spec_.nodes[i], layout_.nodes[i].box);
        item->setZValue(1);
        s->addItem(item);
        nodeItems_.push_back(item);
    }
    fitAll();
    if (findField_->isVisible() && !findField_->text().isEmpty())
        search(findField_->text());
    sceneBuildMs_ = static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

void GraphView::fitAll()
{
    if (scene()->items().isEmpty())
        return;
    fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
    // Do not blow small graphs up beyond natural size.
    if (transform().m11() > 1.5)
        setTransform(QTransform::fromScale(1.5, 1.5));
    updateRenderQuality();
}

void GraphView::zoomBy(double factor)
{
    const double current = transform().m11();
    const double next = std::clamp(current * factor, 0.02, 8.0);
    scale(next / current, next / current);
    updateRenderQuality();
}

void GraphView::wheelEvent(QWheelEvent* e)
{
    zoomBy(std::pow(1.0015, e->angleDelta().y()));
    e->accept();
}

void GraphView::keyPressEvent(QKeyEvent* e)
{
    if (e->key() == Qt::Key_F && e->modifiers() == Qt::NoModifier)
        fitAll();
    else if (e->key() == Qt::Key_Plus || e->key() == Qt::Key_Equal)
        zoomBy(1.25);
    else if (e->key() == Qt::Key_Minus)
        zoomBy(0.8);
    else
        QGraphicsView::keyPressEvent(e);
}

void GraphView::contextMenuEvent(QContextMenuEvent* e)
{
    for (QGraphicsItem* item : items(e->pos()))
        if (auto* n = dynamic_cast<GraphNodeItem*>(item)) {
            scene()->clearSelection();
            n->setSelected(true);
            emit nodeContextMenuRequested(QString::fromStdString(n->node().id), e->globalPos());
            e->accept();
            return;
        }
    QGraphicsView::contextMenuEvent(e);
}

int GraphView::search(const QString& text)
{
    int count = 0;
    GraphNodeItem* first = nullptr;
    for (GraphNodeItem* item : nodeItems_) {
        const bool match = !text.isEmpty()
                           && (item->node().label.contains(text, Qt::CaseInsensitive)
                               || item->node().searchText.contains(text, Qt::CaseInsensitive)
                               || QString::fromStdString(item->node().id).contains(text, Qt::CaseInsensitive));
        item->setHighlighted(match);
        if (match) {
            ++count;
            if (!first)
                first = item;
        }
    }
    if (first)
        centerOn(first);
    return count;
}

bool GraphView::selectNode(const std::string& id)
{
    for (GraphNodeItem* item : nodeItems_)
        if (item->node().id == id) {
            scene()->clearSelection();
            item->setSelected(true);
            centerOn(item);
            return true;
        }
    return false;
}

std::string GraphView::selectedNode() const
{
    for (QGraphicsItem* item : scene()->selectedItems())
        if (auto* n = dynamic_cast<GraphNodeItem*>(item))
            return n->node().id;
    return {};
}

QStringList GraphView::legendLines() const
{
    QStringList lines{tr("rounded box: op (kernel); red hexagon: restickify (changes a tensor's stick dim)"),
                      tr("green: input/output; yellow: constant; dashed frame: ops fused into one kernel"),
                      tr("edge: tensor shape and stick dim; yellow fill: search match")};
    int added = 0, changed = 0;
    for (const auto& n : spec_.nodes) {
        added += n.change == GraphSpec::Node::Change::New;
        changed += n.change == GraphSpec::Node::Change::Changed;
    }
    if (added || changed || !spec_.removed.isEmpty())
        lines << tr("this pass: %1 new, %2 changed, %3 gone%4")
                     .arg(added)
                     .arg(changed)
                     .arg(spec_.removed.size())
                     .arg(spec_.removed.isEmpty() ? QString() : QStringLiteral(" (") + spec_.removed.mid(0, 4).join(QStringLiteral("; ")) +
                                                                    (spec_.removed.size() > 4 ? QStringLiteral("; …)") : QStringLiteral(")")));
    return lines;
}

void GraphView::drawForeground(QPainter* p, const QRectF&)
{
    if (spec_.nodes.empty() || !legendVisible_)
        return;
    // In viewport coordinates: the legend stays put while the graph zooms and pans under it.
    p->save();
    p->resetTransform();
    QFont f = graphFont();
    f.setPointSizeF(8);
    p->setFont(f);
    const QFontMetricsF fm(f);
    const QStringList lines = legendLines();
    double w = 0;
    for (const QString& l : lines)
        w = std::max(w, fm.horizontalAdvance(l));
    const double lh = fm.height();
    const QRectF box(6, viewport()->height() - 6 - lh * lines.size() - 8, w + 34, lh * lines.size() + 8);
    p->setPen(QColor(0xb0, 0xb6, 0xc0));
    p->setBrush(QColor(255, 255, 255, 225));
    p->drawRect(box);
    for (int i = 0; i < lines.size(); ++i) {
        const QRectF swatch(box.left() + 6, box.top() + 4 + i * lh + 2, 18, lh - 4);
        p->setPen(QColor(0x55, 0x5a, 0x64));
        switch (i) {
        case 0: p->setBrush(fillFor(GraphSpec::NodeKind::Op)); p->drawRoundedRect(swatch, 2, 2); break;
        case 1: p->setBrush(fillFor(GraphSpec::NodeKind::Input)); p->drawRoundedRect(swatch, 2, 2); break;
        case 2: p->setBrush(QColor(0xff, 0xe0, 0x66)); p->drawRect(swatch); break;
        default: p->setBrush(changeColour(GraphSpec::Node::Change::New)); p->drawRect(swatch); break;
        }
        p->setPen(QColor(0x30, 0x34, 0x3a));
        p->drawText(QRectF(swatch.right() + 6, box.top() + 4 + i * lh, w + 4, lh), Qt::AlignVCenter | Qt::AlignLeft, lines[i]);
    }
    p->restore();
}

void GraphView::showFind()
{
    findField_->show();
    findField_->raise();
    findField_->setFocus();
    findField_->selectAll();
    resizeEvent(nullptr);
}

QString GraphView::findStatus() const { return findCount_->isVisible() ? findCount_->text() : QString(); }

void GraphView::resizeEvent(QResizeEvent* e)
{
    if (e)
        QGraphicsView::resizeEvent(e);
    const int right = viewport()->width() - 8;
    findField_->move(right - findField_->width(), 8);
    findCount_->move(right - findField_->width() - findCount_->width() - 6, 10);
}

void GraphView::setLegendVisible(bool on)
{
    legendVisible_ = on;
    viewport()->update();
}

bool GraphView::exportDot(const QString& path) const
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return false;
    const std::string dot = toDot(spec_);
    return f.write(dot.data(), static_cast<qint64>(dot.size())) == static_cast<qint64>(dot.size());
}

bool GraphView::exportSvg(const QString& path) { return exportSceneSvg(scene(), path, QStringLiteral("Spyglass graph")); }

bool GraphView::exportPng(const QString& path, double scale) { return exportScenePng(scene(), path, scale); }

}  // namespace spyglass
