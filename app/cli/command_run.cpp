// `spyglass-cli run MODEL`: run an ONNX model on a backend and, with --test-data, check every output
// elementwise against the expected tensors: |y - ref| <= atol + rtol * |ref|.
//
// Backends are rows of one table (kBackends). The reference backend is the fp32 interpreter of
// core/model; the Spyre backend (compile + simulate) is added as another row with its own run
// function and default tolerances, and fills the timing fields the reference backend leaves null.
#include "app/cli/cli.h"
#include "app/cli/pass_options.h"
#include "app/cli/session_option.h"

#include "core/common/diagnostics.h"
#include "core/common/job_control.h"
#include "core/common/trace.h"
#include "core/common/units.h"
#include "core/model/model_loader.h"
#include "core/model/reference_interpreter.h"
#include "core/model/tensor_file.h"
#include "core/model/test_data.h"
#include "core/spyre/kernel_bundle.h"
#include "core/spyre/spyre_pipeline.h"
#include "core/spyresim/device_memory.h"
#include "core/spyresim/plan_tuner.h"
#include "core/workbench/tuning_record.h"
#include "core/spyresim/numerics_bisect.h"
#include "core/spyresim/spyre_simulator.h"
#include "core/workbench/workbench.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>

namespace spyglass::cli {
namespace {

using namespace spyglass::model;

struct BackendOptions {
    std::optional<std::string> plan;         // spyre: optimized | baseline | tuned
    std::optional<std::string> trace;        // spyre: Chrome trace output file
    std::optional<std::string> scratchpad;   // spyre: greedy | first-fit | best-fit | none
    std::optional<std::string> format;       // spyre: fp16 | dl16
    std::optional<std::string> target;       // spyre: target description file
    bool noNumerics = false;                 // spyre: timing only
    bool force = false;                      // spyre: numbers however much work they are
    bool bisect = false;                     // spyre: numerics bisect (core/spyresim/numerics_bisect.h)
    std::vector<const plugins::LoadedPlugin*> plugins;   // spyre: --pass-plugin
};

using InputSource = std::function<const std::vector<HostTensor>&()>;

// What a backend returns. Fields a backend cannot measure stay empty and are printed as null.
struct BackendResult {
    std::vector<HostTensor> outputs;   // in ModelGraph::outputs order
    // The Spyre simulation (null for the reference backend, which measures no device time), the plan's scratchpad
    // peak, and the compile's passes (empty for a bundle): what the session records, through the workbench.
    std::shared_ptr<const spyresim::SimResult> sim;
    int64_t lxPeakBytes = 0;
    PassRecords passes;
    bool computedOutputs = true;   // false for a timing-only simulation
    std::vector<std::string> notes;
    std::optional<QJsonObject> tuning;   // --plan tuned: the search (recorded in the session with the --json object)
    std::function<void(session::SessionRecorder&)> recordAfter;   // runs of its own after this one (the tuner's candidates)
    std::optional<spyresim::BisectReport> bisect;
};

struct Backend {
    const char* name;
    const char* description;
    double defaultRtol;
    // Default atol given the expected outputs (the spyre backend scales it with max|ref|).
    double (*defaultAtol)(const std::vector<HostTensor>& expected);
    // `inputs` makes the inputs when first called: a backend checks what it can before they exist (they can be as
    // large as the work).
    BackendResult (*run)(const ModelGraph& graph, const InputSource& inputs, const BackendOptions& options);
};

double referenceAtol(const std::vector<HostTensor>&) { return 1e-5; }

BackendResult runReferenceBackend(const ModelGraph& graph, const InputSource& inputs, const BackendOptions& options)
{
    if (options.plan)
        throw UsageError("--plan applies to the spyre backend only");
    if (options.trace || options.scratchpad || options.format || options.target || options.noNumerics || options.bisect || !options.plugins.empty())
        throw UsageError("--trace, --scratchpad, --format, --target, --pass-plugin, --no-numerics and --bisect apply to the spyre backend only");
    BackendResult r;
    r.outputs = runReference(graph, inputs()).outputs;
    return r;
}

// The spyre backend's default atol: torch-spyre's 2e-3 * max(1, max|ref|) over the expected outputs.
double spyreAtol(const std::vector<HostTensor>& expected) { return spyresim::deviceAtol(expected); }

spyresim::SimOptions simOptions(const BackendOptions& options)
{
    spyresim::SimOptions so;
    so.numerics = !options.noNumerics;
    so.trace = options.trace.has_value();
    if (!options.force)
        so.maxNumericsWork = spyresim::kMaxUnaskedNumericsWork;
    if (options.format) {
        try {
            so.format = spyresim::parseDeviceFormat(*options.format);
        } catch (const std::invalid_argument& e) {
            throw UsageError(std::string("--format: ") + e.what());
        }
    }
    return so;
}

// Simulation results -> the backend result; writes the Chrome trace when asked, as the GUI's Timeline shows and
// exports it (core/workbench: kernels lane first).
void fillFromSimulation(BackendResult& r, std::shared_ptr<const spyresim::SimResult> simulation, const BackendOptions& options, int64_t lxPeak,
                        const std::string& artifact)
{
    const spyresim::SimResult& sim = *simulation;
    r.sim = std::move(simulation);
    r.lxPeakBytes = lxPeak;
    r.computedOutputs = !options.noNumerics;
    r.notes = sim.notes;
    if (options.trace && sim.trace) {
        std::ofstream out(*options.trace, std::ios::binary);
        if (!out)
            throw InputError(SourceLocation{*options.trace, 0, 0}, "cannot write the trace file");
        // Named like the GUI names it: the file, or the bundle's folder.
        std::filesystem::path name = std::filesystem::path(artifact).lexically_normal();
        if (name.filename().empty() || name.filename() == ".")
            name = name.parent_path();
        writeChromeTrace(*traceWithKernelLane(sim), out, "Spyre simulator: " + name.filename().string());
    }
}

// `--plan tuned` searches for at most this long (wall time) after the cost-model compile.
constexpr double kTuneBudgetMs = 10000;

// The workbench's compile of the loaded model (the GUI's), then its simulation on these inputs. A tuned plan is
// the tuner's split pins compiled the same way.
BackendResult runSpyreBackend(const ModelGraph& graph, const InputSource& inputs, const BackendOptions& options)
{
    CompileRequest request;
    request.targetPath = options.target;
    request.spyre.baseline = options.plan && *options.plan == "baseline";
    request.spyre.keepIrText = false;
    if (options.scratchpad)
        request.spyre.scratchpad = parseScratchpadPolicyOption(*options.scratchpad);
    request.plugins = options.plugins;
    JobControl& job = commandJob();
    const bool tuned = options.plan && *options.plan == "tuned";
    std::optional<spyresim::TunedPlan> tuning;
    if (tuned) {
        spyre::CompileOptions co = request.spyre;
        co.extraPasses = plugins::spyreInsertions(options.plugins);
        tuning = spyresim::tunePlan(graph, spyre::SpyreTarget::loadOrDefault(options.target), co, job, kTuneBudgetMs);
        request.spyre.splitPins = tuning->splitPins;
        request.spyre.orderPins = tuning->orderPins;
    }
    const CompiledDocument doc = compileModelGraph(graph, job, request);
    const spyresim::SimOptions so = simOptions(options);
    if (doc.programs.back()->bundle)
        spyresim::checkNumericsWork(*doc.programs.back()->bundle, *doc.target, so, graph.sourcePath);
    const SpyreRunResult run = runOnSpyre(doc, graph, options.noNumerics ? std::vector<HostTensor>{} : inputs(), so, &job);
    BackendResult r;
    r.outputs = run.outputs;
    fillFromSimulation(r, run.sim, options, doc.programs.back()->scratchpad.peakBytes, graph.sourcePath);
    r.passes = doc.passes;
    r.notes.insert(r.notes.begin(), std::string("plan ") + (request.spyre.baseline ? "baseline" : tuned ? "tuned" : "optimized") + ", scratchpad " +
                                        spyre::scratchpadPolicyName(request.spyre.scratchpad) + ", target " + doc.target->name);
    if (tuning) {
        int kept = 0;
        for (const spyresim::TuneCandidate& c : tuning->candidates)
            kept += c.kept;
        char gain[200];
        std::snprintf(gain, sizeof gain, "tuned: %d candidate splits and device orders simulated, %d kept; %s -> %s (%.3fx over the cost-model plan)%s",
                      static_cast<int>(tuning->candidates.size()), kept, formatDuration(tuning->costModelNs).c_str(),
                      formatDuration(tuning->tunedNs).c_str(), tuning->gain(), tuning->budgetExhausted ? ", time budget reached" : "");
        r.notes.insert(r.notes.begin() + 1, gain);
        QJsonObject t;
        t[QStringLiteral("cost_model_ns")] = tuning->costModelNs;
        t[QStringLiteral("tuned_ns")] = tuning->tunedNs;
        t[QStringLiteral("gain")] = tuning->gain();
        t[QStringLiteral("budget_exhausted")] = tuning->budgetExhausted;
        QJsonArray cands;
        for (const spyresim::TuneCandidate& c : tuning->candidates) {
            QJsonObject entry, ways;
            for (const auto& [var, n] : c.ways)
                ways[QString::fromStdString(var)] = n;
            entry[QStringLiteral("op")] = QString::fromStdString(c.op);
            entry[QStringLiteral("what")] = QString::fromStdString(c.what);
            entry[QStringLiteral("label")] = QString::fromStdString(c.label());
            entry[QStringLiteral("ways")] = ways;
            entry[QStringLiteral("estimate_us")] = c.estimateUs;
            entry[QStringLiteral("simulated_ns")] = c.simulatedNs;
            entry[QStringLiteral("kept")] = c.kept;
            cands.append(entry);
        }
        t[QStringLiteral("candidates")] = cands;
        r.tuning = t;
        r.recordAfter = [plan = std::make_shared<spyresim::TunedPlan>(std::move(*tuning)), file = graph.sourcePath](session::SessionRecorder& rec) {
            recordTuning(*plan, file, rec);
        };
    }
    if (options.bisect) {
        std::map<std::string, HostTensor> byName;
        for (size_t k = 0; k < graph.inputs.size(); ++k)
            byName[graph.values[graph.inputs[k]].name] = inputs().at(k);
        r.bisect = spyresim::bisectNumerics(graph, *doc.programs.back()->bundle, *doc.target, byName, so, &job);
    }
    return r;
}

const Backend kBackends[] = {
    {"reference", "fp32 reference interpreter (plain loops, numpy semantics)", 1e-4, referenceAtol, runReferenceBackend},
    {"spyre", "compile for Spyre, then simulate the kernel bundle (fp16 device memory, timing model)", spyresim::kDeviceRtol, spyreAtol, runSpyreBackend},
};

const Backend& findBackend(const std::string& name)
{
    for (const Backend& b : kBackends)
        if (name == b.name)
            return b;
    std::string known;
    for (const Backend& b : kBackends)
        known += std::string(known.empty() ? "" : ", ") + b.name;
    throw UsageError("unknown backend '" + name + "' (available: " + known + ")");
}


// The expected outputs must fit the model's outputs; a mismatch is bad test data (exit 2), not a failed check.
void checkExpectedOutputs(const ModelGraph& graph, const TestDataSet& data)
{
    if (data.outputs.size() != graph.outputs.size())
        throw InputError(SourceLocation{data.dir, 0, 0}, "test data has " + std::to_string(data.outputs.size()) + " output file(s) but the model has " +
                                                              std::to_string(graph.outputs.size()) + " output(s)");
    for (size_t k = 0; k < data.outputs.size(); ++k) {
        const Value& v = graph.values[graph.outputs[k]];
        const std::string file = (std::filesystem::path(data.dir) / ("output_" + std::to_string(k) + ".pb")).string();
        if (data.outputs[k].dtype != v.dtype)
            throw InputError(SourceLocation{file, 0, 0}, "output '" + v.name + "': wrong dtype " + dtypeName(data.outputs[k].dtype) +
                                                             ", the model produces " + dtypeName(v.dtype));
        if (data.outputs[k].shape != v.shape)
            throw InputError(SourceLocation{file, 0, 0}, "output '" + v.name + "': wrong shape " + shapeString(data.outputs[k].shape) +
                                                             ", the model produces " + shapeString(v.shape));
    }
}

QJsonValue optionalNumber(const std::optional<double>& v) { return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null); }

QJsonArray shapeJson(const Shape& s)
{
    QJsonArray a;
    for (int64_t d : s)
        a.append(static_cast<double>(d));
    return a;
}

std::string coordsText(const std::vector<int64_t>& c)
{
    std::string s = "[";
    for (size_t k = 0; k < c.size(); ++k)
        s += (k ? ", " : "") + std::to_string(c[k]);
    return s + "]";
}

struct OutputSpec {
    std::string name;
    DType dtype = DType::Float32;
    Shape shape;
};

// What a run checks its outputs against: the test data set, or (spyre backend without test data) the reference
// interpreter on the same inputs.
struct Expectation {
    const std::vector<HostTensor>* outputs = nullptr;
    std::string source;   // "test data DIR", "reference interpreter"
};

struct RunContext {
    std::string file;
    std::string header;   // first line of the text report
    std::vector<OutputSpec> outputs;
    const Backend* backend = nullptr;
    std::optional<double> rtolOpt, atolOpt;
    Expectation expected;
    bool generatedInputs = false;
    CliSession* session = nullptr;
    std::string targetPath;   // the Spyre target the run simulates on (recorded with the run, as the explorer does)
    double wallMs = 0;
};

void validateTolerances(const std::optional<double>& rtol, const std::optional<double>& atol)
{
    if (rtol && (*rtol < 0 || !std::isfinite(*rtol)))
        throw UsageError("--rtol must be a finite number >= 0");
    if (atol && (*atol < 0 || !std::isfinite(*atol)))
        throw UsageError("--atol must be a finite number >= 0");
}

BackendOptions backendOptions(Args& args)
{
    BackendOptions options;
    options.plan = args.value("--plan");
    options.trace = args.value("--trace");
    options.scratchpad = args.value("--scratchpad");
    options.format = args.value("--format");
    options.target = args.value("--target");
    options.noNumerics = args.flag("--no-numerics");
    options.force = args.flag("--force");
    options.bisect = args.flag("--bisect");
    options.plugins = readPassPlugins(args);
    if (options.plan && *options.plan != "optimized" && *options.plan != "baseline" && *options.plan != "tuned")
        throw UsageError("--plan must be optimized, baseline or tuned, got '" + *options.plan + "'");
    return options;
}

void beginSessionRun(const RunContext& ctx, const char* kind, const char* artifactKind, const std::optional<std::string>& testData)
{
    if (!ctx.session)
        return;
    QJsonObject opts;
    opts[QStringLiteral("backend")] = QString::fromLatin1(ctx.backend->name);
    opts[QStringLiteral("test_data")] = testData ? QJsonValue(QString::fromStdString(*testData)) : QJsonValue(QJsonValue::Null);
    opts[QStringLiteral("rtol")] = optionalNumber(ctx.rtolOpt);
    opts[QStringLiteral("atol")] = optionalNumber(ctx.atolOpt);
    ctx.session->recorder().beginRun({.kind = kind, .artifactPath = ctx.file, .artifactKind = artifactKind, .targetPath = ctx.targetPath,
                                      .optionsJson = QJsonDocument(opts).toJson(QJsonDocument::Compact).toStdString()});
}

template <typename Fn>
BackendResult runRecorded(const RunContext& ctx, Fn&& fn, double& wallMs)
{
    const auto t0 = std::chrono::steady_clock::now();
    BackendResult result;
    try {
        result = fn();
    } catch (const std::exception& e) {
        if (ctx.session)
            ctx.session->recorder().finishRun(session::RunStatus::Error, e.what());
        throw;
    }
    wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return result;
}

// Checks the outputs, prints the report (text or --json), records the run in the session; returns the exit code.
int reportRun(Args& args, const RunContext& ctx, const BackendResult& result, std::ostringstream& text, QJsonObject& j)
{
    const bool checked = ctx.expected.outputs != nullptr;
    const double rtol = ctx.rtolOpt ? *ctx.rtolOpt : ctx.backend->defaultRtol;
    const double atol = ctx.atolOpt ? *ctx.atolOpt : (checked ? ctx.backend->defaultAtol(*ctx.expected.outputs) : 0.0);
    bool ok = true;
    std::optional<double> maxAbs, maxRel;
    QJsonArray outputsJson;
    const std::vector<TensorComparison> checks =
        checked && result.computedOutputs ? compareOutputs(result.outputs, *ctx.expected.outputs, rtol, atol) : std::vector<TensorComparison>{};
    text << ctx.header << ", backend " << ctx.backend->name << ", " << ctx.wallMs << " ms\n";
    for (const std::string& n : result.notes)
        text << n << '\n';
    if (ctx.generatedInputs)
        text << "no --test-data: inputs are deterministic (floats uniform in [-1, 1), seed 0; integers and bools 1)"
             << (checked ? "; outputs checked against the " + ctx.expected.source : std::string("; nothing is checked")) << '\n';
    for (size_t k = 0; k < ctx.outputs.size() && result.computedOutputs; ++k) {
        const OutputSpec& v = ctx.outputs[k];
        const HostTensor& y = result.outputs.at(k);
        QJsonObject o;
        o[QStringLiteral("name")] = QString::fromStdString(v.name);
        o[QStringLiteral("dtype")] = QString::fromLatin1(dtypeName(y.dtype));
        o[QStringLiteral("shape")] = shapeJson(y.shape);
        if (checked) {
            const TensorComparison& c = checks.at(k);
            ok = ok && c.ok;
            maxAbs = std::max(maxAbs.value_or(0.0), c.maxAbsErr);
            maxRel = std::max(maxRel.value_or(0.0), c.maxRelErr);
            o[QStringLiteral("ok")] = c.ok;
            o[QStringLiteral("max_abs_err")] = c.maxAbsErr;
            o[QStringLiteral("max_rel_err")] = c.maxRelErr;
            o[QStringLiteral("mismatches")] = static_cast<double>(c.mismatches);
            if (!c.ok && c.problem.empty()) {
                QJsonObject w;
                w[QStringLiteral("index")] = shapeJson(c.worstCoords);
                w[QStringLiteral("flat_index")] = static_cast<double>(c.worstIndex);
                w[QStringLiteral("value")] = c.worstValue;
                w[QStringLiteral("expected")] = c.worstReference;
                o[QStringLiteral("worst")] = w;
                std::cerr.precision(9);
                std::cerr << "output '" << v.name << "': " << c.mismatches << " element(s) outside |y - ref| <= " << atol << " + " << rtol
                          << " * |ref|; worst at " << coordsText(c.worstCoords) << ": got " << c.worstValue << ", expected " << c.worstReference
                          << " (abs err " << std::fabs(c.worstValue - c.worstReference) << ")\n";
            }
            text << "output '" << v.name << "' " << dtypeName(y.dtype) << shapeString(y.shape) << ": " << (c.ok ? "ok" : "MISMATCH")
                 << ", max abs err " << c.maxAbsErr << ", max rel err " << c.maxRelErr << '\n';
        } else {
            double lo = INFINITY, hi = -INFINITY, sum = 0;
            for (int64_t e = 0; e < y.size(); ++e) {
                const double x = y.isFloating() ? y.f[e] : static_cast<double>(y.i[e]);
                lo = std::min(lo, x);
                hi = std::max(hi, x);
                sum += x;
            }
            text << "output '" << v.name << "' " << dtypeName(y.dtype) << shapeString(y.shape) << ": min " << lo << ", max " << hi << ", mean "
                 << (y.size() ? sum / static_cast<double>(y.size()) : 0.0) << '\n';
        }
        outputsJson.append(o);
    }
    if (!result.computedOutputs)
        text << "--no-numerics: timing only, no outputs computed\n";
    if (result.sim) {
        const spyresim::SimResult& sim = *result.sim;
        text << "simulated kernel time " << sim.kernelTimeNs / 1000.0 << " us (roofline bound " << sim.rooflineNs / 1000.0 << " us), "
             << sim.bytesMoved << " B moved between device memory and LX, " << sim.kernels.size() << " kernel(s)\n";
        for (const spyresim::KernelTime& k : sim.kernels)
            text << "  " << k.name << " " << k.op << ": " << k.timeNs / 1000.0 << " us on " << k.cores << " core(s), utilisation "
                 << static_cast<int>(std::lround(k.utilisation * 100)) << "%, roofline " << k.rooflineNs / 1000.0 << " us, "
                 << k.bytesRead + k.bytesWritten << " B\n";
    }
    if (checked)
        text << (ok ? "result: all outputs match" : "result: MISMATCH") << " (rtol " << rtol << ", atol " << atol << ")\n";
    if (result.bisect) {
        text << result.bisect->text();
        QJsonArray steps;
        for (const spyresim::BisectStep& s : result.bisect->steps) {
            QJsonObject so;
            so[QStringLiteral("node")] = QString::fromStdString(s.node);
            so[QStringLiteral("value")] = QString::fromStdString(s.value);
            so[QStringLiteral("region_ops")] = s.regionNodes;
            so[QStringLiteral("max_abs_err")] = s.maxAbsErr;
            so[QStringLiteral("input_rounding")] = s.inputRounding;
            so[QStringLiteral("output_rounding")] = s.outputRounding;
            so[QStringLiteral("max_abs_ref")] = s.maxAbsRef;
            so[QStringLiteral("beyond_rounding")] = s.exceeds;
            steps.append(so);
        }
        QJsonObject b;
        b[QStringLiteral("steps")] = steps;
        auto nodeAt = [&](int k) { return k < 0 ? QJsonValue(QJsonValue::Null) : QJsonValue(QString::fromStdString(result.bisect->steps[static_cast<size_t>(k)].node)); };
        b[QStringLiteral("first_beyond_rounding")] = nodeAt(result.bisect->firstExceeding);
        b[QStringLiteral("largest_amplification")] = nodeAt(result.bisect->largestAmplification);
        j[QStringLiteral("bisect")] = b;
    } else if (checked && !ok && std::string(ctx.backend->name) == "spyre") {
        text << "to find the op it comes from: the same command with --bisect\n";
    }

    j[QStringLiteral("ok")] = ok;
    j[QStringLiteral("checked")] = checked;
    j[QStringLiteral("checked_against")] = checked ? QJsonValue(QString::fromStdString(ctx.expected.source)) : QJsonValue(QJsonValue::Null);
    j[QStringLiteral("backend")] = QString::fromLatin1(ctx.backend->name);
    j[QStringLiteral("max_abs_err")] = optionalNumber(maxAbs);
    j[QStringLiteral("max_rel_err")] = optionalNumber(maxRel);
    j[QStringLiteral("rtol")] = rtol;
    j[QStringLiteral("atol")] = atol;
    const spyresim::SimResult* sim = result.sim.get();
    j[QStringLiteral("kernel_time_ns")] = sim ? QJsonValue(sim->kernelTimeNs) : QJsonValue(QJsonValue::Null);
    j[QStringLiteral("roofline_ns")] = sim ? QJsonValue(sim->rooflineNs) : QJsonValue(QJsonValue::Null);
    j[QStringLiteral("bytes_moved")] = sim ? QJsonValue(static_cast<double>(sim->bytesMoved)) : QJsonValue(QJsonValue::Null);
    if (sim) {
        QJsonArray ks;
        for (const spyresim::KernelTime& k : sim->kernels) {
            QJsonObject ko;
            ko[QStringLiteral("name")] = QString::fromStdString(k.name);
            ko[QStringLiteral("op")] = QString::fromStdString(k.op);
            ko[QStringLiteral("time_ns")] = k.timeNs;
            ko[QStringLiteral("cores")] = k.cores;
            ko[QStringLiteral("roofline_ns")] = k.rooflineNs;
            ko[QStringLiteral("utilisation")] = k.utilisation;
            ko[QStringLiteral("bytes_moved")] = static_cast<double>(k.bytesRead + k.bytesWritten);
            ks.append(ko);
        }
        j[QStringLiteral("kernels")] = ks;
    } else {
        j[QStringLiteral("kernels")] = QJsonValue(QJsonValue::Null);
    }
    j[QStringLiteral("wall_ms")] = ctx.wallMs;
    j[QStringLiteral("outputs")] = outputsJson;
    if (result.tuning)
        j[QStringLiteral("tuning")] = *result.tuning;

    if (ctx.session) {
        auto& rec = ctx.session->recorder();
        rec.addPassTimings(result.passes);
        if (result.sim)
            recordSimulation(*result.sim, result.lxPeakBytes, rec);
        else
            rec.setSimulationWallMs(ctx.wallMs);   // the reference interpreter's run
        rec.setResultJson(QJsonDocument(j).toJson(QJsonDocument::Compact).toStdString());
        rec.finishRun(ok ? session::RunStatus::Ok : session::RunStatus::Failed, ok ? std::string() : "outputs do not match the expected values");
        if (result.recordAfter)
            result.recordAfter(rec);
    }
    if (args.json())
        printJson(j);
    else
        std::cout << text.str();
    return ok ? ExitOk : ExitJobFailed;
}

int runRun(Args& args)
{
    const std::string file = args.positional("MODEL");
    const std::string backendName = args.valueOr("--backend", "reference");
    const auto testData = args.value("--test-data");
    RunContext ctx;
    ctx.file = file;
    ctx.rtolOpt = args.number("--rtol");
    ctx.atolOpt = args.number("--atol");
    const std::map<std::string, int64_t> dims = dimOptions(args);
    const auto writeTestData = args.value("--write-test-data");
    const BackendOptions options = backendOptions(args);
    std::unique_ptr<CliSession> session = openSessionForCli(args);   // --session NAME [--db FILE]
    ctx.session = session.get();
    args.finish();
    const Backend& backend = findBackend(backendName);
    ctx.backend = &backend;
    if (std::string(backend.name) == "spyre")
        ctx.targetPath = options.target.value_or(spyre::SpyreTarget::defaultPath());
    validateTolerances(ctx.rtolOpt, ctx.atolOpt);
    if (options.noNumerics && options.bisect)
        throw UsageError("--bisect compares computed values: it cannot be combined with --no-numerics");
    if (options.noNumerics && (testData || writeTestData))
        throw UsageError("--no-numerics computes no outputs: it cannot be combined with --test-data or --write-test-data");

    // Test data first: its integer inputs (shapes, axes, indices) are bound as constants at load time.
    std::optional<TestDataSet> data;
    if (testData)
        data = readTestDataSet(*testData);
    LoadOptions loadOptions = data ? bindIntegerInputs(*data) : LoadOptions{};
    for (const auto& [name, size] : dims)
        loadOptions.dimValues[name] = size;
    const ModelGraph graph = loadModel(file, loadOptions);
    std::optional<std::vector<HostTensor>> madeInputs;
    const InputSource inputs = [&]() -> const std::vector<HostTensor>& {
        if (!madeInputs)
            madeInputs = data ? graphInputsFromTestData(graph, *data) : generatedInputs(graph);
        return *madeInputs;
    };
    if (data)
        checkExpectedOutputs(graph, *data);
    for (int v : graph.outputs)
        ctx.outputs.push_back(OutputSpec{graph.values[v].name, graph.values[v].dtype, graph.values[v].shape});
    ctx.generatedInputs = !data;
    {
        std::ostringstream h;
        h << file << ": " << graph.nodes.size() << " node(s), opset " << graph.opsetVersion;
        ctx.header = h.str();
    }

    beginSessionRun(ctx, "run", "onnx", testData);
    const BackendResult result = runRecorded(ctx, [&] { return backend.run(graph, inputs, options); }, ctx.wallMs);
    // The spyre backend without test data is checked against the reference interpreter on the same inputs (after
    // the backend, which refuses work beyond its limit before any input exists).
    std::vector<HostTensor> referenceOutputs;
    if (data) {
        ctx.expected = Expectation{&data->outputs, "test data " + data->dir};
    } else if (std::string(backend.name) == "spyre" && !options.noNumerics) {
        referenceOutputs = runReference(graph, inputs()).outputs;
        ctx.expected = Expectation{&referenceOutputs, "reference interpreter"};
    }

    std::ostringstream text;
    if (writeTestData) {
        // A complete test_data_set: every declared input (bound ones included) and this backend's outputs,
        // so a reference run makes the yardstick for another backend.
        std::error_code ec;
        std::filesystem::create_directories(*writeTestData, ec);
        if (ec)
            throw InputError(SourceLocation{*writeTestData, 0, 0}, "cannot create the folder: " + ec.message());
        for (size_t k = 0; k < graph.declaredInputs.size(); ++k) {
            const std::string& name = graph.declaredInputs[k];
            const std::string path = (std::filesystem::path(*writeTestData) / ("input_" + std::to_string(k) + ".pb")).string();
            if (data) {
                writeTensorFile(path, data->inputs[k], name);
                continue;
            }
            const auto it = std::find_if(graph.inputs.begin(), graph.inputs.end(), [&](int v) { return graph.values[v].name == name; });
            writeTensorFile(path, inputs().at(static_cast<size_t>(it - graph.inputs.begin())), name);
        }
        for (size_t k = 0; k < graph.outputs.size(); ++k)
            writeTensorFile((std::filesystem::path(*writeTestData) / ("output_" + std::to_string(k) + ".pb")).string(), result.outputs[k],
                            graph.values[graph.outputs[k]].name);
    }
    QJsonObject j;
    const int code = reportRun(args, ctx, result, text, j);
    if (writeTestData && !args.json())
        std::cout << "wrote " << graph.declaredInputs.size() << " input(s) and " << graph.outputs.size() << " output(s) to " << *writeTestData << '\n';
    return code;
}

// `spyglass-cli run-bundle DIR`: simulate an exported kernel bundle (no compiler involved).
int runBundle(Args& args)
{
    const std::string dir = args.positional("DIR");
    const auto testData = args.value("--test-data");
    RunContext ctx;
    ctx.file = dir;
    ctx.rtolOpt = args.number("--rtol");
    ctx.atolOpt = args.number("--atol");
    const BackendOptions options = backendOptions(args);
    std::unique_ptr<CliSession> session = openSessionForCli(args);
    ctx.session = session.get();
    args.finish();
    if (options.plan)
        throw UsageError("--plan is fixed when a bundle is compiled; run-bundle simulates the plan the bundle holds");
    if (options.scratchpad)
        throw UsageError("--scratchpad is fixed when a bundle is compiled; run-bundle simulates the plan the bundle holds");
    if (!options.plugins.empty())
        throw UsageError("--pass-plugin applies when a model is compiled; run-bundle simulates the bundle as it was compiled");
    if (options.bisect)
        throw UsageError("--bisect needs the model's ops: use run MODEL --backend spyre --bisect");
    validateTolerances(ctx.rtolOpt, ctx.atolOpt);
    if (options.noNumerics && testData)
        throw UsageError("--no-numerics computes no outputs: it cannot be combined with --test-data");
    ctx.backend = &findBackend("spyre");
    const spyre::KernelBundle bundle = spyre::loadKernelBundle(dir);
    const spyre::SpyreTarget target = spyre::SpyreTarget::loadOrDefault(options.target);
    ctx.targetPath = target.path;
    if (bundle.cores > target.cores)
        throw InputError(SourceLocation{dir + "/manifest.json", 0, 0}, "the bundle was compiled for " + std::to_string(bundle.cores) +
                                                                          " cores, the target has " + std::to_string(target.cores));

    spyresim::checkNumericsWork(bundle, target, simOptions(options), dir + "/manifest.json");   // before the inputs, which can be as large

    // Inputs by position: the bundle's inputs in manifest order are the model's graph inputs in order.
    std::optional<TestDataSet> data;
    if (testData)
        data = readTestDataSet(*testData);
    std::map<std::string, HostTensor> inputs;
    std::mt19937 rng(0);
    std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
    for (size_t k = 0; k < bundle.inputs.size(); ++k) {
        const spyre::BundleTensor& t = *bundle.tensor(bundle.inputs[k]);
        HostTensor h;
        if (data) {
            const auto it = std::find(data->inputNames.begin(), data->inputNames.end(), t.origin);
            const size_t pos = it != data->inputNames.end() ? static_cast<size_t>(it - data->inputNames.begin()) : k;
            if (pos >= data->inputs.size())
                throw InputError(SourceLocation{data->dir, 0, 0}, "no input file for bundle input '" + t.origin + "'");
            h = data->inputs[pos];
            const std::string f = (std::filesystem::path(data->dir) / ("input_" + std::to_string(pos) + ".pb")).string();
            if (h.shape != t.hostShape)
                throw InputError(SourceLocation{f, 0, 0}, "input '" + t.origin + "': wrong shape " + shapeString(h.shape) + ", the bundle expects " +
                                                              shapeString(t.hostShape));
            if (h.isFloating() != !spyresim::isIntegerDtype(t.dtype))
                throw InputError(SourceLocation{f, 0, 0}, "input '" + t.origin + "': wrong dtype " + dtypeName(h.dtype) + ", the bundle expects " + t.dtype);
        } else {
            h = makeTensor(spyresim::hostDtypeOf(t.dtype), t.hostShape);
            for (float& x : h.f)
                x = uni(rng);
        }
        inputs[t.origin] = std::move(h);
    }
    for (const std::string& name : bundle.outputs) {
        const spyre::BundleTensor& t = *bundle.tensor(name);
        ctx.outputs.push_back(OutputSpec{t.origin, spyresim::hostDtypeOf(t.dtype), t.hostShape});
    }
    if (data) {
        if (data->outputs.size() != ctx.outputs.size())
            throw InputError(SourceLocation{data->dir, 0, 0}, "test data has " + std::to_string(data->outputs.size()) + " output file(s) but the bundle has " +
                                                                  std::to_string(ctx.outputs.size()) + " output(s)");
        for (size_t k = 0; k < ctx.outputs.size(); ++k) {
            const std::string f = (std::filesystem::path(data->dir) / ("output_" + std::to_string(k) + ".pb")).string();
            if (data->outputs[k].shape != ctx.outputs[k].shape)
                throw InputError(SourceLocation{f, 0, 0}, "output '" + ctx.outputs[k].name + "': wrong shape " + shapeString(data->outputs[k].shape) +
                                                              ", the bundle produces " + shapeString(ctx.outputs[k].shape));
        }
        ctx.expected = Expectation{&data->outputs, "test data " + data->dir};
    }
    ctx.generatedInputs = !data;
    ctx.header = dir + ": kernel bundle of '" + bundle.model + "', " + std::to_string(bundle.kernels.size()) + " kernel(s) for " + bundle.targetName;
    beginSessionRun(ctx, "run", "bundle", testData);
    const BackendResult result = runRecorded(ctx, [&] {
        JobControl& job = commandJob();
        auto sim = std::make_shared<const spyresim::SimResult>(spyresim::simulate(bundle, target, inputs, simOptions(options), &job));
        BackendResult r;
        if (!options.noNumerics)
            for (const OutputSpec& o : ctx.outputs)
                r.outputs.push_back(sim->outputs.at(o.name));
        fillFromSimulation(r, sim, options, bundle.lxPeakBytes, dir);
        return r;
    }, ctx.wallMs);
    std::ostringstream text;
    QJsonObject j;
    return reportRun(args, ctx, result, text, j);
}

const char* const kSpyreOptionsHelp =
    "--plan P          spyre: optimized (default) or baseline (torch-spyre's default device order and work division,\n"
    "                  largest output dimension first, no cost model), or tuned (the optimized plan, then each matmul's\n"
    "                  split searched with the simulated time of the whole bundle, at most 10 s; notes the gain).\n"
    "--scratchpad S    spyre: greedy (default), first-fit, best-fit, or none (every buffer in device memory).\n"
    "--format F        spyre: device number format fp16 (default) or dl16 (IBM DLFloat16, 1-6-9).\n"
    "--trace FILE      spyre: writes the simulated timeline as Chrome Trace Event JSON (open in Perfetto).\n"
    "--no-numerics     spyre: timing only (no functional simulation; for large models).\n"
    "--force           spyre: simulate the numbers even past the work limit (about a minute of host time here).\n"
    "--bisect          spyre: compares every op's device output against the reference fed with the device's own\n"
    "                  inputs of that op, and names the first op whose error exceeds what rounding of its inputs\n"
    "                  to the device format explains (with the figures), or the op that amplifies rounding most.\n"
    "--target FILE     spyre: another target description (default resources/targets/spyre.json).\n";

// Built before the registrations below (same translation unit, in order), which keep pointers into them.
const std::string kRunDetails =
    std::string("--test-data DIR   an ONNX test_data_set_N folder (input_K.pb, output_K.pb); every output is checked\n"
                "                  elementwise, |y - ref| <= atol + rtol * |ref|. Integer inputs (int64/int32: shapes,\n"
                "                  axes, indices) are bound as constants when the model is loaded, so shapes are static.\n"
                "--backend NAME    reference: the fp32 interpreter (default; rtol 1e-4, atol 1e-5).\n"
                "                  spyre: compile for Spyre and simulate the kernel bundle (rtol 2e-2, atol 2e-3*max(1, max|ref|));\n"
                "                  without --test-data its outputs are checked against the reference interpreter.\n") +
    kSpyreOptionsHelp +
    "--dim NAME=SIZE   gives a symbolic input dimension (dynamic axis) a static size; repeatable.\n"
    "--write-test-data DIR  writes the inputs used and this backend's outputs as input_K.pb/output_K.pb,\n"
    "                  a test_data_set for checking another backend against this one.\n"
    "--session NAME    records the run (options, wall time, kernel timings, the --json object) in the session store.\n"
    "Exit 0 when all outputs match, 1 when one does not (the worst element and its index are printed),\n"
    "2 on bad input (including a wrong shape or dtype in the test data).\n"
    "--json prints {ok, checked, checked_against, backend, max_abs_err, max_rel_err, rtol, atol, kernel_time_ns,\n"
    "roofline_ns, bytes_moved, kernels:[{name, op, time_ns, cores, roofline_ns, utilisation, bytes_moved}], wall_ms,\n"
    "outputs:[{name, dtype, shape, ok, max_abs_err, max_rel_err, mismatches, worst}]}; timing fields are null for\n"
    "the reference backend, which measures no device time.";

const std::string kRunBundleDetails =
    std::string("DIR is a folder written by `compile --export` (manifest.json, kernels/, constants/).\n"
                "--test-data DIR   input_K.pb feed the bundle's inputs (by name, else in order); output_K.pb are checked\n"
                "                  (rtol 2e-2, atol 2e-3*max(1, max|ref|) unless given).\n") +
    kSpyreOptionsHelp + "Exit codes and --json as for `run`.";

const RegisterCommand reg{{"run", "run an ONNX model on a backend and check its outputs against ONNX test data",
                           "run MODEL [--test-data DIR] [--backend reference|spyre] [--plan optimized|baseline|tuned] [--scratchpad S]\n"
                           "    [--format fp16|dl16] [--trace FILE] [--no-numerics] [--force] [--bisect] [--target FILE] [--dim NAME=SIZE]... [--rtol R] [--atol A]\n"
                           "    [--pass-plugin FILE]... [--write-test-data DIR] [--session NAME [--db FILE]] [--json]",
                           runRun, kRunDetails.c_str()}};

const RegisterCommand regBundle{{"run-bundle", "simulate an exported Spyre kernel bundle and check its outputs",
                                 "run-bundle DIR [--test-data DIR] [--format fp16|dl16] [--trace FILE] [--no-numerics] [--force] [--target FILE]\n"
                                 "    [--rtol R] [--atol A] [--session NAME [--db FILE]] [--json]",
                                 runBundle, kRunBundleDetails.c_str()}};

}  // namespace
}  // namespace spyglass::cli
