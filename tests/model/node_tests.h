#pragma once
// Where the generated ONNX backend node tests live in the build tree. Generated on first use with the
// same idempotent script the CTest fixture runs (tests/model/generate_node_tests.py), so a suite run
// on its own, before the fixture, still finds them.

#include "common/testutil.h"

#include <QDebug>
#include <QFile>
#include <QProcess>
#include <QString>

namespace spyglass::test {

inline QString onnxNodeTestsDir()
{
    const QString out = binaryDir() + QStringLiteral("/tests/model/onnx-node-tests");
    const QString node = out + QStringLiteral("/node");
    if (!QFile::exists(node + QStringLiteral("/.complete"))) {
        QProcess gen;
        gen.setProcessChannelMode(QProcess::MergedChannels);
        gen.start(QStringLiteral("/usr/bin/python3"), {sourcePath(QStringLiteral("tests/model/generate_node_tests.py")), out});
        gen.waitForFinished(300000);
        qInfo().noquote() << gen.readAll().trimmed();
    }
    return node;
}

inline QString onnxNodeTest(const QString& name) { return onnxNodeTestsDir() + QLatin1Char('/') + name; }

}  // namespace spyglass::test
