#include "core/spyre/kernel_timing.h"

#include "core/spyre/body_fn.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace spyglass::spyre {


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

bool isBundleOutput(const KernelBundle& b, const std::string& tensor)
{
    return std::find(b.outputs.begin(), b.outputs.end(), tensor) != b.outputs.end();
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
    kt.op = opKindName(k.op);
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

    // ---- compute rate: the PT array at the sustained 2-D rate for every matmul. The device order of a batched
    // matmul shows up in its DMA (run lengths below), not in a separate MAC rate.
    const bool matmul = k.op == spyre::OpKind::MatMul;
    const bool restickify = k.op == spyre::OpKind::Restickify;
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
    if (matmul) {
        // The PT array's rows: M, or where M is 1 (a decode step) the next var A walks, which is then the batch
        // a projection folds into its rows.
        const spyre::AffineExpr& a = k.loop.loads[k.matmul.a].index;
        for (int v = k.matmul.m; v >= 0 && mVar < 0; --v)
            if (v != k.matmul.n && a.coeffOf(v) != 0)
                mVar = v;
        kt.rateReason = "sustained PT rate";
        if (kWays > 1) {
            rate /= 2;   // a split K runs on one corelet (torch-spyre work_division.py)
            kt.rateReason += ", K split: one corelet";
        }
        kt.macRatePerCore = rate;
    }

    // ---- DMA from the transfers the bundle makes. Per operand: the bytes each core receives, how many cores
    // receive the same piece (replicas fetch one share each and receive the rest from the others, so the device
    // reads it once), and the contiguous run each request moves, given by the device order and the core's slice.
    const int64_t stick = target.stickBytes;
    struct ArgDma {
        double delivered = 0;   // bytes one core ends up with
        double fetched = 0;     // bytes one core reads from device memory
        bool store = false;
        bool streamed = false;  // a matmul's weight: streamed under the PT array's compute
        bool burst = false;     // a matmul's activation or output: moved by stick column in a load or store burst
        const spyre::KernelAccess* access = nullptr;
        const spyre::BundleTensor* tensor = nullptr;
    };
    std::vector<ArgDma> args;
    double R = 0, W = 0;
    double burstR = 0, burstW = 0, streamR = 0;   // a matmul's device-memory bytes: load burst, store burst, weight stream
    for (const spyre::KernelTensorArg& a : k.tensors) {
        if (a.dmaSticks <= 0)
            continue;
        ArgDma d;
        d.store = a.role == spyre::AccessRole::Store;
        d.tensor = bundle.tensor(a.tensor);
        if (d.store)
            d.access = &k.loop.store;
        else
            for (const spyre::KernelAccess& acc : k.loop.loads)
                if (acc.tensor == a.tensor)
                    d.access = &acc;
        int divisor = 1;
        if (d.access)
            for (int v = 0; v < nVars; ++v)
                if (d.access->index.coeffOf(v) != 0)
                    divisor *= k.vars[v].ways;
        const double replicas = std::max(1.0, static_cast<double>(kt.cores) / std::max(1, divisor));
        d.delivered = static_cast<double>(a.dmaSticksPerCore * stick);
        // The matmul operand that walks N (the weight) streams K-slice by K-slice while the PT array computes,
        // and its replicas share one fetch. The activation piece has to be whole in LX before the first MAC; every
        // core loads its own copy in that burst, so replicas of it do not share.
        d.streamed = matmul && !d.store && d.access && d.access->index.coeffOf(k.matmul.n) != 0;
        d.burst = matmul && !d.streamed;
        const bool ownCopy = d.burst && !d.store;
        d.fetched = ownCopy ? d.delivered : d.delivered / replicas;
        const double total = static_cast<double>(a.dmaSticks * stick);
        (d.store ? W : R) += total;
        (d.store ? kt.bytesWritten : kt.bytesRead) += a.dmaSticks * stick;
        if (d.streamed)
            streamR += total;
        else if (matmul)
            (d.store ? burstW : burstR) += ownCopy ? d.fetched * kt.cores : total;
        args.push_back(d);
    }
    // Contiguous run of one core's piece: sticks along the innermost device dims while the core covers them whole.
    // A matmul's activation and output move in the PT array's walk, one stick column at a time: a run ends at the
    // stick-index dim however much of it the core holds, so batch just inside the stick moves B sticks per row and
    // stick column, batch outermost (stick columns outside the rows) moves a core's rows of a column at once.
    auto runBytes = [&](const ArgDma& d, const spyre::KernelSlice& s) -> int64_t {
        if (!d.tensor || !d.access)
            return target.dmaMinRunBytes;
        const spyre::SpyreTensorLayout& l = d.tensor->layout;
        const int nd = static_cast<int>(l.deviceSize.size());
        const spyre::Shape& host = d.tensor->hostShape;
        if (nd < 2 || static_cast<int>(l.dimMap.size()) != nd)
            return target.dmaMinRunBytes;
        // Elements of each host dim the core covers: the var whose coefficient is that dim's row-major stride.
        std::vector<int64_t> covered(host.size(), 1);
        int64_t hostStride = 1;
        for (int h = static_cast<int>(host.size()) - 1; h >= 0; --h) {
            for (int v = 0; v < nVars; ++v)
                if (host[h] > 1 && d.access->index.coeffOf(v) == hostStride)
                    covered[h] = coverage(k, v, s.start[v], s.extent[v]);
            hostStride *= host[h];
        }
        const int stickHost = l.dimMap[nd - 1];
        int64_t run = stick;
        for (int e = nd - 2; e >= 0; --e) {
            const int h = l.dimMap[e];
            if (d.burst && h == stickHost)
                break;
            const int64_t size = l.deviceSize[e];
            int64_t c = h >= 0 && h < static_cast<int>(covered.size()) ? covered[h] : 1;
            if (h == stickHost)   // the stick index: whole sticks of the stick dim
                c = (c + target.stickElements() - 1) / target.stickElements();
            c = std::min(size, c);
            run *= c;
            if (c < size)
                break;
        }
        return run;
    };
    // Fewer cores keep fewer request streams in flight, so a read-dominated kernel (a matmul streaming its
    // weight, a standalone reduction) realises only part of the bandwidth; pointwise traffic is core-independent
    // from 2 cores (torch-spyre cost_model.py). A reduction inside a larger computation (softmax) keeps the full rate.
    const double aggregateGBs = (matmul || (k.op == spyre::OpKind::Reduction && isBundleOutput(bundle, k.loop.store.tensor)))
                                    ? target.lpddr5EffectiveGBs * target.reductionBwShare(kt.cores)
                                    : target.lpddr5EffectiveGBs;
    if (restickify)
        kt.memoryNs = (R + W) / target.restickifyGBs;   // GB/s == bytes/ns
    else
        kt.memoryNs = (R + W) / aggregateGBs + target.rwTurnaroundNsPerByte * std::min(R, W);

    // ---- per core
    // The SFU works on sticks as they stream in (vector_stream_chunks pieces, per tile when tiled: its work hides
    // under the DMA, as torch-spyre measured). A matmul runs in three phases: all cores load their activation
    // pieces at once (a burst on the shared bandwidth), the weight streams under the PT array's compute, and the
    // results leave in a second burst.
    const int chunks = static_cast<int>(std::clamp<int64_t>(tileCount > 1 ? tileCount : target.vectorStreamChunks, 1, kMaxChunks));
    std::map<std::string, int> lanes;
    if (trace)
        for (size_t l = 0; l < trace->lanes.size(); ++l)
            lanes[trace->lanes[l].name] = static_cast<int>(l);
    // One core's own DMA engine: a fixed cost per request, its own bandwidth ceiling, and receiving the shares
    // its replicas fetched. The shared device-memory bandwidth then stretches the busiest core to the
    // kernel's aggregate memory time (per phase for a matmul).
    std::vector<double> ownIn(slices.size(), 0.0), ownOut(slices.size(), 0.0), ownStream(slices.size(), 0.0);
    // A matmul's load and store bursts wait on each request in turn: the request cost is latency on the core's
    // engine, added after the shared bandwidth has stretched the transfer. Streamed operands (the weight, and
    // every operand of a vector kernel, moved in chunks under compute) keep requests in flight, so there the
    // request cost is occupancy that the shared bandwidth can hide.
    std::vector<double> latencyIn(slices.size(), 0.0), latencyOut(slices.size(), 0.0);
    double maxOwn = 0, maxStream = 0;
    // A matmul's weight stream moves to a new run after each request: every request but a core's first holds the
    // shared memory side for a fixed time, so the same bytes in shorter runs (a K split) stream slower. A core's
    // first request overlaps the other cores' (one request per core costs nothing extra).
    double streamRunChanges = 0;
    int64_t perCoreIn = 0, perCoreOut = 0, streamedPerCore = 0;
    for (const ArgDma& d : args) {
        (d.store ? perCoreOut : perCoreIn) += static_cast<int64_t>(d.delivered);
        if (d.streamed)
            streamedPerCore += static_cast<int64_t>(d.delivered);
    }
    for (size_t i = 0; i < slices.size(); ++i) {
        for (const ArgDma& d : args) {
            const int64_t run = std::clamp(runBytes(d, slices[i]), target.dmaMinRunBytes, target.dmaMaxRunBytes);
            const double requests = std::ceil(d.fetched / static_cast<double>(run));
            if (d.streamed)
                streamRunChanges += std::max(0.0, requests - 1);
            const double requestNs = requests * target.dmaRequestNs;
            const double transferNs = d.fetched / target.dmaPerCoreGBs + (d.delivered - d.fetched) / target.replicaDeliveryGBsPerCore;
            if (d.burst)
                (d.store ? latencyOut[i] : latencyIn[i]) += requestNs;
            (d.streamed ? ownStream[i] : d.store ? ownOut[i] : ownIn[i]) += transferNs + (d.burst ? 0.0 : requestNs);
        }
        maxOwn = std::max(maxOwn, ownIn[i] + ownOut[i]);
        maxStream = std::max(maxStream, ownStream[i]);
    }
    double stretch = 1.0, streamStretch = 1.0;
    if (matmul && !restickify) {
        const double burstNs = (burstR + burstW) / aggregateGBs + target.rwTurnaroundNsPerByte * std::min(burstR, burstW);
        const double streamNs = streamR / aggregateGBs + streamRunChanges * target.dmaDeviceRequestNs;
        stretch = maxOwn > 0 && burstNs > maxOwn ? burstNs / maxOwn : 1.0;
        streamStretch = maxStream > 0 && streamNs > maxStream ? streamNs / maxStream : 1.0;
        double burstBusiest = 0;
        for (size_t i = 0; i < slices.size(); ++i)
            burstBusiest = std::max(burstBusiest, (ownIn[i] + ownOut[i]) * stretch + latencyIn[i] + latencyOut[i]);
        kt.memoryNs = burstBusiest + maxStream * streamStretch;
    } else {
        stretch = maxOwn > 0 && kt.memoryNs > maxOwn ? kt.memoryNs / maxOwn : 1.0;
        kt.memoryNs = std::max(kt.memoryNs, maxOwn);
    }
    double psumNs = 0;
    if (kWays > 1) {
        int64_t outputs = 1;
        for (int v = 0; v < nIter; ++v)
            outputs *= k.vars[v].range;
        psumNs = static_cast<double>(kWays - 1) * static_cast<double>(outputs) * target.partialSumUsPerOutput * 1000.0 / kt.cores;
    }
    double busySum = 0;
    for (size_t si = 0; si < slices.size(); ++si) {
        const spyre::KernelSlice& s = slices[si];
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
        const double dmaIn = ownIn[si] * stretch + latencyIn[si], dmaOut = ownOut[si] * stretch + latencyOut[si];
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
            e.op = opKindName(k.op);
            e.tile = tileCount > 1 && chunks == tileCount ? tile : -1;
            e.startNs = static_cast<int64_t>(std::llround(startNs + t0));
            e.endNs = std::max(e.startNs + 1, static_cast<int64_t>(std::llround(startNs + t1)));
            e.bytes = static_cast<int64_t>(bytes);
            trace->events.push_back(std::move(e));
        };
        if (restickify) {
            // A restickify is a DMA-engine move through LX: read in one layout, written in the other.
            ct.endNs = ct.dmaNs;
            emit(true, "restickify", 0, ct.endNs, -1, static_cast<double>(perCoreIn + perCoreOut));
        } else if (matmul) {
            const double streamNs = ownStream[si] * streamStretch;
            const double c0 = dmaIn, c1 = c0 + std::max(ct.computeNs, streamNs);
            emit(true, "dma_in", 0, dmaIn, -1, static_cast<double>(perCoreIn - streamedPerCore));
            emit(true, "dma_stream", c0, c0 + streamNs, -1, static_cast<double>(streamedPerCore));
            emit(false, "compute", c0, c0 + ct.computeNs, -1, 0);
            emit(true, "dma_out", c1, c1 + dmaOut, -1, static_cast<double>(perCoreOut));
            ct.dmaNs += streamNs;
            ct.endNs = c1 + dmaOut;
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
        }
        if (!restickify && psumNs > 0) {
            emit(false, "partial_sum", ct.endNs, ct.endNs + psumNs, -1, 0);
            ct.endNs += psumNs;
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

}  // namespace spyglass::spyre
