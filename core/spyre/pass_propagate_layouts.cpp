#include "core/spyre/pass_propagate_layouts.h"

namespace spyglass::spyre {

namespace {

// The stick dimension `a` needs when the op's stick is walked by `var`: -1 any, -2 impossible.
int loadRequirement(const Program& p, const Op& op, const Access& a, int var)
{
    const Buffer& b = p.buffers[a.buffer];
    const WalkedDim w = walkedDim(b, a.index.coeffOf(var), op.varRange(var), p.stickElements);
    if (w.dim < 0)
        return -1;
    if (!w.unit || !w.aligned)
        return -2;
    return w.dim;
}

int outputStickDim(const Program& p, const Op& op, int var)
{
    const Buffer& out = p.buffers[op.store.buffer];
    const WalkedDim w = walkedDim(out, op.store.index.coeffOf(var), op.varRange(var), p.stickElements);
    if (w.dim >= 0)
        return w.unit && w.aligned ? w.dim : -2;
    // A reduction along the stick leaves one element per row: the output keeps its innermost dim as the stick.
    return out.shape.empty() ? -1 : static_cast<int>(out.shape.size()) - 1;
}

bool candidateFor(const Program& p, const Op& op, int var, int kVar, LayoutCandidate& c)
{
    c.stickVar = var;
    c.outputStickDim = outputStickDim(p, op, var);
    if (c.outputStickDim == -2)
        return false;
    c.loadStickDims.clear();
    for (size_t i = 0; i < op.loads.size(); ++i) {
        // Matmul operand A is sticked along K, whatever the output's stick.
        const int v = (op.kind == OpKind::MatMul && static_cast<int>(i) == op.matmul.a) ? kVar : var;
        const int r = loadRequirement(p, op, op.loads[i], v);
        if (r == -2)
            return false;
        c.loadStickDims.push_back(r);
    }
    return true;
}

}  // namespace

std::vector<LayoutCandidate> layoutCandidates(const Program& p, const Op& op)
{
    std::vector<LayoutCandidate> out;
    if (op.kind == OpKind::Restickify) {
        LayoutCandidate c;
        const Buffer& ob = p.buffers[op.store.buffer];
        c.stickVar = op.toStickDim;
        c.outputStickDim = op.toStickDim;
        c.loadStickDims = {op.fromStickDim};
        (void)ob;
        out.push_back(c);
        return out;
    }
    if (op.kind == OpKind::MatMul) {
        LayoutCandidate c;
        const MatmulRoles& mm = op.matmul;
        if (candidateFor(p, op, mm.n, mm.k, c))
            out.push_back(c);
        else {
            // Keep the fixed-in-out requirement even when an operand view cannot satisfy it: the optimiser will
            // then pay a restickify into a plain layout.
            c.stickVar = mm.n;
            c.outputStickDim = static_cast<int>(p.buffers[op.store.buffer].shape.size()) - 1;
            c.loadStickDims.clear();
            for (size_t i = 0; i < op.loads.size(); ++i) {
                const int r = loadRequirement(p, op, op.loads[i], static_cast<int>(i) == mm.a ? mm.k : mm.n);
                c.loadStickDims.push_back(r == -2 ? static_cast<int>(p.buffers[op.loads[i].buffer].shape.size()) - 1 : r);
            }
            out.push_back(c);
        }
        return out;
    }
    // All-same: any var with more than one point may walk the stick, innermost first.
    for (int v = op.numVars() - 1; v >= 0; --v) {
        if (op.varRange(v) <= 1)
            continue;
        LayoutCandidate c;
        if (candidateFor(p, op, v, -1, c))
            out.push_back(c);
    }
    if (out.empty()) {
        // Nothing walks a stick (a single point, or only strided views): one candidate, any input layout.
        LayoutCandidate c;
        c.stickVar = op.numVars() > 0 ? op.numVars() - 1 : -1;
        const Buffer& ob = p.buffers[op.store.buffer];
        c.outputStickDim = ob.shape.empty() ? -1 : static_cast<int>(ob.shape.size()) - 1;
        c.loadStickDims.assign(op.loads.size(), -1);
        out.push_back(c);
    }
    return out;
}

PassResult PropagateLayoutsPass::run(Program& program, PassContext&)
{
    if (program.stage != Stage::Loop)
        return {false, "nothing to do: not lowered"};
    size_t total = 0, fixed = 0;
    for (Op& op : program.ops) {
        op.candidates = layoutCandidates(program, op);
        op.chosen = -1;
        total += op.candidates.size();
        fixed += op.candidates.size() == 1;
    }
    PassResult r;
    r.changed = true;
    char avg[32];
    std::snprintf(avg, sizeof avg, "%.2f", program.ops.empty() ? 0.0 : static_cast<double>(total) / program.ops.size());
    r.summary = std::to_string(total) + " candidate layouts for " + std::to_string(program.ops.size()) + " ops (" + avg +
                " per op, " + std::to_string(fixed) + " fixed)";
    return r;
}

}  // namespace spyglass::spyre
