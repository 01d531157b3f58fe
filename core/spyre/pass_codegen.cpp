#include "core/spyre/pass_codegen.h"

#include "core/spyre/ir_printer.h"
#include "core/spyre/kernel_bundle.h"
#include "core/spyre/op_geometry.h"

#include <algorithm>

namespace spyglass::spyre {

namespace {

BundleTensor bundleTensor(const Program& p, const Buffer& b)
{
    BundleTensor t;
    t.name = b.name;
    t.origin = b.origin;
    t.kind = b.kind;
    t.dtype = b.dtype;
    t.hostShape = b.shape;
    t.stickDim = b.stickDim;
    t.deviceOrder = b.order;
    t.layout = p.layoutOf(b);
    return t;
}

// Every core's slice of the (tile) iteration space: the core index read as a mixed-radix number over the split
// vars, innermost var fastest; stick vars in whole sticks, clipped at the var's extent.
std::vector<KernelSlice> coreSlices(const Program& p, const Op& op)
{
    const int nv = op.numVars();
    std::vector<KernelSlice> out;
    const int sv = op.stickVar();
    for (int c = 0; c < op.split.cores; ++c) {
        KernelSlice s;
        s.core = c;
        s.start.assign(nv, 0);
        s.extent.assign(nv, 0);
        int rest = c;
        for (int v = nv - 1; v >= 0; --v) {
            const int ways = op.split.ways[v];
            const int part = rest % ways;
            rest /= ways;
            const int64_t extent = varTileExtent(op, v);
            const int64_t unit = v == sv ? p.stickElements : 1;
            const int64_t per = varUnits(p, op, v) / ways * unit;
            s.start[v] = std::min(extent, part * per);
            s.extent[v] = std::min(extent, s.start[v] + per) - s.start[v];
        }
        out.push_back(std::move(s));
    }
    return out;
}

}  // namespace

std::vector<KernelSlice> coreSlicesOf(const Program& program, const Op& op) { return coreSlices(program, op); }

BundleTensor bundleTensorOf(const Program& p, const Buffer& b) { return bundleTensor(p, b); }

Kernel kernelOf(const Program& program, const Op& op, int index, const std::vector<int>* lxResident)
{
    Kernel k;
    k.index = index;
    k.name = op.name;
    k.op = op.kind;
    k.matmul = op.matmul;
    k.origins = op.origins;
    for (int v = 0; v < op.numVars(); ++v)
        k.vars.push_back(KernelVar{op.varName(v), op.varRange(v), op.isReductionVar(v),
                                   v < static_cast<int>(op.split.ways.size()) ? op.split.ways[v] : 1});
    k.stickVar = op.stickVar();
    k.cores = std::max(1, op.split.cores);
    k.estimatedUs = op.split.estimatedUs;
    k.splitReason = op.split.why;
    if (!op.split.ways.empty())
        k.slices = coreSlices(program, op);
    k.tiles = op.tiles;
    auto arg = [&](const Access& a, AccessRole role) {
        const Buffer& buf = program.buffers[a.buffer];
        KernelTensorArg t;
        t.tensor = buf.name;
        t.role = role;
        t.index = affineText(op, a.index);
        const bool inLx = lxResident ? std::find(lxResident->begin(), lxResident->end(), a.buffer) != lxResident->end()
                                     : buf.lx.inLx;
        t.inLx = inLx;
        t.lxOffset = buf.lx.inLx ? buf.lx.offset : 0;
        t.lxBytes = buf.lx.inLx ? buf.lx.bytes : 0;
        t.lxFirstUse = buf.lx.inLx ? buf.lx.firstUse : -1;
        t.lxLastUse = buf.lx.inLx ? buf.lx.lastUse : -1;
        // In LX already (produced there, or cloned by an earlier reader): no device traffic.
        const bool firstReaderOfClone = !lxResident && buf.producer < 0 && buf.lx.inLx && buf.lx.firstUse == index;
        if (!inLx || firstReaderOfClone) {
            int64_t sticks = program.layoutOf(buf).deviceElements() / program.stickElements;
            // A gather (an index through an IndirectIndex) moves the rows it reads, not the table: at most one
            // element per iteration point, in whole sticks unless the gathered dimension is the stick dimension.
            int64_t indirectCoeff = 0;
            for (const auto& [var, c] : a.index.terms)
                if (var >= kIndirectVar)
                    indirectCoeff = c;
            if (indirectCoeff != 0 && !inLx && role == AccessRole::Load) {
                int64_t points = 1;
                for (int v = 0; v < op.numVars(); ++v)
                    points *= op.varRange(v);
                int64_t stickStride = 1;
                for (size_t d = static_cast<size_t>(std::max(0, buf.stickDim)) + 1; d < buf.shape.size(); ++d)
                    stickStride *= buf.shape[d];
                const bool alongStick = buf.stickDim >= 0 && indirectCoeff == stickStride;
                sticks = std::min(sticks, alongStick ? points : ceilDiv(points, program.stickElements));
            }
            int64_t divisor = 1;
            for (int v = 0; v < op.numVars() && v < static_cast<int>(op.split.ways.size()); ++v)
                if (a.index.coeffOf(v) != 0)
                    divisor *= op.split.ways[v];
            t.dmaSticks = sticks;
            t.dmaSticksPerCore = ceilDiv(sticks, divisor);
            // Tile loops nest in var order. A load keeps its piece across the loops inside the innermost one it
            // walks (coarse tiling sized each tile's working set with that piece whole in LX) and is fetched
            // again for every iteration of a loop outside it that it does not walk.
            int innermostWalked = -1;
            for (int l = 0; l < static_cast<int>(op.tiles.size()); ++l)
                if (a.index.coeffOf(op.tiles[l].var) != 0)
                    innermostWalked = l;
            int64_t refetch = 1;
            for (int l = 0; l < innermostWalked; ++l)
                if (a.index.coeffOf(op.tiles[l].var) == 0)
                    refetch *= op.tiles[l].count;
            if (role == AccessRole::Load) {
                t.dmaSticks *= refetch;
                t.dmaSticksPerCore *= refetch;
            }
        }
        k.tensors.push_back(t);
    };
    std::vector<int> seen;
    for (const Access& a : op.loads) {
        if (std::find(seen.begin(), seen.end(), a.buffer) != seen.end())
            continue;
        seen.push_back(a.buffer);
        arg(a, AccessRole::Load);
    }
    arg(op.store, AccessRole::Store);
    k.loop.ranges = op.ranges;
    k.loop.reductionRanges = op.reductionRanges;
    for (const Access& a : op.loads)
        k.loop.loads.push_back(KernelAccess{program.buffers[a.buffer].name, a.index});
    k.loop.store = KernelAccess{program.buffers[op.store.buffer].name, op.store.index};
    k.loop.stmts = op.body;
    if (op.kind == OpKind::Restickify) {
        k.restickify.present = true;
        k.restickify.fromTensor = program.buffers[op.loads[0].buffer].name;
        k.restickify.toTensor = program.buffers[op.store.buffer].name;
        k.restickify.fromStickDim = op.fromStickDim;
        k.restickify.toStickDim = op.toStickDim;
        k.restickify.elements = program.layoutOf(program.buffers[op.store.buffer]).deviceElements();
    }
    return k;
}


PassResult CodegenPass::run(Program& program, PassContext& ctx)
{
    if (program.stage != Stage::Loop)
        return {false, "nothing to do: not lowered"};
    auto bundle = std::make_shared<KernelBundle>();
    KernelBundle& b = *bundle;
    b.model = program.modelName;
    b.targetName = ctx.target.name;
    b.cores = ctx.target.cores;
    b.stickBytes = ctx.target.stickBytes;
    b.usableLxBytes = ctx.target.usableLxBytes();
    b.deviceDtype = ctx.target.deviceDtype;
    b.layoutOptimal = program.layout.provenOptimal;
    b.lxPeakBytes = program.scratchpad.peakBytes;
    for (const Buffer& buf : program.buffers) {
        b.tensors.push_back(bundleTensor(program, buf));
        if (buf.kind == BufferKind::Input)
            b.inputs.push_back(buf.name);
        if (buf.kind == BufferKind::Output)
            b.outputs.push_back(buf.name);
        // Shape-only constants (compile-time studies) carry no data; the simulator then runs timing only.
        const int64_t have = buf.f ? static_cast<int64_t>(buf.f->size()) : buf.i ? static_cast<int64_t>(buf.i->size()) : -1;
        if (buf.kind == BufferKind::Constant && have == shapeProduct(buf.shape))
            b.constants[buf.name] = BundleConstant{buf.f, buf.i};
    }
    int64_t dmaTotal = 0;
    for (size_t o = 0; o < program.ops.size(); ++o) {
        Kernel k = kernelOf(program, program.ops[o], static_cast<int>(o));
        for (const KernelTensorArg& t : k.tensors)
            dmaTotal += t.dmaSticks;
        if (k.restickify.present) {
            ++b.restickifyCount;
            b.restickifyElements += k.restickify.elements;
        }
        b.kernels.push_back(std::move(k));
    }
    std::vector<std::string> bodies;
    b.listing = printProgram(program, &bodies);
    for (size_t o = 0; o < b.kernels.size(); ++o)
        b.kernels[o].body = std::move(bodies[o]);
    program.bundle = bundle;
    PassResult r;
    r.changed = true;
    r.summary = std::to_string(b.kernels.size()) + " kernels (" + std::to_string(b.restickifyCount) + " restickify), " +
                groupDigits(dmaTotal) + " sticks of DMA between device memory and LX";
    return r;
}

}  // namespace spyglass::spyre
