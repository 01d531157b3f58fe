// `spyglass-cli compile MODEL`: run the Spyre compiler pass by pass; dump the IR after each pass, export the
// kernel bundle, pin stick dimensions ("what if this tensor were sticked on dim D?") and core splits.
#include "app/cli/cli.h"
#include "app/cli/pass_options.h"
#include "app/cli/session_option.h"

#include "core/common/diagnostics.h"
#include "core/common/job_control.h"
#include "core/common/pass_dump.h"
#include "core/model/model_loader.h"
#include "core/spyre/kernel_bundle.h"
#include "core/spyre/ir_printer.h"
#include "core/spyre/plan_summary.h"
#include "core/spyre/spyre_pipeline.h"
#include "core/workbench/workbench.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>

namespace spyglass::cli {
namespace {

using namespace spyglass::spyre;

std::pair<std::string, int> parsePin(const std::string& text)
{
    const auto eq = text.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw UsageError("--pin expects TENSOR=DIM, got '" + text + "'");
    const std::string dim = text.substr(eq + 1);
    if (dim.find_first_not_of("0123456789") != std::string::npos || dim.size() > 3)
        throw UsageError("--pin expects a dimension number after '=', got '" + dim + "'");
    return {text.substr(0, eq), std::stoi(dim)};
}

// "OP=p0:4,p1:8" -> {"OP", {p0: 4, p1: 8}}. Legality (vars exist, ways divide, cores suffice) is work_division's
// to judge: only it knows the op's vars and units.
std::pair<std::string, std::map<std::string, int>> parseSplitPin(const std::string& text)
{
    const auto eq = text.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw UsageError("--pin-split expects OP=VAR:WAYS[,VAR:WAYS]..., got '" + text + "'");
    std::map<std::string, int> ways;
    const std::string list = text.substr(eq + 1);
    size_t start = 0;
    while (start <= list.size()) {
        const size_t comma = std::min(list.find(',', start), list.size());
        const std::string item = list.substr(start, comma - start);
        const auto colon = item.find(':');
        const std::string var = colon == std::string::npos ? item : item.substr(0, colon);
        const std::string n = colon == std::string::npos ? std::string() : item.substr(colon + 1);
        if (var.empty() || n.empty() || n.size() > 4 || n.find_first_not_of("0123456789") != std::string::npos)
            throw UsageError("--pin-split expects VAR:WAYS items such as p0:4, got '" + item + "' in '" + text + "'");
        if (ways.count(var))
            throw UsageError("--pin-split names " + var + " twice in '" + text + "'");
        ways[var] = std::stoi(n);
        start = comma + 1;
    }
    return {text.substr(0, eq), ways};
}

int runCompile(Args& args)
{
    std::unique_ptr<CliSession> session = openSessionForCli(args);   // --session NAME [--db FILE]
    const std::string modelPath = args.positional("MODEL");
    CompileRequest request;
    request.kind = DocumentKind::Model;
    request.simulate = false;   // a compile has cost-model estimates only; simulated times come from `run`
    request.maxFileBytes.reset();   // --max-model-bytes is the loader's limit
    request.targetPath = args.value("--target");
    const std::optional<std::string> dumpDir = args.value("--dump-dir");
    const std::optional<std::string> exportDir = args.value("--export");
    CompileOptions& options = request.spyre;
    const PipelineCliOptions pipeline = readPipelineOptions(args);
    options.stopAfter = pipeline.stopAfter;
    request.plugins = pipeline.plugins;
    request.printAfter = pipeline.printAfter;
    request.printTo = &std::cerr;
    for (const std::string& pin : args.values("--pin")) {
        const auto [name, dim] = parsePin(pin);
        options.pins[name] = dim;
    }
    for (const std::string& pin : args.values("--pin-split")) {
        auto [op, ways] = parseSplitPin(pin);
        if (options.splitPins.count(op))
            throw UsageError("--pin-split given twice for " + op);
        options.splitPins[op] = std::move(ways);
    }
    request.load.dimValues = dimOptions(args);
    if (const auto limit = args.integer("--max-model-bytes", 1, std::numeric_limits<long long>::max()))
        request.load.maxModelBytes = static_cast<uint64_t>(*limit);
    options.baseline = args.flag("--baseline");
    if (const auto policy = args.value("--scratchpad"))
        options.scratchpad = parseScratchpadPolicyOption(*policy);
    args.flag("--json");
    args.finish();
    options.keepIrText = dumpDir.has_value();

    JobControl& job = commandJob();
    const CompiledDocument doc = compileDocument(QString::fromStdString(modelPath), job, request);
    const Program& last = *doc.programs.back();
    const SpyreTarget& target = *doc.target;
    if (session) {
        // The compile's pass timings and options, one run in the session's history.
        QJsonObject opts;
        opts[QStringLiteral("baseline")] = options.baseline;
        opts[QStringLiteral("stop_after")] = QString::fromStdString(options.stopAfter);
        QJsonObject pins;
        for (const auto& [name, dim] : options.pins)
            pins[QString::fromStdString(name)] = dim;
        opts[QStringLiteral("pins")] = pins;
        if (!options.splitPins.empty()) {
            QJsonObject splits;
            for (const auto& [op, ways] : options.splitPins) {
                QJsonObject w;
                for (const auto& [var, n] : ways)
                    w[QString::fromStdString(var)] = n;
                splits[QString::fromStdString(op)] = w;
            }
            opts[QStringLiteral("split_pins")] = splits;
        }
        recordRun(doc, session->recorder(), "compile", QJsonDocument(opts).toJson(QJsonDocument::Compact).toStdString());
    }
    if (exportDir && !last.bundle)
        throw UsageError("--export needs the codegen pass; --stop-after '" + options.stopAfter + "' stops before it");

    if (dumpDir)
        writePassDumps(*dumpDir, doc.passes);
    if (exportDir)
        exportKernelBundle(*last.bundle, *exportDir);

    const PlanSummary plan = summarizePlan(last);
    const int64_t restickCount = plan.restickifyCount, restickElements = plan.restickifyElements;
    const int coresUsed = plan.coresUsed;
    const int64_t kernels = plan.kernels;

    if (args.json()) {
        QJsonArray passes;
        for (const PassRecord& r : doc.passes) {
            if (r.name == "import")
                continue;
            QJsonObject p;
            p[QStringLiteral("name")] = QString::fromStdString(r.name);
            p[QStringLiteral("changed")] = r.changed;
            p[QStringLiteral("summary")] = QString::fromStdString(r.summary);
            p[QStringLiteral("wall_ms")] = r.wallMs;
            passes.append(p);
        }
        QJsonObject restick;
        restick[QStringLiteral("count")] = static_cast<double>(restickCount);
        restick[QStringLiteral("elements")] = static_cast<double>(restickElements);
        QJsonObject o;
        o[QStringLiteral("passes")] = passes;
        o[QStringLiteral("restickify")] = restick;
        o[QStringLiteral("kernels")] = static_cast<double>(kernels);
        o[QStringLiteral("cores_used")] = coresUsed;
        o[QStringLiteral("lx_peak_bytes")] = static_cast<double>(last.scratchpad.peakBytes);
        o[QStringLiteral("layout_optimal")] = last.layout.provenOptimal;
        printJson(o);
        return ExitOk;
    }
    std::cout << modelPath << " -> Spyre target '" << target.name << "' (" << target.cores << " cores, "
              << groupDigits(target.usableLxBytes()) << " B usable LX per core)\n";
    for (size_t i = 0; i < doc.passes.size(); ++i) {
        const PassRecord& r = doc.passes[i];
        char line[64];
        std::snprintf(line, sizeof line, "%02zu %-20s %8.2f ms  %s ", i, r.name.c_str(), r.wallMs, r.changed ? "*" : " ");
        std::cout << line << r.summary << '\n';
    }
    std::cout << "restickify: " << restickCount << " ops moving " << groupDigits(restickElements) << " elements"
              << "; layout cost " << groupDigits(last.layout.cost) << " elements, "
              << (last.layout.provenOptimal ? "proven optimal" : "not proven optimal (gap <= " +
                                                                    groupDigits(last.layout.cost - last.layout.lowerBound) + ")")
              << "\nkernels: " << kernels << ", cores used: " << coresUsed << ", LX peak: "
              << groupDigits(last.scratchpad.peakBytes) << " B per core\n";
    if (dumpDir)
        std::cout << "IR after each pass written to " << *dumpDir << "\n";
    if (exportDir)
        std::cout << "kernel bundle written to " << *exportDir << "\n";
    return ExitOk;
}

const RegisterCommand reg{{"compile", "compile an ONNX model for the Spyre target, pass by pass",
                           "compile MODEL [--target FILE] [--dump-dir DIR] [--export DIR] [--stop-after PASS] [--print-after PASS|all]... "
                           "[--pass-plugin FILE]... "
                           "[--pin TENSOR=DIM]... [--pin-split OP=VAR:WAYS[,VAR:WAYS]]... [--baseline] [--scratchpad greedy|first-fit|best-fit|none] "
                           "[--dim NAME=SIZE]... [--max-model-bytes N] "
                           "[--session NAME [--db FILE]] [--json]",
                           runCompile,
                           "--dump-dir writes NN-<pass>.txt (the IR after each pass; 00-import is the input).\n"
                           "--print-after PASS prints the IR after PASS (or after every pass: all) to stderr.\n"
                           "--pass-plugin FILE loads a pass plugin (a shared library built against <spyglass/pass_plugin.h>)\n"
                           "and inserts its passes where it says (e.g. after:optimize_layouts); repeatable.\n"
                           "--export writes a kernel bundle (manifest.json, kernels/*.json, listing.txt).\n"
                           "--pin forces a tensor (ONNX value or buffer name) to be sticked on dimension DIM.\n"
                           "--pin-split forces an op's core split (op name as work_division prints it, e.g. op3, or\n"
                           "its ONNX node name): --pin-split op0=p0:4,p1:8; vars left out are not split.\n"
                           "--baseline uses torch-spyre's default device order and work division.\n"
                           "--target loads another target description (default: resources/targets/spyre.json).\n"
                           "--dim NAME=SIZE gives a symbolic input dimension (dynamic axis) a static size; repeatable.\n"
                           "--max-model-bytes refuses larger model files (and as much external data); default 2 GiB - 1.",
                           spyrePassNames}};

}  // namespace
}  // namespace spyglass::cli
