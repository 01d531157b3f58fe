#include "core/spyre/ir_edit.h"

namespace spyglass::spyre {

void compactProgram(Program& p)
{
    std::vector<Op> ops;
    ops.reserve(p.ops.size());
    for (Op& op : p.ops)
        if (!op.name.empty())
            ops.push_back(std::move(op));
    p.ops = std::move(ops);
    std::vector<bool> used(p.buffers.size(), false);
    for (const Op& op : p.ops) {
        used[op.store.buffer] = true;
        for (const Access& a : op.loads)
            used[a.buffer] = true;
    }
    std::vector<int> remap(p.buffers.size(), -1);
    std::vector<Buffer> buffers;
    for (size_t b = 0; b < p.buffers.size(); ++b) {
        const BufferKind k = p.buffers[b].kind;
        if (used[b] || k == BufferKind::Input || k == BufferKind::Output) {
            remap[b] = static_cast<int>(buffers.size());
            buffers.push_back(std::move(p.buffers[b]));
            buffers.back().producer = -1;
        }
    }
    p.buffers = std::move(buffers);
    for (size_t o = 0; o < p.ops.size(); ++o) {
        Op& op = p.ops[o];
        op.store.buffer = remap[op.store.buffer];
        for (Access& a : op.loads)
            a.buffer = remap[a.buffer];
        p.buffers[op.store.buffer].producer = static_cast<int>(o);
    }
}

std::optional<std::vector<AffineExpr>> perDimIndex(const Op& op, const AffineExpr& flat, const Shape& shape)
{
    const Shape strides = contiguousStrides(shape);
    std::vector<AffineExpr> dims(shape.size());
    for (const auto& [var, coeff] : flat.terms) {
        if (var >= kIndirectVar || coeff <= 0)
            return std::nullopt;
        int found = -1;
        for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d)
            if (shape[d] > 1 && coeff >= strides[d] && coeff < strides[d] * shape[d]) {
                found = d;
                break;
            }
        if (found < 0 || coeff % strides[found] != 0)
            return std::nullopt;
        dims[found].add(var, coeff / strides[found]);
    }
    int64_t rest = flat.constant;
    if (rest < 0)
        return std::nullopt;
    for (size_t d = 0; d < shape.size(); ++d) {
        dims[d].constant = shape[d] > 0 ? rest / strides[d] : 0;
        rest -= dims[d].constant * strides[d];
    }
    for (size_t d = 0; d < shape.size(); ++d) {
        int64_t hi = dims[d].constant;
        for (const auto& [var, c] : dims[d].terms)
            hi += c * (op.varRange(var) - 1);
        if (hi >= shape[d] && shape[d] > 0)
            return std::nullopt;
    }
    return dims;
}

AffineExpr substitute(const AffineExpr& e, const std::vector<AffineExpr>& exprs)
{
    AffineExpr out;
    out.constant = e.constant;
    for (const auto& [var, c] : e.terms) {
        if (var < static_cast<int>(exprs.size())) {
            for (const auto& [v2, c2] : exprs[var].terms)
                out.add(v2, c * c2);
            out.constant += c * exprs[var].constant;
        } else {
            out.add(var, c);
        }
    }
    return out;
}

}  // namespace spyglass::spyre
