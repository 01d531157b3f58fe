#include "views/spyreinspect.h"

#include "views/spyregraph.h"

#include "core/spyre/ir_printer.h"
#include "core/spyre/pass.h"
#include "core/spyre/loop_ir.h"
#include "core/spyre/spyre_target.h"

#include <QStringList>

namespace spyglass {

using namespace spyre;

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }
QString n(int64_t v) { return QString::fromStdString(groupDigits(v)); }

QString joined(const std::vector<std::string>& items)
{
    QStringList l;
    for (const auto& s : items)
        l << q(s);
    return l.join(QStringLiteral(", "));
}

InspectorContent inspectBuffer(const Program& p, const SpyreTarget* target, int index)
{
    const Buffer& b = p.buffers[static_cast<size_t>(index)];
    InspectorContent c;
    c.found = true;
    c.heading = QStringLiteral("%1 (%2)").arg(q(b.name), q(bufferKindName(b.kind)));
    InspectorSection host{QStringLiteral("Host tensor"), {}};
    host.rows.push_back({QStringLiteral("ONNX value"), q(b.origin)});
    host.rows.push_back({QStringLiteral("dtype"), q(b.dtype)});
    host.rows.push_back({QStringLiteral("shape"), q(shapeText(b.shape))});
    host.rows.push_back({QStringLiteral("strides"), q(shapeText(b.strides))});
    host.rows.push_back({QStringLiteral("elements"), n(shapeProduct(b.shape))});
    c.sections.push_back(host);

    InspectorSection dev{QStringLiteral("Device layout"), {}};
    if (b.stickDim >= 0) {
        const SpyreTensorLayout l = p.layoutOf(b);
        dev.rows.push_back({QStringLiteral("layout"), q(l.text())});
        dev.rows.push_back({QStringLiteral("stick dimension"), QStringLiteral("host dim %1%2").arg(b.stickDim).arg(b.pinned ? QStringLiteral(" (pinned)") : QString())});
        dev.rows.push_back({QStringLiteral("device order"), b.order == DeviceOrder::BatchOutermost ? QStringLiteral("batch outermost") : QStringLiteral("default (batch inside the stick)")});
        const int64_t hostElems = shapeProduct(b.shape);
        const int64_t devElems = l.deviceElements();
        dev.rows.push_back({QStringLiteral("device elements"), n(devElems)});
        dev.rows.push_back({QStringLiteral("padding"), QStringLiteral("%1 elements (%2 %)").arg(n(devElems - hostElems)).arg(devElems > 0 ? 100.0 * static_cast<double>(devElems - hostElems) / static_cast<double>(devElems) : 0.0, 0, 'f', 1)});
        dev.rows.push_back({QStringLiteral("bytes on device"), n(p.deviceBytes(b))});
        dev.rows.push_back({QStringLiteral("sticks"), n(devElems / std::max(1, p.stickElements))});
    } else {
        dev.rows.push_back({QStringLiteral("layout"), QStringLiteral("not chosen yet (before optimize_layouts)")});
    }
    c.sections.push_back(dev);

    if (b.lx.firstUse >= 0 || b.lx.inLx) {
        InspectorSection lx{QStringLiteral("Scratchpad (LX)"), {}};
        lx.rows.push_back({QStringLiteral("placement"), b.lx.inLx ? QStringLiteral("LX offset %1").arg(n(b.lx.offset)) : QStringLiteral("device memory")});
        lx.rows.push_back({QStringLiteral("bytes per core"), n(b.lx.bytes)});
        auto at = [&p](int i) {
            return i >= 0 && i < static_cast<int>(p.ops.size()) ? q(p.ops[static_cast<size_t>(i)].name) : QString::number(i);
        };
        lx.rows.push_back({QStringLiteral("live ops"), QStringLiteral("%1 .. %2").arg(at(b.lx.firstUse), at(b.lx.lastUse))});
        lx.rows.push_back({QStringLiteral("how"), q(b.lx.how)});
        if (target)
            lx.rows.push_back({QStringLiteral("usable LX per core"), n(target->usableLxBytes())});
        c.sections.push_back(lx);
    }

    InspectorSection links{QStringLiteral("Producers and users"), {}};
    links.rows.push_back({QStringLiteral("producer"), b.producer >= 0 ? q(p.ops[static_cast<size_t>(b.producer)].name) : QStringLiteral("(graph input or constant)")});
    const auto consumers = p.consumersOfBuffers();
    QStringList users;
    for (int o : consumers[static_cast<size_t>(index)])
        users << q(p.ops[static_cast<size_t>(o)].name);
    links.rows.push_back({QStringLiteral("users"), users.isEmpty() ? QStringLiteral("(none)") : users.join(QStringLiteral(", "))});
    c.sections.push_back(links);
    return c;
}

