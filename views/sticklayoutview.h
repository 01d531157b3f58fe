#pragma once
// The Stick layout view: a tensor's device layout as a grid of 128-byte sticks in device order (a column per
// index of the innermost non-element device dimension, a row per index of the outer ones). Every element is
// coloured by its host coordinate (hue along one host dim, shade along another), so the same element has the same
// colour wherever it sits; padding is grey and hatched. For a restickify op the source and destination stand side
// by side under a sentence saying why the copy exists; clicking an element traces it from its source stick to its
// destination stick and names the core that moves it, and Prev/Next step through the move one destination stick
// at a time (the source sticks it gathers from are outlined). What is traced is computed in
// core/spyre/restickify_trace.h; this view only draws it.

#include <QStringList>
#include <QWidget>

#include <memory>
#include <vector>

namespace spyglass::spyre {
struct Program;
struct Buffer;
struct SpyreTensorLayout;
}

class QLabel;
class QPushButton;

namespace spyglass {

class StickGrid;

// One step of a restickify, large: the source sticks the destination stick gathers from (one row each, up to 16,
// the moved element framed) above the destination stick, every element in its host colour.
class StickMoveStrip : public QWidget {
    Q_OBJECT
public:
    explicit StickMoveStrip(QWidget* parent = nullptr);
    struct Row {
        QString label;                   // "src 259"
        std::vector<QColor> elements;    // the stick's elements; invalid colour = padding
        int64_t moved = -1;              // the element this step takes from it
    };
    void setRows(std::vector<Row> sources, Row destination, int64_t moreSources);
    const std::vector<Row>& sources() const { return sources_; }

protected:
    void paintEvent(QPaintEvent* e) override;

private:
    std::vector<Row> sources_;
    Row destination_;
    int64_t more_ = 0;
};

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
    StickMoveStrip* moveStrip() const { return strip_; }
    QString headline() const;

    // Restickify only: trace one host element (what a click does) and step through the destination sticks.
    void traceHost(const std::vector<int64_t>& host);
    QString traceText() const;
    void stepTo(int64_t destinationStick);
    void stepBy(int delta);
    int64_t currentStep() const { return step_; }

private:
    QLabel* headline_;
    QLabel* trace_;
    QPushButton* prev_;
    QPushButton* next_;
    StickMoveStrip* strip_;
    StickGrid* grids_[2];
    QWidget* panes_[2];
    std::shared_ptr<const spyre::Program> program_;
    int op_ = -1;   // the restickify op shown, or -1
    int64_t step_ = -1;
};

// One layout's grid (public for tests).
class StickGrid : public QWidget {
    Q_OBJECT
public:
    explicit StickGrid(QWidget* parent = nullptr);
    // `hueDim`/`shadeDim`: the host dims the element colours follow (-1: none); both grids of a restickify share
    // them so that colours match.
    void setBuffer(std::shared_ptr<const spyre::Program> program, int buffer, int hueDim = -2, int shadeDim = -1);
    bool hasBuffer() const { return buffer_ >= 0; }
    int64_t stickCount() const { return rows_ * cols_; }
    int64_t rows() const { return rows_; }
    int64_t columns() const { return cols_; }
    int64_t paddedSticks() const;   // sticks with any padding (over the whole tensor)
    // Host coordinates of the element at a widget position (empty when outside or padding).
    std::vector<int64_t> hostAt(QPointF pos) const;
    // Outline the stick holding `coord` and mark the element in it.
    void highlightHost(const std::vector<int64_t>& coord);
    // Outline these sticks (by stick number) in a second colour: the sticks a step gathers from.
    void outlineSticks(std::vector<int64_t> sticks);
    int64_t highlightedStick() const { return highlightRow_ < 0 ? -1 : highlightRow_ * cols_ + highlightCol_; }
    int64_t highlightedOffset() const { return highlightOffset_; }
    QString caption() const;
    // Big tensors are summarised: only the first and last rows and columns of sticks, those around the highlighted
    // stick and the outlined ones are drawn; the rest fold into bands that say how many they hold.
    int64_t shownRows() const { return rowAxis_.shown(); }
    int64_t shownColumns() const { return colAxis_.shown(); }
    QStringList elidedBands() const;            // "rows 5–251 (247)" / "columns 16–495 (480)"
    int64_t paintedSticks() const { return painted_; }   // drawn by the last paint
    // Where a stick is drawn (widget coordinates), empty when it is folded into a band.
    QRectF stickRect(int64_t stick) const;
    // The colour an element gets (the same in every grid given the same dims).
    static QColor colourOf(const std::vector<int64_t>& host, int hueDim, int shadeDim, int64_t stickElements);

signals:
    void hovered(const std::vector<int64_t>& hostCoord);
    void clicked(const std::vector<int64_t>& hostCoord);

protected:
    void paintEvent(QPaintEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent*) override;

private:
    // One axis (rows or columns) of sticks: runs drawn cell by cell and folded bands, laid end to end.
    struct Axis {
        struct Band {
            int64_t first = 0, count = 0;
            bool folded = false;
            double start = 0, size = 0;
        };
        std::vector<Band> bands;
        double extent = 0;
        // Everything when `total` <= `limit`; otherwise the first `head`, the last `tail`, and `keep` (indices, each
        // with `around` neighbours on both sides).
        void build(int64_t total, int64_t limit, int64_t head, int64_t tail, const std::vector<int64_t>& keep, int64_t around,
                   double cell, double foldSize);
        double startOf(int64_t i) const;   // -1 when folded
        const Band* bandAt(double pos) const;
        int64_t shown() const;
    };
    void drawStick(QPainter& p, const spyre::SpyreTensorLayout& l, const spyre::Buffer& b, int64_t r, int64_t c, const QRectF& rc,
                   int64_t elements) const;
    void summarise();   // rebuilds the axes from what is highlighted and outlined
    std::vector<int64_t> stickIndex(int64_t row, int64_t col) const;
    QRectF cell(int64_t row, int64_t col) const;
    Axis rowAxis_, colAxis_;
    mutable int64_t painted_ = 0;

    std::shared_ptr<const spyre::Program> program_;
    int buffer_ = -1;
    int hueDim_ = -1, shadeDim_ = -1;
    int64_t rows_ = 0, cols_ = 0;
    double cellW_ = 40, cellH_ = 12;
    int64_t highlightRow_ = -1, highlightCol_ = -1, highlightOffset_ = -1;
    mutable int64_t padded_ = -1;   // paddedSticks(), counted once per buffer
    std::vector<int64_t> outlined_;   // sorted
    static constexpr int kTop = 18;
};

class Document;
// The view shows the document's selected buffer, or the selected op's output (both sides of a restickify op), at
// the selected pass.
void followDocument(StickLayoutView* view, const Document* document);

}  // namespace spyglass
