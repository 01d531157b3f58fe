#include "core/spyre/spyre_pipeline.h"

#include "core/common/diagnostics.h"
#include "core/common/job_control.h"
#include "core/spyre/ir_printer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace spyglass::spyre {

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

std::optional<ScratchpadPolicy> parseScratchpadPolicy(const std::string& name)
{
    for (ScratchpadPolicy p : {ScratchpadPolicy::Greedy, ScratchpadPolicy::FirstFit, ScratchpadPolicy::BestFit, ScratchpadPolicy::None})
        if (name == scratchpadPolicyName(p))
            return p;
    return std::nullopt;
}

namespace {

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
        d.message = "tensor '" + largest->name + "' " + shapeText(largest->shape) + " needs " + formatBytes(largestBytes) +
                    " of device memory, more than the target's " + formatBytes(limit);
    else
        d.message = "the model's tensors need " + formatBytes(total) + " of device memory together, more than the target's " +
                    formatBytes(limit) + " (largest: '" + largest->name + "' " + shapeText(largest->shape) + ", " + formatBytes(largestBytes) + ")";
    throw InputError(std::move(d));
}

}  // namespace

SpyrePassManager makeSpyrePassManager(const CompileOptions& options)
{
    SpyrePassManager pm([](const Program& p) { return printProgram(p); });
    for (auto& p : makeSpyrePasses())
        pm.add(std::move(p));
    for (const PassInsertion& extra : options.extraPasses)
        pm.insert(extra);
    return pm;
}

std::vector<SpyreSnapshot> SpyrePipeline::run(Program program, const SpyreTarget& target, const CompileOptions& options,
                                              JobControl& job, const std::vector<std::shared_ptr<PassInstrumentation<Program>>>& watchers)
{
    checkDeviceMemory(program, target);
    SpyrePassManager pm = makeSpyrePassManager(options);
    for (const auto& w : watchers)
        pm.addInstrumentation(w);
    PassContext ctx{target, options, &job};
    PassRunOptions run;
    run.stopAfter = options.stopAfter;
    run.keepIrText = options.keepIrText;
    run.job = &job;
    run.input.name = "import";
    run.input.description = "the model as the compiler receives it (ONNX graph, static shapes)";
    run.input.summary = std::to_string(program.graphOps.size()) + " ops, " + std::to_string(program.tensors.size()) + " tensors";
    return pm.run(std::move(program), ctx, run);
}

std::vector<SpyreSnapshot> SpyrePipeline::run(Program program, const SpyreTarget& target, const CompileOptions& options,
                                              JobControl& job)
{
    return run(std::move(program), target, options, job, {});
}

std::vector<SpyreSnapshot> SpyrePipeline::run(const model::ModelGraph& graph, const SpyreTarget& target,
                                              const CompileOptions& options, JobControl& job)
{
    return run(importModel(graph, target), target, options, job);
}

}  // namespace spyglass::spyre
