#pragma once
// The Work division view: the target's cores as a grid; for the selected op, each core's slice of the
// iteration space (as codegen writes it into the kernel bundle), coloured by its share of the work so load
// imbalance shows at a glance; idle cores are grey.

#include <QWidget>

#include <memory>
#include <string>
#include <vector>

namespace spyglass::spyre {
struct Program;
}

namespace spyglass {

class WorkDivisionView : public QWidget {
    Q_OBJECT
public:
    explicit WorkDivisionView(QWidget* parent = nullptr);

    // `cores` is the target's core count (the grid); op < 0 clears.
    void setOp(std::shared_ptr<const spyre::Program> program, int op, int cores);

    struct CoreCell {
        bool busy = false;
        QString slice;        // "p0 0..32 · p1 0..768"
        int64_t points = 0;   // iteration points of this core's slice
    };
    const std::vector<CoreCell>& cells() const { return cells_; }
    double imbalance() const { return imbalance_; }   // max / mean points over busy cores (1 = even)
    QString headline() const { return headline_; }

protected:
    void paintEvent(QPaintEvent*) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    QSize sizeHint() const override { return {520, 360}; }

private:
    QRectF cellRect(int core) const;
    int columns() const;

    std::vector<CoreCell> cells_;
    QString headline_;
    double imbalance_ = 1.0;
    int64_t maxPoints_ = 0;
};

class Document;
// The view shows the document's selected op (or the producer of its selected buffer) at the selected pass.
void followDocument(WorkDivisionView* view, const Document* document);

}  // namespace spyglass
