#include "core/spyresim/calibration.h"

#include "core/common/diagnostics.h"
#include "core/common/job_control.h"
#include "core/spyre/model_builder.h"
#include "core/spyre/spyre_pipeline.h"
#include "core/spyresim/spyre_simulator.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace spyglass::spyresim {

namespace {

QJsonValue field(const QJsonObject& o, const char* key) { return o.value(QLatin1String(key)); }

model::Shape shapeOf(const QJsonValue& v)
{
    model::Shape s;
    for (const QJsonValue& d : v.toArray())
        s.push_back(static_cast<int64_t>(d.toDouble()));
    return s;
}

std::map<std::string, int> pinOf(const QJsonValue& v)
{
    std::map<std::string, int> pin;
    const QJsonObject o = v.toObject();
    for (auto it = o.begin(); it != o.end(); ++it)
        pin[it.key().toStdString()] = it.value().toInt();
    return pin;
}

model::ModelGraph matmulGraph(const model::Shape& a, const model::Shape& w)
{
    spyre::ModelGraphBuilder b("mm");
    const int x = b.input("a", a);
    const int c = b.constant("w", w);
    model::Shape out = a;
    out.back() = w.back();
    b.output(b.node("MatMul", "mm", {x, c}, out));
    return b.take();
}

model::ModelGraph softmaxGraph(const model::Shape& s, int64_t axis)
{
    spyre::ModelGraphBuilder b("softmax");
    const int x = b.input("x", s);
    b.output(b.node("Softmax", "softmax", {x}, s, {{"axis", axis}}));
    return b.take();
}

// RMSNorm as torch-spyre's "layernorm" benchmark computes it: x / sqrt(mean(x^2) + eps) * gamma over the last dim.
model::ModelGraph rmsNormGraph(const model::Shape& s)
{
    spyre::ModelGraphBuilder b("rmsnorm");
    const int x = b.input("x", s);
    model::Shape reduced = s;
    reduced.back() = 1;
    const int sq = b.node("Mul", "sq", {x, x}, s);
    const int mean = b.node("ReduceMean", "mean", {sq}, reduced, {{"axes", std::vector<int64_t>{-1}}, {"keepdims", int64_t(1)}});
    const int eps = b.scalar("eps", 1e-6f);
    const int var = b.node("Add", "var", {mean, eps}, reduced);
    const int rms = b.node("Sqrt", "rms", {var}, reduced);
    const int norm = b.node("Div", "norm", {x, rms}, s);
    const int gamma = b.constant("gamma", {s.back()});
    b.output(b.node("Mul", "scale", {norm, gamma}, s));
    return b.take();
}

struct Simulated {
    double us = 0;
    std::string plan;
};

Simulated simulateOnce(const model::ModelGraph& g, const spyre::SpyreTarget& t, bool defaultLayout, spyre::ScratchpadPolicy policy,
                       const std::map<std::string, int>& pin, bool fuse = true, const std::map<std::string, int>& stickPins = {})
{
    spyre::CompileOptions o;
    o.fuse = fuse;
    o.pins = stickPins;
    o.keepIrText = false;
    o.baseline = defaultLayout;
    o.scratchpad = policy;
    if (!pin.empty())
        o.splitPins["mm"] = pin;
    JobControl job;
    const auto snaps = spyre::SpyrePipeline::run(g, t, o, job);
    const spyre::KernelBundle& bundle = *snaps.back().ir->bundle;
    SimOptions timing;
    timing.numerics = false;
    timing.trace = false;
    const SimResult r = simulate(bundle, t, {}, timing);
    Simulated s;
    s.us = r.kernelTimeNs / 1e3;
    for (const spyre::Kernel& k : bundle.kernels) {
        std::string ways;
        for (const spyre::KernelVar& v : k.vars)
            if (v.ways > 1)
                ways += (ways.empty() ? "" : " ") + v.name + ":" + std::to_string(v.ways);
        s.plan += (s.plan.empty() ? "" : "; ") + std::string(opKindName(k.op)) + (ways.empty() ? "" : " " + ways);
    }
    return s;
}

}  // namespace

double simulatedMatmulUs(const std::vector<int64_t>& a, const std::vector<int64_t>& w, const spyre::SpyreTarget& target, bool baseline)
{
    return simulateOnce(matmulGraph(a, w), target, baseline, spyre::ScratchpadPolicy::Greedy, {}).us;
}

std::vector<CalibrationCase> runCalibration(const std::string& path, const spyre::SpyreTarget& target)
{
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        throw InputError(SourceLocation{path, 0, 0}, "cannot open calibration suite");
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll());
    if (!doc.isObject() || !field(doc.object(), "cases").isArray())
        throw InputError(SourceLocation{path, 0, 0}, "calibration suite is not a JSON object with a \"cases\" list");
    std::vector<CalibrationCase> out;
    for (const QJsonValue& v : field(doc.object(), "cases").toArray()) {
        const QJsonObject o = v.toObject();
        CalibrationCase c;
        c.id = field(o, "id").toString().toStdString();
        c.group = field(o, "group").toString().toStdString();
        c.pair = field(o, "pair").toString().toStdString();
        c.source = field(o, "source").toString().toStdString();
        c.set = field(o, "set").toString().toStdString();
        c.kind = field(o, "kind").toString().toStdString();
        auto bad = [&](const std::string& what) { return InputError(SourceLocation{path, 0, 0}, "case " + c.id + ": " + what); };
        spyre::SpyreTarget t = target;
        t.cores = field(o, "cores").toInt(target.cores);
        if (t.cores < 1 || t.cores > target.cores)
            throw bad("cores must be 1.." + std::to_string(target.cores));
        const auto policy = spyre::parseScratchpadPolicy(field(o, "scratchpad").toString(QStringLiteral("greedy")).toStdString());
        if (!policy)
            throw bad("unknown scratchpad policy");
        const bool defaultLayout = field(o, "layout").toString(QStringLiteral("default")) == QLatin1String("default");
        if (c.kind == "matmul" || c.kind == "matmul_speedup") {
            const model::ModelGraph g = matmulGraph(shapeOf(field(o, "a")), shapeOf(field(o, "w")));
            if (c.kind == "matmul") {
                c.published = field(o, "published_us").toDouble();
                const Simulated s = simulateOnce(g, t, defaultLayout, *policy, pinOf(field(o, "pin")));
                c.simulated = s.us;
                c.plan = s.plan + (defaultLayout ? ", default order" : ", batch outermost");
            } else {
                c.published = field(o, "published_speedup").toDouble();
                const Simulated before = simulateOnce(g, t, defaultLayout, *policy, pinOf(field(o, "pin_before")));
                const Simulated after = simulateOnce(g, t, defaultLayout, *policy, pinOf(field(o, "pin_after")));
                c.simulated = before.us / after.us;
                c.plan = before.plan + " -> " + after.plan;
            }
        } else if (c.kind == "softmax" || c.kind == "rmsnorm") {
            c.published = field(o, "published_us").toDouble();
            const model::Shape s = shapeOf(field(o, "shape"));
            const model::ModelGraph g = c.kind == "softmax" ? softmaxGraph(s, static_cast<int64_t>(field(o, "axis").toInt(-1))) : rmsNormGraph(s);
            const Simulated r = simulateOnce(g, t, defaultLayout, *policy, {}, field(o, "fuse").toBool(true), pinOf(field(o, "stick")));
            c.simulated = r.us;
            c.plan = r.plan;
        } else {
            throw bad("unknown kind '" + c.kind + "'");
        }
        if (!(c.published > 0))
            throw bad("no published value");
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace spyglass::spyresim
