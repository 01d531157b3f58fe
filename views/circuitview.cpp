#include "views/circuitview.h"

#include "views/document.h"

#include "views/sceneexport.h"

#include "core/quantum/circuit.h"

#include <QGraphicsEllipseItem>
#include <QGraphicsRectItem>
#include <QGraphicsItemGroup>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace spyglass {

using quantum::Circuit;
using quantum::Op;
using quantum::OpKind;

namespace {

constexpr double kWire = 40;        // vertical distance between wires
constexpr double kColumn = 56;      // horizontal distance between columns
constexpr double kLeft = 70;        // room for wire names
constexpr double kBox = 30;         // gate box height

const QColor kGateFill(0xdc, 0xe9, 0xf7);
const QColor kFusedFill(0xe8, 0xdc, 0xf5);
const QColor kMeasureFill(0xf0, 0xf0, 0xf0);
const QColor kLine(0x30, 0x36, 0x40);

// Gates drawn as control dots plus a target symbol: name -> number of controls.
int controlCount(const std::string& name)
{
    static const std::map<std::string, int> controls = {
        {"cx", 1}, {"cy", 1}, {"cz", 1}, {"ch", 1}, {"crx", 1}, {"cry", 1}, {"crz", 1}, {"cu1", 1}, {"cp", 1},
        {"cu3", 1}, {"cu", 1}, {"csx", 1}, {"ccx", 2}, {"c3x", 3}, {"c4x", 4}, {"cswap", 1}, {"c3sqrtx", 3},
    };
    const auto it = controls.find(name);
    return it == controls.end() ? 0 : it->second;
}

QString targetLabel(const std::string& name)
{
    // The gate acting on the target(s) once the controls are peeled off: "cu1" -> "u1", "crz" -> "rz".
    std::string base = name;
    const int n = controlCount(name);
    if (n == 1 && base.size() > 1)
        base = base.substr(1);
    else if (n > 1)
        base = base.substr(base.find_first_not_of("c0123456789"));
    return QString::fromStdString(base).toUpper();
}

}  // namespace

class CircuitOpItem : public QGraphicsRectItem {
public:
    CircuitOpItem(int index, const QRectF& hit) : QGraphicsRectItem(hit), index_(index)
    {
        setPen(Qt::NoPen);
        setBrush(Qt::NoBrush);
        setFlag(ItemIsSelectable);
        setZValue(5);
    }
    int index() const { return index_; }
    void paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget*) override
    {
        if (isSelected()) {
            p->setPen(QPen(QColor(0x10, 0x60, 0xd0), 2, Qt::DashLine));
            p->setBrush(Qt::NoBrush);
            p->drawRect(rect());
        }
    }

private:
    int index_;
};

CircuitView::CircuitView(QWidget* parent) : QGraphicsView(parent)
{
    setObjectName(QStringLiteral("circuitView"));
    setScene(new QGraphicsScene(this));
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setBackgroundBrush(Qt::white);
    connect(scene(), &QGraphicsScene::selectionChanged, this, [this] {
        for (QGraphicsItem* item : scene()->selectedItems())
            if (auto* op = dynamic_cast<CircuitOpItem*>(item)) {
                selectedOp_ = op->index();
                emit opSelected(selectedOp_);
                return;
            }
    });
}

CircuitView::~CircuitView()
{
    // The scene is our child and is destroyed after this destructor body: clearing its items then emits
    // selectionChanged, whose handler would call into a CircuitView that no longer exists (UBSan under ASan).
    scene()->disconnect(this);
}

QString CircuitView::formatAngle(double radians)
{
    if (std::fabs(radians) < 1e-12)
        return QStringLiteral("0");
    const double turns = radians / M_PI;
    for (int den = 1; den <= 64; den *= 2) {
        const double num = turns * den;
        if (std::fabs(num - std::round(num)) < 1e-9) {
            const long n = std::lround(num);
            QString s = n == 1 ? QStringLiteral("π") : n == -1 ? QStringLiteral("-π") : QString::number(n) + QStringLiteral("π");
            if (den > 1)
                s += QLatin1Char('/') + QString::number(den);
            return s;
        }
    }
    return QString::number(radians, 'g', 4);
}

void CircuitView::followDocument(const Document* document)
{
    auto show = [this, document] { setCircuit(document->selectedCircuit()); };
    connect(document, &Document::documentChanged, this, show);
    connect(document, &Document::selectedPassChanged, this, show);
}

