// The Spyre compiler on hand-made ModelGraphs: target loading, layout optimisation against brute force,
// work-division and scratchpad invariants, target changes, pins, kernel bundle schema + reload, golden dumps.
#include "common/testutil.h"

#include "core/common/diagnostics.h"
#include "core/common/job_control.h"
#include "core/model/model_loader.h"
#include "core/model/reference_interpreter.h"
#include "core/model/test_data.h"
#include "core/spyre/ir_evaluator.h"
#include "core/spyre/ir_printer.h"
#include "core/spyre/json_schema.h"
#include "core/spyre/kernel_bundle.h"
#include "core/spyre/layout_model.h"
#include "core/spyre/lx_neighbourhood.h"
#include "core/spyre/model_builder.h"
#include "core/spyre/op_geometry.h"
#include "core/spyre/pass_work_division.h"
#include "core/spyre/spyre_pipeline.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <functional>
#include <set>

using namespace spyglass;
using namespace spyglass::spyre;

namespace {

SpyreTarget defaultTarget() { return SpyreTarget::load(test::sourcePath(QStringLiteral("resources/targets/spyre.json")).toStdString()); }

// A copy of the shipped target with some values replaced, written to `dir`.
SpyreTarget modifiedTarget(const QString& dir, const std::map<QString, double>& values)
{
    QFile f(test::sourcePath(QStringLiteral("resources/targets/spyre.json")));
    f.open(QIODevice::ReadOnly);
    QJsonObject root = QJsonDocument::fromJson(f.readAll()).object();
    for (const auto& [key, v] : values) {
        QJsonObject entry = root.value(key).toObject();
        entry[QStringLiteral("value")] = v;
        root[key] = entry;
    }
    const QString path = dir + QStringLiteral("/target.json");
    QFile out(path);
    out.open(QIODevice::WriteOnly);
    out.write(QJsonDocument(root).toJson());
    out.close();
    return SpyreTarget::load(path.toStdString());
}

std::vector<SpyreSnapshot> compile(const model::ModelGraph& g, const SpyreTarget& t, CompileOptions o = {})
{
    JobControl job;
    return SpyrePipeline::run(g, t, o, job);
}

std::shared_ptr<const Program> finalProgram(const std::vector<SpyreSnapshot>& s) { return s.back().ir; }

model::ModelGraph matmulModel()
{
    ModelGraphBuilder b("matmul");
    const int a = b.input("A", {256, 512});
    const int w = b.input("B", {512, 128});
    b.output(b.node("MatMul", "MatMul_0", {a, w}, {256, 128}));
    return b.take();
}

model::ModelGraph mlpModel()
{
    ModelGraphBuilder b("mlp");
    const int x = b.input("x", {64, 256});
    const int w1 = b.constant("fc1.weight", {512, 256});
    const int b1 = b.constant("fc1.bias", {512});
    const int h = b.node("Gemm", "fc1", {x, w1, b1}, {64, 512}, {{"transB", int64_t{1}}});
    const int r = b.node("Relu", "relu", {h}, {64, 512});
    const int w2 = b.constant("fc2.weight", {512, 128});
    const int b2 = b.constant("fc2.bias", {128});
    b.output(b.node("Gemm", "fc2", {r, w2, b2}, {64, 128}, {{"alpha", 0.5f}}));
    return b.take();
}

model::ModelGraph softmaxModel(int axis)
{
    ModelGraphBuilder b("softmax_axis" + std::to_string(axis));
    const int x = b.input("x", {512, 1024});
    b.output(b.node("Softmax", "softmax", {x}, {512, 1024}, {{"axis", int64_t{axis}}}));
    return b.take();
}

model::ModelGraph layerNormModel()
{
    ModelGraphBuilder b("layernorm");
    const int x = b.input("x", {2, 128, 256});
    const int g = b.constant("ln.weight", {256});
    const int be = b.constant("ln.bias", {256});
    b.output(b.node("LayerNormalization", "ln", {x, g, be}, {2, 128, 256}, {{"epsilon", 1e-5f}}));
    return b.take();
}

// Transposes between matmuls: a graph whose best layout needs thought.
model::ModelGraph transposeChainModel()
{
    ModelGraphBuilder b("transpose_chain");
    const int x = b.input("x", {128, 192});
    const int w = b.constant("w", {192, 256});
    const int m = b.node("MatMul", "mm0", {x, w}, {128, 256});
    const int t = b.node("Transpose", "t0", {m}, {256, 128}, {{"perm", std::vector<int64_t>{1, 0}}});
    const int e = b.node("Exp", "exp", {t}, {256, 128});
    const int y = b.input("y", {128, 64});
    const int m2 = b.node("MatMul", "mm1", {e, y}, {256, 64});
    const int s = b.node("ReduceSum", "sum", {t}, {256, 1}, {{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t{1}}});
    const int d = b.node("Div", "div", {m2, s}, {256, 64});
    b.output(d);
    return b.take();
}

model::ModelGraph attentionModel()
{
    ModelGraphBuilder b("attention_small");
    const int64_t S = 64, H = 2, Dh = 64, D = 128;
    const int x = b.input("x", {1, S, D});
    const int wq = b.constant("wq", {D, D});
    const int wk = b.constant("wk", {D, D});
    const int q = b.node("MatMul", "q", {x, wq}, {1, S, D});
    const int k = b.node("MatMul", "k", {x, wk}, {1, S, D});
    const int shape = b.constantInts("heads_shape", {4}, {1, S, H, Dh});
    const int qr = b.node("Reshape", "qr", {q, shape}, {1, S, H, Dh});
    const int kr = b.node("Reshape", "kr", {k, shape}, {1, S, H, Dh});
    const int qt = b.node("Transpose", "qt", {qr}, {1, H, S, Dh}, {{"perm", std::vector<int64_t>{0, 2, 1, 3}}});
    const int kt = b.node("Transpose", "kt", {kr}, {1, H, Dh, S}, {{"perm", std::vector<int64_t>{0, 2, 3, 1}}});
    const int sc = b.node("MatMul", "qk", {qt, kt}, {1, H, S, S});
    const int sm = b.node("Softmax", "softmax", {sc}, {1, H, S, S}, {{"axis", int64_t{-1}}});
    const int pv = b.node("MatMul", "pv", {sm, qt}, {1, H, S, Dh});
    b.output(pv);
    return b.take();
}

model::ModelGraph modelByName(const QString& name)
{
    if (name == QLatin1String("matmul")) return matmulModel();
    if (name == QLatin1String("mlp")) return mlpModel();
    if (name == QLatin1String("softmax")) return softmaxModel(-1);
    if (name == QLatin1String("softmax_axis0")) return softmaxModel(0);
    if (name == QLatin1String("layernorm")) return layerNormModel();
    if (name == QLatin1String("transpose_chain")) return transposeChainModel();
    if (name == QLatin1String("attention")) return attentionModel();
    if (name == QLatin1String("encoder")) return transformerEncoder(1, 64, 256, 4);
    return {};
}

bool intervalsOverlap(const LxAllocation& a, const LxAllocation& b) { return a.firstUse <= b.lastUse && b.firstUse <= a.lastUse; }

}  // namespace

