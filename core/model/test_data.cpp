#include "core/model/test_data.h"

#include "core/common/diagnostics.h"
#include "core/model/reference_interpreter.h"
#include "core/model/tensor_file.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <filesystem>
#include <sstream>

namespace spyglass::model {

namespace fs = std::filesystem;

TestDataSet readTestDataSet(const std::string& dir)
{
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw InputError(SourceLocation{dir, 0, 0}, "test data: not a directory");
    TestDataSet data;
    data.dir = dir;
    for (int k = 0;; ++k) {
        const fs::path p = fs::path(dir) / ("input_" + std::to_string(k) + ".pb");
        if (!fs::exists(p, ec))
            break;
        std::string name;
        data.inputs.push_back(readTensorFile(p.string(), &name));
        data.inputNames.push_back(name);
    }
    for (int k = 0;; ++k) {
        const fs::path p = fs::path(dir) / ("output_" + std::to_string(k) + ".pb");
        if (!fs::exists(p, ec))
            break;
        std::string name;
        data.outputs.push_back(readTensorFile(p.string(), &name));
        data.outputNames.push_back(name);
    }
    if (data.inputs.empty() && data.outputs.empty())
        throw InputError(SourceLocation{dir, 0, 0}, "test data: no input_0.pb or output_0.pb in this folder");
    return data;
}

LoadOptions bindIntegerInputs(const TestDataSet& data)
{
    LoadOptions options;
    for (size_t k = 0; k < data.inputs.size(); ++k)
        if (data.inputs[k].dtype == DType::Int64 || data.inputs[k].dtype == DType::Int32)
            options.bindInputs[k] = data.inputs[k];
    return options;
}

std::vector<HostTensor> graphInputsFromTestData(const ModelGraph& graph, const TestDataSet& data)
{
    if (data.inputs.size() != graph.declaredInputs.size())
        throw InputError(SourceLocation{data.dir, 0, 0}, "test data has " + std::to_string(data.inputs.size()) + " input file(s) but the model declares " +
                                                              std::to_string(graph.declaredInputs.size()) + " input(s)");
    std::vector<HostTensor> out;
    for (size_t k = 0; k < graph.inputs.size(); ++k) {
        const std::string& name = graph.values[graph.inputs[k]].name;
        size_t pos = 0;
        while (pos < graph.declaredInputs.size() && graph.declaredInputs[pos] != name)
            ++pos;
        if (pos == graph.declaredInputs.size())
            throw InputError(SourceLocation{data.dir, 0, 0}, "graph input '" + name + "' is not among the declared inputs");
        const std::string file = (fs::path(data.dir) / ("input_" + std::to_string(pos) + ".pb")).string();
        checkInputMatches(graph, k, data.inputs[pos], file);
        out.push_back(data.inputs[pos]);
    }
    return out;
}

std::string TensorComparison::summary(const std::string& name) const
{
    std::ostringstream s;
    if (!problem.empty()) {
        s << name << ": " << problem;
        return s.str();
    }
    s << name << ": " << (ok ? "ok" : "MISMATCH") << ", max abs err " << maxAbsErr << ", max rel err " << maxRelErr;
    if (!ok) {
        s << ", " << mismatches << " element(s) outside tolerance; worst at [";
        for (size_t d = 0; d < worstCoords.size(); ++d)
            s << (d ? ", " : "") << worstCoords[d];
        s << "] (flat " << worstIndex << "): got " << worstValue << ", expected " << worstReference;
    }
    return s.str();
}

TensorComparison compareTensors(const HostTensor& got, const HostTensor& ref, double rtol, double atol)
{
    TensorComparison c;
    if (got.dtype != ref.dtype) {
        c.ok = false;
        c.problem = std::string("wrong dtype ") + dtypeName(got.dtype) + ", expected " + dtypeName(ref.dtype);
        return c;
    }
    if (got.shape != ref.shape) {
        c.ok = false;
        c.problem = "wrong shape " + shapeString(got.shape) + ", expected " + shapeString(ref.shape);
        return c;
    }
    double worstScore = -1;
    const int64_t n = ref.size();
    for (int64_t k = 0; k < n; ++k) {
        const double y = got.isFloating() ? got.f[k] : static_cast<double>(got.i[k]);
        const double r = ref.isFloating() ? ref.f[k] : static_cast<double>(ref.i[k]);
        double err, score;
        bool bad;
        if (!ref.isFloating()) {
            err = std::fabs(y - r);
            bad = got.i[k] != ref.i[k];
            score = bad ? 1e300 : 0;
        } else if (std::isnan(r) || std::isnan(y)) {
            err = 0;
            bad = std::isnan(r) != std::isnan(y);
            score = bad ? 1e300 : 0;
        } else if (std::isinf(r) || std::isinf(y)) {
            err = 0;
            bad = y != r;
            score = bad ? 1e300 : 0;
        } else {
            err = std::fabs(y - r);
            const double tol = atol + rtol * std::fabs(r);
            bad = err > tol;
            score = tol > 0 ? err / tol : (err > 0 ? 1e300 : 0);
        }
        c.maxAbsErr = std::max(c.maxAbsErr, err);
        if (r != 0 && std::isfinite(r))
            c.maxRelErr = std::max(c.maxRelErr, err / std::fabs(r));
        if (bad)
            ++c.mismatches;
        if (score > worstScore) {
            worstScore = score;
            c.worstIndex = k;
            c.worstValue = y;
            c.worstReference = r;
        }
    }
    c.ok = c.mismatches == 0;
    if (c.worstIndex >= 0) {
        int64_t rest = c.worstIndex;
        c.worstCoords.assign(ref.shape.size(), 0);
        for (int d = static_cast<int>(ref.shape.size()) - 1; d >= 0; --d) {
            c.worstCoords[d] = rest % ref.shape[d];
            rest /= ref.shape[d];
        }
    }
    return c;
}

std::vector<HostTensor> generatedInputs(const ModelGraph& graph)
{
    std::mt19937 rng(0);
    std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
    std::vector<HostTensor> inputs;
    for (int v : graph.inputs) {
        HostTensor t = makeTensor(graph.values[v].dtype, graph.values[v].shape);
        for (float& x : t.f)
            x = uni(rng);
        std::fill(t.i.begin(), t.i.end(), 1);
        inputs.push_back(std::move(t));
    }
    return inputs;
}

}  // namespace spyglass::model