void CircuitView::setStepMarker(std::optional<int> column)
{
    stepMarker_ = column;
    if (markerItem_) {
        scene()->removeItem(markerItem_);
        delete markerItem_;
        markerItem_ = nullptr;
    }
    if (!column || !circuit_)
        return;
    const double x = kLeft + kColumn * (*column + 1);
    const double bottom = std::max(scene()->itemsBoundingRect().bottom(), kWire * circuit_->numQubits);
    auto* group = new QGraphicsItemGroup;
    const QColor orange(0xe0, 0x80, 0x10);
    group->addToGroup(new QGraphicsLineItem(x, 0, x, bottom));
    static_cast<QGraphicsLineItem*>(group->childItems().front())->setPen(QPen(orange, 2, Qt::DashLine));
    auto* label = new QGraphicsSimpleTextItem(tr("State view: the state here"));
    label->setBrush(orange);
    label->setPos(x + 3, -16);
    group->addToGroup(label);
    group->setZValue(10);
    scene()->addItem(group);
    markerItem_ = group;
    ensureVisible(QRectF(x - kColumn, 0, 2 * kColumn, 10));
}

void CircuitView::setCircuit(std::shared_ptr<const Circuit> circuit)
{
    circuit_ = std::move(circuit);
    selectedOp_ = -1;
    stepMarker_.reset();
    rebuild();
    fitAll();
}

