// The Spyre simulator (issue 4): number formats, device layouts, numerics of compiled models against the
// reference interpreter, exported bundles, the LX plan checks, the timing model's bounds and its trace, and the
// CLI (`run --backend spyre`, `run-bundle`).
#include "common/testutil.h"
#include "core/common/diagnostics.h"
#include "core/common/job_control.h"
#include "core/model/half_float.h"
#include "core/model/model_loader.h"
#include "core/model/reference_interpreter.h"
#include "core/model/test_data.h"
#include "core/spyre/kernel_bundle.h"
#include "core/spyre/model_builder.h"
#include "core/spyre/plan_summary.h"
#include "core/spyre/spyre_pipeline.h"
#include "core/spyresim/device_memory.h"
#include "core/spyresim/plan_tuner.h"
#include "core/spyresim/spyre_simulator.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace spyglass;

namespace {

// The tuner's searches here run to the end whatever the machine's speed: with a wall-clock budget of 20 s the
// encoder layer's 149 candidates ran out of time under ASan on a loaded 2-core machine (the clean-clone run of
// 2026-12-04, 23:10 UTC), and the checks read the whole search.
constexpr double kNoWallClockLimitMs = std::numeric_limits<double>::infinity();

spyre::SpyreTarget target() { return spyre::SpyreTarget::load(test::sourcePath(QStringLiteral("resources/targets/spyre.json")).toStdString()); }

std::vector<spyre::SpyreSnapshot> compile(const model::ModelGraph& g, spyre::CompileOptions o = {})
{
    JobControl job;
    o.keepIrText = false;
    return spyre::SpyrePipeline::run(g, target(), o, job);
}

std::map<std::string, model::HostTensor> randomInputs(const model::ModelGraph& g, unsigned seed = 1)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::map<std::string, model::HostTensor> in;
    for (int v : g.inputs) {
        model::HostTensor t;
        t.dtype = g.values[v].dtype;
        t.shape = g.values[v].shape;
        t.f.resize(static_cast<size_t>(t.size()));
        for (float& x : t.f)
            x = u(rng);
        in[g.values[v].name] = std::move(t);
    }
    return in;
}

std::vector<model::HostTensor> ordered(const model::ModelGraph& g, const std::map<std::string, model::HostTensor>& m)
{
    std::vector<model::HostTensor> v;
    for (int i : g.inputs)
        v.push_back(m.at(g.values[i].name));
    return v;
}


spyresim::SimOptions quiet(bool numerics = true)
{
    spyresim::SimOptions o;
    o.numerics = numerics;
    o.hostThreads = 2;
    return o;
}

}  // namespace

class TestSpyreSimulator : public QObject {
    Q_OBJECT

private slots:
    void decodeRunIsTheTable()
    {
        // Every 16-bit word, in runs of odd lengths and offsets, decodes to the table's float bit for bit (the
        // matmul path decodes with decodeRun, the rest of the simulator with the table).
        using namespace spyresim;
        std::vector<uint16_t> words(65536);
        for (uint32_t b = 0; b < 65536; ++b)
            words[b] = static_cast<uint16_t>(b);
        for (DeviceFormat f : {DeviceFormat::Fp16, DeviceFormat::Dl16}) {
            const float* table = decodeTable(f);
            std::vector<float> out(words.size());
            for (size_t at = 0; at < words.size(); at += 61)
                decodeRun(f, words.data() + at, static_cast<int64_t>(std::min<size_t>(61, words.size() - at)), out.data() + at);
            int differ = 0;
            for (uint32_t b = 0; b < 65536; ++b)
                differ += std::memcmp(&out[b], &table[b], sizeof(float)) != 0;
            QCOMPARE(differ, 0);
        }
    }

