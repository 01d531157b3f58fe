#include "core/spyre/restickify_trace.h"

#include "core/spyre/layout_coords.h"
#include "core/spyre/op_geometry.h"
#include "core/spyre/pass_codegen.h"

namespace spyglass::spyre {

namespace {

const Buffer& bufferOf(const Program& p, int b) { return p.buffers.at(static_cast<size_t>(b)); }

std::string tensorName(const Buffer& b) { return b.origin.empty() ? b.name : b.origin; }

// An op as a reader of a buffer says what it computes first; as a writer, what it computes last (a fused op's
// store comes from its last origin).
std::string opText(const Op& op, bool writer)
{
    if (op.origins.empty())
        return op.name;
    return op.name + " (" + (writer ? op.origins.back() : op.origins.front()) + ")";
}

}  // namespace

int64_t stickCountOf(const SpyreTensorLayout& layout)
{
    int64_t n = 1;
    for (size_t i = 0; i + 1 < layout.deviceSize.size(); ++i)
        n *= layout.deviceSize[i];
    return n;
}

std::vector<int64_t> stickIndexOf(const SpyreTensorLayout& layout, int64_t stick)
{
    const size_t nd = layout.deviceSize.size();
    std::vector<int64_t> idx(nd, 0);
    for (int i = static_cast<int>(nd) - 2; i >= 0; --i) {
        idx[static_cast<size_t>(i)] = stick % layout.deviceSize[static_cast<size_t>(i)];
        stick /= layout.deviceSize[static_cast<size_t>(i)];
    }
    return idx;
}

StickPlace stickPlaceOf(const Program& p, const Buffer& b, const std::vector<int64_t>& host)
{
    const SpyreTensorLayout l = p.layoutOf(b);
    const std::vector<int64_t> idx = deviceIndexOf(l, b.strides, host);
    if (idx.empty())
        return {};
    StickPlace s;
    s.stick = 0;
    for (size_t i = 0; i + 1 < idx.size(); ++i)
        s.stick = s.stick * l.deviceSize[i] + idx[i];
    s.offset = idx.back();
    return s;
}

CoreOfPoint coreOfPoint(const Program& p, const Op& op, const std::vector<int64_t>& point)
{
    const int nv = op.numVars();
    std::vector<int64_t> local(static_cast<size_t>(nv), 0);
    CoreOfPoint out;
    for (int v = 0; v < nv; ++v) {
        const int64_t x = v < static_cast<int>(point.size()) ? point[static_cast<size_t>(v)] : 0;
        if (x < 0 || x >= op.varRange(v))
            return {};
        const int64_t extent = std::max<int64_t>(1, varTileExtent(op, v));
        local[static_cast<size_t>(v)] = x % extent;
    }
    // Tile loops nest in the order coarse_tiling listed them, the first outermost.
    for (const TileLoop& t : op.tiles) {
        const int64_t x = t.var < static_cast<int>(point.size()) ? point[static_cast<size_t>(t.var)] : 0;
        out.tile = out.tile * t.count + (t.extent > 0 ? x / t.extent : 0);
    }
    for (const KernelSlice& s : coreSlicesOf(p, op)) {
        bool inside = true;
        for (int v = 0; v < nv && inside; ++v)
            inside = local[static_cast<size_t>(v)] >= s.start[static_cast<size_t>(v)] &&
                     local[static_cast<size_t>(v)] < s.start[static_cast<size_t>(v)] + s.extent[static_cast<size_t>(v)];
        if (inside) {
            out.core = s.core;
            return out;
        }
    }
    return {};
}

ElementMove traceElement(const Program& p, const Op& op, const std::vector<int64_t>& host)
{
    ElementMove m;
    m.host = host;
    m.from = stickPlaceOf(p, bufferOf(p, op.loads.at(0).buffer), host);
    m.to = stickPlaceOf(p, bufferOf(p, op.store.buffer), host);
    // A restickify op's var d walks host dim d of the tensor (insert_restickify builds it so).
    m.by = coreOfPoint(p, op, host);
    return m;
}

std::vector<ElementMove> movesIntoStick(const Program& p, const Op& op, int64_t stick)
{
    const Buffer& dst = bufferOf(p, op.store.buffer);
    const SpyreTensorLayout l = p.layoutOf(dst);
    std::vector<ElementMove> out;
    if (l.deviceSize.empty() || stick < 0 || stick >= stickCountOf(l))
        return out;
    std::vector<int64_t> idx = stickIndexOf(l, stick);
    for (int64_t e = 0; e < l.deviceSize.back(); ++e) {
        idx.back() = e;
        const HostCoordinate h = hostCoordinateOf(l, dst.shape, dst.strides, idx);
        if (!h.padding)
            out.push_back(traceElement(p, op, h.coord));
    }
    return out;
}

std::string restickifyReason(const Program& p, int opIndex)
{
    const Op& op = p.ops.at(static_cast<size_t>(opIndex));
    if (op.kind != OpKind::Restickify || op.loads.empty())
        return {};
    const Buffer& src = bufferOf(p, op.loads[0].buffer);
    const std::string tensor = tensorName(src);
    std::string readers;
    const auto consumers = p.consumersOfBuffers();
    for (int c : consumers.at(static_cast<size_t>(op.store.buffer))) {
        const Op& reader = p.ops[static_cast<size_t>(c)];
        int need = op.toStickDim;
        for (size_t i = 0; i < reader.loads.size(); ++i)
            if (reader.loads[i].buffer == op.store.buffer && reader.chosen >= 0 &&
                reader.chosen < static_cast<int>(reader.candidates.size()) && i < reader.candidates[reader.chosen].loadStickDims.size())
                need = reader.candidates[reader.chosen].loadStickDims[i];
        readers += (readers.empty() ? "" : "; ") + opText(reader, false) + " reads " + tensor + " along d" + std::to_string(need);
    }
    if (readers.empty())
        readers = "nothing reads the copy of " + tensor;
    std::string source;
    if (src.producer >= 0)
        source = opText(p.ops[static_cast<size_t>(src.producer)], true) + " produced it sticked on d" + std::to_string(op.fromStickDim);
    else
        source = tensor + " is a model " + (src.kind == BufferKind::Constant ? "constant" : "input") + " sticked on d" +
                 std::to_string(op.fromStickDim);
    return readers + "; " + source;
}

}  // namespace spyglass::spyre
