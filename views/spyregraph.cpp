#include "views/spyregraph.h"

#include "views/document.h"
#include "views/graphview.h"

#include "core/spyre/loop_ir.h"

#include <QStringList>

#include <algorithm>
#include <map>

namespace spyglass {

using namespace spyre;

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

GraphSpec graphLevel(const Program& p)
{
    GraphSpec g;
    std::map<std::string, int> clusterOf;   // decompose origin -> cluster
    std::vector<int> tensorNode(p.tensors.size(), -1);
    for (size_t t = 0; t < p.tensors.size(); ++t) {
        const GraphTensor& tensor = p.tensors[t];
        if (!tensor.isInput && !tensor.isOutput && !tensor.isConstant)
            continue;   // intermediate tensors are edges, not nodes
        GraphSpec::Node n;
        n.id = "tensor:" + std::to_string(t);
        n.label = q(tensor.name) + QStringLiteral("\n") + q(shapeText(tensor.shape));
        n.kind = tensor.isConstant ? GraphSpec::NodeKind::Constant : tensor.isInput ? GraphSpec::NodeKind::Input : GraphSpec::NodeKind::Output;
        tensorNode[t] = static_cast<int>(g.nodes.size());
        g.nodes.push_back(std::move(n));
    }
    std::vector<int> opNode(p.graphOps.size());
    for (size_t o = 0; o < p.graphOps.size(); ++o) {
        const GraphOp& op = p.graphOps[o];
        GraphSpec::Node n;
        n.id = "gop:" + std::to_string(o);
        n.label = q(op.opType) + QStringLiteral("\n") + q(op.name);
        n.tooltip = q(op.label()) + (op.origin.empty() ? QString() : QStringLiteral("\nfrom ") + q(op.origin));
        if (!op.origin.empty()) {
            auto [it, inserted] = clusterOf.emplace(op.origin, static_cast<int>(g.clusters.size()));
            if (inserted)
                g.clusters.push_back({QStringLiteral("decomposed ") + q(op.origin)});
            n.cluster = it->second;
        }
        opNode[o] = static_cast<int>(g.nodes.size());
        g.nodes.push_back(std::move(n));
    }
    for (size_t o = 0; o < p.graphOps.size(); ++o) {
        for (int in : p.graphOps[o].inputs) {
            if (in < 0 || in >= static_cast<int>(p.tensors.size()))
                continue;
            const GraphTensor& t = p.tensors[static_cast<size_t>(in)];
            const int from = t.producer >= 0 ? opNode[static_cast<size_t>(t.producer)] : tensorNode[static_cast<size_t>(in)];
            if (from >= 0)
                g.edges.push_back({from, opNode[o], q(shapeText(t.shape))});
        }
        for (int out : p.graphOps[o].outputs)
            if (out >= 0 && out < static_cast<int>(p.tensors.size()) && tensorNode[static_cast<size_t>(out)] >= 0)
                g.edges.push_back({opNode[o], tensorNode[static_cast<size_t>(out)], q(shapeText(p.tensors[static_cast<size_t>(out)].shape))});
    }
    return g;
}

QString edgeLabel(const Buffer& b)
{
    QString label = q(shapeText(b.shape));
    if (b.stickDim >= 0)
        label += QStringLiteral(" stick d%1").arg(b.stickDim);
    if (b.order == DeviceOrder::BatchOutermost)
        label += QStringLiteral(" batch-outer");
    return label;
}

GraphSpec loopLevel(const Program& p)
{
    GraphSpec g;
    std::vector<int> bufNode(p.buffers.size(), -1);
    for (size_t b = 0; b < p.buffers.size(); ++b) {
        const Buffer& buf = p.buffers[b];
        if (buf.kind == BufferKind::Intermediate)
            continue;   // intermediates are the edges between ops
        GraphSpec::Node n;
        n.id = "buf:" + std::to_string(b);
        n.label = q(buf.name) + QStringLiteral("\n") + q(shapeText(buf.shape));
        n.tooltip = q(buf.origin);
        n.kind = buf.kind == BufferKind::Constant ? GraphSpec::NodeKind::Constant
                 : buf.kind == BufferKind::Input  ? GraphSpec::NodeKind::Input
                                                  : GraphSpec::NodeKind::Output;
        bufNode[b] = static_cast<int>(g.nodes.size());
        g.nodes.push_back(std::move(n));
    }
    std::vector<int> opNode(p.ops.size());
    for (size_t o = 0; o < p.ops.size(); ++o) {
        const Op& op = p.ops[o];
        GraphSpec::Node n;
        n.id = "op:" + std::to_string(o);
        if (op.kind == OpKind::Restickify) {
            n.kind = GraphSpec::NodeKind::Restickify;
            n.label = QStringLiteral("%1 restickify\nd%2 → d%3, %4 el.").arg(q(op.name)).arg(op.fromStickDim).arg(op.toStickDim).arg(op.iterationPoints());
        } else {
            QString what = op.origins.empty() ? q(opKindName(op.kind)) : q(op.origins.front());
            if (what.size() > 28)
                what = what.left(26) + QStringLiteral("…");
            n.label = q(op.name) + QStringLiteral(" ") + q(opKindName(op.kind)) + QStringLiteral("\n") + what;
            if (op.split.cores > 1)
                n.label += QStringLiteral("\n%1 cores").arg(op.split.cores);
        }
        QStringList origins;
        for (const auto& s : op.origins)
            origins << q(s);
        n.tooltip = origins.join(QLatin1Char('\n'));
        if (!op.fusedFrom.empty()) {
            QStringList fused;
            for (const auto& s : op.fusedFrom)
                fused << q(s);
            n.cluster = static_cast<int>(g.clusters.size());
            g.clusters.push_back({QStringLiteral("fused: ") + fused.join(QStringLiteral(", "))});
        }
        opNode[o] = static_cast<int>(g.nodes.size());
        g.nodes.push_back(std::move(n));
    }
    for (size_t o = 0; o < p.ops.size(); ++o) {
        const Op& op = p.ops[o];
        std::vector<int> seen;
        for (const Access& a : op.loads) {
            if (a.buffer < 0 || a.buffer >= static_cast<int>(p.buffers.size()))
                continue;
            if (std::find(seen.begin(), seen.end(), a.buffer) != seen.end())
                continue;
            seen.push_back(a.buffer);
            const Buffer& b = p.buffers[static_cast<size_t>(a.buffer)];
            const int from = b.producer >= 0 ? opNode[static_cast<size_t>(b.producer)] : bufNode[static_cast<size_t>(a.buffer)];
            if (from >= 0)
                g.edges.push_back({from, opNode[o], edgeLabel(b)});
        }
        const int out = op.store.buffer;
        if (out >= 0 && out < static_cast<int>(p.buffers.size()) && bufNode[static_cast<size_t>(out)] >= 0)
            g.edges.push_back({opNode[o], bufNode[static_cast<size_t>(out)], edgeLabel(p.buffers[static_cast<size_t>(out)])});
    }
    return g;
}

}  // namespace

GraphSpec graphSpecFor(const Program& program)
{
    return program.stage == Stage::Graph ? graphLevel(program) : loopLevel(program);
}

void followDocument(GraphView* view, const Document* document)
{
    auto shown = std::make_shared<std::shared_ptr<const spyre::Program>>();
    auto show = [view, document, shown] {
        const auto program = document->selectedProgram();
        if (program == *shown)
            return;
        *shown = program;
        if (program)
            view->setGraph(graphSpecFor(*program));
        else
            view->clearGraph();
    };
    QObject::connect(document, &Document::documentChanged, view, show);
    QObject::connect(document, &Document::selectedPassChanged, view, show);
}

}  // namespace spyglass
