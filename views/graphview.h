#pragma once
// The Graph view: an op/buffer graph laid out by Graphviz `dot` on a worker thread and drawn in a
// QGraphicsView. Wheel zooms, drag pans, F fits; restickify nodes stand out; fused groups are clusters;
// search highlights matches; a click selects a node (for the Inspector); export as DOT, SVG or PNG.

#include "views/graphlayout.h"

#include <QGraphicsView>

#include <memory>
#include <string>
#include <vector>

namespace spyglass {

class GraphNodeItem;

class GraphView : public QGraphicsView {
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);
    ~GraphView() override;

    // Lays the graph out in the background; layoutReady() fires when it is drawn.
    void setGraph(GraphSpec spec);
    void clearGraph();
    const GraphSpec& graph() const { return spec_; }
    bool isLayingOut() const { return pending_ > 0; }
    const GraphLayoutResult& layout() const { return layout_; }
    double lastSceneBuildMs() const { return sceneBuildMs_; }

    // Highlights nodes whose label contains `text` (case-insensitive), centres on the first; returns the count.
    int search(const QString& text);
    bool selectNode(const std::string& id);
    std::string selectedNode() const;

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

private:
    void buildScene();
    void updateRenderQuality();

    GraphSpec spec_;
    GraphLayoutResult layout_;
    std::vector<GraphNodeItem*> nodeItems_;
    int pending_ = 0;
    double sceneBuildMs_ = 0;
    quint64 generation_ = 0;
    std::shared_ptr<bool> alive_;
};

}  // namespace spyglass