void CircuitView::rebuild()
{
    QGraphicsScene* s = scene();
    s->clear();
    markerItem_ = nullptr;
    columns_.clear();
    centres_.clear();
    columnCount_ = 0;
    if (!circuit_)
        return;
    const Circuit& c = *circuit_;
    const int nq = c.numQubits;
    const double cregTop = kWire * nq + kWire * 0.5;
    auto qy = [](int q) { return kWire * (q + 0.5); };
    auto cregOf = [&c](int clbit) {
        for (size_t r = 0; r < c.cregs.size(); ++r)
            if (clbit >= c.cregs[r].offset && clbit < c.cregs[r].offset + c.cregs[r].size)
                return static_cast<int>(r);
        return 0;
    };
    auto cy = [&](int creg) { return cregTop + kWire * 0.8 * creg + kWire * 0.4; };

    // Columns: each op goes right after the last op on any wire its drawing spans (conditions and
    // measurements span down to the classical wires too).
    std::vector<int> wireFree(static_cast<size_t>(nq + 1), 0);
    auto allWires = [&]() { return std::pair<int, int>(0, nq); };
    for (const Op& op : c.ops) {
        int lo = nq, hi = -1;
        for (int q : op.qubits) {
            lo = std::min(lo, q);
            hi = std::max(hi, q);
        }
        if (op.kind == OpKind::Barrier && op.qubits.empty())
            std::tie(lo, hi) = allWires();
        if (op.kind == OpKind::Measure || op.cond.active())
            hi = nq;   // the line to the classical wires crosses everything below
        lo = std::clamp(lo, 0, nq);
        hi = std::clamp(hi, lo, nq);
        int col = 0;
        for (int w = lo; w <= hi; ++w)
            col = std::max(col, wireFree[static_cast<size_t>(w)]);
        for (int w = lo; w <= hi; ++w)
            wireFree[static_cast<size_t>(w)] = col + 1;
        columns_.push_back(col);
        columnCount_ = std::max(columnCount_, col + 1);
    }

    const double width = kLeft + kColumn * (columnCount_ + 1);
    const QPen wirePen(kLine, 1.2);
    const QFont font(QStringLiteral("DejaVu Sans"), 9);
    const QFont small(QStringLiteral("DejaVu Sans"), 7);
    for (int q = 0; q < nq; ++q) {
        s->addLine(kLeft - 10, qy(q), width, qy(q), wirePen);
        auto* label = s->addSimpleText(QString::fromStdString(c.qubitName(q)), font);
        label->setPos(8, qy(q) - 8);
    }
    for (size_t r = 0; r < c.cregs.size(); ++r) {
        const double y = cy(static_cast<int>(r));
        s->addLine(kLeft - 10, y - 1.5, width, y - 1.5, QPen(kLine, 0.8));
        s->addLine(kLeft - 10, y + 1.5, width, y + 1.5, QPen(kLine, 0.8));
        auto* label = s->addSimpleText(QString::fromStdString(c.cregs[r].name) + QStringLiteral(" /") + QString::number(c.cregs[r].size), font);
        label->setPos(8, y - 8);
    }

    auto box = [&](double x, double y0, double y1, const QString& text, const QColor& fill) {
        const QFontMetricsF fm(font);
        const double w = std::max(kBox, fm.horizontalAdvance(text) + 10);
        auto* r = s->addRect(QRectF(x - w / 2, y0 - kBox / 2, w, y1 - y0 + kBox), QPen(kLine, 1), fill);
        r->setZValue(2);
        auto* t = s->addSimpleText(text, font);
        const QRectF tb = t->boundingRect();
        t->setPos(x - tb.width() / 2, (y0 + y1) / 2 - tb.height() / 2);
        t->setZValue(3);
        return QRectF(x - w / 2, y0 - kBox / 2, w, y1 - y0 + kBox);
    };
    auto dot = [&](double x, double y) {
        auto* d = s->addEllipse(x - 4.5, y - 4.5, 9, 9, QPen(kLine), kLine);
        d->setZValue(2);
    };
    auto vline = [&](double x, double y0, double y1, bool classical = false) {
        if (classical) {
            s->addLine(x - 1.5, y0, x - 1.5, y1, QPen(kLine, 0.8))->setZValue(1);
            s->addLine(x + 1.5, y0, x + 1.5, y1, QPen(kLine, 0.8))->setZValue(1);
        } else {
            s->addLine(x, y0, x, y1, QPen(kLine, 1.2))->setZValue(1);
        }
    };

    for (size_t i = 0; i < c.ops.size(); ++i) {
        const Op& op = c.ops[i];
        const double x = kLeft + kColumn * (columns_[i] + 0.5);
        QRectF hit;
        int lo = nq, hi = -1;
        for (int q : op.qubits) {
            lo = std::min(lo, q);
            hi = std::max(hi, q);
        }
        QString params;
        if (!op.params.empty()) {
            QStringList ps;
            for (double p : op.params)
                ps << formatAngle(p);
            params = QStringLiteral("(") + ps.join(QStringLiteral(", ")) + QStringLiteral(")");
        }
        switch (op.kind) {
        case OpKind::Barrier: {
            const int b0 = op.qubits.empty() ? 0 : lo, b1 = op.qubits.empty() ? nq - 1 : hi;
            auto* l = s->addLine(x, qy(b0) - kWire / 2 + 4, x, qy(b1) + kWire / 2 - 4, QPen(QColor(0x80, 0x80, 0x80), 2, Qt::DashLine));
            l->setZValue(1);
            hit = QRectF(x - 8, qy(b0) - kWire / 2, 16, qy(b1) - qy(b0) + kWire);
            break;
        }
        case OpKind::Measure: {
            for (size_t k = 0; k < op.qubits.size(); ++k) {
                const double y = qy(op.qubits[k]);
                box(x, y, y, QStringLiteral("M"), kMeasureFill);
                if (k < op.clbits.size()) {
                    const int r = cregOf(op.clbits[k]);
                    vline(x, y + kBox / 2, cy(r), true);
                    auto* t = s->addSimpleText(QString::number(op.clbits[k] - c.cregs[static_cast<size_t>(r)].offset), small);
                    t->setPos(x + 4, cy(r) + 2);
                }
            }
            hit = QRectF(x - kBox / 2, qy(lo) - kBox / 2, kBox, qy(hi) - qy(lo) + kBox);
            break;
        }
        case OpKind::Reset:
            for (int q : op.qubits)
                hit = hit.united(box(x, qy(q), qy(q), QStringLiteral("|0⟩"), kMeasureFill));
            break;
        case OpKind::Gate: {
            const std::string& name = op.name;
            const int nc = std::min<int>(controlCount(name), static_cast<int>(op.qubits.size()) - 1);
            if (op.fused) {
                hit = box(x, qy(lo), qy(hi), QStringLiteral("fused\n%1 gates").arg(op.fused->gateCount), kFusedFill);
                break;
            }
            if (name == "swap" && op.qubits.size() == 2) {
                vline(x, qy(lo), qy(hi));
                for (int q : op.qubits) {
                    s->addLine(x - 6, qy(q) - 6, x + 6, qy(q) + 6, QPen(kLine, 2))->setZValue(2);
                    s->addLine(x - 6, qy(q) + 6, x + 6, qy(q) - 6, QPen(kLine, 2))->setZValue(2);
                }
                hit = QRectF(x - 10, qy(lo) - 10, 20, qy(hi) - qy(lo) + 20);
                break;
            }
            if (nc > 0) {
                vline(x, qy(lo), qy(hi));
                for (int k = 0; k < nc; ++k)
                    dot(x, qy(op.qubits[static_cast<size_t>(k)]));
                const std::vector<int> targets(op.qubits.begin() + nc, op.qubits.end());
                const std::string base = targetLabel(name).toLower().toStdString();
                if (base == "x" && targets.size() == 1) {
                    const double y = qy(targets[0]);
                    auto* e = s->addEllipse(x - 10, y - 10, 20, 20, QPen(kLine, 1.4), Qt::white);
                    e->setZValue(2);
                    s->addLine(x - 10, y, x + 10, y, QPen(kLine, 1.4))->setZValue(3);
                    s->addLine(x, y - 10, x, y + 10, QPen(kLine, 1.4))->setZValue(3);
                } else if (base == "z" && targets.size() == 1) {
                    dot(x, qy(targets[0]));
                } else if (base == "swap") {
                    for (int q : targets) {
                        s->addLine(x - 6, qy(q) - 6, x + 6, qy(q) + 6, QPen(kLine, 2))->setZValue(2);
                        s->addLine(x - 6, qy(q) + 6, x + 6, qy(q) - 6, QPen(kLine, 2))->setZValue(2);
                    }
                } else {
                    int tlo = nq, thi = -1;
                    for (int q : targets) {
                        tlo = std::min(tlo, q);
                        thi = std::max(thi, q);
                    }
                    box(x, qy(tlo), qy(thi), targetLabel(name) + params, kGateFill);
                }
                hit = QRectF(x - 14, qy(lo) - 14, 28, qy(hi) - qy(lo) + 28);
                break;
            }
            QString label = QString::fromStdString(name);
            label = label.size() <= 3 ? label.toUpper() : label;
            hit = box(x, qy(lo), qy(hi), label + params, kGateFill);
            break;
        }
        }
        if (op.cond.active() && op.cond.creg < static_cast<int>(c.cregs.size())) {
            const double yc = cy(op.cond.creg);
            vline(x, hit.bottom(), yc, true);
            auto* t = s->addSimpleText(QStringLiteral("==%1").arg(op.cond.value), small);
            t->setPos(x + 4, yc - 14);
            hit = hit.united(QRectF(x - 6, hit.bottom(), 12, yc - hit.bottom()));
        }
        auto* sel = new CircuitOpItem(static_cast<int>(i), hit.adjusted(-3, -3, 3, 3));
        sel->setToolTip(QStringLiteral("%1%2 on %3").arg(QString::fromStdString(op.name), params).arg(op.qubits.size()) + QStringLiteral(" qubit(s)")
                        + (op.line > 0 ? QStringLiteral(", source line %1").arg(op.line) : QString()));
        s->addItem(sel);
        centres_.push_back(hit.center());
    }
    const double height = c.cregs.empty() ? kWire * nq : cy(static_cast<int>(c.cregs.size()) - 1) + kWire * 0.6;
    s->setSceneRect(QRectF(0, 0, width + 10, height + 10));
}

