// Issue 4, item 6: every ONNX backend node test of the supported ops must pass on the spyre backend: compiled
// through every pass, then simulated (device memory in fp16 sticks, fp32 accumulation), within torch-spyre's
// tolerances for the device (rtol 2e-2, atol 2e-3 * max(1, max|ref|)). The node tests are generated at test
// time from Debian's python3-onnx (see tests/model).
//
// A few tests feed values fp16 cannot hold apart (softmax of 10000..10003: fp16's step there is 8). Those are
// not excused by name: a mismatch only counts as "limited by the device format" when the reference interpreter,
// fed the same inputs rounded to fp16, gives what the simulator gives; anything else is a failure.
#include "common/testutil.h"
#include "model/node_tests.h"
#include "core/common/job_control.h"
#include "core/model/half_float.h"
#include "core/model/model_loader.h"
#include "core/model/reference_interpreter.h"
#include "core/model/test_data.h"
#include "core/spyre/spyre_pipeline.h"
#include "core/spyresim/spyre_simulator.h"

#include <QDir>
#include <QProcess>
#include <QtTest>

#include <cmath>

using namespace spyglass;

namespace {

constexpr int kMinimumSimulated = 640;   // of the 654 the loader accepts



}  // namespace

class TestSpyreSimNodeTests : public QObject {
    Q_OBJECT

private slots:
    void nodeTestsPassOnTheSimulator()
    {
        const QDir root(test::onnxNodeTestsDir());
        QVERIFY2(root.exists(), qPrintable(QStringLiteral("no generated node tests at ") + root.path()));
        const QStringList tests = root.entryList({QStringLiteral("test_*")}, QDir::Dirs, QDir::Name);
        const spyre::SpyreTarget target = spyre::SpyreTarget::load(test::sourcePath(QStringLiteral("resources/targets/spyre.json")).toStdString());
        int simulated = 0, matched = 0;
        QStringList failures, formatLimited, rangeLimited;
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
                graph = model::loadModel(QDir(dir).filePath(QStringLiteral("model.onnx")).toStdString(), test::nodeTestLoadOptions(data, QDir(dir).filePath(QStringLiteral("model.onnx")).toStdString()));
            } catch (const std::exception&) {
                continue;   // not a supported op: the loader's suite covers these
            }
            try {
                JobControl job;
                spyre::CompileOptions o;
                o.keepIrText = false;
                const auto snaps = spyre::SpyrePipeline::run(graph, target, o, job);
                const spyre::Program& p = *snaps.back().ir;
                const std::vector<model::HostTensor> given = model::graphInputsFromTestData(graph, data);
                std::map<std::string, model::HostTensor> inputs;
                for (size_t k = 0; k < graph.inputs.size(); ++k)
                    inputs[graph.values[graph.inputs[k]].name] = given[k];
                spyresim::SimOptions so;
                so.hostThreads = 2;
                so.trace = false;
                const spyresim::SimResult r = spyresim::simulate(*p.bundle, target, inputs, so);
                ++simulated;
                auto problemsAgainst = [&](const std::vector<model::HostTensor>& expected) {
                    std::string problems;
                    for (size_t k = 0; k < graph.outputs.size() && k < expected.size(); ++k) {
                        const std::string& out = graph.values[graph.outputs[k]].name;
                        const auto it = r.outputs.find(out);
                        if (it == r.outputs.end()) {
                            problems += "output '" + out + "' missing; ";
                            continue;
                        }
                        const model::TensorComparison c = model::compareTensors(it->second, expected[k], spyresim::kDeviceRtol, spyresim::deviceAtol(expected[k]));
                        if (!c.ok)
                            problems += c.summary(out) + "; ";
                    }
                    return problems;
                };
                const std::string problems = problemsAgainst(data.outputs);
                if (problems.empty()) {
                    ++matched;
                    continue;
                }
                std::vector<model::HostTensor> rounded = given;
                for (model::HostTensor& t : rounded)
                    for (float& x : t.f)
                        x = model::roundToHalf(x);
                // An expected output beyond fp16's range (ReduceProd of 1..12 is 4.8e8) is infinite on the device.
                std::vector<model::HostTensor> roundedOutputs = data.outputs;
                for (model::HostTensor& t : roundedOutputs)
                    for (float& x : t.f)
                        x = model::roundToHalf(x);
                if (problemsAgainst(model::runReference(graph, rounded).outputs).empty())
                    formatLimited << name + QStringLiteral(": ") + QString::fromStdString(problems);
                else if (problemsAgainst(roundedOutputs).empty())
                    rangeLimited << name + QStringLiteral(": ") + QString::fromStdString(problems);
                else
                    failures << name + QStringLiteral(": ") + QString::fromStdString(problems);
            } catch (const std::exception& e) {
                failures << name + QStringLiteral(": ") + QString::fromStdString(e.what());
            }
        }
        for (const QString& f : formatLimited)
            qInfo().noquote() << "limited by fp16 inputs (the reference on fp16-rounded inputs agrees with the simulator):" << f;
        for (const QString& f : rangeLimited)
            qInfo().noquote() << "limited by fp16's range (the expected outputs rounded to fp16 agree with the simulator):" << f;
        for (const QString& f : failures)
            qWarning().noquote() << "FAILED" << f;
        qInfo().noquote() << QStringLiteral("spyre backend on ONNX node tests: %1 simulated, %2 within tolerance, %3 limited by fp16 inputs, %4 by fp16's range, %5 failures")
                                 .arg(simulated).arg(matched).arg(formatLimited.size()).arg(rangeLimited.size()).arg(failures.size());
        QVERIFY2(rangeLimited.size() <= 1, qPrintable(QStringLiteral("%1 tests blamed on fp16's range; expected only test_reduce_prod_default_axes_keepdims_example").arg(rangeLimited.size())));
        QVERIFY2(formatLimited.size() <= 5, qPrintable(QStringLiteral("%1 tests blamed on fp16 inputs; expected the 4 large-number softmax tests and "
                                                                      "test_dynamicquantizelinear_min_adjusted_expanded (one quantum)").arg(formatLimited.size())));
        QVERIFY2(failures.isEmpty(), qPrintable(QStringLiteral("%1 node test(s) failed on the simulator").arg(failures.size())));
        QVERIFY2(simulated >= kMinimumSimulated, qPrintable(QStringLiteral("only %1 simulated, expected at least %2").arg(simulated).arg(kMinimumSimulated)));
    }
};

QTEST_GUILESS_MAIN(TestSpyreSimNodeTests)
#include "tst_spyresim_node_tests.moc"
