#pragma once
// Lays out an op/buffer graph with Graphviz's `dot` (cgraph + gvc C API) and copies the result into plain
// structs. Graphviz is not thread-safe, even for reads, so every call into it is made under one process-wide
// mutex with one process-wide GVC_t; callers run layoutGraph() on a worker thread.

#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <QStringList>

#include <optional>
#include <string>
#include <vector>

namespace spyglass {

// What to draw, independent of any compiler: views build this from the selected snapshot.
struct GraphSpec {
    enum class NodeKind { Op, Buffer, Input, Output, Restickify, Constant };
    struct Node {
        std::string id;        // unique; what selection reports
        QString label;         // may contain '\n'
        QString tooltip;
        NodeKind kind = NodeKind::Op;
        int cluster = -1;      // index into clusters, -1 for none
        QSizeF size;           // in points (1/72 inch), measured by the caller's font
        // Against the pass before (when the caller gives one): drawn as a mark so stepping shows what a pass did.
        enum class Change { Same, New, Changed };
        Change change = Change::Same;
        QString searchText;    // more names the search finds the node by (buffers it writes, ONNX values)
    };
    struct Edge {
        int from = 0;
        int to = 0;
        QString label;         // shape and device layout, e.g. "[256, 512] stick d1"
    };
    struct Cluster {
        QString label;         // e.g. "fused group 3"
    };
    std::vector<Node> nodes;
    std::vector<Edge> edges;
    std::vector<Cluster> clusters;
    bool leftToRight = false;
    QStringList removed;       // what the pass before had and this one does not ("op3 → fused into op4")
};

struct GraphLayoutResult {
    struct Node {
        QRectF box;            // in points, y down, origin at the top-left of the drawing
    };
    struct Edge {
        std::vector<QPointF> bezier;   // cubic Bézier: p0, (c1, c2, p)*; empty if Graphviz drew none
        QPointF arrowTip;              // end of the arrowhead (Graphviz's ep), or the last bezier point
        bool hasArrow = false;
        QPointF labelPos;              // centre of the label, when there is one
        bool hasLabel = false;
    };
    struct Cluster {
        QRectF box;
    };
    std::vector<Node> nodes;
    std::vector<Edge> edges;
    std::vector<Cluster> clusters;
    QRectF bounds;
    double layoutMs = 0;
};

// Throws std::runtime_error when Graphviz fails. Edge labels are laid out only for graphs up to
// `maxLabelledNodes` nodes: in dot every edge label is a virtual node, which makes big graphs slow.
GraphLayoutResult layoutGraph(const GraphSpec& spec, int maxLabelledNodes = 400);

// The union of several graphs (one per pass), matching nodes by id and edges by their ends' ids: laid out once, it
// gives every pass the same positions, so stepping never moves a node two passes share. A node keeps its tallest,
// then widest, label (its size must fit every pass); clusters are left out, as each pass groups ops differently.
GraphSpec unionGraph(const std::vector<const GraphSpec*>& graphs);

// `spec` placed at the positions its nodes and edges have in `frame`'s layout (`frame` holds every node and edge of
// `spec`, e.g. their unionGraph); each of `spec`'s clusters is drawn around its members. Empty when a node or edge
// of `spec` is not in `frame`.
std::optional<GraphLayoutResult> placeInFrame(const GraphSpec& spec, const GraphSpec& frame, const GraphLayoutResult& frameLayout);

// The same graph as Graphviz DOT text (what "Export DOT" writes).
std::string toDot(const GraphSpec& spec);

// Graphviz's version string, for Help > About.
QString graphvizVersion();

}  // namespace spyglass
