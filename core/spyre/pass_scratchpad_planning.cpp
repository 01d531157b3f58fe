#include "core/spyre/pass_scratchpad_planning.h"

#include "core/spyre/op_geometry.h"
#include "core/spyre/pass_codegen.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace spyglass::spyre {

namespace {

// What each core touches of a buffer through one access: per core, per host dim, the coordinate ranges (one per
// tile). Empty when the access is not a plain walk (a var steps no single dim, or two vars step one dim).
using Ranges = std::vector<std::pair<int64_t, int64_t>>;
using CoreRegions = std::vector<std::vector<Ranges>>;

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

// A buffer may live in LX only when every op that touches it has each core touch exactly what that core touches
// in the writer: LX is per core, so a reader whose cores slice the buffer differently would need the data of
// other cores (torch-spyre inserts an LX relayout copy there; Spyglass keeps such buffers in device memory).
bool sameCoreSlices(const Program& p, int buffer, const std::vector<int>& ops)
{
    std::optional<CoreRegions> first;
    bool have = false;
    for (int o : ops) {
        const Op& op = p.ops[o];
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

struct Block {
    int buffer;
    int64_t offset, end;
    int first, last;
};

class Planner {
public:
    Planner(Program& p, ScratchpadPolicy policy, int64_t capacity, int64_t align)
        : p_(p), policy_(policy), cap_(capacity), align_(align)
    {
    }

    int inPlace = 0;

    void run()
    {
        const auto consumers = p_.consumersOfBuffers();
        struct Item {
            int buffer, first, last, writer;
        };
        std::vector<Item> items;
        for (size_t b = 0; b < p_.buffers.size(); ++b) {
            Buffer& buf = p_.buffers[b];
            buf.lx = LxAllocation{};
            const auto& cons = consumers[b];
            if (buf.producer >= 0 && buf.kind == BufferKind::Intermediate) {
                const int last = cons.empty() ? buf.producer : std::max(buf.producer, cons.back());
                items.push_back({static_cast<int>(b), buf.producer, last, buf.producer});
            } else if (buf.producer < 0 && cons.size() >= 2) {
                items.push_back({static_cast<int>(b), cons.front(), cons.back(), cons.front()});
            }
        }
        std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.first < b.first; });
        for (const Item& it : items) {
            Buffer& buf = p_.buffers[it.buffer];
            std::vector<int> touching = consumers[it.buffer];
            if (buf.producer >= 0)
                touching.insert(touching.begin(), buf.producer);
            if (!sameCoreSlices(p_, it.buffer, touching)) {
                buf.lx.firstUse = it.first;
                buf.lx.lastUse = it.last;
                buf.lx.how = "cores slice it differently in its writer and readers: stays in device memory";
                continue;
            }
            // A core holds the part of the device image its slice walks: the image over the ways of the vars the
            // access steps (a core that walks every element of the buffer holds all of it).
            const Op& writer = p_.ops[it.writer];
            int divisor = 1;
            for (const Access* a : accessesOf(writer, it.buffer)) {
                int d = 1;
                for (const auto& [v, c] : a->index.terms)
                    if (v < static_cast<int>(writer.split.ways.size()))
                        d *= writer.split.ways[v];
                divisor = std::max(divisor, d);
            }
            buf.lx.bytes = ceilDiv(ceilDiv(p_.deviceBytes(buf), divisor), align_) * align_;
            buf.lx.firstUse = it.first;
            buf.lx.lastUse = it.last;
            // Items come in order of first use: a block dead before this one starts can never overlap a later
            // item either, so retire it (keeps planning linear in the number of buffers).
            blocks_.erase(std::remove_if(blocks_.begin(), blocks_.end(), [&](const Block& b) { return b.last < it.first; }),
                          blocks_.end());
            place(it.buffer, it.writer);
        }
    }

private:
    Program& p_;
    ScratchpadPolicy policy_;
    int64_t cap_, align_;
    std::vector<Block> blocks_;
    std::vector<bool> takenOver_;

    std::vector<Block> live(int first, int last, int except = -1) const
    {
        std::vector<Block> out;
        for (const Block& b : blocks_)
            if (b.first <= last && first <= b.last && b.buffer != except)
                out.push_back(b);
        std::sort(out.begin(), out.end(), [](const Block& a, const Block& b) { return a.offset < b.offset; });
        return out;
    }

    static bool freeAt(const std::vector<Block>& live, int64_t offset, int64_t size)
    {
        for (const Block& b : live)
            if (offset < b.end && b.offset < offset + size)
                return false;
        return true;
    }

    void commit(int buffer, int64_t offset, const std::string& how, int parent = -1)
    {
        Buffer& buf = p_.buffers[buffer];
        buf.lx.inLx = true;
        buf.lx.offset = offset;
        buf.lx.how = how;
        buf.lx.inPlaceOf = parent;
        blocks_.push_back({buffer, offset, offset + buf.lx.bytes, buf.lx.firstUse, buf.lx.lastUse});
    }

    bool tryInPlace(int buffer, int writer)
    {
        const Op& op = p_.ops[writer];
        if (op.kind != OpKind::Pointwise || op.store.buffer != buffer)
            return false;
        const Buffer& buf = p_.buffers[buffer];
        takenOver_.resize(p_.buffers.size(), false);
        for (const Access& a : op.loads) {
            const Buffer& parent = p_.buffers[a.buffer];
            if (!parent.lx.inLx || takenOver_[a.buffer] || parent.lx.lastUse != writer || parent.lx.bytes < buf.lx.bytes ||
                !(a.index == op.store.index) || parent.stickDim != buf.stickDim)
                continue;
            // The block must be free of everything else live over the child's lifetime.
            auto others = live(buf.lx.firstUse, buf.lx.lastUse, a.buffer);
            if (!freeAt(others, parent.lx.offset, buf.lx.bytes))
                continue;
            takenOver_[a.buffer] = true;
            commit(buffer, parent.lx.offset, "in place of " + parent.name, a.buffer);
            ++inPlace;
            return true;
        }
        return false;
    }

    void place(int buffer, int writer)
    {
        Buffer& buf = p_.buffers[buffer];
        const int64_t size = buf.lx.bytes;
        if (size > cap_) {
            buf.lx.how = "larger than usable LX";
            return;
        }
        if (policy_ == ScratchpadPolicy::Greedy && tryInPlace(buffer, writer))
            return;
        const auto lv = live(buf.lx.firstUse, buf.lx.lastUse);
        // Free gaps between live blocks, plus the space above the highest one.
        struct Gap {
            int64_t offset, size;
        };
        std::vector<Gap> gaps;
        int64_t cursor = 0;
        for (const Block& b : lv) {
            if (b.offset > cursor)
                gaps.push_back({cursor, b.offset - cursor});
            cursor = std::max(cursor, b.end);
        }
        const int64_t highWater = cursor;
        if (policy_ == ScratchpadPolicy::Greedy) {
            if (freeAt(lv, 0, size))
                return commit(buffer, 0, "address 0");
            if (highWater + size <= cap_)
                return commit(buffer, highWater, "above high-water");
            for (const Gap& g : gaps)
                if (g.size >= size)
                    return commit(buffer, g.offset, "gap");
        } else {
            gaps.push_back({highWater, cap_ - highWater});
            int best = -1;
            for (size_t i = 0; i < gaps.size(); ++i) {
                if (gaps[i].size < size)
                    continue;
                if (best < 0)
                    best = static_cast<int>(i);
                else if (policy_ == ScratchpadPolicy::BestFit && gaps[i].size < gaps[best].size)
                    best = static_cast<int>(i);
                if (policy_ == ScratchpadPolicy::FirstFit)
                    break;
            }
            if (best >= 0)
                return commit(buffer, gaps[best].offset, policy_ == ScratchpadPolicy::FirstFit ? "first fit" : "best fit");
        }
        buf.lx.how = "does not fit: stays in device memory";
    }
};

}  // namespace

