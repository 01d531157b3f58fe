// `spyglass-cli run MODEL`: run an ONNX model on a backend and, with --test-data, check every output
// elementwise against the expected tensors: |y - ref| <= atol + rtol * |ref|.
//
// Backends are rows of one table (kBackends). The reference backend is the fp32 interpreter of
// core/model; the Spyre backend (compile + simulate) is added as another row with its own run
// function and default tolerances, and fills the timing fields the reference backend leaves null.
#include "app/cli/cli.h"
#include "app/cli/session_option.h"

#include "core/common/diagnostics.h"
#include "core/model/model_loader.h"
#include "core/model/reference_interpreter.h"
#include "core/model/tensor_file.h"
#include "core/model/test_data.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>

namespace spyglass::cli {
namespace {

using namespace spyglass::model;

struct BackendOptions {
    std::optional<std::string> plan;    // spyre: optimized | baseline
    std::optional<std::string> trace;   // spyre: Chrome trace output file
};

struct KernelTiming {
    std::string name;
    double timeNs = 0;
    int cores = 0;
};

// What a backend returns. Fields a backend cannot measure stay empty and are printed as null.
struct BackendResult {
    std::vector<HostTensor> outputs;   // in ModelGraph::outputs order
    std::optional<double> kernelTimeNs;
    std::optional<double> rooflineNs;
    std::optional<double> bytesMoved;
    std::optional<std::vector<KernelTiming>> kernels;
};

struct Backend {
    const char* name;
    const char* description;
    double defaultRtol;
    // Default atol given the expected outputs (the spyre backend scales it with max|ref|).
    double (*defaultAtol)(const std::vector<HostTensor>& expected);
    BackendResult (*run)(const ModelGraph& graph, const std::vector<HostTensor>& inputs, const BackendOptions& options);
};

double referenceAtol(const std::vector<HostTensor>&) { return 1e-5; }

BackendResult runReferenceBackend(const ModelGraph& graph, const std::vector<HostTensor>& inputs, const BackendOptions& options)
{
    if (options.plan)
        throw UsageError("--plan applies to the spyre backend only");
    if (options.trace)
        throw UsageError("--trace applies to the spyre backend only");
    BackendResult r;
    r.outputs = runReference(graph, inputs).outputs;
    return r;
}

const Backend kBackends[] = {
    {"reference", "fp32 reference interpreter (plain loops, numpy semantics)", 1e-4, referenceAtol, runReferenceBackend},
};

const Backend& findBackend(const std::string& name)
{
    for (const Backend& b : kBackends)
        if (name == b.name)
            return b;
    std::string known;
    for (const Backend& b : kBackends)
        known += std::string(known.empty() ? "" : ", ") + b.name;
    if (name == "spyre")
        throw UsageError("the spyre backend is not available in this build yet (available: " + known + ")");
    throw UsageError("unknown backend '" + name + "' (available: " + known + ")");
}

// Deterministic inputs when no test data is given: floats uniform in [-1, 1), integers and bools 0.
std::vector<HostTensor> generatedInputs(const ModelGraph& graph)
{
    std::mt19937 rng(0);
    std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
    std::vector<HostTensor> inputs;
    for (int v : graph.inputs) {
        HostTensor t = makeTensor(graph.values[v].dtype, graph.values[v].shape);
        for (float& x : t.f)
            x = uni(rng);
        inputs.push_back(std::move(t));
    }
    return inputs;
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

int runRun(Args& args)
{
    const std::string file = args.positional("MODEL");
    const std::string backendName = args.valueOr("--backend", "reference");
    const auto testData = args.value("--test-data");
    const auto rtolOpt = args.number("--rtol");
    const auto atolOpt = args.number("--atol");
    const std::vector<std::string> dims = args.values("--dim");
    const auto writeTestData = args.value("--write-test-data");
    BackendOptions options;
    options.plan = args.value("--plan");
    options.trace = args.value("--trace");
    std::unique_ptr<CliSession> session = openSessionForCli(args);   // --session NAME [--db FILE]
    args.finish();
    const Backend& backend = findBackend(backendName);
    if (rtolOpt && (*rtolOpt < 0 || !std::isfinite(*rtolOpt)))
        throw UsageError("--rtol must be a finite number >= 0");
    if (atolOpt && (*atolOpt < 0 || !std::isfinite(*atolOpt)))
        throw UsageError("--atol must be a finite number >= 0");
    if (options.plan && *options.plan != "optimized" && *options.plan != "baseline")
        throw UsageError("--plan must be optimized or baseline, got '" + *options.plan + "'");

    // Test data first: its integer inputs (shapes, axes, indices) are bound as constants at load time.
    std::optional<TestDataSet> data;
    if (testData)
        data = readTestDataSet(*testData);
    LoadOptions loadOptions = data ? bindIntegerInputs(*data) : LoadOptions{};
    for (const std::string& d : dims) {
        const auto eq = d.find('=');
        long long value = -1;
        try {
            value = eq == std::string::npos ? -1 : std::stoll(d.substr(eq + 1));
        } catch (const std::exception&) {
        }
        if (eq == std::string::npos || eq == 0 || value < 0)
            throw UsageError("--dim expects NAME=SIZE (a symbolic input dimension and a size >= 0), got '" + d + "'");
        loadOptions.dimValues[d.substr(0, eq)] = value;
    }
    const ModelGraph graph = loadModel(file, loadOptions);
    std::vector<HostTensor> inputs = data ? graphInputsFromTestData(graph, *data) : generatedInputs(graph);
    if (data)
        checkExpectedOutputs(graph, *data);

    if (session) {
        QJsonObject opts;
        opts[QStringLiteral("backend")] = QString::fromLatin1(backend.name);
        opts[QStringLiteral("test_data")] = data ? QJsonValue(QString::fromStdString(data->dir)) : QJsonValue(QJsonValue::Null);
        opts[QStringLiteral("rtol")] = optionalNumber(rtolOpt);
        opts[QStringLiteral("atol")] = optionalNumber(atolOpt);
        session->recorder().beginRun({.kind = "run", .artifactPath = file, .artifactKind = "onnx",
                                      .optionsJson = QJsonDocument(opts).toJson(QJsonDocument::Compact).toStdString()});
    }
    const auto t0 = std::chrono::steady_clock::now();
    BackendResult result;
    try {
        result = backend.run(graph, inputs, options);
    } catch (const std::exception& e) {
        if (session)
            session->recorder().finishRun(session::RunStatus::Error, e.what());
        throw;
    }
    const double wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

    const double rtol = rtolOpt ? *rtolOpt : backend.defaultRtol;
    const double atol = atolOpt ? *atolOpt : (data ? backend.defaultAtol(data->outputs) : 0.0);
    bool ok = true;
    std::optional<double> maxAbs, maxRel;
    QJsonArray outputsJson;
    std::ostringstream text;
    text << file << ": " << graph.nodes.size() << " node(s), opset " << graph.opsetVersion << ", backend " << backend.name << ", "
         << wallMs << " ms\n";
    if (!data)
        text << "no --test-data: inputs are deterministic (floats uniform in [-1, 1), seed 0; integers 0); nothing is checked\n";
    for (size_t k = 0; k < graph.outputs.size(); ++k) {
        const Value& v = graph.values[graph.outputs[k]];
        const HostTensor& y = result.outputs.at(k);
        QJsonObject o;
        o[QStringLiteral("name")] = QString::fromStdString(v.name);
        o[QStringLiteral("dtype")] = QString::fromLatin1(dtypeName(y.dtype));
        o[QStringLiteral("shape")] = shapeJson(y.shape);
        if (data) {
            const TensorComparison c = compareTensors(y, data->outputs[k], rtol, atol);
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
    if (data)
        text << (ok ? "result: all outputs match" : "result: MISMATCH") << " (rtol " << rtol << ", atol " << atol << ")\n";

    QJsonObject j;
    {
        j[QStringLiteral("ok")] = ok;
        j[QStringLiteral("checked")] = data.has_value();
        j[QStringLiteral("backend")] = QString::fromLatin1(backend.name);
        j[QStringLiteral("max_abs_err")] = optionalNumber(maxAbs);
        j[QStringLiteral("max_rel_err")] = optionalNumber(maxRel);
        j[QStringLiteral("rtol")] = rtol;
        j[QStringLiteral("atol")] = atol;
        j[QStringLiteral("kernel_time_ns")] = optionalNumber(result.kernelTimeNs);
        j[QStringLiteral("roofline_ns")] = optionalNumber(result.rooflineNs);
        j[QStringLiteral("bytes_moved")] = optionalNumber(result.bytesMoved);
        if (result.kernels) {
            QJsonArray ks;
            for (const KernelTiming& k : *result.kernels) {
                QJsonObject ko;
                ko[QStringLiteral("name")] = QString::fromStdString(k.name);
                ko[QStringLiteral("time_ns")] = k.timeNs;
                ko[QStringLiteral("cores")] = k.cores;
                ks.append(ko);
            }
            j[QStringLiteral("kernels")] = ks;
        } else {
            j[QStringLiteral("kernels")] = QJsonValue(QJsonValue::Null);
        }
        j[QStringLiteral("wall_ms")] = wallMs;
        j[QStringLiteral("outputs")] = outputsJson;
    }
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
            writeTensorFile(path, inputs.at(static_cast<size_t>(it - graph.inputs.begin())), name);
        }
        for (size_t k = 0; k < graph.outputs.size(); ++k)
            writeTensorFile((std::filesystem::path(*writeTestData) / ("output_" + std::to_string(k) + ".pb")).string(), result.outputs[k],
                            graph.values[graph.outputs[k]].name);
        text << "wrote " << graph.declaredInputs.size() << " input(s) and " << graph.outputs.size() << " output(s) to " << *writeTestData << '\n';
    }
    if (session) {
        auto& rec = session->recorder();
        rec.setSimulationWallMs(wallMs);
        rec.setResultJson(QJsonDocument(j).toJson(QJsonDocument::Compact).toStdString());
        rec.finishRun(ok ? session::RunStatus::Ok : session::RunStatus::Failed, ok ? std::string() : "outputs do not match the test data");
    }
    if (args.json())
        printJson(j);
    else
        std::cout << text.str();
    return ok ? ExitOk : ExitJobFailed;
}

const RegisterCommand reg{{"run", "run an ONNX model on a backend and check its outputs against ONNX test data",
                           "run MODEL [--test-data DIR] [--backend reference] [--dim NAME=SIZE]... [--rtol R] [--atol A] [--write-test-data DIR]\n"
                           "    [--session NAME [--db FILE]] [--json]",
                           runRun,
                           "--test-data DIR   an ONNX test_data_set_N folder (input_K.pb, output_K.pb); every output is checked\n"
                           "                  elementwise, |y - ref| <= atol + rtol * |ref|. Integer inputs (int64/int32: shapes,\n"
                           "                  axes, indices) are bound as constants when the model is loaded, so shapes are static.\n"
                           "--backend NAME    reference: the fp32 interpreter (default; rtol 1e-4, atol 1e-5).\n"
                           "--dim NAME=SIZE   gives a symbolic input dimension (dynamic axis) a static size; repeatable.\n"
                           "--write-test-data DIR  writes the inputs used and this backend's outputs as input_K.pb/output_K.pb,\n"
                           "                  a test_data_set for checking another backend against this one.\n"
                           "--session NAME    records the run (options, wall time, the --json object) in the session store.\n"
                           "Exit 0 when all outputs match, 1 when one does not (the worst element and its index are printed),\n"
                           "2 on bad input (including a wrong shape or dtype in the test data).\n"
                           "--json prints {ok, checked, backend, max_abs_err, max_rel_err, rtol, atol, kernel_time_ns, roofline_ns,\n"
                           "bytes_moved, kernels, wall_ms, outputs:[{name, dtype, shape, ok, max_abs_err, max_rel_err, mismatches,\n"
                           "worst}]}; timing fields are null for the reference backend, which measures no device time."}};

}  // namespace
}  // namespace spyglass::cli
