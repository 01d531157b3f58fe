#include "core/spyre/pass_coarse_tiling.h"

#include "core/spyre/op_geometry.h"
#include "core/spyre/pass_work_division.h"

#include <algorithm>

namespace spyglass::spyre {

namespace {

struct TilingResult {
    bool fits = true;
    int64_t perCoreBytes = 0;
};

// Per-core bytes of one tile when var v is cut into tiles[v] pieces and the op spreads over `cores`.
TilingResult evaluate(const Program& p, const Op& op, const std::vector<int64_t>& tiles, int cores,
                      const SpyreTarget& t)
{
    TilingResult r;
    int64_t total = 0;
    for (int b : touchedBuffers(op)) {
        int64_t share = p.deviceBytes(p.buffers[b]);
        for (int v = 0; v < static_cast<int>(tiles.size()); ++v)
            if (tiles[v] > 1 && variesWith(op, b, v))
                share = ceilDiv(share, tiles[v]);
        if (share > t.spanBytes)
            r.fits = false;
        total += share;
    }
    r.perCoreBytes = ceilDiv(total, cores);
    if (r.perCoreBytes > t.usableLxBytes())
        r.fits = false;
    return r;
}

}  // namespace

PassResult CoarseTilingPass::run(Program& program, PassContext& ctx)
{
    if (program.stage != Stage::Loop)
        return {false, "nothing to do: not lowered"};
    const SpyreTarget& t = ctx.target;
    int tiled = 0, unfit = 0;
    int64_t maxTiles = 1;
    for (Op& op : program.ops) {
        op.tiles.clear();
        const int sv = op.stickVar();
        const int nIter = static_cast<int>(op.ranges.size());
        // The op can use at most as many cores as it has parallel units.
        int64_t parallel = 1;
        for (int v = 0; v < nIter; ++v)
            parallel *= v == sv ? ceilDiv(op.ranges[v], program.stickElements) : op.ranges[v];
        const int cores = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(t.cores, parallel)));
        std::vector<int64_t> tiles(op.numVars(), 1);
        if (evaluate(program, op, tiles, cores, t).fits)
            continue;
        // A var pinned w ways (--pin-split) keeps a multiple of w units per tile, so the pin stays possible.
        std::vector<int64_t> pinnedWays(op.numVars(), 1);
        if (const auto* pin = splitPinOf(op, ctx.options))
            for (int v = 0; v < op.numVars(); ++v)
                if (const auto w = pin->second.find(op.varName(v)); w != pin->second.end())
                    pinnedWays[v] = std::max(1, w->second);
        // Greedy: each step cuts further the var whose next cut shrinks the per-core working set the most (the
        // big operand's own dims first: cutting M of a matmul whose weight is the big tensor gains nothing),
        // preferring outer vars on ties; the stick var is cut in whole sticks only. Stops when the tile fits.
        std::vector<int> candidates;
        for (int v = 0; v < nIter; ++v)
            if (op.ranges[v] > 1 && (v != sv || op.ranges[v] % program.stickElements == 0))
                candidates.push_back(v);
        bool fits = false;
        for (;;) {
            int bestVar = -1;
            int64_t bestTiles = 0, bestBytes = 0;
            bool bestFits = false;
            for (int v : candidates) {
                const int64_t units = v == sv ? op.ranges[v] / program.stickElements : op.ranges[v];
                int64_t next = 0;
                for (int64_t d : divisorsAtMost(units, units))
                    if (d > tiles[v] && (units / d) % pinnedWays[v] == 0 && (next == 0 || d < next))
                        next = d;
                if (next == 0)
                    continue;
                std::vector<int64_t> trial = tiles;
                trial[v] = next;
                const TilingResult r = evaluate(program, op, trial, cores, t);
                if (bestVar < 0 || r.perCoreBytes < bestBytes) {
                    bestVar = v;
                    bestTiles = next;
                    bestBytes = r.perCoreBytes;
                    bestFits = r.fits;
                }
            }
            if (bestVar < 0)
                break;
            tiles[bestVar] = bestTiles;
            if (bestFits) {
                fits = true;
                break;
            }
        }
        for (int v = 0; v < nIter; ++v)
            if (tiles[v] > 1) {
                TileLoop loop;
                loop.var = v;
                loop.count = tiles[v];
                loop.extent = op.ranges[v] / tiles[v];
                op.tiles.push_back(loop);
                maxTiles = std::max(maxTiles, tiles[v]);
            }
        if (!op.tiles.empty())
            ++tiled;
        if (!fits)
            ++unfit;
    }
    PassResult r;
    r.changed = tiled > 0;
    r.summary = tiled == 0 ? "every op's per-core working set fits usable LX (" + groupDigits(t.usableLxBytes()) +
                                 " B) untiled"
                           : "tiled " + std::to_string(tiled) + " ops (up to " + std::to_string(maxTiles) +
                                 " tiles per loop) to fit " + groupDigits(t.usableLxBytes()) + " B of LX per core";
    if (unfit)
        r.summary += "; " + std::to_string(unfit) + " still exceed LX and stream from device memory";
    return r;
}

}  // namespace spyglass::spyre
