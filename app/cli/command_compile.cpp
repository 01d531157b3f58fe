// `spyglass-cli compile MODEL`: run the Spyre compiler pass by pass; dump the IR after each pass, export the
// kernel bundle, pin stick dimensions ("what if this tensor were sticked on dim D?") and core splits.
#include "app/cli/cli.h"
#include "app/cli/session_option.h"

#include "core/common/diagnostics.h"
#include "core/common/job_control.h"
#include "core/model/model_loader.h"
#include "core/spyre/kernel_bundle.h"
#include "core/spyre/plan_summary.h"
#include "core/spyre/spyre_pipeline.h"

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

ScratchpadPolicy parsePolicy(const std::string& s)
{
    if (s == "greedy")
        return ScratchpadPolicy::Greedy;
    if (s == "first-fit")
        return ScratchpadPolicy::FirstFit;
    if (s == "best-fit")
        return ScratchpadPolicy::BestFit;
    throw UsageError("--scratchpad expects greedy, first-fit or best-fit, got '" + s + "'");
}

void writeText(const std::filesystem::path& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out)
        throw InputError(SourceLocation{path.string(), 0, 0}, "cannot write file");
}

int runCompile(Args& args)
{
    std::unique_ptr<CliSession> session = openSessionForCli(args);   // --session NAME [--db FILE]
    const std::string modelPath = args.positional("MODEL");
    const std::optional<std::string> targetPath = args.value("--target");
    const std::optional<std::string> dumpDir = args.value("--dump-dir");
    const std::optional<std::string> exportDir = args.value("--export");
    CompileOptions options;
    options.stopAfter = args.valueOr("--stop-after", "");
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
    model::LoadOptions loadOptions;
    loadOptions.dimValues = dimOptions(args);
    if (const auto limit = args.integer("--max-model-bytes", 1, std::numeric_limits<long long>::max()))
        loadOptions.maxModelBytes = static_cast<uint64_t>(*limit);
    options.baseline = args.flag("--baseline");
    if (const auto policy = args.value("--scratchpad"))
        options.scratchpad = parsePolicy(*policy);
    args.flag("--json");
    args.finish();

    const SpyreTarget target = targetPath ? SpyreTarget::load(*targetPath) : SpyreTarget::loadDefault();
    const model::ModelGraph graph = model::loadModel(modelPath, loadOptions);
    options.keepIrText = dumpDir.has_value();
    JobControl job;
    const std::vector<SpyreSnapshot> snaps = SpyrePipeline::run(graph, target, options, job);
    const Program& last = *snaps.back().program;
    if (session) {
        // The compile's pass timings and options, one run in the session's history.
        auto& rec = session->recorder();
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
        rec.beginRun({.kind = "compile", .artifactPath = modelPath, .artifactKind = "onnx", .targetPath = target.path,
                      .optionsJson = QJsonDocument(opts).toJson(QJsonDocument::Compact).toStdString()});
        for (const SpyreSnapshot& s : snaps)
            rec.addPassTiming(s.record.name, s.record.wallMs);
        // No kernel timings here: a compile only has cost-model estimates; simulated times come from `run`.
        rec.finishRun(session::RunStatus::Ok);
    }
    if (exportDir && !last.bundle)
        throw UsageError("--export needs the codegen pass; --stop-after '" + options.stopAfter + "' stops before it");

    if (dumpDir) {
        std::error_code ec;
        std::filesystem::create_directories(*dumpDir, ec);
        if (ec)
            throw InputError(SourceLocation{*dumpDir, 0, 0}, "cannot create directory: " + ec.message());
        for (size_t i = 0; i < snaps.size(); ++i) {
            char name[96];
            std::snprintf(name, sizeof name, "%02zu-%s.txt", i, snaps[i].record.name.c_str());
            writeText(std::filesystem::path(*dumpDir) / name, snaps[i].record.irText);
        }
    }
    if (exportDir)
        exportKernelBundle(*last.bundle, *exportDir);

    const PlanSummary plan = summarizePlan(last);
    const int64_t restickCount = plan.restickifyCount, restickElements = plan.restickifyElements;
    const int coresUsed = plan.coresUsed;
    const int64_t kernels = plan.kernels;

    if (args.json()) {
        QJsonArray passes;
        for (const SpyreSnapshot& s : snaps) {
            if (s.record.name == "import")
                continue;
            QJsonObject p;
            p[QStringLiteral("name")] = QString::fromStdString(s.record.name);
            p[QStringLiteral("changed")] = s.record.changed;
            p[QStringLiteral("summary")] = QString::fromStdString(s.record.summary);
            p[QStringLiteral("wall_ms")] = s.record.wallMs;
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
    for (size_t i = 0; i < snaps.size(); ++i) {
        const PassRecord& r = snaps[i].record;
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
                           "compile MODEL [--target FILE] [--dump-dir DIR] [--export DIR] [--stop-after PASS] "
                           "[--pin TENSOR=DIM]... [--pin-split OP=VAR:WAYS[,VAR:WAYS]]... [--baseline] [--scratchpad greedy|first-fit|best-fit] [--dim NAME=SIZE]... [--max-model-bytes N] "
                           "[--session NAME [--db FILE]] [--json]",
                           runCompile,
                           "Passes: decompose, lower, fuse, propagate_layouts, optimize_layouts, insert_restickify,\n"
                           "coarse_tiling, work_division, scratchpad_planning, codegen.\n"
                           "--dump-dir writes NN-<pass>.txt (the IR after each pass; 00-import is the input).\n"
                           "--export writes a kernel bundle (manifest.json, kernels/*.json, listing.txt).\n"
                           "--pin forces a tensor (ONNX value or buffer name) to be sticked on dimension DIM.\n"
                           "--pin-split forces an op's core split (op name as work_division prints it, e.g. op3, or\n"
                           "its ONNX node name): --pin-split op0=p0:4,p1:8; vars left out are not split.\n"
                           "--baseline uses torch-spyre's default device order and work division.\n"
                           "--target loads another target description (default: resources/targets/spyre.json).\n"
                           "--dim NAME=SIZE gives a symbolic input dimension (dynamic axis) a static size; repeatable.\n"
                           "--max-model-bytes refuses larger model files (and as much external data); default 2 GiB - 1."}};

}  // namespace
}  // namespace spyglass::cli
