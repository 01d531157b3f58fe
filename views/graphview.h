#pragma once
// The Graph view: an op/buffer graph laid out by Graphviz `dot` on a worker thread and drawn in a
// QGraphicsView. Wheel zooms, drag pans, F fits; restickify nodes stand out; fused groups are clusters;
// search highlights matches; a click selects a node (for the Inspector); export as DOT, SVG or PNG.

#include "views/graphlayout.h"

#include <QGraphicsView>

#include <memory>
#include <string>
#include <vector>

class QLabel;
class QLineEdit;

namespace spyglass {

class GraphNodeItem;

class GraphView : public QGraphicsView {
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);
    ~GraphView() override;

    // Lays the graph out in the background; layoutReady() fires when it is drawn.
    void setGraph(GraphSpec spec);
    // The same, at the positions `spec`'s nodes have in `frame` (a graph holding all of them, e.g. the unionGraph of
    // every pass, already measured): `frame` is laid out once and kept, so showing another subset of it moves
    // nothing two subsets share. Falls back to laying `spec` out alone when `frame` lacks one of its nodes.
    void setGraph(GraphSpec spec, std::shared_ptr<const GraphSpec> frame);
    // Gives each node the size its label needs in the view's font (what Graphviz is told).
    static void measureNodes(GraphSpec& spec);
    void clearGraph();
    const GraphSpec& graph() const { return spec_; }
    bool isLayingOut() const { return pending_ > 0; }
    const GraphLayoutResult& layout() const { return layout_; }
    double lastSceneBuildMs() const { return sceneBuildMs_; }

    // Highlights nodes whose label contains `text` (case-insensitive), centres on the first; returns the count.
    int search(const QString& text);
    // Ctrl+F: a find field over the view's top-right corner; typing searches, Enter steps to the next match,
    // Escape closes it. The field's count label says how many nodes match.
    void showFind();
    QString findStatus() const;
    bool selectNode(const std::string& id);
    std::string selectedNode() const;

    // The legend drawn in the view's bottom-left corner: shapes, colours, and what the pass changed.
    QStringList legendLines() const;
    void setLegendVisible(bool on);
    bool legendVisible() const { return legendVisible_; }

    bool exportDot(const QString& path) const;
    bool exportSvg(const QString& path);
    bool exportPng(const QString& path, double scale = 1.0);

public slots:
    void fitAll();
    void zoomBy(double factor);

signals:
    void layoutReady();
    void layoutFailed(const QString& message);
    void nodeSelected(const QString& id);
    void nodeContextMenuRequested(const QString& id, const QPoint& globalPos);

protected:
    void wheelEvent(QWheelEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void contextMenuEvent(QContextMenuEvent* e) override;
    void drawForeground(QPainter* p, const QRectF& rect) override;
    void resizeEvent(QResizeEvent* e) override;

private:
    void buildScene();
    void updateRenderQuality();

    GraphSpec spec_;
    std::shared_ptr<const GraphSpec> frame_;   // the last frame laid out, and its layout
    std::shared_ptr<const GraphLayoutResult> frameLayout_;
    GraphLayoutResult layout_;
    std::vector<GraphNodeItem*> nodeItems_;
    int pending_ = 0;
    bool legendVisible_ = true;
    QLineEdit* findField_ = nullptr;
    QLabel* findCount_ = nullptr;
    int findNext_ = 0;   // which match Enter centres on next
    double sceneBuildMs_ = 0;
    quint64 generation_ = 0;
    std::shared_ptr<bool> alive_;
};

}  // namespace spyglass
