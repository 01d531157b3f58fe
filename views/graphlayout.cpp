#include "views/graphlayout.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <QElapsedTimer>

#include <map>
#include <mutex>
#include <stdexcept>

namespace spyglass {

namespace {

std::mutex& graphvizMutex()
{
    static std::mutex m;
    return m;
}

// One GVC_t for the process, created on first use under the mutex and never freed (plugins stay loaded).
GVC_t* graphvizContext()
{
    static GVC_t* gvc = gvContext();
    return gvc;
}

void set(void* obj, const char* name, const std::string& value)
{
    agsafeset(obj, const_cast<char*>(name), const_cast<char*>(value.c_str()), const_cast<char*>(""));
}

std::string shapeFor(GraphSpec::NodeKind k)
{
    switch (k) {
    case GraphSpec::NodeKind::Buffer: return "ellipse";
    case GraphSpec::NodeKind::Input:
    case GraphSpec::NodeKind::Output: return "invhouse";
    case GraphSpec::NodeKind::Restickify: return "hexagon";
    case GraphSpec::NodeKind::Constant: return "note";
    case GraphSpec::NodeKind::Op: break;
    }
    return "box";
}

std::string fmt(double v) { return std::to_string(v); }

std::string escapeDot(const QString& s)
{
    std::string out;
    for (const QChar c : s) {
        if (c == QLatin1Char('"'))
            out += "\\\"";
        else if (c == QLatin1Char('\\'))
            out += "\\\\";
        else if (c == QLatin1Char('\n'))
            out += "\\n";
        else
            out += QString(c).toStdString();
    }
    return out;
}

}  // namespace

QString graphvizVersion()
{
    std::lock_guard lock(graphvizMutex());
    const char* v = gvcVersion(graphvizContext());
    return QString::fromLatin1(v ? v : "?");
}

GraphLayoutResult layoutGraph(const GraphSpec& spec, int maxLabelledNodes)
{
    QElapsedTimer timer;
    timer.start();
    const bool labelEdges = static_cast<int>(spec.nodes.size()) <= maxLabelledNodes;

    std::lock_guard lock(graphvizMutex());
    GVC_t* gvc = graphvizContext();
    Agraph_t* g = agopen(const_cast<char*>("g"), Agdirected, nullptr);
    if (!g)
        throw std::runtime_error("Graphviz could not create a graph");
    set(g, "rankdir", spec.leftToRight ? "LR" : "TB");
    set(g, "nodesep", "0.25");
    set(g, "ranksep", "0.35");
    set(g, "fontsize", "10");

    std::vector<Agraph_t*> clusters;
    for (size_t i = 0; i < spec.clusters.size(); ++i) {
        const std::string name = "cluster_" + std::to_string(i);
        Agraph_t* sg = agsubg(g, const_cast<char*>(name.c_str()), 1);
        set(sg, "label", spec.clusters[i].label.toStdString());
        set(sg, "margin", "10");
        clusters.push_back(sg);
    }
    std::vector<Agnode_t*> nodes;
    nodes.reserve(spec.nodes.size());
    for (size_t i = 0; i < spec.nodes.size(); ++i) {
        const auto& n = spec.nodes[i];
        const std::string name = "n" + std::to_string(i);   // ids may hold characters dot dislikes
        Agraph_t* owner = n.cluster >= 0 && n.cluster < static_cast<int>(clusters.size()) ? clusters[static_cast<size_t>(n.cluster)] : g;
        Agnode_t* an = agnode(owner, const_cast<char*>(name.c_str()), 1);
        set(an, "shape", shapeFor(n.kind));
        set(an, "fixedsize", "true");   // the caller measured the label with the view's font
        set(an, "label", "");
        set(an, "width", fmt(std::max(0.3, n.size.width() / 72.0)));
        set(an, "height", fmt(std::max(0.25, n.size.height() / 72.0)));
        nodes.push_back(an);
    }
    std::vector<Agedge_t*> edges;
    edges.reserve(spec.edges.size());
    for (const auto& e : spec.edges) {
        if (e.from < 0 || e.to < 0 || e.from >= static_cast<int>(nodes.size()) || e.to >= static_cast<int>(nodes.size())) {
            edges.push_back(nullptr);
            continue;
        }
        Agedge_t* ae = agedge(g, nodes[static_cast<size_t>(e.from)], nodes[static_cast<size_t>(e.to)], nullptr, 1);
        if (labelEdges && !e.label.isEmpty()) {
            set(ae, "label", e.label.toStdString());
            set(ae, "fontsize", "12");   // reserve room: Graphviz estimates text narrower than Qt draws it
        }
        edges.push_back(ae);
    }

    if (gvLayout(gvc, g, "dot") != 0) {
        agclose(g);
        throw std::runtime_error("Graphviz dot layout failed");
    }

    // Graphviz works in points with y up; flip with the bounding box so y grows downwards like Qt.
    const boxf bb = GD_bb(g);
    auto toQt = [&bb](pointf p) { return QPointF(p.x - bb.LL.x, bb.UR.y - p.y); };
    GraphLayoutResult out;
    out.bounds = QRectF(0, 0, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
    out.nodes.reserve(nodes.size());
    for (Agnode_t* an : nodes) {
        const QPointF c = toQt(ND_coord(an));
        const double w = ND_width(an) * 72.0, h = ND_height(an) * 72.0;
        out.nodes.push_back({QRectF(c.x() - w / 2, c.y() - h / 2, w, h)});
    }
    out.edges.reserve(edges.size());
    for (Agedge_t* ae : edges) {
        GraphLayoutResult::Edge re;
        if (ae && ED_spl(ae) && ED_spl(ae)->size > 0) {
            const bezier& bz = ED_spl(ae)->list[0];
            for (int i = 0; i < bz.size; ++i)
                re.bezier.push_back(toQt(bz.list[i]));
            if (bz.eflag) {
                re.hasArrow = true;
                re.arrowTip = toQt(bz.ep);
            }
        }
        if (ae && ED_label(ae)) {
            re.hasLabel = true;
            re.labelPos = toQt(ED_label(ae)->pos);
        }
        out.edges.push_back(std::move(re));
    }
    for (Agraph_t* sg : clusters) {
        const boxf cb = GD_bb(sg);
        const QPointF tl = toQt(pointf{cb.LL.x, cb.UR.y});
        out.clusters.push_back({QRectF(tl.x(), tl.y(), cb.UR.x - cb.LL.x, cb.UR.y - cb.LL.y)});
    }
    gvFreeLayout(gvc, g);
    agclose(g);
    out.layoutMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    return out;
}

namespace {

std::pair<int, int> labelExtent(const QString& label)
{
    const QStringList lines = label.split(QLatin1Char('\n'));
    int widest = 0;
    for (const QString& l : lines)
        widest = std::max(widest, static_cast<int>(l.size()));
    return {static_cast<int>(lines.size()), widest};
}

}  // namespace

GraphSpec unionGraph(const std::vector<const GraphSpec*>& graphs)
{
    GraphSpec out;
    std::map<std::string, int> nodeAt;
    std::map<std::pair<std::string, std::string>, int> edgeAt;
    for (const GraphSpec* g : graphs) {
        if (!g)
            continue;
        out.leftToRight = g->leftToRight;
        std::vector<int> index(g->nodes.size());
        for (size_t i = 0; i < g->nodes.size(); ++i) {
            const GraphSpec::Node& n = g->nodes[i];
            auto [it, inserted] = nodeAt.emplace(n.id, static_cast<int>(out.nodes.size()));
            if (inserted) {
                GraphSpec::Node copy = n;
                copy.cluster = -1;
                copy.change = GraphSpec::Node::Change::Same;
                out.nodes.push_back(std::move(copy));
            } else {
                GraphSpec::Node& kept = out.nodes[static_cast<size_t>(it->second)];
                if (labelExtent(n.label) > labelExtent(kept.label))
                    kept.label = n.label;
                kept.size = kept.size.expandedTo(n.size);
            }
            index[i] = it->second;
        }
        for (const GraphSpec::Edge& e : g->edges) {
            if (e.from < 0 || e.to < 0 || e.from >= static_cast<int>(index.size()) || e.to >= static_cast<int>(index.size()))
                continue;
            const int from = index[static_cast<size_t>(e.from)], to = index[static_cast<size_t>(e.to)];
            auto [it, inserted] = edgeAt.emplace(std::make_pair(out.nodes[static_cast<size_t>(from)].id, out.nodes[static_cast<size_t>(to)].id),
                                                 static_cast<int>(out.edges.size()));
            if (inserted)
                out.edges.push_back({from, to, e.label});
            else if (e.label.size() > out.edges[static_cast<size_t>(it->second)].label.size())
                out.edges[static_cast<size_t>(it->second)].label = e.label;
        }
    }
    return out;
}

std::optional<GraphLayoutResult> placeInFrame(const GraphSpec& spec, const GraphSpec& frame, const GraphLayoutResult& frameLayout)
{
    if (frameLayout.nodes.size() != frame.nodes.size() || frameLayout.edges.size() != frame.edges.size())
        return std::nullopt;
    std::map<std::string, int> nodeAt;
    for (size_t i = 0; i < frame.nodes.size(); ++i)
        nodeAt.emplace(frame.nodes[i].id, static_cast<int>(i));
    std::map<std::pair<int, int>, int> edgeAt;
    for (size_t i = 0; i < frame.edges.size(); ++i)
        edgeAt.emplace(std::make_pair(frame.edges[i].from, frame.edges[i].to), static_cast<int>(i));
    GraphLayoutResult out;
    out.bounds = frameLayout.bounds;
    std::vector<int> where(spec.nodes.size());
    for (size_t i = 0; i < spec.nodes.size(); ++i) {
        const auto it = nodeAt.find(spec.nodes[i].id);
        if (it == nodeAt.end())
            return std::nullopt;
        where[i] = it->second;
        out.nodes.push_back(frameLayout.nodes[static_cast<size_t>(it->second)]);
    }
    for (const GraphSpec::Edge& e : spec.edges) {
        if (e.from < 0 || e.to < 0 || e.from >= static_cast<int>(where.size()) || e.to >= static_cast<int>(where.size()))
            return std::nullopt;
        const auto it = edgeAt.find({where[static_cast<size_t>(e.from)], where[static_cast<size_t>(e.to)]});
        if (it == edgeAt.end())
            return std::nullopt;
        GraphLayoutResult::Edge placed = frameLayout.edges[static_cast<size_t>(it->second)];
        placed.hasLabel = placed.hasLabel && !e.label.isEmpty();
        out.edges.push_back(std::move(placed));
    }
    // A cluster's frame: its members' boxes with Graphviz's cluster margin, and room above for the label.
    constexpr double margin = 10, labelRoom = 14;
    out.clusters.assign(spec.clusters.size(), {});
    for (size_t i = 0; i < spec.nodes.size(); ++i) {
        const int c = spec.nodes[i].cluster;
        if (c < 0 || c >= static_cast<int>(out.clusters.size()))
            continue;
        QRectF& box = out.clusters[static_cast<size_t>(c)].box;
        const QRectF member = out.nodes[i].box.adjusted(-margin, -margin - labelRoom, margin, margin);
        box = box.isNull() ? member : box.united(member);
    }
    for (const auto& c : out.clusters)
        out.bounds = out.bounds.united(c.box);
    return out;
}

std::string toDot(const GraphSpec& spec)
{
    std::string out = "digraph spyglass {\n  rankdir=" + std::string(spec.leftToRight ? "LR" : "TB") + ";\n  node [fontname=\"DejaVu Sans\", fontsize=10];\n";
    auto nodeLine = [&](size_t i, const std::string& indent) {
        const auto& n = spec.nodes[i];
        out += indent + "n" + std::to_string(i) + " [label=\"" + escapeDot(n.label) + "\", shape=" + shapeFor(n.kind);
        if (n.kind == GraphSpec::NodeKind::Restickify)
            out += ", style=filled, fillcolor=\"#f4b6a8\"";
        if (!n.tooltip.isEmpty())
            out += ", tooltip=\"" + escapeDot(n.tooltip) + "\"";
        out += "];\n";
    };
    for (size_t c = 0; c < spec.clusters.size(); ++c) {
        out += "  subgraph cluster_" + std::to_string(c) + " {\n    label=\"" + escapeDot(spec.clusters[c].label) + "\";\n";
        for (size_t i = 0; i < spec.nodes.size(); ++i)
            if (spec.nodes[i].cluster == static_cast<int>(c))
                nodeLine(i, "    ");
        out += "  }\n";
    }
    for (size_t i = 0; i < spec.nodes.size(); ++i)
        if (spec.nodes[i].cluster < 0 || spec.nodes[i].cluster >= static_cast<int>(spec.clusters.size()))
            nodeLine(i, "  ");
    for (const auto& e : spec.edges) {
        out += "  n" + std::to_string(e.from) + " -> n" + std::to_string(e.to);
        if (!e.label.isEmpty())
            out += " [label=\"" + escapeDot(e.label) + "\"]";
        out += ";\n";
    }
    out += "}\n";
    return out;
}

}  // namespace spyglass
