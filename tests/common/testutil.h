#pragma once
// Small helpers shared by the Qt Test suites.

#include <QByteArray>
#include <QDir>
#include <QProcess>
#include <QString>
#include <QStringList>

#include "tests/paths/test_paths.h"

namespace spyglass::test {

inline QString dataPath(const QString& rel) { return testDataDir() + QLatin1Char('/') + rel; }
inline QString sourcePath(const QString& rel) { return sourceDir() + QLatin1Char('/') + rel; }

// Where tests write artefacts (screenshots, exports) inside the build tree.
inline QString outputDir()
{
    QString dir = qEnvironmentVariable("SPYGLASS_TEST_OUTPUT_DIR");
    if (dir.isEmpty())
        dir = binaryDir() + QStringLiteral("/tests/output");
    QDir().mkpath(dir);
    return dir;
}

struct CliResult {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

// Runs `program` with `args` to the end (or kills it after timeoutMs).
inline CliResult runProgram(const QString& program, const QStringList& args, int timeoutMs = 120000)
{
    QProcess p;
    p.start(program, args);
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

// Runs the real spyglass-cli binary.
inline CliResult runCli(const QStringList& args, int timeoutMs = 120000) { return runProgram(cliPath(), args, timeoutMs); }

}  // namespace spyglass::test