InspectorContent inspectOp(const Program& p, int index)
{
    const Op& op = p.ops[static_cast<size_t>(index)];
    InspectorContent c;
    c.found = true;
    c.heading = QStringLiteral("%1 (%2)").arg(q(op.name), q(opKindName(op.kind)));
    InspectorSection space{QStringLiteral("Iteration space"), {}};
    for (int v = 0; v < op.numVars(); ++v)
        space.rows.push_back({q(op.varName(v)), QStringLiteral("%1%2").arg(n(op.varRange(v))).arg(op.isReductionVar(v) ? QStringLiteral(" (reduction)") : QString())});
    space.rows.push_back({QStringLiteral("points"), n(op.iterationPoints())});
    if (!op.origins.empty())
        space.rows.push_back({QStringLiteral("computes"), joined(op.origins)});
    if (!op.fusedFrom.empty())
        space.rows.push_back({QStringLiteral("fused from"), joined(op.fusedFrom)});
    if (op.kind == OpKind::Restickify)
        space.rows.push_back({QStringLiteral("moves"), QStringLiteral("stick d%1 → d%2, %3 elements").arg(op.fromStickDim).arg(op.toStickDim).arg(n(op.iterationPoints()))});
    c.sections.push_back(space);

    if (!op.candidates.empty()) {
        InspectorSection layout{QStringLiteral("Layout"), {}};
        layout.rows.push_back({QStringLiteral("candidates"), QString::number(op.candidates.size())});
        if (op.stickVar() >= 0)
            layout.rows.push_back({QStringLiteral("stick var"), q(op.varName(op.stickVar()))});
        c.sections.push_back(layout);
    }
    if (!op.tiles.empty() || op.split.cores > 1) {
        InspectorSection work{QStringLiteral("Tiles and cores"), {}};
        for (const TileLoop& t : op.tiles)
            work.rows.push_back({QStringLiteral("tile loop"), QStringLiteral("%1: %2 tiles of %3").arg(q(op.varName(t.var))).arg(t.count).arg(n(t.extent))});
        QStringList ways;
        for (size_t v = 0; v < op.split.ways.size(); ++v)
            if (op.split.ways[v] > 1)
                ways << QStringLiteral("%1÷%2").arg(q(op.varName(static_cast<int>(v)))).arg(op.split.ways[v]);
        work.rows.push_back({QStringLiteral("cores"), QString::number(op.split.cores)});
        if (!ways.isEmpty())
            work.rows.push_back({QStringLiteral("split"), ways.join(QStringLiteral(" × "))});
        if (op.split.estimatedUs > 0)
            work.rows.push_back({QStringLiteral("estimate"), QStringLiteral("%1 µs").arg(op.split.estimatedUs, 0, 'f', 3)});
        if (!op.split.why.empty())
            work.rows.push_back({QStringLiteral("why"), q(op.split.why)});
        c.sections.push_back(work);
    }
    InspectorSection body{QStringLiteral("Loop body"), {}};
    body.rows.push_back({QStringLiteral("text"), q(printOp(p, index))});
    c.sections.push_back(body);
    return c;
}

InspectorContent inspectGraphOp(const Program& p, int index)
{
    const GraphOp& op = p.graphOps[static_cast<size_t>(index)];
    InspectorContent c;
    c.found = true;
    c.heading = q(op.label());
    InspectorSection s{QStringLiteral("Graph op"), {}};
    if (!op.origin.empty())
        s.rows.push_back({QStringLiteral("made from"), q(op.origin)});
    for (size_t k = 0; k < op.inputs.size(); ++k)
        if (op.inputs[k] >= 0)
            s.rows.push_back({QStringLiteral("input %1").arg(k), q(p.tensors[static_cast<size_t>(op.inputs[k])].name) + QStringLiteral(" ") + q(shapeText(p.tensors[static_cast<size_t>(op.inputs[k])].shape))});
    for (size_t k = 0; k < op.outputs.size(); ++k)
        s.rows.push_back({QStringLiteral("output %1").arg(k), q(p.tensors[static_cast<size_t>(op.outputs[k])].name) + QStringLiteral(" ") + q(shapeText(p.tensors[static_cast<size_t>(op.outputs[k])].shape))});
    for (const auto& [k, v] : op.ints) {
        QStringList l;
        for (int64_t x : v)
            l << QString::number(x);
        s.rows.push_back({q(k), l.join(QStringLiteral(", "))});
    }
    for (const auto& [k, v] : op.floats)
        s.rows.push_back({q(k), QString::number(v, 'g', 8)});
    for (const auto& [k, v] : op.strings)
        s.rows.push_back({q(k), q(v)});
    c.sections.push_back(s);
    return c;
}

InspectorContent inspectTensor(const Program& p, int index)
{
    const GraphTensor& t = p.tensors[static_cast<size_t>(index)];
    InspectorContent c;
    c.found = true;
    c.heading = q(t.name);
    InspectorSection s{QStringLiteral("Tensor"), {}};
    s.rows.push_back({QStringLiteral("dtype"), q(t.dtype)});
    s.rows.push_back({QStringLiteral("shape"), q(shapeText(t.shape))});
    s.rows.push_back({QStringLiteral("role"), t.isInput ? QStringLiteral("graph input") : t.isOutput ? QStringLiteral("graph output") : t.isConstant ? QStringLiteral("constant") : QStringLiteral("intermediate")});
    s.rows.push_back({QStringLiteral("elements"), n(shapeProduct(t.shape))});
    c.sections.push_back(s);
    return c;
}

}  // namespace

InspectorContent inspectSpyreNode(const Program& program, const SpyreTarget* target, const std::string& nodeId)
{
    const SpyreNodeRef ref = resolveSpyreNode(program, nodeId);
    switch (ref.kind) {
    case SpyreNodeRef::Kind::Buffer: return inspectBuffer(program, target, ref.index);
    case SpyreNodeRef::Kind::Op: return inspectOp(program, ref.index);
    case SpyreNodeRef::Kind::GraphOp: return inspectGraphOp(program, ref.index);
    case SpyreNodeRef::Kind::Tensor: return inspectTensor(program, ref.index);
    case SpyreNodeRef::Kind::None: break;
    }
    return {};
}

}  // namespace spyglass
