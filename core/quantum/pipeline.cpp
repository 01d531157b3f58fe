#include "core/quantum/pipeline.h"

#include "core/quantum/qpir_printer.h"

#include <chrono>

namespace spyglass::quantum {

std::vector<std::unique_ptr<Pass>> QuantumPipeline::passes(const PipelineOptions& o)
{
    std::vector<std::unique_ptr<Pass>> p;
    if (o.inlineGates)
        p.push_back(makeInlineGatesPass());
    if (o.decompose)
        p.push_back(makeDecomposePass(o.basis));
    if (o.optimize) {
        p.push_back(makeCancelInversesPass());
        p.push_back(makeMergeRotationsPass());
        p.push_back(makeRemoveIdentitiesPass());
    }
    if (o.coupling != Coupling::None) {
        p.push_back(makeRoutePass(o.coupling));
        if (o.decompose)
            p.push_back(makeDecomposePass(o.basis));   // the SWAPs routing inserted
        if (o.optimize)
            p.push_back(makeCancelInversesPass());
    }
    if (o.fuse)
        p.push_back(makeFusePass(o.fuseMaxQubits));
    return p;
}

QuantumPassManager QuantumPipeline::passManager(const PipelineOptions& o)
{
    QuantumPassManager pm([](const Circuit& c) { return printQpir(c); });
    for (auto& p : passes(o))
        pm.add(std::move(p));
    for (const PassInsertion& extra : o.extraPasses)
        pm.insert(extra);
    return pm;
}

std::vector<QuantumSnapshot> QuantumPipeline::run(const Circuit& input, const PipelineOptions& o, JobControl& job,
                                                  const std::vector<std::shared_ptr<PassInstrumentation<Circuit>>>& watchers)
{
    QuantumPassManager pm = passManager(o);
    for (const auto& w : watchers)
        pm.addInstrumentation(w);
    PassRunOptions run;
    run.stopAfter = o.stopAfter;
    run.keepIrText = o.recordIrText;
    run.job = &job;
    run.input.name = "input";
    run.input.description = "the circuit as parsed";
    run.input.summary = std::to_string(input.numQubits) + " qubits, " + std::to_string(input.gateCount()) + " gates, " +
                        std::to_string(input.ops.size()) + " ops";
    PassContext ctx{&job};
    return pm.run(input, ctx, run);
}

Circuit prepareForSimulation(const Circuit& c, int fuseMaxQubits, int localQubits)
{
    Circuit out = c;
    makeInlineGatesPass()->run(out);
    if (fuseMaxQubits > 1)
        makeFusePass(fuseMaxQubits, localQubits)->run(out);
    return out;
}

}  // namespace spyglass::quantum
