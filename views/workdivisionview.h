#pragma once
// The Work division view: for the selected op, its output tile drawn as a rectangle with each core's slice in that
// core's colour, beside the target's cores as a grid (each core's slice of the iteration space as codegen writes it
// into the kernel bundle, lighter for less work so load imbalance shows; idle cores grey), and below the tensor the
// cost model's alternatives (other core counts) with their modelled times next to the chosen split's simulated one.

#include <QWidget>

#include <memory>
#include <string>
#include <vector>

#include "core/spyre/pass_codegen.h"
#include "core/spyre/split_alternatives.h"

#include <QStringList>

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
    // The cost model's alternatives for the op shown (core/spyre/split_alternatives.h) and the simulated time of
    // its kernel in the final bundle (< 0: not simulated or not the final pass).
    void setAlternatives(std::vector<spyre::SplitAlternative> alternatives, double simulatedUs);
    QStringList alternativeLines() const;
    // The tensor picture: which iteration vars are its rows and columns (-1: none), and each core's rectangle in it.
    int rowVar() const { return rowVar_; }
    int columnVar() const { return colVar_; }
    QRectF sliceRect(int core) const;

protected:
    void paintEvent(QPaintEvent*) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    QSize sizeHint() const override { return {520, 360}; }

private:
    QRectF cellRect(int core) const;
    QRectF tensorRect() const;
    int columns() const;

    std::vector<CoreCell> cells_;
    QString headline_;
    double imbalance_ = 1.0;
    int64_t maxPoints_ = 0;
    std::vector<spyre::KernelSlice> slices_;
    int rowVar_ = -1, colVar_ = -1;
    int64_t rowExtent_ = 1, colExtent_ = 1;   // of the tile
    QString tensorCaption_;
    std::vector<spyre::SplitAlternative> alternatives_;
    double simulatedUs_ = -1;
};

class Document;
// The view shows the document's selected op (or the producer of its selected buffer) at the selected pass.
void followDocument(WorkDivisionView* view, const Document* document);

}  // namespace spyglass
