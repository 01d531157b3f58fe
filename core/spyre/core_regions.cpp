#include "core/spyre/core_regions.h"

#include "core/spyre/pass_codegen.h"

#include <algorithm>

namespace spyglass::spyre {

std::optional<CoreRegions> coreRegions(const Program& p, const Op& op, const Access& a)
{
    const Buffer& buf = p.buffers[a.buffer];
    const Shape strides = contiguousStrides(buf.shape);
    const int rank = static_cast<int>(buf.shape.size());
    std::vector<int> varOfDim(rank, -1);
    std::vector<int64_t> base(rank, 0);
    int64_t rest = a.index.constant;
    for (int d = 0; d < rank; ++d) {
        base[d] = strides[d] ? rest / strides[d] : 0;
        rest -= base[d] * strides[d];
    }
    for (const auto& [v, c] : a.index.terms) {
        int dim = -1;
        for (int d = 0; d < rank; ++d)
            if (strides[d] == c && buf.shape[d] > 1)
                dim = d;
        if (dim < 0 || v >= kIndirectVar || varOfDim[dim] >= 0)
            return std::nullopt;
        varOfDim[dim] = v;
    }
    std::vector<KernelSlice> slices = coreSlicesOf(p, op);
    if (op.split.ways.empty() || slices.empty()) {
        KernelSlice all;
        for (int v = 0; v < op.numVars(); ++v) {
            all.start.push_back(0);
            all.extent.push_back(op.varRange(v));
        }
        for (const TileLoop& t : op.tiles)
            all.extent[t.var] = t.extent;
        slices = {all};
    }
    CoreRegions out;
    for (const KernelSlice& s : slices) {
        std::vector<Ranges> dims(rank);
        for (int d = 0; d < rank; ++d) {
            const int v = varOfDim[d];
            if (v < 0) {
                dims[d].emplace_back(base[d], base[d] + 1);
                continue;
            }
            int64_t tileExtent = op.varRange(v), tiles = 1;
            for (const TileLoop& t : op.tiles)
                if (t.var == v) {
                    tileExtent = t.extent;
                    tiles = t.count;
                }
            for (int64_t t = 0; t < tiles; ++t) {
                const int64_t lo = t * tileExtent + s.start[v];
                const int64_t hi = std::min({lo + s.extent[v], (t + 1) * tileExtent, op.varRange(v)});
                if (lo < hi)
                    dims[d].emplace_back(base[d] + lo, base[d] + hi);
            }
        }
        // Tiles are walked one after another by the same core: what it holds is their union.
        for (Ranges& r : dims) {
            std::sort(r.begin(), r.end());
            Ranges merged;
            for (const auto& x : r)
                if (!merged.empty() && x.first <= merged.back().second)
                    merged.back().second = std::max(merged.back().second, x.second);
                else
                    merged.push_back(x);
            r = std::move(merged);
        }
        out.push_back(std::move(dims));
    }
    return out;
}

std::vector<const Access*> accessesOf(const Op& op, int buffer)
{
    std::vector<const Access*> out;
    for (const Access& a : op.loads)
        if (a.buffer == buffer)
            out.push_back(&a);
    if (op.store.buffer == buffer)
        out.push_back(&op.store);
    return out;
}

bool sameCoreSlices(const Program& p, int buffer, const std::vector<const Op*>& ops)
{
    std::optional<CoreRegions> first;
    bool have = false;
    for (const Op* o : ops) {
        const Op& op = *o;
        for (const Access* a : accessesOf(op, buffer)) {
            std::optional<CoreRegions> r = coreRegions(p, op, *a);
            if (!r)
                return false;
            if (!have) {
                first = std::move(r);
                have = true;
            } else if (*r != *first) {
                return false;
            }
        }
    }
    return true;
}

bool sameCoreSlices(const Program& p, int buffer, const std::vector<int>& ops)
{
    std::vector<const Op*> byIndex;
    for (int o : ops)
        byIndex.push_back(&p.ops[o]);
    return sameCoreSlices(p, buffer, byIndex);
}

}  // namespace spyglass::spyre
