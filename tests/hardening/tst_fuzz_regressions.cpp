// Every input a fuzzer once crashed on (fuzz/regressions/<target>/) replayed through the same library call as the
// fuzz target, in the ordinary test build (and under ASan/UBSan by scripts/run-asan-tests.sh): each must now be
// accepted or refused with an InputError that has a message, and nothing else.
#include "common/testutil.h"
#include "hardening/hardening_util.h"

#include "core/common/diagnostics.h"
#include "core/model/model_loader.h"
#include "core/quantum/pauli.h"
#include "core/quantum/qasm_parser.h"
#include "core/spyre/kernel_bundle.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <functional>

using namespace spyglass;
using namespace spyglass::test;

namespace {

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeFile(const QString& path, const QByteArray& data)
{
    QDir().mkpath(QFileInfo(path).path());
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(data);
}

}  // namespace

class TestFuzzRegressions : public QObject {
    Q_OBJECT

private slots:
    void replay_data()
    {
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("path");
        const QDir root(sourcePath(QStringLiteral("fuzz/regressions")));
        int count = 0;
        for (const QString& target : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot))
            for (const QString& file : QDir(root.filePath(target)).entryList(QDir::Files)) {
                QTest::newRow(qPrintable(target + QLatin1Char('/') + file)) << target << root.filePath(target + QLatin1Char('/') + file);
                ++count;
            }
        QVERIFY(count >= 2);
    }

    void replay()
    {
        QFETCH(QString, target);
        QFETCH(QString, path);
        const QByteArray data = readAll(path);
        const std::string text(data.constData(), static_cast<size_t>(data.size()));
        QTemporaryDir scratch;
        std::function<void()> run;
        if (target == QLatin1String("qasm"))
            run = [&] { quantum::parseQasmString(text, "fuzz.qasm", scratch.filePath(QStringLiteral("include")).toStdString()); };
        else if (target == QLatin1String("hamiltonian"))
            run = [&] { quantum::parsePauliSum(text, "fuzz.ham"); };
        else if (target == QLatin1String("onnx_text"))
            run = [&] { model::loadModelFromText(text, "fuzz.onnxtxt", scratch.path().toStdString()); };
        else if (target == QLatin1String("onnx_binary"))
            run = [&] {
                writeFile(scratch.filePath(QStringLiteral("model.onnx")), data);
                model::loadModel(scratch.filePath(QStringLiteral("model.onnx")).toStdString());
            };
        else if (target == QLatin1String("bundle"))
            run = [&] { spyre::loadKernelBundle(unpackBundle(data, scratch.filePath(QStringLiteral("b"))).toStdString()); };
        else
            QFAIL(qPrintable(QStringLiteral("unknown fuzz target folder '%1'").arg(target)));
        try {
            run();
        } catch (const InputError& e) {
            QVERIFY2(!e.diagnostic().message.empty(), "an InputError without a message");
        }
    }
};

QTEST_GUILESS_MAIN(TestFuzzRegressions)
#include "tst_fuzz_regressions.moc"
