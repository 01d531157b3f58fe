#include "core/spyre/lx_neighbourhood.h"

#include "core/spyre/kernel_timing.h"
#include "core/spyre/op_geometry.h"
#include "core/spyre/pass_codegen.h"

#include <algorithm>
#include <cmath>

namespace spyglass::spyre {

namespace {

// Bytes of `buffer` one core holds: the device image over the ways of the vars the writer's access steps
// (scratchpad planning sizes an LX block the same way).
int64_t perCoreBytes(const Program& p, const Op& writer, int buffer)
{
    int divisor = 1;
    for (const Access* a : accessesOf(writer, buffer)) {
        int d = 1;
        for (const auto& [v, c] : a->index.terms)
            if (v < static_cast<int>(writer.split.ways.size()))
                d *= writer.split.ways[v];
        divisor = std::max(divisor, d);
    }
    return ceilDiv(p.deviceBytes(p.buffers[buffer]), divisor);
}

void appendRegions(std::string& out, const CoreRegions& regions)
{
    for (const auto& core : regions) {
        for (const Ranges& dim : core) {
            for (const auto& [lo, hi] : dim)
                out += std::to_string(lo) + "-" + std::to_string(hi) + ",";
            out += "/";
        }
        out += ";";
    }
}

}  // namespace

double opKernelNs(const Program& p, const Op& op, const SpyreTarget& t, const std::vector<int>& lxResident)
{
    KernelBundle bundle;
    for (int b : touchedBuffers(op)) {
        bundle.tensors.push_back(bundleTensorOf(p, p.buffers[b]));
        if (p.buffers[b].kind == BufferKind::Output)
            bundle.outputs.push_back(p.buffers[b].name);
    }
    return timeKernel(kernelOf(p, op, 0, &lxResident), bundle, t, 0, nullptr).timeNs;
}

LxNeighbourhood::LxNeighbourhood(const Program& p, const Op& op, const SpyreTarget& t, bool lxPlanned,
                                 bool laterMatmulsUndecided)
    : p_(p), capacity_(t.usableLxBytes())
{
    if (!lxPlanned)
        return;
    int self = -1;
    for (size_t i = 0; i < p.ops.size() && self < 0; ++i)
        if (p.ops[i].name == op.name)
            self = static_cast<int>(i);
    if (self < 0)
        return;
    const auto consumers = p.consumersOfBuffers();
    auto decided = [&](int j) {
        return j != self && !(laterMatmulsUndecided && j > self && p.ops[j].kind == OpKind::MatMul) &&
               !p.ops[j].split.ways.empty();
    };
    std::vector<int> buffers;
    for (const Access& a : op.loads)
        buffers.push_back(a.buffer);
    buffers.push_back(op.store.buffer);
    for (size_t n = 0; n < buffers.size(); ++n) {
        const int b = buffers[n];
        const Buffer& buf = p.buffers[b];
        if (buf.kind != BufferKind::Intermediate || buf.producer < 0 ||
            std::find(buffers.begin(), buffers.begin() + static_cast<long>(n), b) != buffers.begin() + static_cast<long>(n))
            continue;
        Shared s;
        s.buffer = b;
        std::vector<const Op*> others;   // decided ops touching it, the writer first when it is decided
        if (buf.producer != self) {
            if (!decided(buf.producer))
                continue;   // its writer has not chosen: nothing to match yet
            s.writer = &p.ops[buf.producer];
            others.push_back(s.writer);
        }
        for (int c : consumers[b])
            if (decided(c) && std::find(others.begin(), others.end(), &p.ops[c]) == others.end())
                others.push_back(&p.ops[c]);
        if (others.empty())
            continue;   // nobody decided touches it: its residency is for the others to match
        // Decided ops that already disagree (or walk it in no plain way) leave it in device memory whatever the
        // candidate does.
        const auto regions = coreRegions(p, *others.front(), *accessesOf(*others.front(), b).front());
        if (!regions || !sameCoreSlices(p, b, others))
            continue;
        s.regions = *regions;
        for (const Op* o : others)
            s.othersNs += opKernelNs(p, *o, t, {}) - opKernelNs(p, *o, t, {b});
        signature_ += std::to_string(n) + ":" + std::to_string(std::llround(s.othersNs * 1000)) + ":";
        appendRegions(signature_, s.regions);
        if (s.writer)
            signature_ += "w" + std::to_string(perCoreBytes(p, *s.writer, b));
        signature_ += "|";
        shared_.push_back(std::move(s));
    }
}

std::vector<int> LxNeighbourhood::residentFor(const Op& candidate) const
{
    std::vector<int> out;
    for (const Shared& s : shared_) {
        if (perCoreBytes(p_, s.writer ? *s.writer : candidate, s.buffer) > capacity_)
            continue;
        bool same = true;
        for (const Access* a : accessesOf(candidate, s.buffer)) {
            const auto r = coreRegions(p_, candidate, *a);
            same = same && r && *r == s.regions;
        }
        if (same)
            out.push_back(s.buffer);
    }
    return out;
}

double LxNeighbourhood::spilledNs(const std::vector<int>& resident) const
{
    double ns = 0;
    for (const Shared& s : shared_)
        if (std::find(resident.begin(), resident.end(), s.buffer) == resident.end())
            ns += s.othersNs;
    return ns;
}

}  // namespace spyglass::spyre