    void encodeRunIsEncode()
    {
        // Every fp16 word's value and the values between and around neighbours (ties, rounding carries into the
        // exponent, the subnormal and overflow edges), infinities, NaNs and random fp32 bits, in runs of odd
        // lengths: encodeRun writes what encode writes, bit for bit (the store path uses it for whole runs).
        using namespace spyresim;
        std::vector<float> values;
        const float* table = decodeTable(DeviceFormat::Fp16);
        for (uint32_t b = 0; b < 65536; ++b) {
            const float v = table[b];
            values.push_back(v);
            values.push_back(std::nextafter(v, INFINITY));
            values.push_back(std::nextafter(v, -INFINITY));
            values.push_back(v + (table[(b + 1) & 0xffff] - v) / 2);   // the tie with the next word (NaN at the end)
        }
        std::mt19937 rng(7);
        for (int k = 0; k < 200000; ++k) {
            const uint32_t bits = rng();
            float f;
            std::memcpy(&f, &bits, sizeof f);
            values.push_back(f);
        }
        for (float special : {0.0f, -0.0f, 65504.0f, 65519.99f, 65520.0f, 1e-8f, 5.9604645e-8f, 6.1035156e-5f, 6.1035152e-5f})
            values.push_back(special);
        for (DeviceFormat f : {DeviceFormat::Fp16, DeviceFormat::Dl16}) {
            std::vector<uint16_t> run(values.size());
            for (size_t at = 0; at < values.size(); at += 61)
                encodeRun(f, values.data() + at, static_cast<int64_t>(std::min<size_t>(61, values.size() - at)), run.data() + at);
            int differ = 0;
            for (size_t e = 0; e < values.size(); ++e)
                differ += run[e] != encode(f, values[e]);
            QCOMPARE(differ, 0);
        }
    }

    void dl16Format()
    {
        using namespace spyresim;
        QCOMPARE(decodeDl16(encodeDl16(1.0f)), 1.0f);
        QCOMPARE(encodeDl16(1.0f), uint16_t(31 << 9));   // exponent bias 31, fraction 0
        QCOMPARE(decodeDl16(encodeDl16(-2.5f)), -2.5f);
        // 9 fraction bits: 1 + 2^-10 is a tie between 1 and 1 + 2^-9 and rounds to even (1).
        QCOMPARE(decodeDl16(encodeDl16(1.0f + std::ldexp(1.0f, -10))), 1.0f);
        QCOMPARE(decodeDl16(encodeDl16(1.0f + 3 * std::ldexp(1.0f, -10))), 1.0f + std::ldexp(1.0f, -8));
        // Larger range than fp16 (6 exponent bits): 1e9 is finite in DL16, infinite in fp16.
        QVERIFY(std::fabs(decodeDl16(encodeDl16(1e9f)) - 1e9f) < 1e9f * 2e-3f);
        QVERIFY(std::isinf(model::roundToHalf(1e9f)));
        // No infinities: saturate; NaN stays NaN.
        QVERIFY(std::isfinite(decodeDl16(encodeDl16(INFINITY))));
        QVERIFY(decodeDl16(encodeDl16(INFINITY)) > 8e9f);   // 2^32 * (1 + 510/512)
        QVERIFY(std::isnan(decodeDl16(encodeDl16(NAN))));
        QCOMPARE(decodeDl16(encodeDl16(0.0f)), 0.0f);
    }

    void deviceTensorHoldsSticksWithPadding()
    {
        // [3, 100] sticked on dim 1: two sticks of 64 per row, 28 padding words in the second.
        spyre::BundleTensor t;
        t.name = "x";
        t.dtype = "float32";
        t.hostShape = {3, 100};
        t.stickDim = 1;
        t.layout = spyre::deviceLayout(t.hostShape, spyre::contiguousStrides(t.hostShape), 1, spyre::DeviceOrder::Default, 64, "DL16");
        spyresim::DeviceTensor d(t, spyresim::DeviceFormat::Fp16);
        QCOMPARE(d.deviceElements(), int64_t(3 * 128));
        int64_t padding = 0;
        for (int64_t o = 0; o < d.deviceElements(); ++o)
            padding += d.isPadding(o);
        QCOMPARE(padding, int64_t(3 * 28));
        std::vector<float> host(300);
        for (size_t i = 0; i < host.size(); ++i)
            host[i] = static_cast<float>(i) * 0.5f;   // exact in fp16
        d.writeHost(host.data());
        const model::HostTensor back = d.readHost(model::DType::Float32);
        QCOMPARE(back.f, host);
        // Element [1, 70] sits in the second stick of row 1: device [stick 1][row 1][lane 6].
        QCOMPARE(d.deviceOffset(1 * 100 + 70), int64_t(1 * 3 * 64 + 1 * 64 + 6));
    }

