// Pinned core splits (CompileOptions::splitPins, `compile --pin-split`): work_division takes a legal pin instead of
// choosing, codegen slices the kernel by it, and illegal pins are refused with the op and the reason.
#include "common/testutil.h"

#include "core/common/diagnostics.h"
#include "core/common/job_control.h"
#include "core/model/model_loader.h"
#include "core/spyre/kernel_bundle.h"
#include "core/spyre/spyre_pipeline.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <set>

using namespace spyglass;
using namespace spyglass::spyre;

namespace {

SpyreTarget defaultTarget()
{
    return SpyreTarget::load(test::sourcePath(QStringLiteral("resources/targets/spyre.json")).toStdString());
}

QString matmulPath() { return test::sourcePath(QStringLiteral("resources/examples/matmul.onnxtxt")); }
QString layernormPath() { return test::dataPath(QStringLiteral("spyre/models/layernorm_gelu.onnxtxt")); }

const Program& compiled(const QString& path, const CompileOptions& o, std::vector<SpyreSnapshot>& keep)
{
    JobControl job;
    keep = SpyrePipeline::run(model::loadModel(path.toStdString()), defaultTarget(), o, job);
    return *keep.back().ir;
}

// The InputError message of compiling `path` with `o`, or "" when it compiles.
QString refusal(const QString& path, const CompileOptions& o)
{
    try {
        std::vector<SpyreSnapshot> keep;
        compiled(path, o, keep);
    } catch (const InputError& e) {
        return QString::fromStdString(e.diagnostic().format());
    }
    return {};
}

const Op& opNamed(const Program& p, const std::string& name)
{
    for (const Op& op : p.ops)
        if (op.name == name)
            return op;
    qFatal("no op %s", name.c_str());
}

}  // namespace

class TestSplitPins : public QObject {
    Q_OBJECT

private slots:
    void pinnedSplitLandsInTheOpAndTheKernel()
    {
        // Unpinned, the cost model picks {p0: 4, p1: 2}; pin a different legal split that uses the K (r0) var.
        std::vector<SpyreSnapshot> freeSnaps, pinSnaps;
        const Program& free = compiled(matmulPath(), {}, freeSnaps);
        CompileOptions o;
        o.splitPins["op0"] = {{"p0", 8}, {"r0", 2}};
        const Program& pinned = compiled(matmulPath(), o, pinSnaps);

        const Op& op = opNamed(pinned, "op0");
        QCOMPARE(op.split.ways, (std::vector<int>{8, 1, 2}));
        QCOMPARE(op.split.cores, 16);
        QCOMPARE(QString::fromStdString(op.split.why), QStringLiteral("pinned by the user"));
        QVERIFY(opNamed(free, "op0").split.ways != op.split.ways);

        QVERIFY(pinned.bundle);
        const Kernel& k = pinned.bundle->kernels.at(0);
        QCOMPARE(k.cores, 16);
        QCOMPARE(QString::fromStdString(k.splitReason), QStringLiteral("pinned by the user"));
        QCOMPARE(k.vars.at(0).ways, 8);
        QCOMPARE(k.vars.at(1).ways, 1);
        QCOMPARE(k.vars.at(2).ways, 2);
        QCOMPARE(k.slices.size(), size_t(16));
        // 256 rows in 8 parts of 32; p1 whole (128); 512 K elements in 2 halves of 256; every (p0, r0) pair once.
        std::set<std::pair<int64_t, int64_t>> starts;
        for (const KernelSlice& s : k.slices) {
            QCOMPARE(s.extent, (std::vector<int64_t>{32, 128, 256}));
            QCOMPARE(s.start[1], int64_t(0));
            starts.insert({s.start[0], s.start[2]});
        }
        QCOMPARE(starts.size(), size_t(16));
    }

    void pinByOnnxNodeName()
    {
        std::vector<SpyreSnapshot> snaps;
        CompileOptions o;
        o.splitPins["MatMul_0"] = {{"p0", 2}, {"p1", 2}};
        const Op& op = opNamed(compiled(matmulPath(), o, snaps), "op0");
        QCOMPARE(op.split.ways, (std::vector<int>{2, 2, 1}));
        QCOMPARE(op.split.cores, 4);
    }

    void reductionMayPinItsReductionVar()
    {
        std::vector<SpyreSnapshot> snaps;
        CompileOptions o;
        o.splitPins["op0"] = {{"p1", 4}, {"r0", 4}};
        const Program& p = compiled(layernormPath(), o, snaps);
        const Op& op = opNamed(p, "op0");
        QCOMPARE(op.kind, OpKind::Reduction);
        QCOMPARE(op.split.ways, (std::vector<int>{1, 4, 4}));
        // The other ops keep the pass's own choice.
        for (const Op& other : p.ops)
            if (other.name != "op0")
                QVERIFY2(other.split.why != "pinned by the user", other.name.c_str());
    }

