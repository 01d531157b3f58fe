// Every ONNX backend node test (generated at test time from Debian's python3-onnx, see tests/model) that the
// loader accepts must compile through every Spyre pass into a complete kernel bundle, and the final IR, evaluated
// on the test's inputs (ir_evaluator.h), must give the test's expected outputs. Any error or mismatch fails.
#include "common/testutil.h"
#include "model/node_tests.h"

#include "core/common/diagnostics.h"
#include "core/common/job_control.h"
#include "core/model/model_loader.h"
#include "core/model/op_support.h"
#include "core/model/test_data.h"
#include "core/spyre/ir_evaluator.h"
#include "core/spyre/kernel_bundle.h"
#include "core/spyre/spyre_pipeline.h"

#include <QDir>
#include <QProcess>
#include <QtTest>


using namespace spyglass;

namespace {

// The suite has 654 tests the loader accepts; far fewer compiling means something broke.
constexpr int kMinimumCompiled = 640;
// The IR is evaluated in double precision; the expected outputs are float32 (ONNX's own numpy results).
constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-4;


}  // namespace

class TestSpyreNodeTests : public QObject {
    Q_OBJECT
private slots:
    void supportedNodeTestsCompile()
    {
        const QDir root(test::onnxNodeTestsDir());
        QVERIFY2(root.exists(), qPrintable(QStringLiteral("no generated node tests at ") + root.path()));
        const QStringList tests = root.entryList({QStringLiteral("test_*")}, QDir::Dirs, QDir::Name);
        QVERIFY2(tests.size() > 500, qPrintable(QStringLiteral("only %1 node tests generated").arg(tests.size())));
        const spyre::SpyreTarget target =
            spyre::SpyreTarget::load(test::sourcePath(QStringLiteral("resources/targets/spyre.json")).toStdString());
        int compiled = 0, matched = 0, rejectedByLoader = 0;
        QStringList failures;
        for (const QString& name : tests) {
            if (const char* why = test::spyreExclusionReason(name)) {
                qInfo().noquote() << "excluded:" << name << "-" << why;
                continue;
            }
            const QString dir = root.filePath(name);
            model::ModelGraph graph;
            model::TestDataSet data;
            try {
                data = model::readTestDataSet(QDir(dir).filePath(QStringLiteral("test_data_set_0")).toStdString());
                graph = model::loadModel(QDir(dir).filePath(QStringLiteral("model.onnx")).toStdString(),
                                         test::nodeTestLoadOptions(data, QDir(dir).filePath(QStringLiteral("model.onnx")).toStdString()));
            } catch (const std::exception&) {
                ++rejectedByLoader;   // unsupported op or form: the loader's own suite covers these
                continue;
            }
            try {
                JobControl job;
                spyre::CompileOptions o;
                o.keepIrText = false;
                const auto snaps = spyre::SpyrePipeline::run(graph, target, o, job);
                const spyre::Program& p = *snaps.back().ir;
                if (!p.bundle || p.bundle->kernels.size() != p.ops.size()) {
                    failures << name + QStringLiteral(": no complete kernel bundle");
                    continue;
                }
                ++compiled;
                // Numerics: the compiled IR computes what the model computes.
                const std::vector<model::HostTensor> given = model::graphInputsFromTestData(graph, data);
                std::map<std::string, model::HostTensor> inputs;
                for (size_t k = 0; k < graph.inputs.size(); ++k)
                    inputs[graph.values[graph.inputs[k]].name] = given[k];
                const auto outputs = spyre::evaluateProgram(p, inputs);
                std::string problems;
                for (size_t k = 0; k < graph.outputs.size() && k < data.outputs.size(); ++k) {
                    const std::string& out = graph.values[graph.outputs[k]].name;
                    const auto it = outputs.find(out);
                    if (it == outputs.end()) {
                        problems += "output '" + out + "' missing; ";
                        continue;
                    }
                    const model::TensorComparison c = model::compareTensors(it->second, data.outputs[k], kRtol, kAtol);
                    if (!c.ok)
                        problems += c.summary(out) + "; ";
                }
                if (problems.empty())
                    ++matched;
                else
                    failures << name + QStringLiteral(": wrong result: ") + QString::fromStdString(problems);
            } catch (const std::exception& e) {
                failures << name + QStringLiteral(": ") + QString::fromStdString(e.what());
            }
        }
        for (const QString& f : failures)
            qWarning().noquote() << "FAILED" << f;
        qInfo().noquote() << QStringLiteral("Spyre compile of ONNX node tests: %1 compiled, %2 of them with the expected "
                                            "outputs, %3 failures; %4 rejected by the loader (its own suite covers those)")
                                 .arg(compiled)
                                 .arg(matched)
                                 .arg(failures.size())
                                 .arg(rejectedByLoader);
        QVERIFY2(failures.isEmpty(), qPrintable(QStringLiteral("%1 node test(s) failed to compile").arg(failures.size())));
        QVERIFY2(compiled >= kMinimumCompiled,
                 qPrintable(QStringLiteral("only %1 compiled, expected at least %2").arg(compiled).arg(kMinimumCompiled)));
    }
};

QTEST_GUILESS_MAIN(TestSpyreNodeTests)
#include "tst_spyre_node_tests.moc"
