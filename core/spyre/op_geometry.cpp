#include "core/spyre/op_geometry.h"

#include <algorithm>

namespace spyglass::spyre {

int64_t varTileExtent(const Op& op, int var)
{
    for (const TileLoop& t : op.tiles)
        if (t.var == var)
            return t.extent;
    return op.varRange(var);
}

int64_t varUnits(const Program& p, const Op& op, int var)
{
    const int64_t extent = varTileExtent(op, var);
    return var == op.stickVar() ? ceilDiv(extent, p.stickElements) : extent;
}

std::vector<int> touchedBuffers(const Op& op)
{
    std::vector<int> out;
    for (const Access& a : op.loads)
        if (std::find(out.begin(), out.end(), a.buffer) == out.end())
            out.push_back(a.buffer);
    if (std::find(out.begin(), out.end(), op.store.buffer) == out.end())
        out.push_back(op.store.buffer);
    return out;
}

bool variesWith(const Op& op, int buffer, int var)
{
    if (op.store.buffer == buffer && op.store.index.coeffOf(var) != 0)
        return true;
    for (const Access& a : op.loads)
        if (a.buffer == buffer && a.index.coeffOf(var) != 0)
            return true;
    return false;
}

int64_t largestDivisorAtMost(int64_t n, int64_t limit)
{
    for (int64_t d = std::min(n, limit); d >= 1; --d)
        if (n % d == 0)
            return d;
    return 1;
}

std::vector<int64_t> divisorsAtMost(int64_t n, int64_t limit)
{
    if (n <= 0)
        return {1};   // an empty dim: nothing to split
    std::vector<int64_t> out;
    for (int64_t d = 1; d <= std::min(n, limit); ++d)
        if (n % d == 0)
            out.push_back(d);
    return out;
}

}  // namespace spyglass::spyre
