#pragma once
// The Stick layout view: a tensor's device layout as a grid of 128-byte sticks in device order (a column
// per index of the innermost non-element device dimension, a row per index of the outer ones), padding
// shaded; hovering an element shows its host coordinates. For a restickify op the source and destination
// layouts stand side by side, and the stick the hovered element moves to is highlighted on the other side.

#include <QWidget>

#include <memory>
#include <vector>

namespace spyglass::spyre {
struct Program;
}

class QLabel;

namespace spyglass {

class StickGrid;

class StickLayoutView : public QWidget {
    Q_OBJECT
public:
    explicit StickLayoutView(QWidget* parent = nullptr);

    void showBuffer(std::shared_ptr<const spyre::Program> program, int buffer);
    // A restickify op: its source buffer (the load) and destination (the store), side by side.
    void showRestickify(std::shared_ptr<const spyre::Program> program, int op);
    void clear();

    StickGrid* source() const { return grids_[0]; }
    StickGrid* destination() const { return grids_[1]; }
    QString headline() const;

private:
    QLabel* headline_;
    StickGrid* grids_[2];
    QWidget* panes_[2];
    std::shared_ptr<const spyre::Program> program_;
};

// One layout's grid (public for tests).
class StickGrid : public QWidget {
    Q_OBJECT
public:
    explicit StickGrid(QWidget* parent = nullptr);
    void setBuffer(std::shared_ptr<const spyre::Program> program, int buffer);
    bool hasBuffer() const { return buffer_ >= 0; }
    int64_t stickCount() const { return rows_ * cols_; }
    int64_t rows() const { return rows_; }
    int64_t columns() const { return cols_; }
    int64_t paddedSticks() const;   // sticks with any padding (over the whole tensor)
    // Host coordinates of the element at a widget position (empty when outside or padding).
    std::vector<int64_t> hostAt(QPointF pos) const;
    void highlightHost(const std::vector<int64_t>& coord);
    QString caption() const;

signals:
    void hovered(const std::vector<int64_t>& hostCoord);

protected:
    void paintEvent(QPaintEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent*) override;

private:
    std::vector<int64_t> stickIndex(int64_t row, int64_t col) const;
    QRectF cell(int64_t row, int64_t col) const;

    std::shared_ptr<const spyre::Program> program_;
    int buffer_ = -1;
    int64_t rows_ = 0, cols_ = 0;
    double cellW_ = 40, cellH_ = 12;
    int64_t highlightRow_ = -1, highlightCol_ = -1;
    static constexpr int kTop = 18;
};

}  // namespace spyglass