    void opNamesAreIdentitiesAcrossPassesAndPins()
    {
        // transpose_restickify lowers to op0 Transpose, op1 Relu, op2 MatMul; fuse merges op0 into op1. Pinning r
        // (op1's output) on d0 makes insert_restickify add a copy before the MatMul, which used to renumber the
        // MatMul from op1 to op2 and so move a split pin made before onto the new restickify op.
        const QString path = test::sourcePath(QStringLiteral("resources/examples/transpose_restickify.onnxtxt"));
        std::vector<SpyreSnapshot> freeSnaps, pinSnaps;
        CompileOptions o;
        o.splitPins["op2"] = {{"p0", 4}};
        const Program& free = compiled(path, o, freeSnaps);
        o.pins["r"] = 0;
        const Program& pinned = compiled(path, o, pinSnaps);
        QCOMPARE(free.ops.size(), size_t(2));
        QCOMPARE(pinned.ops.size(), size_t(3));
        for (const Program* p : {&free, &pinned}) {
            const Op& mm = opNamed(*p, "op2");
            QCOMPARE(mm.kind, OpKind::MatMul);
            QCOMPARE(mm.split.ways, (std::vector<int>{4, 1, 1}));
            QCOMPARE(QString::fromStdString(mm.split.why), QStringLiteral("pinned by the user"));
            QCOMPARE(opNamed(*p, "op1").fusedFrom, (std::vector<std::string>{"op0", "op1"}));
        }
        // The restickify op is named after the copy it writes; its origin names the tensor it moves.
        const Op& rs = pinned.ops[1];
        QCOMPARE(rs.kind, OpKind::Restickify);
        QCOMPARE(rs.name, "rs_" + pinned.buffers[static_cast<size_t>(rs.store.buffer)].name);
        QCOMPARE(rs.origins, (std::vector<std::string>{"restickify 'r'"}));
        // Every snapshot from lower on names the MatMul op2, and findOp finds a fused-away op in its survivor.
        for (const SpyreSnapshot& s : pinSnaps)
            if (s.ir->stage == Stage::Loop) {
                const int at = s.ir->findOp("op2");
                QVERIFY2(at >= 0 && s.ir->ops[static_cast<size_t>(at)].kind == OpKind::MatMul, s.record.name.c_str());
            }
        QCOMPARE(pinned.findOp("op0"), pinned.findOp("op1"));
        QCOMPARE(pinned.findOp("op9"), -1);
        // A bundle's kernels carry the same names.
        QVERIFY(pinned.bundle);
        QCOMPARE(pinned.bundle->kernels.at(2).name, std::string("op2"));
    }

    void illegalPinsAreRefused_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("var");
        QTest::addColumn<int>("ways");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown var") << matmulPath() << "op0" << "p7" << 2 << "op0 (MatMul): no var 'p7'; its vars are p0 (256), p1 (2 sticks), r0 (512)";
        QTest::newRow("zero ways") << matmulPath() << "op0" << "p0" << 0 << "op0 (MatMul): p0 split 0 ways: ways must be at least 1";
        QTest::newRow("sticks not divisible") << matmulPath() << "op0" << "p1" << 4 << "op0 (MatMul): p1 has 2 sticks per tile, which 4 does not divide";
        QTest::newRow("elements not divisible") << matmulPath() << "op0" << "p0" << 3 << "op0 (MatMul): p0 has 256 elements per tile, which 3 does not divide";
        QTest::newRow("too many cores") << matmulPath() << "op0" << "r0" << 64 << "op0 (MatMul): needs 64 cores; the target has 32";
        QTest::newRow("no such op") << matmulPath() << "op9" << "p0" << 2 << "--pin-split op9: no op of that name";
    }

    void illegalPinsAreRefused()
    {
        QFETCH(QString, model);
        QFETCH(QString, op);
        QFETCH(QString, var);
        QFETCH(int, ways);
        QFETCH(QString, expected);
        CompileOptions o;
        o.splitPins[op.toStdString()] = {{var.toStdString(), ways}};
        const QString msg = refusal(model, o);
        QVERIFY2(msg.contains(expected), qPrintable(msg));
        QVERIFY2(msg.contains(QStringLiteral("--pin-split ") + op), qPrintable(msg));
    }

    void cliPinSplit()
    {
        const auto r = test::runCli({QStringLiteral("compile"), matmulPath(), QStringLiteral("--pin-split"),
                                     QStringLiteral("op0=p0:8,r0:2"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o.value(QStringLiteral("cores_used")).toInt(), 16);
        bool found = false;
        for (const QJsonValue& v : o.value(QStringLiteral("passes")).toArray())
            if (v.toObject().value(QStringLiteral("name")).toString() == QStringLiteral("work_division"))
                found = v.toObject().value(QStringLiteral("summary")).toString().contains(QStringLiteral("1 pinned"));
        QVERIFY(found);
    }

    void cliRefusesBadPins_data()
    {
        QTest::addColumn<QString>("pin");
        QTest::addColumn<QString>("expected");
        QTest::newRow("syntax") << "op0=p0" << "--pin-split expects VAR:WAYS items such as p0:4, got 'p0'";
        QTest::newRow("no op") << "=p0:2" << "--pin-split expects OP=VAR:WAYS";
        QTest::newRow("not legal") << "op0=p1:4" << "p1 has 2 sticks per tile, which 4 does not divide";
    }

    void cliRefusesBadPins()
    {
        QFETCH(QString, pin);
        QFETCH(QString, expected);
        const auto r = test::runCli({QStringLiteral("compile"), matmulPath(), QStringLiteral("--pin-split"), pin});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(QString::fromUtf8(r.err).contains(expected), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestSplitPins)
#include "tst_split_pins.moc"
