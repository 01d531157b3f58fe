#include "core/spyresim/timing_model.h"

#include "core/spyre/body_fn.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace spyglass::spyresim {

using spyre::Kernel;
using spyre::KernelBundle;
using spyre::SpyreTarget;

namespace {

constexpr int kMaxChunks = 256;   // finer streaming than this changes nothing visible and bloats the trace

// Elements of var v a core covers over all tiles: its slice inside every tile, clipped at the range.
int64_t coverage(const Kernel& k, int v, int64_t start, int64_t extent)
{
    int64_t tileExtent = k.vars[v].range, tiles = 1;
    for (const spyre::TileLoop& t : k.tiles)
        if (t.var == v) {
            tileExtent = t.extent;
            tiles = t.count;
        }
    int64_t total = 0;
    for (int64_t t = 0; t < tiles; ++t) {
        const int64_t lo = t * tileExtent + start;
        const int64_t hi = std::min({lo + extent, (t + 1) * tileExtent, k.vars[v].range});
        total += std::max<int64_t>(0, hi - lo);
    }
    return total;
}

int lane(Trace& trace, std::map<std::string, int>& lanes, const std::string& name, TraceLane::Kind kind)
{
    const auto it = lanes.find(name);
    if (it != lanes.end())
        return it->second;
    const int id = trace.addLane(name, kind);
    lanes[name] = id;
    return id;
}

}  // namespace