bool CircuitView::selectOp(int index)
{
    for (QGraphicsItem* item : scene()->items())
        if (auto* op = dynamic_cast<CircuitOpItem*>(item); op && op->index() == index) {
            scene()->clearSelection();
            op->setSelected(true);
            ensureVisible(op);
            return true;
        }
    return false;
}

QPointF CircuitView::opCentre(int index) const
{
    return index >= 0 && index < static_cast<int>(centres_.size()) ? centres_[static_cast<size_t>(index)] : QPointF();
}

void CircuitView::fitAll()
{
    if (!circuit_)
        return;
    const QRectF r = scene()->sceneRect();
    fitInView(r, Qt::KeepAspectRatio);
    // A long circuit stays readable: never shrink below 60 %, scroll instead.
    const double s = std::clamp(transform().m11(), 0.6, 1.6);
    setTransform(QTransform::fromScale(s, s));
    ensureVisible(QRectF(r.topLeft(), QSizeF(1, 1)));
}

void CircuitView::wheelEvent(QWheelEvent* e)
{
    const double factor = std::pow(1.0015, e->angleDelta().y());
    const double next = std::clamp(transform().m11() * factor, 0.05, 6.0);
    scale(next / transform().m11(), next / transform().m11());
    e->accept();
}

bool CircuitView::exportSvg(const QString& path) { return exportSceneSvg(scene(), path, QStringLiteral("Spyglass circuit")); }
bool CircuitView::exportPng(const QString& path, double scale) { return exportScenePng(scene(), path, scale); }

}  // namespace spyglass