class TestSpyreCompiler : public QObject {
    Q_OBJECT

private slots:
    void targetHasTheDocumentedNumbers()
    {
        const SpyreTarget t = defaultTarget();
        QCOMPARE(t.cores, 32);
        QCOMPARE(t.stickBytes, 128);
        QCOMPARE(t.stickElements(), 64);
        QCOMPARE(t.lxBytes, int64_t{2 * 1024 * 1024});
        // torch-spyre scratchpad/allocator.py: round_up_128(int((2 MiB - 64 KiB) x (1 - 0.2))).
        QCOMPARE(t.usableLxBytes(), int64_t{1'625'344});
        QCOMPARE(t.spanBytes, int64_t{256} * 1024 * 1024);
        QCOMPARE(t.peakMacPerNsPerCore, 1536.0);
        QCOMPARE(t.lpddr5PeakGBs, 204.8);
        QVERIFY(t.clockIsAssumption);
        QVERIFY(!SpyreTarget::defaultPath().empty());
    }

    void targetWithMissingKeyIsAnInputError()
    {
        QTemporaryDir dir;
        const QString path = dir.path() + QStringLiteral("/bad.json");
        QFile f(path);
        f.open(QIODevice::WriteOnly);
        f.write(R"({"name": "bad", "cores": {"value": 32, "source": "x"}})");
        f.close();
        try {
            SpyreTarget::load(path.toStdString());
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY(std::string(e.what()).find("corelets_per_core") != std::string::npos);
        }
    }

    void everyPassLeavesARecord()
    {
        const auto snaps = compile(mlpModel(), defaultTarget());
        const auto names = spyrePassNames();
        QCOMPARE(snaps.size(), names.size() + 1);
        QCOMPARE(snaps.front().record.name, std::string("import"));
        for (size_t i = 0; i < names.size(); ++i) {
            QCOMPARE(snaps[i + 1].record.name, names[i]);
            QVERIFY(!snaps[i + 1].record.summary.empty());
            QVERIFY(!snaps[i + 1].record.irText.empty());
            QVERIFY(snaps[i + 1].record.wallMs >= 0.0);
        }
        // decompose really rewrote the Gemms, fuse really fused, codegen made a bundle.
        QVERIFY(snaps[1].record.changed);
        QVERIFY(snaps[1].record.summary.find("2 Gemm") != std::string::npos);
        QVERIFY(snaps[3].ir->ops.size() < snaps[2].ir->ops.size());
        QVERIFY(finalProgram(snaps)->bundle);
        CompileOptions o;
        o.stopAfter = "fuse";
        QCOMPARE(compile(mlpModel(), defaultTarget(), o).size(), size_t{4});
        o.stopAfter = "no_such_pass";
        QVERIFY_THROWS_EXCEPTION(InputError, compile(mlpModel(), defaultTarget(), o));
    }

