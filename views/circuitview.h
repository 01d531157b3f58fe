#pragma once
// The Circuit view: the circuit of the selected quantum pass as a diagram — a wire per qubit, a double
// wire per classical register, gates in columns (as early as their wires allow), controls as dots,
// measurements, resets, barriers, conditions and fused blocks. Wheel zooms, drag pans, clicking a gate
// reports it (for the Inspector); export SVG or PNG.

#include <QGraphicsView>

#include <memory>
#include <optional>
#include <vector>

namespace spyglass::quantum {
struct Circuit;
}

namespace spyglass {

class Document;

class CircuitView : public QGraphicsView {
    Q_OBJECT
public:
    explicit CircuitView(QWidget* parent = nullptr);
    ~CircuitView() override;

    void setCircuit(std::shared_ptr<const quantum::Circuit> circuit);
    // Shows the document's selected circuit from now on (nothing for other documents).
    void followDocument(const Document* document);
    const quantum::Circuit* circuit() const { return circuit_.get(); }

    // The drawing column of every op (same order as Circuit::ops), and how many columns there are.
    const std::vector<int>& opColumns() const { return columns_; }
    int columnCount() const { return columnCount_; }
    int selectedOp() const { return selectedOp_; }
    bool selectOp(int index);
    // The State view's step: a marker just after drawing column `column` (-1: before column 0); nullopt hides it.
    void setStepMarker(std::optional<int> column);
    std::optional<int> stepMarker() const { return stepMarker_; }
    QPointF opCentre(int index) const;   // scene position of an op's drawing, for tests and "reveal"

    bool exportSvg(const QString& path);
    bool exportPng(const QString& path, double scale = 1.0);

    // "π/4", "-3π/2", "0.125": how gate angles are written on the diagram.
    static QString formatAngle(double radians);

public slots:
    void fitAll();

signals:
    void opSelected(int index);

protected:
    void wheelEvent(QWheelEvent* e) override;

private:
    void rebuild();

    std::shared_ptr<const quantum::Circuit> circuit_;
    std::vector<int> columns_;
    std::vector<QPointF> centres_;
    int columnCount_ = 0;
    int selectedOp_ = -1;
    std::optional<int> stepMarker_;
    QGraphicsItem* markerItem_ = nullptr;
};

}  // namespace spyglass
