#include "core/spyresim/spyre_simulator.h"

#include "core/common/diagnostics.h"
#include "core/common/job_control.h"
#include "core/common/units.h"
#include "core/spyre/spyre_target.h"
#include "core/spyresim/device_memory.h"
#include "core/spyresim/kernel_executor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

namespace spyglass::spyresim {

using spyre::Kernel;
using spyre::KernelBundle;

namespace {

[[noreturn]] void planError(const Kernel& k, const std::string& what)
{
    throw InputError(SourceLocation{}, "kernel " + k.name + ": " + what);
}

std::string coresText(const Kernel& k)
{
    return k.cores <= 1 ? "core 0" : "cores 0-" + std::to_string(k.cores - 1);
}

// Bytes of `tensor`'s device image one core holds: the image divided by the ways of the vars its access walks.
int64_t sliceBytes(const Kernel& k, const spyre::BundleTensor& t, int stickBytes)
{
    int divisor = 1;
    auto walk = [&](const spyre::KernelAccess& a) {
        if (a.tensor != t.name)
            return;
        int d = 1;
        for (size_t v = 0; v < k.vars.size(); ++v)
            if (a.index.coeffOf(static_cast<int>(v)) != 0)
                d *= k.vars[v].ways;
        divisor = std::max(divisor, d);
    };
    for (const spyre::KernelAccess& a : k.loop.loads)
        walk(a);
    walk(k.loop.store);
    const int64_t bytes = t.layout.deviceElements() * 2;
    const int64_t perCore = (bytes + divisor - 1) / divisor;
    return (perCore + stickBytes - 1) / stickBytes * stickBytes;
}

}  // namespace

double deviceAtol(const std::vector<model::HostTensor>& reference)
{
    double m = 1.0;
    for (const model::HostTensor& t : reference)
        for (float x : t.f)
            if (std::isfinite(x))
                m = std::max(m, static_cast<double>(std::fabs(x)));
    return 2e-3 * m;
}

void checkScratchpadPlan(const KernelBundle& bundle)
{
    struct Alloc {
        std::string tensor;
        int64_t offset, bytes;
        int first, last;
    };
    std::map<std::string, Alloc> allocs;
    for (const Kernel& k : bundle.kernels)
        for (const spyre::KernelTensorArg& a : k.tensors) {
            if (!a.inLx)
                continue;
            if (a.lxOffset < 0 || a.lxBytes < 0 || a.lxOffset + a.lxBytes > bundle.usableLxBytes)
                planError(k, coresText(k) + ": buffer " + a.tensor + " at LX [" + std::to_string(a.lxOffset) + ", " +
                                 std::to_string(a.lxOffset + a.lxBytes) + ") lies beyond usable LX (" +
                                 std::to_string(bundle.usableLxBytes) + " B)");
            const spyre::BundleTensor* t = bundle.tensor(a.tensor);
            const int64_t need = t ? sliceBytes(k, *t, bundle.stickBytes) : 0;
            if (need > a.lxBytes)
                planError(k, coresText(k) + ": the slice of " + a.tensor + " each core works on (" + std::to_string(need) +
                                 " B) exceeds its LX allocation of " + std::to_string(a.lxBytes) + " B at offset " +
                                 std::to_string(a.lxOffset));
            if (a.lxFirstUse > k.index || (a.lxLastUse >= 0 && a.lxLastUse < k.index))
                planError(k, "buffer " + a.tensor + " is accessed in LX outside its live range [" + std::to_string(a.lxFirstUse) +
                                 ", " + std::to_string(a.lxLastUse) + "]");
            allocs.emplace(a.tensor, Alloc{a.tensor, a.lxOffset, a.lxBytes, a.lxFirstUse, a.lxLastUse});
        }
    for (const Kernel& k : bundle.kernels) {
        std::vector<const Alloc*> live;
        for (const auto& [name, a] : allocs)
            if (a.first <= k.index && k.index <= a.last)
                live.push_back(&a);
        for (size_t i = 0; i < live.size(); ++i)
            for (size_t j = i + 1; j < live.size(); ++j) {
                const Alloc& x = *live[i];
                const Alloc& y = *live[j];
                const bool overlap = x.offset < y.offset + y.bytes && y.offset < x.offset + x.bytes;
                const bool handOver = (x.last == k.index && y.first == k.index) || (y.last == k.index && x.first == k.index);
                if (overlap && !handOver)
                    planError(k, coresText(k) + ": LX allocations of " + x.tensor + " [" + std::to_string(x.offset) + ", " +
                                     std::to_string(x.offset + x.bytes) + ") and " + y.tensor + " [" + std::to_string(y.offset) +
                                     ", " + std::to_string(y.offset + y.bytes) + ") overlap while both are live");
            }
    }
}

double numericsWork(const KernelBundle& bundle, const spyre::SpyreTarget& target)
{
    double work = 0;
    double clock = 0;
    for (const Kernel& k : bundle.kernels) {
        const KernelTime kt = timeKernel(k, bundle, target, clock, nullptr);
        work += static_cast<double>(kt.macs) + kVectorOpCostInMacs * static_cast<double>(kt.vectorOps);
    }
    return work;
}

void checkNumericsWork(const KernelBundle& bundle, const spyre::SpyreTarget& target, const SimOptions& options, const std::string& source)
{
    if (!options.numerics || !std::isfinite(options.maxNumericsWork))
        return;
    const double work = numericsWork(bundle, target);
    if (work > options.maxNumericsWork)
        throw InputError(SourceLocation{source, 0, 0}, "simulating the numbers of this bundle is " + groupDigits(static_cast<int64_t>(work)) +
                                               " multiply-adds (vector ops counted at their host cost), beyond the " +
                                               groupDigits(static_cast<int64_t>(options.maxNumericsWork)) + " started unasked; use --no-numerics for the timing alone, or --force");
}

SimResult simulate(const KernelBundle& bundle, const spyre::SpyreTarget& target, const std::map<std::string, model::HostTensor>& inputs,
                   const SimOptions& options, JobControl* job)
{
    const auto t0 = std::chrono::steady_clock::now();
    // A bundle is compiled for one target: the simulator computes with the bundle's sticks, cores and LX, so
    // they must be the target's (loadKernelBundle has checked them against each other).
    if (bundle.cores > target.cores || bundle.stickBytes != target.stickBytes || bundle.usableLxBytes > target.usableLxBytes() ||
        bundle.deviceDtype != target.deviceDtype)
        throw InputError(SourceLocation{}, "the bundle was compiled for " + std::to_string(bundle.cores) + " cores, " +
                                               std::to_string(bundle.stickBytes) + "-byte sticks, " + std::to_string(bundle.usableLxBytes) +
                                               " B of usable LX and " + bundle.deviceDtype + "; the target " + target.name + " has " +
                                               std::to_string(target.cores) + ", " + std::to_string(target.stickBytes) + ", " +
                                               std::to_string(target.usableLxBytes()) + " and " + target.deviceDtype);
    checkScratchpadPlan(bundle);
    checkNumericsWork(bundle, target, options);
    SimResult r;
    if (options.trace)
        r.trace = std::make_shared<Trace>();
    const int threads = options.hostThreads > 0 ? options.hostThreads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

    std::map<std::string, DeviceTensor> memory;
    if (options.numerics) {
        int64_t deviceBytes = 0;
        for (const spyre::BundleTensor& t : bundle.tensors)
            deviceBytes += t.layout.deviceElements() * 2;
        if (deviceBytes > target.deviceMemoryBytes)
            throw InputError(SourceLocation{}, "the bundle's tensors need " + std::to_string(deviceBytes) + " B of device memory, the target has " +
                                                   std::to_string(target.deviceMemoryBytes) + " B");
        for (const spyre::BundleTensor& t : bundle.tensors)
            memory.emplace(t.name, DeviceTensor(t, options.format));
        for (const std::string& name : bundle.inputs) {
            DeviceTensor& d = memory.at(name);
            const std::string& origin = d.meta().origin;
            const auto it = inputs.find(origin);
            if (it == inputs.end())
                throw InputError(SourceLocation{}, "no value given for input '" + origin + "'");
            const model::HostTensor& h = it->second;
            if (h.shape != d.shape())
                throw InputError(SourceLocation{}, "input '" + origin + "' has shape " + spyre::shapeText(h.shape) + ", the bundle expects " +
                                                       spyre::shapeText(d.shape()));
            if (h.isFloating())
                d.writeHost(h.f.data());
            else
                d.writeHostInts(h.i.data());
        }
        for (const auto& [name, c] : bundle.constants) {
            const auto it = memory.find(name);
            if (it == memory.end())
                continue;
            const int64_t have = c.f ? static_cast<int64_t>(c.f->size()) : c.i ? static_cast<int64_t>(c.i->size()) : 0;
            if (have != it->second.hostElements())
                throw InputError(SourceLocation{}, "constant '" + name + "' carries " + std::to_string(have) + " values, its shape needs " +
                                                       std::to_string(it->second.hostElements()));
            if (c.f)
                it->second.writeHost(c.f->data());
            else
                it->second.writeHostInts(c.i->data());
        }
        for (const spyre::BundleTensor& t : bundle.tensors)
            if (t.kind == spyre::BufferKind::Constant && !bundle.constants.count(t.name))
                throw InputError(SourceLocation{}, "constant '" + t.origin + "' has no data in the bundle (a shape-only model cannot be "
                                                                             "simulated for numbers; use timing only)");
    }

    // Per core, which sticks of each LX-resident tensor its LX holds (the functional check of the scratchpad plan).
    LxState lx;
    if (options.numerics)
        for (const Kernel& k : bundle.kernels)
            for (const spyre::KernelTensorArg& a : k.tensors)
                if (a.inLx && !lx.count(a.tensor)) {
                    const DeviceTensor& d = memory.at(a.tensor);
                    LxResidency res;
                    res.sticks = (d.deviceElements() + bundle.stickElements() - 1) / bundle.stickElements();
                    res.held.assign(static_cast<size_t>(bundle.cores), std::vector<uint8_t>(static_cast<size_t>(res.sticks), 0));
                    lx.emplace(a.tensor, std::move(res));
                }
    double clock = 0;
    for (size_t i = 0; i < bundle.kernels.size(); ++i) {
        const Kernel& k = bundle.kernels[i];
        if (job) {
            job->checkpoint();
            job->report(static_cast<double>(i) / static_cast<double>(bundle.kernels.size()), "simulating " + k.name);
        }
        if (options.numerics) {
            const auto k0 = std::chrono::steady_clock::now();
            executeKernel(k, memory, options.format, bundle.stickElements(), threads, &lx);
            r.kernelWallMsEach.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - k0).count());
            r.kernelWallMs += r.kernelWallMsEach.back();
            if (options.afterKernel)
                options.afterKernel(k, memory);
        }
        KernelTime kt = timeKernel(k, bundle, target, clock, r.trace.get());
        clock += kt.timeNs;
        r.kernelTimeNs += kt.timeNs;
        r.rooflineNs += kt.rooflineNs;
        r.bytesMoved += kt.bytesRead + kt.bytesWritten;
        r.macs += kt.macs;
        r.kernels.push_back(std::move(kt));
    }
    if (options.numerics)
        for (const std::string& name : bundle.outputs) {
            const DeviceTensor& d = memory.at(name);
            r.outputs[d.meta().origin] = d.readHost(hostDtypeOf(d.meta().dtype));
        }
    if (r.trace)
        r.trace->sort();
    r.notes.push_back(std::string("device memory in ") + deviceFormatName(options.format) + ", fp32 accumulation");
    r.wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

}  // namespace spyglass::spyresim
