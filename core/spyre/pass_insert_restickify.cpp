#include "core/spyre/pass_insert_restickify.h"

#include "core/spyre/ir_edit.h"

#include <map>

namespace spyglass::spyre {

PassResult InsertRestickifyPass::run(Program& program, PassContext&)
{
    if (program.stage != Stage::Loop || !program.layout.solved)
        return {false, "nothing to do: layouts not chosen"};
    std::map<std::pair<int, int>, int> copyOf;   // (buffer, dim) -> restickified buffer
    std::vector<Op> ops;
    ops.reserve(program.ops.size());
    int count = 0;
    int64_t elements = 0;
    for (Op& op : program.ops) {
        if (op.chosen >= 0 && op.kind != OpKind::Restickify) {
            const LayoutCandidate& cand = op.candidates[op.chosen];
            for (size_t i = 0; i < op.loads.size(); ++i) {
                const int need = cand.loadStickDims[i];
                const int src = op.loads[i].buffer;
                if (need < 0 || need == program.buffers[src].stickDim)
                    continue;
                auto key = std::make_pair(src, need);
                auto it = copyOf.find(key);
                if (it == copyOf.end()) {
                    Buffer copy = program.buffers[src];
                    copy.name = program.buffers[src].name + "_stick" + std::to_string(need);
                    copy.kind = BufferKind::Intermediate;
                    copy.stickDim = need;
                    copy.pinned = false;
                    copy.f.reset();
                    copy.i.reset();
                    copy.lx = LxAllocation{};
                    program.buffers.push_back(copy);
                    const int dst = static_cast<int>(program.buffers.size() - 1);
                    Op r;
                    // Named after the copy it writes, which depends only on the source and the dim: the same
                    // restickify keeps its name when a pin elsewhere adds or drops others.
                    r.name = "rs_" + copy.name;
                    r.kind = OpKind::Restickify;
                    r.ranges = copy.shape;
                    AffineExpr idx;
                    for (size_t d = 0; d < copy.shape.size(); ++d)
                        if (copy.shape[d] > 1)
                            idx.add(static_cast<int>(d), copy.strides[d]);
                    r.loads = {Access{src, idx}};
                    r.store = Access{dst, idx};
                    Stmt l;
                    l.kind = StmtKind::Load;
                    l.load = 0;
                    Stmt s;
                    s.kind = StmtKind::Store;
                    s.args = {0};
                    r.body = {l, s};
                    r.fromStickDim = program.buffers[src].stickDim;
                    r.toStickDim = need;
                    r.origins = {"restickify " + (copy.origin.empty() ? copy.name : "'" + copy.origin + "'")};
                    LayoutCandidate c;
                    c.stickVar = need;
                    c.outputStickDim = need;
                    c.loadStickDims = {r.fromStickDim};
                    r.candidates = {c};
                    r.chosen = 0;
                    ops.push_back(std::move(r));
                    it = copyOf.emplace(key, dst).first;
                    ++count;
                    elements += program.layoutOf(program.buffers[dst]).deviceElements();
                }
                op.loads[i].buffer = it->second;
            }
        }
        ops.push_back(std::move(op));
    }
    program.ops = std::move(ops);
    compactProgram(program);
    PassResult r;
    r.changed = count > 0;
    r.summary = count == 0 ? "no restickify needed"
                           : "inserted " + std::to_string(count) + " restickify op" + (count == 1 ? "" : "s") +
                                 " moving " + groupDigits(elements) + " elements";
    return r;
}

}  // namespace spyglass::spyre
