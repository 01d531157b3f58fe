#include "core/spyresim/numerics_bisect.h"

#include "core/model/reference_interpreter.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <set>
#include <sstream>

namespace spyglass::spyresim {

namespace {

using model::HostTensor;

HostTensor rounded(const HostTensor& t, DeviceFormat format)
{
    if (!t.isFloating())
        return t;
    HostTensor r = t;
    const float* table = decodeTable(format);
    for (float& x : r.f)
        x = decode(table, encode(format, x));
    return r;
}

// Each element moved by one unit roundoff, up or down by a fixed hash of its index and of the value it belongs to.
HostTensor perturbed(const HostTensor& t, double u, uint64_t salt)
{
    if (!t.isFloating())
        return t;
    HostTensor r = t;
    for (size_t e = 0; e < r.f.size(); ++e) {
        uint64_t h = (e + 1) * 0x9E3779B97F4A7C15ull ^ salt;
        h ^= h >> 31;
        h *= 0xBF58476D1CE4E5B9ull;
        const double s = (h >> 40) & 1 ? 1.0 : -1.0;
        r.f[e] = static_cast<float>(r.f[e] * (1.0 + s * u));
    }
    return r;
}

double maxAbsDiff(const HostTensor& a, const HostTensor& b)
{
    double m = 0;
    for (size_t e = 0; e < a.f.size() && e < b.f.size(); ++e) {
        const double d = std::fabs(static_cast<double>(a.f[e]) - static_cast<double>(b.f[e]));
        m = std::isnan(d) ? INFINITY : std::max(m, d);
    }
    return m;
}

double maxAbs(const HostTensor& t)
{
    double m = 0;
    for (float x : t.f)
        if (std::isfinite(x))
            m = std::max(m, std::fabs(static_cast<double>(x)));
    return m;
}

}  // namespace

BisectReport bisectNumerics(const model::ModelGraph& graph, const spyre::KernelBundle& bundle, const spyre::SpyreTarget& target,
                            const std::map<std::string, model::HostTensor>& inputs, SimOptions options, JobControl* job)
{
    BisectReport report;
    report.format = deviceFormatName(options.format);
    // Unit roundoff: half an ulp at 1 (fp16 has 10 fraction bits, DL16 9).
    report.unitRoundoff = options.format == DeviceFormat::Dl16 ? std::ldexp(1.0, -10) : std::ldexp(1.0, -11);

    // What the device stored, by ONNX value, captured as each kernel finishes.
    std::map<int, HostTensor> device;
    options.numerics = true;
    options.trace = false;
    options.afterKernel = [&](const spyre::Kernel& k, const std::map<std::string, DeviceTensor>& memory) {
        for (const spyre::KernelTensorArg& a : k.tensors) {
            if (a.role != spyre::AccessRole::Store)
                continue;
            const DeviceTensor& d = memory.at(a.tensor);
            const int v = graph.findValue(d.meta().origin);
            if (v >= 0 && graph.values[v].producer >= 0 && d.shape() == graph.values[v].shape)
                device[v] = d.readHost(hostDtypeOf(d.meta().dtype));
        }
    };
    simulate(bundle, target, inputs, options, job);

    // The device's view of values it did not compute: graph inputs and constants in its number format.
    std::map<int, HostTensor> given;
    for (int v : graph.inputs) {
        const auto it = inputs.find(graph.values[v].name);
        if (it != inputs.end())
            given[v] = rounded(it->second, options.format);
    }
    for (size_t v = 0; v < graph.values.size(); ++v)
        if (graph.values[v].constant)
            given[static_cast<int>(v)] = rounded(*graph.values[v].constant, options.format);
    auto available = [&](int v) { return v < 0 || device.count(v) || given.count(v); };

    for (size_t n = 0; n < graph.nodes.size(); ++n) {
        const model::Node& node = graph.nodes[n];
        std::vector<int> compared;
        for (int o : node.outputs)
            if (device.count(o) && device.at(o).isFloating())
                compared.push_back(o);
        if (compared.empty())
            continue;
        // The region: this op and, back from its inputs, every producer whose value the device never stored.
        std::set<int> region{static_cast<int>(n)};
        std::vector<int> todo{static_cast<int>(n)};
        bool complete = true;
        while (!todo.empty() && complete) {
            const int m = todo.back();
            todo.pop_back();
            for (int in : graph.nodes[m].inputs) {
                if (available(in))
                    continue;
                const int p = graph.values[in].producer;
                if (p < 0) {
                    complete = false;   // a graph input the caller did not give
                    break;
                }
                if (region.insert(p).second)
                    todo.push_back(p);
            }
        }
        if (!complete)
            continue;
        auto evaluate = [&](double u) {
            std::map<int, HostTensor> local;
            uint64_t salt = 1;
            for (int m : region) {
                const model::Node& rn = graph.nodes[m];
                std::vector<const HostTensor*> args;
                for (int in : rn.inputs) {
                    if (in < 0) {
                        args.push_back(nullptr);
                        continue;
                    }
                    if (!local.count(in)) {
                        const HostTensor& src = device.count(in) && !region.count(graph.values[in].producer) ? device.at(in) : given.at(in);
                        local[in] = u > 0 ? perturbed(src, u, salt++) : src;
                    }
                    args.push_back(&local.at(in));
                }
                std::vector<HostTensor> outs = model::evaluateNode(rn, graph.opsetVersion, args);
                for (size_t k = 0; k < outs.size() && k < rn.outputs.size(); ++k)
                    local[rn.outputs[k]] = std::move(outs[k]);
            }
            return local;
        };
        const std::map<int, HostTensor> ref = evaluate(0);
        const std::map<int, HostTensor> moved = evaluate(report.unitRoundoff);
        for (int o : compared) {
            BisectStep s;
            s.node = node.label();
            s.value = graph.values[o].name;
            s.regionNodes = static_cast<int>(region.size());
            s.maxAbsErr = maxAbsDiff(device.at(o), ref.at(o));
            s.maxAbsRef = maxAbs(ref.at(o));
            s.inputRounding = maxAbsDiff(moved.at(o), ref.at(o));
            s.outputRounding = report.unitRoundoff * s.maxAbsRef;
            // The floor: a tensor whose reference is all zeros still stores fp32 residue of order 1e-7.
            s.exceeds = !(s.maxAbsErr <= kBisectFactor * s.explained() + 1e-6);
            if (s.exceeds && report.firstExceeding < 0)
                report.firstExceeding = static_cast<int>(report.steps.size());
            report.steps.push_back(std::move(s));
        }
    }
    double best = -1;
    for (size_t k = 0; k < report.steps.size(); ++k) {
        const BisectStep& s = report.steps[k];
        const double amplification = s.outputRounding > 0 ? s.inputRounding / s.outputRounding : 0;
        if (amplification > best) {
            best = amplification;
            report.largestAmplification = static_cast<int>(k);
        }
    }
    return report;
}

std::string BisectReport::text() const
{
    std::ostringstream t;
    t << std::setprecision(3);
    t << "numerics bisect (" << format << ", unit roundoff " << unitRoundoff << "): each op's device output against the reference fed "
      << "with the device's own inputs; 'explained' = input rounding (output moved by perturbing inputs by the unit roundoff) + "
      << "output rounding; beyond " << kBisectFactor << "x explained is not rounding\n";
    t << "  op | value | ops in region | max abs err | explained (input + output rounding) | max |ref|\n";
    for (const BisectStep& s : steps)
        t << "  " << s.node << " | " << s.value << " | " << s.regionNodes << " | " << s.maxAbsErr << " | " << s.explained() << " ("
          << s.inputRounding << " + " << s.outputRounding << ") | " << s.maxAbsRef << (s.exceeds ? "  <-- beyond rounding" : "") << '\n';
    if (steps.empty()) {
        t << "no op's output is stored on the device (everything fused into the outputs' kernels)\n";
        return t.str();
    }
    if (firstExceeding >= 0) {
        const BisectStep& s = steps[static_cast<size_t>(firstExceeding)];
        t << "first op beyond rounding: " << s.node << " (output '" << s.value << "'): max abs err " << s.maxAbsErr << " on its own device inputs, "
          << s.maxAbsErr / std::max(s.explained(), 1e-30) << "x what rounding explains (" << s.explained() << ")\n";
    } else {
        t << "no op is off by more than rounding of its inputs explains";
        if (largestAmplification >= 0) {
            const BisectStep& s = steps[static_cast<size_t>(largestAmplification)];
            t << "; the output error is rounding amplified along the graph, most by " << s.node << ": rounding its inputs moves its output by "
              << s.inputRounding << ", " << s.inputRounding / std::max(s.outputRounding, 1e-30) << "x its own output rounding";
        }
        t << '\n';
    }
    return t.str();
}

}  // namespace spyglass::spyresim
