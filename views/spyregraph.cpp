#include "views/spyregraph.h"

#include "views/document.h"
#include "views/graphview.h"

#include "core/spyre/loop_ir.h"

#include <QStringList>

#include <algorithm>
#include <map>
#include <tuple>

namespace spyglass {

using namespace spyre;

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

// A graph-level name, when it names one op (or tensor) alone: ONNX names are optional, and an index shifts when
// decompose inserts ops, so "#<index>" only when there is no unique name.
template <typename T>
std::vector<std::string> graphKeys(const std::vector<T>& items)
{
    std::map<std::string, int> uses;
    for (const T& item : items)
        ++uses[item.name];
    std::vector<std::string> keys;
    keys.reserve(items.size());
    for (size_t i = 0; i < items.size(); ++i)
        keys.push_back(!items[i].name.empty() && uses[items[i].name] == 1 ? items[i].name : "#" + std::to_string(i));
    return keys;
}

GraphSpec graphLevel(const Program& p, const Program* before)
{
    GraphSpec g;
    const std::vector<std::string> opKeys = graphKeys(p.graphOps), tensorKeys = graphKeys(p.tensors);
    std::map<std::string, const GraphOp*> was;
    if (before && before->stage == Stage::Graph)
        for (const GraphOp& op : before->graphOps)
            was.emplace(op.name, &op);
    std::map<std::string, int> clusterOf;   // decompose origin -> cluster
    std::vector<int> tensorNode(p.tensors.size(), -1);
    for (size_t t = 0; t < p.tensors.size(); ++t) {
        const GraphTensor& tensor = p.tensors[t];
        if (!tensor.isInput && !tensor.isOutput && !tensor.isConstant)
            continue;   // intermediate tensors are edges, not nodes
        GraphSpec::Node n;
        n.id = "tensor:" + tensorKeys[t];
        n.label = q(tensor.name) + QStringLiteral("\n") + q(shapeText(tensor.shape));
        n.kind = tensor.isConstant ? GraphSpec::NodeKind::Constant : tensor.isInput ? GraphSpec::NodeKind::Input : GraphSpec::NodeKind::Output;
        tensorNode[t] = static_cast<int>(g.nodes.size());
        g.nodes.push_back(std::move(n));
    }
    std::vector<int> opNode(p.graphOps.size());
    for (size_t o = 0; o < p.graphOps.size(); ++o) {
        const GraphOp& op = p.graphOps[o];
        GraphSpec::Node n;
        n.id = "gop:" + opKeys[o];
        n.label = q(op.opType) + QStringLiteral("\n") + q(op.name);
        n.tooltip = q(op.label()) + (op.origin.empty() ? QString() : QStringLiteral("\nfrom ") + q(op.origin));
        for (int out : op.outputs)
            if (out >= 0 && out < static_cast<int>(p.tensors.size()))
                n.searchText += q(p.tensors[static_cast<size_t>(out)].name) + QLatin1Char(' ');
        if (before && before->stage == Stage::Graph) {
            auto w = was.find(op.name);
            n.change = w == was.end() ? GraphSpec::Node::Change::New
                       : w->second->opType != op.opType || w->second->inputs.size() != op.inputs.size() ? GraphSpec::Node::Change::Changed
                                                                                                         : GraphSpec::Node::Change::Same;
            if (w != was.end())
                was.erase(w);
        }
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
    for (const auto& [name, op] : was)
        g.removed << QStringLiteral("%1 (%2)").arg(q(name), q(op->opType));
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

// Whether an op that keeps its name did something different after the pass than before: the loops it runs, what
// it reads and writes (by buffer name and layout), its layout choice, tiling, split and what it absorbed.
bool opChanged(const Program& a, const Op& x, const Program& b, const Op& y)
{
    auto access = [](const Program& p, const Access& acc) {
        const Buffer& buf = p.buffers[static_cast<size_t>(acc.buffer)];
        return std::make_tuple(buf.name, buf.stickDim, buf.order, buf.lx.inLx, buf.lx.offset, acc.index.terms, acc.index.constant);
    };
    if (x.kind != y.kind || x.ranges != y.ranges || x.reductionRanges != y.reductionRanges || x.body.size() != y.body.size() ||
        x.loads.size() != y.loads.size() || x.fusedFrom != y.fusedFrom || x.stickVar() != y.stickVar() ||
        x.candidates.size() != y.candidates.size() || !(x.tiles == y.tiles) || x.split.ways != y.split.ways)
        return true;
    if (access(a, x.store) != access(b, y.store))
        return true;
    for (size_t i = 0; i < x.loads.size(); ++i)
        if (access(a, x.loads[i]) != access(b, y.loads[i]))
            return true;
    return false;
}

GraphSpec loopLevel(const Program& p, const Program* before)
{
    GraphSpec g;
    const bool compare = before && before->stage == Stage::Loop;
    std::map<std::string, int> was;   // op name -> index in `before`
    if (compare)
        for (size_t o = 0; o < before->ops.size(); ++o)
            was.emplace(before->ops[o].name, static_cast<int>(o));
    std::vector<int> bufNode(p.buffers.size(), -1);
    for (size_t b = 0; b < p.buffers.size(); ++b) {
        const Buffer& buf = p.buffers[b];
        if (buf.kind == BufferKind::Intermediate)
            continue;   // intermediates are the edges between ops
        GraphSpec::Node n;
        n.id = "buf:" + buf.name;
        n.label = q(buf.name) + QStringLiteral("\n") + q(shapeText(buf.shape));
        n.tooltip = q(buf.origin);
        n.searchText = q(buf.origin);
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
        n.id = "op:" + op.name;
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
        if (op.store.buffer >= 0 && op.store.buffer < static_cast<int>(p.buffers.size())) {
            const Buffer& out = p.buffers[static_cast<size_t>(op.store.buffer)];
            n.tooltip += QStringLiteral("\nwrites %1%2").arg(q(out.name), out.origin.empty() ? QString() : QStringLiteral(" (") + q(out.origin) + QLatin1Char(')'));
            n.searchText = q(out.name) + QLatin1Char(' ') + q(out.origin) + QLatin1Char(' ') + origins.join(QLatin1Char(' '));
        }
        if (compare) {
            auto w = was.find(op.name);
            n.change = w == was.end() ? GraphSpec::Node::Change::New
                       : opChanged(*before, before->ops[static_cast<size_t>(w->second)], p, op) ? GraphSpec::Node::Change::Changed
                                                                                                : GraphSpec::Node::Change::Same;
            if (w != was.end())
                was.erase(w);
            if (n.change == GraphSpec::Node::Change::New && op.kind == OpKind::Restickify)
                n.tooltip += QStringLiteral("\nnew in this pass");
        }
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
    // What the pass took away, and where it went when fuse merged it.
    for (const auto& [name, index] : was) {
        const int into = p.findOp(name);
        g.removed << (into >= 0 ? QStringLiteral("%1 → fused into %2").arg(q(name), q(p.ops[static_cast<size_t>(into)].name))
                                : QStringLiteral("%1 (%2) removed").arg(q(name), q(opKindName(before->ops[static_cast<size_t>(index)].kind))));
    }
    return g;
}

}  // namespace

GraphSpec graphSpecFor(const Program& program, const Program* before)
{
    return program.stage == Stage::Graph ? graphLevel(program, before) : loopLevel(program, before);
}

SpyreNodeRef resolveSpyreNode(const Program& program, const std::string& nodeId)
{
    const auto colon = nodeId.find(':');
    if (colon == std::string::npos)
        return {};
    const std::string kind = nodeId.substr(0, colon), key = nodeId.substr(colon + 1);
    if (kind == "op") {
        // An op fused away at this pass resolves to the op that absorbed it.
        const int o = program.findOp(key);
        return o < 0 ? SpyreNodeRef{} : SpyreNodeRef{SpyreNodeRef::Kind::Op, o};
    }
    if (kind == "buf") {
        for (size_t b = 0; b < program.buffers.size(); ++b)
            if (program.buffers[b].name == key)
                return {SpyreNodeRef::Kind::Buffer, static_cast<int>(b)};
        return {};
    }
    // Graph level: a unique name, or "#<index>" (see graphKeys).
    auto find = [&key](const auto& items) {
        if (!key.empty() && key[0] == '#') {
            try {
                const int i = std::stoi(key.substr(1));
                return i >= 0 && i < static_cast<int>(items.size()) ? i : -1;
            } catch (const std::exception&) {
                return -1;
            }
        }
        for (size_t i = 0; i < items.size(); ++i)
            if (items[i].name == key)
                return static_cast<int>(i);
        return -1;
    };
    if (kind == "gop")
        if (const int i = find(program.graphOps); i >= 0)
            return {SpyreNodeRef::Kind::GraphOp, i};
    if (kind == "tensor")
        if (const int i = find(program.tensors); i >= 0)
            return {SpyreNodeRef::Kind::Tensor, i};
    return {};
}

void followDocument(GraphView* view, Document* document)
{
    QObject::connect(view, &GraphView::nodeSelected, document, [document](const QString& id) {
        // Selecting the op a fused-away selection resolves to is not a new choice: keep the user's (stepping back
        // finds the original op again).
        if (const auto program = document->selectedProgram()) {
            const SpyreNodeRef now = resolveSpyreNode(*program, document->selectedNode()), clicked = resolveSpyreNode(*program, id.toStdString());
            if (now.kind != SpyreNodeRef::Kind::None && now.kind == clicked.kind && now.index == clicked.index)
                return;
        }
        document->selectNode(id.toStdString());
    });
    auto reselect = [view, document] {
        const auto program = document->selectedProgram();
        if (!program || document->selectedNode().empty())
            return;
        std::string id = document->selectedNode();
        if (const SpyreNodeRef ref = resolveSpyreNode(*program, id); ref.kind == SpyreNodeRef::Kind::Op)
            id = "op:" + program->ops[static_cast<size_t>(ref.index)].name;
        if (view->selectedNode() != id)
            view->selectNode(id);
    };
    QObject::connect(document, &Document::selectedNodeChanged, view, reselect);
    QObject::connect(view, &GraphView::layoutReady, view, reselect);
    // The frame every pass is drawn in: the union of the graphs of all passes at the shown one's level (graph or
    // loop), built once per compile.
    struct Shown {
        std::shared_ptr<const spyre::Program> program;
        std::shared_ptr<const spyre::Program> firstOfCompile;
        spyre::Stage stage = spyre::Stage::Graph;
        std::shared_ptr<const GraphSpec> frame;
    };
    auto shown = std::make_shared<Shown>();
    auto show = [view, document, shown] {
        const auto program = document->selectedProgram();
        if (program == shown->program)
            return;
        shown->program = program;
        if (!program) {
            view->clearGraph();
            return;
        }
        const auto& programs = document->compiled().programs;
        const int at = document->selectedPass();
        auto beforeOf = [&programs](size_t i) { return i > 0 && i <= programs.size() ? programs[i - 1].get() : nullptr; };
        const spyre::Program* before = at > 0 ? beforeOf(static_cast<size_t>(at)) : nullptr;
        const auto first = programs.empty() ? nullptr : programs.front();
        if (!shown->frame || shown->firstOfCompile != first || shown->stage != program->stage) {
            std::vector<GraphSpec> passes;
            for (size_t i = 0; i < programs.size(); ++i)
                if (programs[i] && programs[i]->stage == program->stage) {
                    passes.push_back(graphSpecFor(*programs[i], beforeOf(i)));
                    GraphView::measureNodes(passes.back());
                }
            std::vector<const GraphSpec*> all;
            for (const GraphSpec& g : passes)
                all.push_back(&g);
            shown->frame = std::make_shared<const GraphSpec>(unionGraph(all));
            shown->firstOfCompile = first;
            shown->stage = program->stage;
        }
        view->setGraph(graphSpecFor(*program, before), shown->frame);
    };
    QObject::connect(document, &Document::documentChanged, view, show);
    QObject::connect(document, &Document::selectedPassChanged, view, show);
}

}  // namespace spyglass
