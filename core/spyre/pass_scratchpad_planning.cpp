#include "core/spyre/pass_scratchpad_planning.h"

#include "core/spyre/core_regions.h"
#include "core/spyre/op_geometry.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace spyglass::spyre {

namespace {

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