KernelTime timeKernel(const Kernel& k, const KernelBundle& bundle, const SpyreTarget& target, double startNs, Trace* trace)
{
    KernelTime kt;
    kt.name = k.name;
    kt.op = k.op;
    kt.index = k.index;
    kt.startNs = startNs;
    const int nVars = static_cast<int>(k.vars.size());
    const int nIter = static_cast<int>(k.loop.ranges.size());
    std::vector<spyre::KernelSlice> slices = k.slices;
    if (slices.empty()) {
        spyre::KernelSlice all;
        all.start.assign(nVars, 0);
        for (const spyre::KernelVar& v : k.vars)
            all.extent.push_back(v.range);
        for (const spyre::TileLoop& t : k.tiles)
            if (t.var >= 0 && t.var < nVars)
                all.extent[t.var] = t.extent;
        slices.push_back(all);
    }
    kt.cores = static_cast<int>(slices.size());
    int64_t tileCount = 1;
    for (const spyre::TileLoop& t : k.tiles)
        tileCount *= t.count;

    // ---- compute rate
    const bool matmul = k.op == "MatMul";
    const bool restickify = k.op == "Restickify";
    int kWays = 1;
    for (int v = nIter; v < nVars; ++v)
        kWays *= k.vars[v].ways;
    int vectorOpsPerPoint = 0;
    for (const spyre::Stmt& st : k.loop.stmts)
        if (st.kind == spyre::StmtKind::Compute || st.kind == spyre::StmtKind::Reduction || st.kind == spyre::StmtKind::Select ||
            st.kind == spyre::StmtKind::Mask)
            ++vectorOpsPerPoint;
    vectorOpsPerPoint = std::max(1, vectorOpsPerPoint);
    double rate = target.sustainedMacPerNsPerCore;
    int mVar = -1;
    if (matmul && !k.loop.loads.empty()) {
        // A (the operand that does not walk the innermost iteration var N) tells batched from 2-D and its order.
        const int nVar = nIter - 1;
        const spyre::KernelAccess* a = nullptr;
        for (const spyre::KernelAccess& acc : k.loop.loads)
            if (nIter > 0 && acc.index.coeffOf(nVar) == 0 && acc.index.coeffOf(nIter) != 0)
                a = &acc;
        const spyre::BundleTensor* at = a ? bundle.tensor(a->tensor) : nullptr;
        // M: the innermost other iteration var A walks; any further one A walks is a batch var.
        int batchVars = 0;
        if (a)
            for (int v = nIter - 2; v >= 0; --v)
                if (a->index.coeffOf(v) != 0) {
                    if (mVar < 0)
                        mVar = v;
                    else
                        ++batchVars;
                }
        if (at && at->hostShape.size() >= 3 && batchVars > 0) {
            const bool outer = at->deviceOrder == "batch_outermost";
            rate = outer ? target.bmmBatchOutermostMacPerNsPerCore : target.bmmDefaultLayoutMacPerNsPerCore;
            kt.rateReason = outer ? "batched matmul, batch outermost on device" : "batched matmul, default device order";
        } else {
            kt.rateReason = "2-D matmul, sustained rate";
        }
        if (kWays > 1) {
            rate /= 2;   // a split K runs on one corelet (torch-spyre work_division.py)
            kt.rateReason += ", K split: one corelet";
        }
        kt.macRatePerCore = rate;
    }

    // ---- bytes: whole sticks between device memory and LX, per the plan (LX-resident tensors move nothing)
    const int64_t stick = target.stickBytes;
    int64_t perCoreIn = 0, perCoreOut = 0;
    double fanoutWeightedRead = 0;
    for (const spyre::KernelTensorArg& a : k.tensors) {
        const int64_t bytes = a.dmaSticks * stick;
        if (a.role == "store") {
            kt.bytesWritten += bytes;
            perCoreOut += a.dmaSticksPerCore * stick;
            continue;
        }
        kt.bytesRead += bytes;
        perCoreIn += a.dmaSticksPerCore * stick;
        // Cores that read the same piece of this operand: all of them divided by the ways of the vars it walks.
        double fanout = 1;
        if (matmul && a.dmaSticks > 0) {
            int divisor = 1;
            for (const spyre::KernelAccess& acc : k.loop.loads)
                if (acc.tensor == a.tensor)
                    for (int v = 0; v < nVars; ++v)
                        if (acc.index.coeffOf(v) != 0)
                            divisor *= k.vars[v].ways;
            fanout = static_cast<double>(kt.cores) / std::max(1, divisor);
        }
        const double penalty = std::max(1.0, std::pow(fanout / target.operandFanoutBase, target.operandFanoutExponent));
        fanoutWeightedRead += static_cast<double>(bytes) * penalty;
    }
    const double R = fanoutWeightedRead, W = static_cast<double>(kt.bytesWritten);
    if (restickify)
        kt.memoryNs = (R + W) / target.restickifyGBs;   // GB/s == bytes/ns
    else
        kt.memoryNs = (R + W) / target.lpddr5EffectiveGBs + target.rwTurnaroundNsPerByte * std::min(R, W);

    // ---- per core
    // Every core streams concurrently through the shared bandwidth: a core moving the most bytes takes the
    // kernel's whole memory time.
    const double maxCoreBytes = static_cast<double>(perCoreIn + perCoreOut);
    const double nsPerByte = maxCoreBytes > 0 ? kt.memoryNs / maxCoreBytes : 0.0;
    const int chunks = static_cast<int>(std::min<int64_t>(kMaxChunks, tileCount > 1 ? tileCount : std::max(1, target.dmaStreamChunks)));
    std::map<std::string, int> lanes;
    if (trace)
        for (size_t l = 0; l < trace->lanes.size(); ++l)
            lanes[trace->lanes[l].name] = static_cast<int>(l);
    double psumNs = 0;
    if (kWays > 1) {
        int64_t outputs = 1;
        for (int v = 0; v < nIter; ++v)
            outputs *= k.vars[v].range;
        psumNs = static_cast<double>(kWays - 1) * static_cast<double>(outputs) * target.partialSumUsPerOutput * 1000.0 / kt.cores;
    }
    double busySum = 0;
    for (const spyre::KernelSlice& s : slices) {
        CoreTime ct;
        ct.core = s.core;
        int64_t points = 1, rows = 1;
        for (int v = 0; v < nVars; ++v) {
            const int64_t c = coverage(k, v, s.start[v], s.extent[v]);
            points *= c;
            if (v == mVar)
                rows = c;
        }
        if (matmul) {
            const double r = static_cast<double>(std::max<int64_t>(1, rows));
            const double full = target.ptFullEfficiencyRows;
            const double ptEffInv = r >= full ? 1.0 : std::pow(full / std::max(r, static_cast<double>(target.ptArrayRows)), target.ptEfficiencyExponent);
            ct.computeNs = static_cast<double>(points) * ptEffInv / rate;
            kt.macs += points;
        } else if (!restickify) {
            const int64_t ops = points * vectorOpsPerPoint;
            ct.computeNs = static_cast<double>(ops) / target.sfuOpsPerNsPerCore;
            kt.vectorOps += ops;
        }
        ct.bytesIn = perCoreIn;
        ct.bytesOut = perCoreOut;
        const double dmaIn = static_cast<double>(perCoreIn) * nsPerByte, dmaOut = static_cast<double>(perCoreOut) * nsPerByte;
        ct.dmaNs = dmaIn + dmaOut;
        const std::string coreLane = "core " + std::to_string(s.core);
        const std::string dmaLane = coreLane + " DMA";
        auto emit = [&](bool dma, const char* name, double t0, double t1, int tile, double bytes) {
            if (!trace || t1 <= t0)
                return;
            TraceEvent e;
            e.lane = dma ? lane(*trace, lanes, dmaLane, TraceLane::Kind::Dma) : lane(*trace, lanes, coreLane, TraceLane::Kind::Core);
            e.name = name;
            e.kernel = k.name;
            e.op = k.op;
            e.tile = tileCount > 1 ? tile : -1;
            e.startNs = static_cast<int64_t>(std::llround(startNs + t0));
            e.endNs = std::max(e.startNs + 1, static_cast<int64_t>(std::llround(startNs + t1)));
            e.bytes = static_cast<int64_t>(bytes);
            trace->events.push_back(std::move(e));
        };
        if (restickify) {
            // A restickify is a DMA-engine move through LX: read in one layout, written in the other.
            ct.endNs = ct.dmaNs;
            emit(true, "restickify", 0, ct.endNs, -1, static_cast<double>(perCoreIn + perCoreOut));
        } else {
            // Double buffering: chunk i+1 loads while chunk i computes (two buffers: a load waits for the compute
            // two chunks back); a chunk's results leave after its compute, on the same DMA engine.
            const double in = dmaIn / chunks, comp = ct.computeNs / chunks, out = dmaOut / chunks;
            double dmaFree = 0, compPrev = 0;
            std::vector<double> inEnd(chunks + 1, 0.0);
            inEnd[0] = in;
            emit(true, "dma_in", 0, in, 0, static_cast<double>(perCoreIn) / chunks);
            dmaFree = in;
            for (int i = 0; i < chunks; ++i) {
                const double c0 = std::max(inEnd[i], compPrev);
                const double c1 = c0 + comp;
                emit(false, "compute", c0, c1, i, 0);
                if (i + 1 < chunks) {
                    const double s0 = std::max(dmaFree, compPrev);   // buffer of chunk i-1 is free once it computed
                    inEnd[i + 1] = s0 + in;
                    emit(true, "dma_in", s0, inEnd[i + 1], i + 1, static_cast<double>(perCoreIn) / chunks);
                    dmaFree = inEnd[i + 1];
                }
                const double o0 = std::max(c1, dmaFree);
                emit(true, "dma_out", o0, o0 + out, i, static_cast<double>(perCoreOut) / chunks);
                dmaFree = o0 + out;
                compPrev = c1;
            }
            ct.endNs = std::max(dmaFree, compPrev);
            if (psumNs > 0) {
                emit(false, "partial_sum", ct.endNs, ct.endNs + psumNs, -1, 0);
                ct.endNs += psumNs;
            }
        }
        kt.computeNs = std::max(kt.computeNs, ct.computeNs);
        kt.timeNs = std::max(kt.timeNs, ct.endNs);
        busySum += ct.computeNs;
        kt.perCore.push_back(ct);
    }
    kt.timeNs += target.kernelOverheadNs;
    kt.utilisation = kt.timeNs > 0 ? busySum / kt.cores / kt.timeNs : 0.0;
    const double computeBound = matmul ? static_cast<double>(kt.macs) / (target.peakMacPerNsPerCore * target.cores)
                                       : static_cast<double>(kt.vectorOps) / (target.sfuOpsPerNsPerCore * target.cores);
    const double memoryBound = static_cast<double>(kt.bytesRead + kt.bytesWritten) / target.lpddr5PeakGBs;
    kt.rooflineNs = std::max(computeBound, memoryBound);
    return kt;
}

}  // namespace spyglass::spyresim
