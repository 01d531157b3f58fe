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

std::vector<QuantumSnapshot> QuantumPipeline::runPasses(const Circuit& input, std::vector<std::unique_ptr<Pass>> passes, bool recordIrText,
                                                        JobControl& job)
{
    std::vector<QuantumSnapshot> snaps;
    QuantumSnapshot first;
    first.record.name = "input";
    first.record.description = "the circuit as parsed";
    first.record.summary = std::to_string(input.numQubits) + " qubits, " + std::to_string(input.gateCount()) + " gates, " +
                           std::to_string(input.ops.size()) + " ops";
    if (recordIrText)
        first.record.irText = printQpir(input);
    auto current = std::make_shared<Circuit>(input);
    first.circuit = current;
    snaps.push_back(std::move(first));
    for (size_t i = 0; i < passes.size(); ++i) {
        job.checkpoint();
        job.report(double(i) / passes.size(), passes[i]->name());
        auto next = std::make_shared<Circuit>(*current);
        const auto t0 = std::chrono::steady_clock::now();
        PassResult r = passes[i]->run(*next);
        QuantumSnapshot s;
        s.record.wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        s.record.name = passes[i]->name();
        s.record.description = passes[i]->description();
        s.record.changed = r.changed;
        s.record.summary = r.summary;
        if (recordIrText)
            s.record.irText = printQpir(*next);
        s.circuit = next;
        current = next;
        snaps.push_back(std::move(s));
    }
    job.report(1.0, "done");
    return snaps;
}

std::vector<QuantumSnapshot> QuantumPipeline::run(const Circuit& input, const PipelineOptions& o, JobControl& job)
{
    return runPasses(input, passes(o), o.recordIrText, job);
}

Circuit prepareForSimulation(const Circuit& c, int fuseMaxQubits)
{
    Circuit out = c;
    makeInlineGatesPass()->run(out);
    if (fuseMaxQubits > 1)
        makeFusePass(fuseMaxQubits)->run(out);
    return out;
}

}  // namespace spyglass::quantum