PassResult ScratchpadPlanningPass::run(Program& program, PassContext& ctx)
{
    if (program.stage != Stage::Loop)
        return {false, "nothing to do: not lowered"};
    const int64_t cap = ctx.target.usableLxBytes();
    if (ctx.options.scratchpad == ScratchpadPolicy::None) {
        for (Buffer& b : program.buffers) {
            b.lx = LxAllocation{};
            b.lx.how = "planning off: device memory";
        }
        program.scratchpad = ScratchpadResult{};
        program.scratchpad.policy = "none";
        program.scratchpad.capacityBytes = cap;
        return {false, "off: every buffer stays in device memory"};
    }
    Planner planner(program, ctx.options.scratchpad, cap, ctx.target.lxAlignmentBytes);
    planner.run();
    ScratchpadResult& s = program.scratchpad;
    s = ScratchpadResult{};
    s.planned = true;
    s.policy = scratchpadPolicyName(ctx.options.scratchpad);
    s.capacityBytes = cap;
    for (const Buffer& b : program.buffers) {
        if (b.lx.firstUse < 0)
            continue;
        if (b.lx.inLx) {
            ++s.inLx;
            s.peakBytes = std::max(s.peakBytes, b.lx.offset + b.lx.bytes);
        } else {
            ++s.inDeviceMemory;
        }
    }
    PassResult r;
    r.changed = s.inLx + s.inDeviceMemory > 0;
    r.summary = s.policy + ": " + std::to_string(s.inLx) + " of " + std::to_string(s.inLx + s.inDeviceMemory) +
                " buffers in LX (" + std::to_string(planner.inPlace) + " in place), " + std::to_string(s.inDeviceMemory) +
                " stay in device memory; peak " + groupDigits(s.peakBytes) + " of " + groupDigits(cap) + " B per core";
    return r;
}

}  // namespace spyglass::spyre
