#include "core/spyre/spyre_pipeline.h"

#include "core/common/diagnostics.h"
#include "core/common/job_control.h"
#include "core/spyre/ir_printer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace spyglass::spyre {

std::string groupDigits(int64_t n)
{
    std::string digits = std::to_string(n < 0 ? -n : n);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ' ';
        out += digits[i];
    }
    return n < 0 ? "-" + out : out;
}

const char* scratchpadPolicyName(ScratchpadPolicy p)
{
    switch (p) {
    case ScratchpadPolicy::Greedy: return "greedy";
    case ScratchpadPolicy::FirstFit: return "first-fit";
    case ScratchpadPolicy::BestFit: return "best-fit";
    case ScratchpadPolicy::None: return "none";
    }
    return "?";
}

std::vector<SpyreSnapshot> PassManager::run(Program program, PassContext& ctx, JobControl* job) const
{
    const std::string& stop = ctx.options.stopAfter;
    if (!stop.empty()) {
        bool known = false;
        for (const auto& p : passes_)
            known = known || stop == p->name();
        if (!known)
            throw InputError(SourceLocation{}, "--stop-after: no pass named '" + stop + "'");
    }
    std::vector<SpyreSnapshot> snaps;
    {
        SpyreSnapshot s;
        s.record.name = "import";
        s.record.description = "the model as the compiler receives it (ONNX graph, static shapes)";
        s.record.changed = true;
        s.record.summary = std::to_string(program.graphOps.size()) + " ops, " + std::to_string(program.tensors.size()) +
                           " tensors";
        if (ctx.options.keepIrText)
            s.record.irText = printProgram(program);
        s.program = std::make_shared<const Program>(program);
        snaps.push_back(std::move(s));
    }
    const double total = static_cast<double>(passes_.size());
    for (size_t i = 0; i < passes_.size(); ++i) {
        Pass& pass = *passes_[i];
        if (job) {
            job->checkpoint();
            job->report(static_cast<double>(i) / total, pass.name());
        }
        const auto t0 = std::chrono::steady_clock::now();
        PassResult r = pass.run(program, ctx);
        const auto t1 = std::chrono::steady_clock::now();
        SpyreSnapshot s;
        s.record.name = pass.name();
        s.record.description = pass.description();
        s.record.changed = r.changed;
        s.record.summary = r.summary;
        s.record.wallMs = std::chrono::duration<double, std::milli>(t1 - t0).count();
        if (ctx.options.keepIrText)
            s.record.irText = printProgram(program);
        s.program = std::make_shared<const Program>(program);
        snaps.push_back(std::move(s));
        if (!stop.empty() && stop == pass.name())
            break;
    }
    if (job)
        job->report(1.0, "done");
    return snaps;
}

namespace {

std::string gibText(double bytes)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g GiB", bytes / double(uint64_t(1) << 30));
    return buf;
}

// Every tensor of the model lives in device memory (inputs, weights, intermediates, outputs): a model that cannot
// be resident is refused before any pass runs, naming the largest tensor. Sizes are without stick padding, so this
// is a lower bound; products are computed in double so that absurd shapes cannot overflow.
void checkDeviceMemory(const Program& p, const SpyreTarget& t)
{
    if (t.deviceMemoryBytes <= 0)
        return;
    const double limit = static_cast<double>(t.deviceMemoryBytes);
    double total = 0, largestBytes = -1;
    const GraphTensor* largest = nullptr;
    for (const GraphTensor& g : p.tensors) {
        double bytes = p.deviceDtypeBytes;
        for (int64_t d : g.shape)
            bytes *= static_cast<double>(std::max<int64_t>(d, 0));
        total += bytes;
        if (bytes > largestBytes) {
            largestBytes = bytes;
            largest = &g;
        }
    }
    if (!largest || total <= limit)
        return;
    Diagnostic d;
    d.location.file = p.sourcePath;
    if (largest->producer >= 0 && largest->producer < static_cast<int>(p.graphOps.size()))
        d.node = p.graphOps[largest->producer].label();
    if (largestBytes > limit)
        d.message = "tensor '" + largest->name + "' " + shapeText(largest->shape) + " needs " + gibText(largestBytes) +
                    " of device memory, more than the target's " + gibText(limit);
    else
        d.message = "the model's tensors need " + gibText(total) + " of device memory together, more than the target's " +
                    gibText(limit) + " (largest: '" + largest->name + "' " + shapeText(largest->shape) + ", " + gibText(largestBytes) + ")";
    throw InputError(std::move(d));
}

}  // namespace

std::vector<SpyreSnapshot> SpyrePipeline::run(Program program, const SpyreTarget& target, const CompileOptions& options,
                                              JobControl& job)
{
    checkDeviceMemory(program, target);
    PassManager pm;
    for (auto& p : makeSpyrePasses())
        pm.add(std::move(p));
    PassContext ctx{target, options, &job};
    return pm.run(std::move(program), ctx, &job);
}

std::vector<SpyreSnapshot> SpyrePipeline::run(const model::ModelGraph& graph, const SpyreTarget& target,
                                              const CompileOptions& options, JobControl& job)
{
    return run(importModel(graph, target), target, options, job);
}

}  // namespace spyglass::spyre