    void compiledExamplesMatchTheReference_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* f : {"matmul.onnxtxt", "batched_matmul.onnxtxt", "softmax.onnxtxt", "layernorm_gelu.onnxtxt", "mlp.onnxtxt",
                              "convnet.onnxtxt", "transpose_restickify.onnxtxt", "transformer_encoder_layer.onnx"})
            QTest::newRow(f) << QString::fromLatin1(f);
    }
    void compiledExamplesMatchTheReference()
    {
        QFETCH(QString, file);
        const model::ModelGraph g = model::loadModel(test::sourcePath(QStringLiteral("resources/examples/") + file).toStdString());
        for (bool baseline : {false, true}) {
            spyre::CompileOptions o;
            o.baseline = baseline;
            const auto snaps = compile(g, o);
            const auto inputs = randomInputs(g);
            const spyresim::SimResult r = spyresim::simulate(*snaps.back().ir->bundle, target(), inputs, quiet());
            const auto ref = model::runReference(g, ordered(g, inputs)).outputs;
            for (size_t k = 0; k < g.outputs.size(); ++k) {
                const auto c = model::compareTensors(r.outputs.at(g.values[g.outputs[k]].name), ref[k], spyresim::kDeviceRtol, spyresim::deviceAtol(ref[k]));
                QVERIFY2(c.ok, qPrintable(QString::fromStdString(c.summary(g.values[g.outputs[k]].name))));
            }
            QVERIFY(r.kernelTimeNs > 0);
            QVERIFY(r.kernelTimeNs >= r.rooflineNs * 0.999);   // nothing beats the roofline
        }
    }

    // The matmul path stacks the work items that share B into one GEMM and splits it along N over the host
    // threads (kernel_executor.cpp, matmulTasks); neither may change a bit of any output: 1 thread (no split),
    // 2, 3 and 7 (the N range cut into 2, 3 and 7 stick-aligned parts).
    void hostThreadsDoNotChangeTheBits_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* f : {"mlp.onnxtxt", "batched_matmul.onnxtxt", "transformer_encoder_layer.onnx"})
            QTest::newRow(f) << QString::fromLatin1(f);
    }
    void hostThreadsDoNotChangeTheBits()
    {
        QFETCH(QString, file);
        const model::ModelGraph g = model::loadModel(test::sourcePath(QStringLiteral("resources/examples/") + file).toStdString());
        const auto snaps = compile(g);
        const auto inputs = randomInputs(g, 7);
        std::map<std::string, model::HostTensor> first;
        for (int threads : {1, 2, 3, 7}) {
            spyresim::SimOptions o = quiet();
            o.hostThreads = threads;
            const spyresim::SimResult r = spyresim::simulate(*snaps.back().ir->bundle, target(), inputs, o);
            if (threads == 1) {
                first = r.outputs;
                QVERIFY(!first.empty());
                continue;
            }
            for (const auto& [name, t] : first) {
                const model::HostTensor& u = r.outputs.at(name);
                QCOMPARE(u.f.size(), t.f.size());
                QVERIFY2(std::memcmp(u.f.data(), t.f.data(), t.f.size() * sizeof(float)) == 0,
                         qPrintable(QStringLiteral("%1 differs with %2 host threads").arg(QString::fromStdString(name)).arg(threads)));
            }
        }
    }

    // A transpose only matmuls read is a view: no copy kernel, at most one restickify, and the same numbers as the
    // reference (x^T @ y and x^T @ z with x [128, 192] an input, so the host cannot lay it out for free).
    void transposeIntoMatmulIsAView()
    {
        spyre::ModelGraphBuilder b("transpose_matmul");
        const int x = b.input("x", {128, 192});
        const int y = b.input("y", {128, 64});
        const int z = b.input("z", {128, 128});
        const int t = b.node("Transpose", "t", {x}, {192, 128}, {{"perm", std::vector<int64_t>{1, 0}}});
        b.output(b.node("MatMul", "mm", {t, y}, {192, 64}));
        b.output(b.node("MatMul", "mm2", {t, z}, {192, 128}));
        const model::ModelGraph g = b.take();
        for (bool baseline : {false, true}) {
            spyre::CompileOptions o;
            o.baseline = baseline;
            const auto snaps = compile(g, o);
            const spyre::KernelBundle& bundle = *snaps.back().ir->bundle;
            int restickify = 0;
            for (const spyre::Kernel& k : bundle.kernels) {
                restickify += k.op == spyre::OpKind::Restickify;
                QVERIFY2(k.op == spyre::OpKind::MatMul || k.op == spyre::OpKind::Restickify, spyre::opKindName(k.op));
            }
            QVERIFY2(restickify <= 1, qPrintable(QString::number(restickify)));
            const auto inputs = randomInputs(g);
            const spyresim::SimResult r = spyresim::simulate(bundle, target(), inputs, quiet());
            const auto ref = model::runReference(g, ordered(g, inputs)).outputs;
            for (size_t k = 0; k < g.outputs.size(); ++k) {
                const auto c = model::compareTensors(r.outputs.at(g.values[g.outputs[k]].name), ref[k], spyresim::kDeviceRtol, spyresim::deviceAtol(ref[k]));
                QVERIFY2(c.ok, qPrintable(QString::fromStdString(c.summary(g.values[g.outputs[k]].name))));
            }
        }
    }

    void exportedBundleGivesTheSameResult()
    {
        // The encoder layer carries its weights as initializers: the bundle must carry them too.
        const model::ModelGraph g = model::loadModel(test::sourcePath(QStringLiteral("resources/examples/transformer_encoder_layer.onnx")).toStdString());
        const auto snaps = compile(g);
        const spyre::KernelBundle& fresh = *snaps.back().ir->bundle;
        const QString dir = test::outputDir() + QStringLiteral("/sim-bundle-mlp");
        QDir(dir).removeRecursively();
        spyre::exportKernelBundle(fresh, dir.toStdString());
        QVERIFY(!fresh.constants.empty());
        QCOMPARE(QDir(dir + QStringLiteral("/constants")).entryList({QStringLiteral("*.pb")}).size(), static_cast<int>(fresh.constants.size()));
        const spyre::KernelBundle loaded = spyre::loadKernelBundle(dir.toStdString());
        QCOMPARE(loaded.kernels.size(), fresh.kernels.size());
        for (size_t k = 0; k < fresh.kernels.size(); ++k) {
            QCOMPARE(loaded.kernels[k].loop.stmts.size(), fresh.kernels[k].loop.stmts.size());
            QVERIFY(loaded.kernels[k].loop.store == fresh.kernels[k].loop.store);
        }
        const auto inputs = randomInputs(g);
        const auto a = spyresim::simulate(fresh, target(), inputs, quiet());
        const auto b = spyresim::simulate(loaded, target(), inputs, quiet());
        const std::string out = g.values[g.outputs[0]].name;
        QCOMPARE(b.outputs.at(out).f, a.outputs.at(out).f);   // bit for bit
        QCOMPARE(b.kernelTimeNs, a.kernelTimeNs);
    }

    void brokenScratchpadPlansAreNamed()
    {
        const model::ModelGraph g = model::loadModel(test::sourcePath(QStringLiteral("resources/examples/softmax.onnxtxt")).toStdString());
        const auto snaps = compile(g);
        spyre::KernelBundle b = *snaps.back().ir->bundle;
        // An allocation beyond usable LX.
        spyre::KernelBundle beyond = b;
        bool changed = false;
        for (spyre::Kernel& k : beyond.kernels)
            for (spyre::KernelTensorArg& a : k.tensors)
                if (a.inLx && !changed) {
                    a.lxOffset = beyond.usableLxBytes - 128;
                    changed = true;
                }
        QVERIFY(changed);
        try {
            spyresim::checkScratchpadPlan(beyond);
            QFAIL("an allocation beyond usable LX was accepted");
        } catch (const InputError& e) {
            const QString m = QString::fromStdString(e.what());
            QVERIFY2(m.contains(QStringLiteral("kernel op")) && m.contains(QStringLiteral("core")) && m.contains(QStringLiteral("beyond usable LX")), qPrintable(m));
        }
        // A reader whose cores take each other's slices: each core would read sticks another core's LX holds.
        spyre::KernelBundle swapped = b;
        bool swappedOne = false;
        for (spyre::Kernel& k : swapped.kernels) {
            bool readsLx = false;
            for (const spyre::KernelTensorArg& a : k.tensors)
                readsLx = readsLx || (a.role == spyre::AccessRole::Load && a.inLx && a.dmaSticks == 0);
            if (!readsLx || k.slices.size() < 2 || swappedOne)
                continue;
            for (size_t c = 0; c < k.slices.size(); ++c)
                k.slices[c].core = static_cast<int>(k.slices.size() - 1 - c);
            swappedOne = true;
        }
        QVERIFY(swappedOne);
        spyresim::checkScratchpadPlan(swapped);   // the placement itself is fine
        try {
            spyresim::simulate(swapped, target(), randomInputs(g), quiet());
            QFAIL("a core read another core's LX");
        } catch (const InputError& e) {
            const QString m = QString::fromStdString(e.what());
            QVERIFY2(m.contains(QStringLiteral("does not hold it")) && m.contains(QStringLiteral("core ")), qPrintable(m));
        }
        // Two live allocations on top of each other.
        spyre::KernelBundle overlap = b;
        std::vector<spyre::KernelTensorArg*> lx;
        for (spyre::Kernel& k : overlap.kernels)
            for (spyre::KernelTensorArg& a : k.tensors)
                if (a.inLx)
                    lx.push_back(&a);
        QVERIFY(lx.size() >= 2);
        const std::string first = lx.front()->tensor;
        spyre::KernelTensorArg* other = nullptr;
        for (spyre::KernelTensorArg* a : lx)
            if (a->tensor != first && a->lxFirstUse <= lx.front()->lxLastUse && lx.front()->lxFirstUse <= a->lxLastUse &&
                !(a->lxFirstUse == lx.front()->lxLastUse || lx.front()->lxFirstUse == a->lxLastUse))
                other = a;
        if (other) {
            for (spyre::KernelTensorArg* a : lx)
                if (a->tensor == other->tensor)
                    a->lxOffset = lx.front()->lxOffset;
            try {
                spyresim::checkScratchpadPlan(overlap);
                QFAIL("overlapping live allocations were accepted");
            } catch (const InputError& e) {
                QVERIFY2(QString::fromStdString(e.what()).contains(QStringLiteral("overlap")), e.what());
            }
        }
    }

    void timingFollowsTheModel()
    {
        const spyre::SpyreTarget t = target();
        // A large 2-D matmul is compute-bound: time >= MACs at the sustained rate on every core.
        spyre::ModelGraphBuilder b("mm");
        const int a = b.input("a", {512, 1024});
        const int w = b.constant("w", {1024, 1024});
        const int y = b.node("MatMul", "mm", {a, w}, {512, 1024});
        b.output(y);
        const model::ModelGraph g = b.take();
        const auto snaps = compile(g);
        const spyresim::SimResult r = spyresim::simulate(*snaps.back().ir->bundle, t, {}, quiet(false));
        const double macs = 512.0 * 1024 * 1024;
        QCOMPARE(static_cast<double>(r.macs), macs);
        QVERIFY(r.kernelTimeNs >= macs / (t.sustainedMacPerNsPerCore * t.cores) * 0.999);
        QVERIFY(r.kernelTimeNs >= r.rooflineNs);
        // The trace: compute events on core lanes, DMA on DMA lanes, ending at the kernel time.
        QVERIFY(r.trace);
        int coreLanes = 0, dmaLanes = 0;
        for (const TraceLane& l : r.trace->lanes)
            (l.kind == TraceLane::Kind::Core ? coreLanes : dmaLanes)++;
        QCOMPARE(coreLanes, r.kernels[0].cores);
        QCOMPARE(dmaLanes, r.kernels[0].cores);
        QVERIFY(std::fabs(static_cast<double>(r.trace->endNs()) - r.kernelTimeNs) <= 2.0);
        // Softmax without scratchpad planning moves more bytes and takes longer (torch-spyre: 32.5 -> 23.7 us).
        const model::ModelGraph sm = model::loadModel(test::sourcePath(QStringLiteral("resources/examples/softmax.onnxtxt")).toStdString());
        spyre::CompileOptions none;
        none.scratchpad = spyre::ScratchpadPolicy::None;
        const auto planned = spyresim::simulate(*compile(sm).back().ir->bundle, t, {}, quiet(false));
        const auto unplanned = spyresim::simulate(*compile(sm, none).back().ir->bundle, t, {}, quiet(false));
        QVERIFY(unplanned.bytesMoved > planned.bytesMoved);
        QVERIFY(unplanned.kernelTimeNs > planned.kernelTimeNs);
    }

    // The layout what-if says what the layout optimiser's proof covers (the fewest restickified elements) and puts
    // the simulated time of both plans beside it: matmul.onnxtxt unpinned against A [256, 512] sticked on d0.
    void whatIfComparesTheObjectiveWithTime()
    {
        const model::ModelGraph g = model::loadModel(test::sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt")).toStdString());
        spyre::CompileOptions pinned;
        pinned.pins["A"] = 0;
        const auto a = compile(g), b = compile(g, pinned);
        const spyre::PlanSummary pa = spyre::summarizePlan(*a.back().ir), pb = spyre::summarizePlan(*b.back().ir);
        QVERIFY(pa.layoutOptimal && pb.layoutOptimal);
        QVERIFY(pb.restickifyCount > pa.restickifyCount);
        const double ta = spyresim::simulate(*a.back().ir->bundle, target(), {}, quiet(false)).kernelTimeNs;
        const double tb = spyresim::simulate(*b.back().ir->bundle, target(), {}, quiet(false)).kernelTimeNs;
        const QString text = QString::fromStdString(spyre::comparePlans(pa, pb, ta, tb));
        qInfo("%s", qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("proven optimal for the fewest restickified elements under the pins (not for time)")), qPrintable(text));
        const double pct = 100.0 * (tb - ta) / ta;
        QVERIFY2(text.contains(QStringLiteral("(%1%2 %)").arg(pct > 0 ? QStringLiteral("+") : QString(), QString::number(pct, 'f', 1))), qPrintable(text));
        // The pinned plan moves more elements; when it is also faster the banner says the element optimum is not.
        QCOMPARE(text.contains(QStringLiteral("the unpinned plan has the fewest restickified elements, this one simulates")), tb < ta);
        QVERIFY(QString::fromStdString(spyre::comparePlans(pa, pb, ta, std::nullopt)).contains(QStringLiteral("not available")));
    }

    // The tuner: the simulated time of the tuned plan is never above the cost-model plan's, every candidate it
    // kept is the one the tuned plan pins, and its recorded times are what compiling that pin gives.
    void tunerNeverLosesToTheCostModel_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("mlp") << test::sourcePath(QStringLiteral("resources/examples/mlp.onnxtxt"));
        QTest::newRow("attention") << test::dataPath(QStringLiteral("spyre/models/attention.onnxtxt"));
    }

    void tunerNeverLosesToTheCostModel()
    {
        QFETCH(QString, file);
        const model::ModelGraph g = model::loadModel(file.toStdString());
        JobControl job;
        const spyresim::TunedPlan t = spyresim::tunePlan(g, target(), {}, job, kNoWallClockLimitMs, 4);
        qInfo("cost model %.1f ns, tuned %.1f ns (%.3fx), %d candidates", t.costModelNs, t.tunedNs, t.gain(), static_cast<int>(t.candidates.size()));
        for (const spyresim::TuneCandidate& c : t.candidates) {
            std::string ways;
            for (const auto& [v, n] : c.ways)
                ways += v + ":" + std::to_string(n) + " ";
            qInfo("  %s %s estimate %.3f us, simulated %.1f ns%s", c.op.c_str(), ways.c_str(), c.estimateUs, c.simulatedNs, c.kept ? " (kept)" : "");
        }
        QVERIFY(!t.candidates.empty());
        QVERIFY(t.tunedNs <= t.costModelNs);
        const auto bundleNs = [&](const std::vector<spyre::SpyreSnapshot>& s) {
            return spyresim::simulate(*s.back().ir->bundle, target(), {}, quiet(false)).kernelTimeNs;
        };
        QCOMPARE(bundleNs(t.snapshots), t.tunedNs);
        for (const spyresim::TuneCandidate& c : t.candidates) {
            QVERIFY(c.simulatedNs > 0);
            if (c.kept)
                QCOMPARE(t.splitPins.at(c.op), c.ways);
        }
        spyre::CompileOptions replay;
        replay.splitPins = t.splitPins;
        replay.orderPins = t.orderPins;
        QCOMPARE(bundleNs(compile(g, replay)), t.tunedNs);
        // No budget: the cost-model plan comes back untouched.
        const spyresim::TunedPlan none = spyresim::tunePlan(g, target(), {}, job, 0);
        QVERIFY(none.budgetExhausted && none.candidates.empty());
        QCOMPARE(none.tunedNs, none.costModelNs);
    }

    // One cost model: where work division ranks a matmul's splits with the LX residency each allows (and what the
    // ops around it pay for what it leaves in device memory), the tuner, which simulates every candidate whole,
    // finds nothing better. Ranked kernel by kernel with every operand in device memory, the encoder layer's plan
    // was 1.181x slower than the tuner's and transpose_restickify's 2.02x slower than today's.
    void costModelPlanAgreesWithTheTuner_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("encoder layer") << test::sourcePath(QStringLiteral("resources/examples/transformer_encoder_layer.onnx"));
        QTest::newRow("attention") << test::dataPath(QStringLiteral("spyre/models/attention.onnxtxt"));
        QTest::newRow("transpose_restickify") << test::sourcePath(QStringLiteral("resources/examples/transpose_restickify.onnxtxt"));
    }

    void costModelPlanAgreesWithTheTuner()
    {
        QFETCH(QString, file);
        const model::ModelGraph g = model::loadModel(file.toStdString());
        JobControl job;
        const spyresim::TunedPlan t = spyresim::tunePlan(g, target(), {}, job, kNoWallClockLimitMs);
        qInfo("cost model %.1f ns, tuned %.1f ns (%.3fx), %d candidates", t.costModelNs, t.tunedNs, t.gain(),
              static_cast<int>(t.candidates.size()));
        QVERIFY(!t.budgetExhausted);
        QVERIFY(!t.candidates.empty());
        QVERIFY2(t.gain() <= 1.01, qPrintable(QStringLiteral("the tuner found %1x").arg(t.gain())));
    }

    // Device orders per kernel: tuned from torch-spyre's default plan (batch just inside the stick everywhere), the
    // search finds the batch-outermost order PR #4302 measured faster, on the matmul's own tensors, and pinning
    // what it kept reproduces its time.
    void tunerSearchesDeviceOrders()
    {
        spyre::ModelGraphBuilder b("bmm");
        const int a = b.input("a", {2, 256, 512});
        const int w = b.constant("w", {512, 16384});
        b.output(b.node("MatMul", "bmm", {a, w}, {2, 256, 16384}));
        const model::ModelGraph g = b.take();
        spyre::CompileOptions baseline;
        baseline.baseline = true;
        JobControl job;
        spyresim::TunedPlan t;
        try {
            t = spyresim::tunePlan(g, target(), baseline, job, kNoWallClockLimitMs, 4);
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        int orders = 0;
        bool keptOuter = false;
        for (const spyresim::TuneCandidate& c : t.candidates) {
            qInfo("  %s %s %s: %.1f ns%s", c.op.c_str(), c.what.c_str(), c.label().c_str(), c.simulatedNs, c.kept ? " (kept)" : "");
            if (c.what != "order")
                continue;
            ++orders;
            QVERIFY(!c.orders.empty() && c.orders.size() <= 3);
            for (const auto& [buffer, order] : c.orders)
                keptOuter = keptOuter || (c.kept && order == spyre::DeviceOrder::BatchOutermost);
        }
        qInfo("baseline %.1f ns, tuned %.1f ns (%.3fx), %d order candidates of %d", t.costModelNs, t.tunedNs, t.gain(), orders,
              static_cast<int>(t.candidates.size()));
        // Activation and output are rank 3: three other assignments, each with the kept split, re-ranked, and the
        // cost model's first two splits under it (those equal to the kept split are not run twice).
        QVERIFY(orders >= 6 && orders <= 12);
        QVERIFY(static_cast<int>(t.candidates.size()) <= t.plannedCandidates);
        QVERIFY(keptOuter);
        QVERIFY(t.gain() > 1.2);
        spyre::CompileOptions replay = baseline;
        replay.splitPins = t.splitPins;
        replay.orderPins = t.orderPins;
        QCOMPARE(spyresim::simulate(*compile(g, replay).back().ir->bundle, target(), {}, quiet(false)).kernelTimeNs, t.tunedNs);
    }

    void batchedMatmulBaselineIsSlower()
    {
        // [B,512,1024] @ [1024,N]: the default device order runs bmm at the slower calibrated rate.
        spyre::ModelGraphBuilder b("bmm");
        const int a = b.input("a", {8, 512, 1024});
        const int w = b.constant("w", {1024, 2048});
        const int y = b.node("MatMul", "bmm", {a, w}, {8, 512, 2048});
        b.output(y);
        const model::ModelGraph g = b.take();
        spyre::CompileOptions base;
        base.baseline = true;
        const auto opt = spyresim::simulate(*compile(g).back().ir->bundle, target(), {}, quiet(false));
        const auto bas = spyresim::simulate(*compile(g, base).back().ir->bundle, target(), {}, quiet(false));
        QVERIFY2(opt.kernelTimeNs < bas.kernelTimeNs, qPrintable(QStringLiteral("optimized %1 ns, baseline %2 ns").arg(opt.kernelTimeNs).arg(bas.kernelTimeNs)));
    }

    void cliRunsTheSpyreBackend()
    {
        const QString model = test::sourcePath(QStringLiteral("resources/examples/mlp.onnxtxt"));
        const QString trace = test::outputDir() + QStringLiteral("/sim-mlp-trace.json");
        QFile::remove(trace);
        const auto r = test::runCli({QStringLiteral("run"), model, QStringLiteral("--backend"), QStringLiteral("spyre"), QStringLiteral("--trace"), trace, QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject j = QJsonDocument::fromJson(r.out).object();
        for (const char* key : {"ok", "max_abs_err", "max_rel_err", "kernel_time_ns", "roofline_ns", "bytes_moved", "kernels"})
            QVERIFY2(j.contains(QLatin1String(key)), key);
        QVERIFY(j.value(QStringLiteral("kernel_time_ns")).toDouble() > 0);
        QCOMPARE(j.value(QStringLiteral("checked_against")).toString(), QStringLiteral("reference interpreter"));
        const QJsonArray ks = j.value(QStringLiteral("kernels")).toArray();
        QVERIFY(!ks.isEmpty());
        for (const QJsonValue& k : ks)
            QVERIFY(k.toObject().contains(QStringLiteral("name")) && k.toObject().contains(QStringLiteral("time_ns")) &&
                    k.toObject().contains(QStringLiteral("cores")));
        QFile f(trace);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject tj = QJsonDocument::fromJson(f.readAll()).object();
        QVERIFY(tj.value(QStringLiteral("traceEvents")).toArray().size() > 10);
        // --session records every kernel's simulated time (what the Charts dock plots).
        const QString db = test::outputDir() + QStringLiteral("/sim-session.db");
        QFile::remove(db);
        QCOMPARE(test::runCli({QStringLiteral("run"), model, QStringLiteral("--backend"), QStringLiteral("spyre"), QStringLiteral("--session"),
                               QStringLiteral("sim"), QStringLiteral("--db"), db}).exitCode, 0);
        const auto shown = test::runCli({QStringLiteral("sessions"), QStringLiteral("show"), QStringLiteral("1"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        QCOMPARE(shown.exitCode, 0);
        const QJsonArray recorded = QJsonDocument::fromJson(shown.out).object().value(QStringLiteral("runs")).toArray().at(0).toObject()
                                        .value(QStringLiteral("kernels")).toArray();
        QCOMPARE(recorded.size(), ks.size());
        QCOMPARE(recorded.at(0).toObject().value(QStringLiteral("sim_ns")).toDouble(), ks.at(0).toObject().value(QStringLiteral("time_ns")).toDouble());
    }

    void cliRunBundleChecksTestData()
    {
        // Export a bundle, make test data with the reference backend, then simulate the bundle against it.
        const QString model = test::sourcePath(QStringLiteral("resources/examples/layernorm_gelu.onnxtxt"));
        const QString dir = test::outputDir() + QStringLiteral("/sim-cli-bundle");
        const QString data = test::outputDir() + QStringLiteral("/sim-cli-data");
        QDir(dir).removeRecursively();
        QDir(data).removeRecursively();
        QCOMPARE(test::runCli({QStringLiteral("compile"), model, QStringLiteral("--export"), dir}).exitCode, 0);
        QCOMPARE(test::runCli({QStringLiteral("run"), model, QStringLiteral("--write-test-data"), data}).exitCode, 0);
        auto r = test::runCli({QStringLiteral("run-bundle"), dir, QStringLiteral("--test-data"), data, QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(QJsonDocument::fromJson(r.out).object().value(QStringLiteral("ok")).toBool());
        // An impossible tolerance fails the check (exit 1) and names the worst element.
        r = test::runCli({QStringLiteral("run-bundle"), dir, QStringLiteral("--test-data"), data, QStringLiteral("--rtol"), QStringLiteral("0"),
                          QStringLiteral("--atol"), QStringLiteral("0")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("worst at"));
        // Test data of another model: wrong shape, exit 2 naming the input.
        const QString other = test::outputDir() + QStringLiteral("/sim-cli-data-other");
        QDir(other).removeRecursively();
        QCOMPARE(test::runCli({QStringLiteral("run"), test::sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt")), QStringLiteral("--write-test-data"), other}).exitCode, 0);
        r = test::runCli({QStringLiteral("run-bundle"), dir, QStringLiteral("--test-data"), other});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("wrong shape"), r.err.constData());
        // Timing only.
        r = test::runCli({QStringLiteral("run-bundle"), dir, QStringLiteral("--no-numerics"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(QJsonDocument::fromJson(r.out).object().value(QStringLiteral("kernel_time_ns")).toDouble() > 0);
    }
};

QTEST_GUILESS_MAIN(TestSpyreSimulator)
#include "tst_spyre_simulator.moc"
