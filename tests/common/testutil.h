#pragma once
// Small helpers shared by the Qt Test suites.

#include <QByteArray>
#include <QDir>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace spyglass::test {

inline QString dataPath(const QString& rel) { return QStringLiteral(SPYGLASS_TEST_DATA_DIR "/") + rel; }
inline QString sourcePath(const QString& rel) { return QStringLiteral(SPYGLASS_SOURCE_DIR "/") + rel; }

// Where tests write artefacts (screenshots, exports) inside the build tree.
inline QString outputDir()
{
    QString dir = qEnvironmentVariable("SPYGLASS_TEST_OUTPUT_DIR");
    if (dir.isEmpty())
        dir = QStringLiteral(SPYGLASS_BINARY_DIR "/tests/output");
    QDir().mkpath(dir);
    return dir;
}

struct CliResult {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

// Runs the real spyglass-cli binary.
inline CliResult runCli(const QStringList& args, int timeoutMs = 120000)
{
    QProcess p;
    p.start(QStringLiteral(SPYGLASS_CLI_PATH), args);
    CliResult r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = "timeout";
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

}  // namespace spyglass::test