    void unsupportedOpIsAnInputError()
    {
        ModelGraphBuilder b("conv");
        const int x = b.input("x", {1, 3, 8, 8});
        b.output(b.node("NonMaxSuppression", "nms", {x}, {1, 3, 8, 8}));
        try {
            compile(b.take(), defaultTarget());
            QFAIL("no error");
        } catch (const InputError& e) {
            QCOMPARE(e.diagnostic().node, std::string("NonMaxSuppression 'nms'"));
        }
    }

    void layoutMatchesBruteForce_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("pin");
        QTest::newRow("matmul") << "matmul" << "";
        QTest::newRow("mlp") << "mlp" << "";
        QTest::newRow("softmax over dim 0") << "softmax_axis0" << "";
        QTest::newRow("transpose chain") << "transpose_chain" << "";
        QTest::newRow("transpose chain, pinned") << "transpose_chain" << "exp_out=0";
        QTest::newRow("attention") << "attention" << "";
        QTest::newRow("layernorm, pinned input") << "layernorm" << "x=1";
    }

    void layoutMatchesBruteForce()
    {
        QFETCH(QString, model);
        QFETCH(QString, pin);
        CompileOptions o;
        o.stopAfter = "propagate_layouts";
        if (!pin.isEmpty())
            o.pins[pin.section(QLatin1Char('='), 0, 0).toStdString()] = pin.section(QLatin1Char('='), 1).toInt();
        const auto snaps = compile(modelByName(model), defaultTarget(), o);
        const LayoutProblem lp = buildLayoutProblem(*finalProgram(snaps), o.pins);
        double combos = 1;
        for (const auto& v : lp.vars)
            combos *= static_cast<double>(v.outDim.size());
        QVERIFY2(combos <= 5e6, "graph too large for brute force");
        const LayoutSolution brute = bruteForceLayout(lp);
        const LayoutSolution exact = solveLayout(lp, 1 << 20);
        QCOMPARE(exact.cost, brute.cost);
        QVERIFY(exact.provenOptimal);
        QCOMPARE(layoutCost(lp, exact.choice), exact.cost);
        // Bounded by a narrow beam's cost (what optimize_layouts runs): the same optimum, proven, in no more states
        // than the unbounded search plus the beam's own.
        for (int boundingWidth : {1, 2, 200}) {
            const LayoutSolution bounded = solveLayout(lp, 1 << 20, boundingWidth);
            QCOMPARE(bounded.cost, brute.cost);
            QVERIFY(bounded.provenOptimal);
            QCOMPARE(bounded.lowerBound, brute.cost);
            QCOMPARE(layoutCost(lp, bounded.choice), bounded.cost);
        }
        // A beam of width 1 may lose, but never reports a bound above the optimum or a cost below it.
        const LayoutSolution narrow = solveLayout(lp, 1);
        QVERIFY(narrow.cost >= brute.cost);
        QVERIFY(narrow.lowerBound <= brute.cost);
        QCOMPARE(layoutCost(lp, narrow.choice), narrow.cost);
        if (narrow.provenOptimal)
            QCOMPARE(narrow.cost, brute.cost);
    }

    void restickifyIsInsertedWhereLayoutsDisagree()
    {
        // Softmax over dim 0 of a [512, 1024] tensor: the reduction walks dim 0 while the matmul... here the input
        // is free, so a pin on the input forces a restickify for the all-same ops.
        CompileOptions o;
        o.pins["x"] = 1;
        const auto snaps = compile(softmaxModel(0), defaultTarget(), o);
        const auto pOwner = finalProgram(snaps);
        const Program& p = *pOwner;
        int restick = 0;
        for (const Op& op : p.ops)
            restick += op.kind == OpKind::Restickify;
        const auto freeOwner = finalProgram(compile(softmaxModel(0), defaultTarget()));
        const Program& free = *freeOwner;
        int restickFree = 0;
        for (const Op& op : free.ops)
            restickFree += op.kind == OpKind::Restickify;
        QCOMPARE(free.layout.cost, int64_t{0});
        QCOMPARE(restickFree, 0);
        QVERIFY(p.layout.cost >= 0);
        QCOMPARE(p.buffers[p.findBuffer("x")].stickDim, 1);
        QVERIFY(p.buffers[p.findBuffer("x")].pinned);
        // The pin is honoured and the cost it implies is what the restickify ops move.
        int64_t moved = 0;
        for (const Op& op : p.ops)
            if (op.kind == OpKind::Restickify)
                moved += p.layoutOf(p.buffers[op.store.buffer]).deviceElements();
        QVERIFY(moved <= p.layout.cost);
        QCOMPARE(restick > 0, p.layout.cost > 0);
    }

    void badPinIsAnInputError()
    {
        CompileOptions o;
        o.pins["no_such_tensor"] = 0;
        QVERIFY_THROWS_EXCEPTION(InputError, compile(matmulModel(), defaultTarget(), o));
        CompileOptions o2;
        o2.pins["MatMul_0_out"] = 0;   // a matmul output is sticked on N
        try {
            compile(matmulModel(), defaultTarget(), o2);
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY(std::string(e.what()).find("can only produce") != std::string::npos);
        }
    }

    void workDivisionInvariants_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("baseline");
        for (const char* m : {"matmul", "mlp", "softmax", "layernorm", "attention", "encoder"}) {
            QTest::newRow(m) << m << false;
            QTest::newRow((std::string(m) + " baseline").c_str()) << m << true;
        }
    }

    void workDivisionInvariants()
    {
        QFETCH(QString, model);
        QFETCH(bool, baseline);
        const SpyreTarget t = defaultTarget();
        CompileOptions o;
        o.baseline = baseline;
        const auto pOwner = finalProgram(compile(modelByName(model), t, o));
        const Program& p = *pOwner;
        QVERIFY(p.bundle);
        QCOMPARE(p.bundle->kernels.size(), p.ops.size());
        for (size_t i = 0; i < p.ops.size(); ++i) {
            const Op& op = p.ops[i];
            const Kernel& k = p.bundle->kernels[i];
            int product = 1;
            for (int v = 0; v < op.numVars(); ++v) {
                QVERIFY(op.split.ways[v] >= 1);
                QCOMPARE(varUnits(p, op, v) % op.split.ways[v], int64_t{0});   // even
                if (op.kind != OpKind::MatMul && op.kind != OpKind::Reduction)
                    QVERIFY(!op.isReductionVar(v) || op.split.ways[v] == 1);
                product *= op.split.ways[v];
            }
            QCOMPARE(product, op.split.cores);
            QVERIFY(op.split.cores >= 1 && op.split.cores <= t.cores);
            QCOMPARE(static_cast<int>(k.slices.size()), op.split.cores);
            // Slices are stick-aligned and cover the (tile) iteration space exactly once.
            int64_t points = 1;
            for (int v = 0; v < op.numVars(); ++v)
                points *= varTileExtent(op, v);
            int64_t covered = 0;
            for (const KernelSlice& s : k.slices) {
                int64_t n = 1;
                for (int v = 0; v < op.numVars(); ++v) {
                    QVERIFY(s.start[v] >= 0 && s.start[v] + s.extent[v] <= varTileExtent(op, v));
                    if (v == op.stickVar())
                        QCOMPARE(s.start[v] % p.stickElements, int64_t{0});
                    n *= s.extent[v];
                }
                covered += n;
            }
            QCOMPARE(covered, points);
            for (size_t a = 0; a < k.slices.size(); ++a)
                for (size_t b = a + 1; b < k.slices.size(); ++b) {
                    bool disjoint = false;
                    for (int v = 0; v < op.numVars(); ++v)
                        disjoint = disjoint || k.slices[a].start[v] + k.slices[a].extent[v] <= k.slices[b].start[v] ||
                                   k.slices[b].start[v] + k.slices[b].extent[v] <= k.slices[a].start[v];
                    QVERIFY2(disjoint, (op.name + ": two cores share work").c_str());
                }
        }
    }

    void defaultDivisionMatchesTorchSpyre()
    {
        // The doc's example: [512,4096] @ [4096,4096] gets all 32 cores on M by default.
        ModelGraphBuilder b("big");
        const int a = b.input("A", {512, 4096});
        const int w = b.constant("W", {4096, 4096});
        b.output(b.node("MatMul", "mm", {a, w}, {512, 4096}));
        CompileOptions o;
        o.baseline = true;
        const auto pOwner = finalProgram(compile(b.take(), defaultTarget(), o));
        const Program& p = *pOwner;
        const Op& mm = p.ops.front();
        QCOMPARE(mm.kind, OpKind::MatMul);
        QCOMPARE(mm.split.ways[0], 32);
        QCOMPARE(mm.split.cores, 32);
        QCOMPARE(p.ops.front().split.ways[2], 1);   // M takes every core, none is left for K

        // [8,4096] @ [4096,64]: M takes 8 cores, N (one stick) none; torch-spyre gives the 4 left to K.
        ModelGraphBuilder d("decode");
        const int x = d.input("x", {8, 4096});
        const int w2 = d.constant("W", {4096, 64});
        d.output(d.node("MatMul", "mm", {x, w2}, {8, 64}));
        const auto qOwner = finalProgram(compile(d.take(), defaultTarget(), o));
        const Op& mm2 = qOwner->ops.front();
        QCOMPARE(mm2.split.ways, (std::vector<int>{8, 1, 4}));
        QCOMPARE(mm2.split.cores, 32);
    }

    void matmulCostModelNeverWorseThanDefault()
    {
        const SpyreTarget t = defaultTarget();
        for (const char* m : {"matmul", "mlp", "attention", "encoder"}) {
            const auto pOwner = finalProgram(compile(modelByName(QString::fromLatin1(m)), t));
            const Program& p = *pOwner;
            for (const Op& op : p.ops)
                if (op.kind == OpKind::MatMul) {
                    // Ranked as work division ranked it: with the LX residency each split allows.
                    const LxNeighbourhood lx(p, op, t, p.scratchpad.planned);
                    const auto def = defaultDivision(p, op, t.cores);
                    QVERIFY(matmulSplitCost(p, op, op.split.ways, t, &lx).rankUs <= matmulSplitCost(p, op, def, t, &lx).rankUs + 1e-9);
                }
        }
    }

    void scratchpadInvariants_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("policy");
        QTest::addColumn<double>("lxBytes");
        for (const char* m : {"mlp", "softmax", "layernorm", "attention", "encoder"})
            for (int pol = 0; pol < 3; ++pol)
                for (double lx : {2097152.0, 1048576.0, 262144.0})
                    QTest::newRow((std::string(m) + " " + scratchpadPolicyName(static_cast<ScratchpadPolicy>(pol)) + " " +
                                   std::to_string(static_cast<int>(lx / 1024)) + "K")
                                      .c_str())
                        << m << pol << lx;
    }

    void scratchpadInvariants()
    {
        QFETCH(QString, model);
        QFETCH(int, policy);
        QFETCH(double, lxBytes);
        QTemporaryDir dir;
        const SpyreTarget t = modifiedTarget(dir.path(), {{QStringLiteral("lx_bytes"), lxBytes}});
        CompileOptions o;
        o.scratchpad = static_cast<ScratchpadPolicy>(policy);
        const auto pOwner = finalProgram(compile(modelByName(model), t, o));
        const Program& p = *pOwner;
        QVERIFY(p.scratchpad.planned);
        QCOMPARE(p.scratchpad.capacityBytes, t.usableLxBytes());
        QVERIFY(p.scratchpad.peakBytes <= t.usableLxBytes());
        int planned = 0;
        for (size_t a = 0; a < p.buffers.size(); ++a) {
            const LxAllocation& x = p.buffers[a].lx;
            if (x.firstUse < 0)
                continue;
            ++planned;
            QVERIFY(x.firstUse <= x.lastUse);
            if (!x.inLx)
                continue;
            QCOMPARE(x.offset % t.lxAlignmentBytes, int64_t{0});
            QCOMPARE(x.bytes % t.lxAlignmentBytes, int64_t{0});
            QVERIFY(x.offset >= 0 && x.offset + x.bytes <= t.usableLxBytes());
            for (size_t b = a + 1; b < p.buffers.size(); ++b) {
                const LxAllocation& y = p.buffers[b].lx;
                if (!y.inLx || !intervalsOverlap(x, y))
                    continue;
                const bool inPlace = (y.inPlaceOf == static_cast<int>(a) && x.lastUse == y.firstUse) ||
                                     (x.inPlaceOf == static_cast<int>(b) && y.lastUse == x.firstUse);
                if (inPlace)
                    continue;
                QVERIFY2(x.offset + x.bytes <= y.offset || y.offset + y.bytes <= x.offset,
                         (p.buffers[a].name + " and " + p.buffers[b].name + " overlap while both live").c_str());
            }
        }
        QVERIFY(planned > 0);
        QCOMPARE(p.scratchpad.inLx + p.scratchpad.inDeviceMemory, planned);
    }

    void changingTheTargetChangesThePlan()
    {
        QTemporaryDir dir;
        const model::ModelGraph g = transformerEncoder(1, 128, 768, 12);
        const auto baseOwner = finalProgram(compile(g, defaultTarget()));
        const Program& base = *baseOwner;
        const SpyreTarget eight = modifiedTarget(dir.path(), {{QStringLiteral("cores"), 8}});
        const auto p8Owner = finalProgram(compile(g, eight));
        const Program& p8 = *p8Owner;
        int maxBase = 0, max8 = 0;
        for (const Op& op : base.ops)
            maxBase = std::max(maxBase, op.split.cores);
        for (const Op& op : p8.ops)
            max8 = std::max(max8, op.split.cores);
        QCOMPARE(maxBase, 32);
        QVERIFY(max8 <= 8);
        QVERIFY(printProgram(base) != printProgram(p8));

        QTemporaryDir dir2;
        const SpyreTarget small = modifiedTarget(dir2.path(), {{QStringLiteral("lx_bytes"), 1048576}});
        const auto p1Owner = finalProgram(compile(g, small));
        const Program& p1 = *p1Owner;
        QVERIFY(p1.scratchpad.capacityBytes < base.scratchpad.capacityBytes);
        QVERIFY(printProgram(base) != printProgram(p1));

        // A big matmul on a 1 MiB, 8-core target needs tile loops; on the default target fewer or none.
        ModelGraphBuilder b("big");
        const int a = b.input("A", {4096, 4096});
        const int w = b.constant("W", {4096, 4096});
        b.output(b.node("MatMul", "mm", {a, w}, {4096, 4096}));
        const model::ModelGraph big = b.take();
        QTemporaryDir dir3;
        const SpyreTarget tiny = modifiedTarget(dir3.path(), {{QStringLiteral("lx_bytes"), 1048576}, {QStringLiteral("cores"), 8}});
        const auto btOwner = finalProgram(compile(big, tiny));
        const Program& bt = *btOwner;
        QVERIFY(!bt.ops.front().tiles.empty());
        int64_t tilesTiny = 1, tilesDefault = 1;
        for (const TileLoop& l : bt.ops.front().tiles)
            tilesTiny *= l.count;
        // Hold the program: a range-for over a member of a temporary shared_ptr reads freed memory.
        const auto defaultOwner = finalProgram(compile(big, defaultTarget()));
        for (const TileLoop& l : defaultOwner->ops.front().tiles)
            tilesDefault *= l.count;
        QVERIFY(tilesTiny > tilesDefault);
    }

    void tilingInvariants_data()
    {
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("cores");
        QTest::addColumn<double>("lxBytes");
        QTest::newRow("4096^3, 8 cores, 1 MiB") << 4096 << 8 << 1048576.0;
        QTest::newRow("4096^3, 32 cores, 2 MiB") << 4096 << 32 << 2097152.0;
        QTest::newRow("2048^3, 2 cores, 256 KiB") << 2048 << 2 << 262144.0;
    }

    void tilingInvariants()
    {
        QFETCH(int, m);
        QFETCH(int, cores);
        QFETCH(double, lxBytes);
        ModelGraphBuilder b("big");
        const int a = b.input("A", {m, m});
        const int w = b.constant("W", {m, m});
        const int mm = b.node("MatMul", "mm", {a, w}, {m, m});
        b.output(b.node("Relu", "relu", {mm}, {m, m}));
        QTemporaryDir dir;
        const SpyreTarget t = modifiedTarget(dir.path(), {{QStringLiteral("cores"), cores}, {QStringLiteral("lx_bytes"), lxBytes}});
        const auto owner = finalProgram(compile(b.take(), t));
        const Program& p = *owner;
        bool anyTiled = false;
        for (const Op& op : p.ops) {
            anyTiled = anyTiled || !op.tiles.empty();
            for (const TileLoop& l : op.tiles) {
                QVERIFY(!op.isReductionVar(l.var));
                QCOMPARE(l.count * l.extent, op.varRange(l.var));   // even tiles cover the var
                if (l.var == op.stickVar())
                    QCOMPARE(l.extent % p.stickElements, int64_t{0});
            }
            // Each core's share of one tile fits usable LX and no tile region exceeds the span.
            int64_t perTile = 0;
            for (int buf : touchedBuffers(op)) {
                int64_t share = p.deviceBytes(p.buffers[buf]);
                for (const TileLoop& l : op.tiles)
                    if (variesWith(op, buf, l.var))
                        share = ceilDiv(share, l.count);
                QVERIFY(share <= t.spanBytes);
                perTile += share;
            }
            int64_t parallel = 1;
            for (int v = 0; v < static_cast<int>(op.ranges.size()); ++v)
                parallel *= v == op.stickVar() ? ceilDiv(op.ranges[v], p.stickElements) : op.ranges[v];
            const int64_t assumed = std::min<int64_t>(t.cores, parallel);
            QVERIFY2(ceilDiv(perTile, assumed) <= t.usableLxBytes(), op.name.c_str());
        }
        QVERIFY(anyTiled);
    }

    void pinChangesTheCost()
    {
        const model::ModelGraph g = transposeChainModel();
        const auto freeOwner = finalProgram(compile(g, defaultTarget()));
        const Program& free = *freeOwner;
        CompileOptions o;
        o.pins["exp_out"] = 0;
        const auto pinnedOwner = finalProgram(compile(g, defaultTarget(), o));
        const Program& pinned = *pinnedOwner;
        QVERIFY(pinned.layout.cost >= free.layout.cost);
        QCOMPARE(pinned.buffers[pinned.findBuffer("exp_out")].stickDim, 0);
        QCOMPARE(pinned.layout.pinsApplied, 1);
    }

    void bundleValidatesAndReloads_data()
    {
        QTest::addColumn<QString>("model");
        for (const char* m : {"matmul", "mlp", "softmax", "layernorm", "transpose_chain", "attention", "encoder"})
            QTest::newRow(m) << m;
    }

    void bundleValidatesAndReloads()
    {
        QFETCH(QString, model);
        const auto pOwner = finalProgram(compile(modelByName(model), defaultTarget()));
        const Program& p = *pOwner;
        const QString dir = test::outputDir() + QStringLiteral("/spyre-bundle-") + model;
        QDir(dir).removeRecursively();
        exportKernelBundle(*p.bundle, dir.toStdString());
        QFile sf(test::sourcePath(QStringLiteral("resources/schemas/spyre-kernel-bundle.schema.json")));
        QVERIFY(sf.open(QIODevice::ReadOnly));
        const QJsonObject schema = QJsonDocument::fromJson(sf.readAll()).object();
        QFile mf(dir + QStringLiteral("/manifest.json"));
        QVERIFY(mf.open(QIODevice::ReadOnly));
        const QJsonObject manifest = QJsonDocument::fromJson(mf.readAll()).object();
        auto errors = validateJsonSchema(manifest, schema);
        QVERIFY2(errors.empty(), errors.empty() ? "" : errors.front().c_str());
        for (const QJsonValue& k : manifest.value(QStringLiteral("kernels")).toArray()) {
            QFile kf(dir + QLatin1Char('/') + k.toObject().value(QStringLiteral("file")).toString());
            QVERIFY(kf.open(QIODevice::ReadOnly));
            errors = validateJsonSchemaDef(QJsonDocument::fromJson(kf.readAll()).object(), schema, "kernel");
            QVERIFY2(errors.empty(), errors.empty() ? "" : errors.front().c_str());
        }
        QVERIFY(QFile::exists(dir + QStringLiteral("/listing.txt")));
        const KernelBundle back = loadKernelBundle(dir.toStdString());
        QCOMPARE(back.kernels.size(), p.bundle->kernels.size());
        QVERIFY(back.tensors == p.bundle->tensors);
        QCOMPARE(back.inputs, p.bundle->inputs);
        QCOMPARE(back.outputs, p.bundle->outputs);
        for (size_t i = 0; i < back.kernels.size(); ++i) {
            const Kernel& a = back.kernels[i];
            const Kernel& b = p.bundle->kernels[i];
            QCOMPARE(a.name, b.name);
            QVERIFY(a.vars == b.vars);
            QVERIFY(a.slices == b.slices);
            QVERIFY(a.tensors == b.tensors);
            QVERIFY(a.restickify == b.restickify);
            QCOMPARE(a.body, b.body);
        }
        QCOMPARE(back.listing, p.bundle->listing);
    }

    void brokenBundleIsRejected()
    {
        const auto pOwner = finalProgram(compile(mlpModel(), defaultTarget()));
        const Program& p = *pOwner;
        const QString dir = test::outputDir() + QStringLiteral("/spyre-bundle-broken");
        QDir(dir).removeRecursively();
        exportKernelBundle(*p.bundle, dir.toStdString());
        QFile mf(dir + QStringLiteral("/manifest.json"));
        QVERIFY(mf.open(QIODevice::ReadOnly));
        QJsonObject m = QJsonDocument::fromJson(mf.readAll()).object();
        mf.close();
        QJsonObject target = m.value(QStringLiteral("target")).toObject();
        target[QStringLiteral("cores")] = QStringLiteral("thirty-two");
        m[QStringLiteral("target")] = target;
        m[QStringLiteral("surprise")] = 1;
        QFile sf(test::sourcePath(QStringLiteral("resources/schemas/spyre-kernel-bundle.schema.json")));
        QVERIFY(sf.open(QIODevice::ReadOnly));
        const auto errors = validateJsonSchema(m, QJsonDocument::fromJson(sf.readAll()).object());
        QCOMPARE(errors.size(), size_t{2});
        QVERIFY(mf.open(QIODevice::WriteOnly | QIODevice::Truncate));
        mf.write(QJsonDocument(m).toJson());
        mf.close();
        try {
            loadKernelBundle(dir.toStdString());
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY(std::string(e.what()).find("cores") != std::string::npos);
        }
    }

    void goldenDumps_data()
    {
        QTest::addColumn<QString>("model");
        for (const char* m : {"matmul", "mlp", "softmax", "layernorm", "transpose_chain"})
            QTest::newRow(m) << m;
        // Through the ONNX loader, from tests/data/spyre/models.
        for (const char* m : {"attention.onnxtxt", "convnet.onnxtxt"})
            QTest::newRow(m) << m;
    }

    void goldenDumps()
    {
        QFETCH(QString, model);
        const model::ModelGraph graph =
            model.endsWith(QLatin1String(".onnxtxt"))
                ? model::loadModel(test::dataPath(QStringLiteral("spyre/models/") + model).toStdString())
                : modelByName(model);
        const auto snaps = compile(graph, defaultTarget());
        std::string text;
        for (const auto& s : snaps)
            if (s.record.name == "import" || s.record.name == "lower" || s.record.name == "codegen")
                text += "===== " + s.record.name + ": " + s.record.summary + "\n" + s.record.irText + "\n";
        const QString path = test::dataPath(QStringLiteral("spyre/golden/") + model + QStringLiteral(".txt"));
        if (qEnvironmentVariableIsSet("SPYGLASS_UPDATE_GOLDEN")) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(QByteArray::fromStdString(text));
        }
        QFile f(path);
        QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(path));
        const QByteArray expected = f.readAll();
        if (expected != QByteArray::fromStdString(text)) {
            QFile out(test::outputDir() + QStringLiteral("/golden-") + model + QStringLiteral(".actual.txt"));
            out.open(QIODevice::WriteOnly);
            out.write(QByteArray::fromStdString(text));
            QFAIL(qPrintable(QStringLiteral("dump differs from ") + path + QStringLiteral("; actual in ") + out.fileName()));
        }
    }

    void everySnapshotComputesTheSameSoftmax()
    {
        ModelGraphBuilder b("softmax_small");
        const int x = b.input("x", {4, 96});
        b.output(b.node("Softmax", "softmax", {x}, {4, 96}, {{"axis", int64_t{-1}}}));
        CompileOptions o;
        o.pins["x"] = 0;   // forces a restickify, so the copy is evaluated too
        const auto snaps = compile(b.take(), defaultTarget(), o);
        model::HostTensor in;
        in.shape = {4, 96};
        for (int i = 0; i < 4 * 96; ++i)
            in.f.push_back(static_cast<float>((i * 37) % 101) / 17.0f - 3.0f);
        std::vector<double> expected(in.f.size());
        for (int r = 0; r < 4; ++r) {
            double mx = -1e300, sum = 0;
            for (int c = 0; c < 96; ++c)
                mx = std::max(mx, static_cast<double>(in.f[r * 96 + c]));
            for (int c = 0; c < 96; ++c)
                sum += std::exp(in.f[r * 96 + c] - mx);
            for (int c = 0; c < 96; ++c)
                expected[r * 96 + c] = std::exp(in.f[r * 96 + c] - mx) / sum;
        }
        int evaluated = 0;
        for (const auto& s : snaps) {
            if (s.ir->stage != Stage::Loop)
                continue;
            const auto out = evaluateProgram(*s.ir, {{"x", in}});
            const model::HostTensor& y = out.at("softmax_out");
            for (size_t i = 0; i < expected.size(); ++i)
                QVERIFY2(std::abs(y.f[i] - expected[i]) < 1e-6, (s.record.name + " changed the result").c_str());
            ++evaluated;
        }
        QCOMPARE(evaluated, 9);   // lower .. codegen
        // The check can fail: a program with one wrong statement gives another result.
        Program broken = *snaps.back().ir;
        for (Op& op : broken.ops)
            for (Stmt& st : op.body)
                if (st.kind == StmtKind::Compute && st.fn == BodyFn::Exp)
                    st.fn = BodyFn::Neg;
        const auto bad = evaluateProgram(broken, {{"x", in}});
        QVERIFY(std::abs(bad.at("softmax_out").f[0] - expected[0]) > 1e-3);
    }

    void encoderMatchesTheReferenceInterpreter_data()
    {
        QTest::addColumn<bool>("baseline");
        QTest::addColumn<int>("cores");
        QTest::newRow("optimised, 32 cores") << false << 32;
        QTest::newRow("baseline, 32 cores") << true << 32;
        QTest::newRow("optimised, 8 cores, 256 KiB LX") << false << 8;
    }

    void encoderMatchesTheReferenceInterpreter()
    {
        // Attention (reshape views, transposes, softmax), LayerNorm, GELU, residuals, fused epilogues, a
        // restickify: the compiled IR must compute what the ONNX graph computes.
        QFETCH(bool, baseline);
        QFETCH(int, cores);
        const model::ModelGraph g = transformerEncoder(2, 32, 128, 2, 256, true);
        model::HostTensor x;
        x.shape = {1, 32, 128};
        for (int i = 0; i < 32 * 128; ++i)
            x.f.push_back(std::sin(0.37f * static_cast<float>(i)) * 1.5f);
        const model::ReferenceResult ref = model::runReference(g, {x});
        QTemporaryDir dir;
        const SpyreTarget t = cores == 32 ? defaultTarget()
                                          : modifiedTarget(dir.path(), {{QStringLiteral("cores"), cores},
                                                                        {QStringLiteral("lx_bytes"), 262144}});
        CompileOptions o;
        o.baseline = baseline;
        const auto snaps = compile(g, t, o);
        const Program& p = *snaps.back().ir;
        int restick = 0;
        for (const Op& op : p.ops)
            restick += op.kind == OpKind::Restickify;
        QVERIFY(restick > 0);
        const auto out = evaluateProgram(p, {{"input", x}});
        const model::TensorComparison c = model::compareTensors(out.at(g.values[g.outputs[0]].name), ref.outputs[0], 1e-3, 1e-4);
        QVERIFY2(c.ok, c.summary("encoder output").c_str());
    }

    void cancelStopsTheJob()
    {
        JobControl job;
        job.requestCancel();
        QVERIFY_THROWS_EXCEPTION(Cancelled, SpyrePipeline::run(mlpModel(), defaultTarget(), CompileOptions{}, job));
    }
};

QTEST_GUILESS_MAIN(TestSpyreCompiler)
#include "tst_spyre_compiler.moc"
