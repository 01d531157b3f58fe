#pragma once
// The bad-input corpus (tests/data/bad/expected.tsv): each bad file, where the error must point, and the text the
// error must contain. Shared by the CLI suite (tests/hardening) and the GUI suite (tests/gui).

#include "common/testutil.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QString>
#include <QStringList>
#include <QVector>

namespace spyglass::test {

struct BadInput {
    QString file;       // name inside tests/data/bad
    int line = 0;       // 0: the input has no lines (binary protobuf) or the error is about the whole file
    int column = 0;
    QString part;       // kernel bundles (.bundle): the file inside the bundle the error names, e.g. kernels/k0.json
    QString expected;   // a substring of the error message

    QString path() const { return dataPath(QStringLiteral("bad/") + file); }
    QString suffix() const { return QFileInfo(file).suffix(); }
    // "path:line:column" as the CLI and the Problems dock write it; just the path when there is no line.
    QString location() const
    {
        QString loc = path();
        if (line > 0)
            loc += QLatin1Char(':') + QString::number(line) + QLatin1Char(':') + QString::number(column);
        return loc;
    }
};

// Rows "file<TAB>line:column or -<TAB>expected text"; '#' starts a comment line. Malformed rows fail loudly.
inline QVector<BadInput> readBadInputs(QString* error = nullptr)
{
    QVector<BadInput> rows;
    QFile f(dataPath(QStringLiteral("bad/expected.tsv")));
    if (!f.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("cannot open expected.tsv");
        return rows;
    }
    int lineNo = 0;
    for (const QByteArray& raw : f.readAll().split('\n')) {
        ++lineNo;
        const QString line = QString::fromUtf8(raw);
        if (line.trimmed().isEmpty() || line.startsWith(QLatin1Char('#')))
            continue;
        const QStringList cols = line.split(QLatin1Char('\t'));
        BadInput b;
        bool ok = cols.size() == 3 && !cols[2].isEmpty();
        if (ok) {
            b.file = cols[0];
            b.expected = cols[2];
            if (QFileInfo(b.file).suffix() == QLatin1String("bundle")) {
                b.part = cols[1];
                ok = b.part == QLatin1String("manifest.json") || b.part == QLatin1String("kernels/k0.json");
            } else if (cols[1] != QLatin1String("-")) {
                const QStringList lc = cols[1].split(QLatin1Char(':'));
                bool okLine = false, okCol = false;
                if (lc.size() == 2) {
                    b.line = lc[0].toInt(&okLine);
                    b.column = lc[1].toInt(&okCol);
                }
                ok = okLine && okCol && b.line > 0 && b.column > 0;
            }
        }
        if (!ok) {
            if (error)
                *error = QStringLiteral("expected.tsv:%1: malformed row '%2'").arg(lineNo).arg(line);
            return {};
        }
        rows.push_back(b);
    }
    return rows;
}

// A kernel bundle in its one-file form (manifest.json, a line "@@kernel@@", kernels/k0.json; the fuzz target's
// input) unpacked into the folder `dir`, which it returns.
inline QString unpackBundle(const QByteArray& data, const QString& dir)
{
    const QByteArray sep = "\n@@kernel@@\n";
    const qsizetype cut = data.indexOf(sep);
    QDir().mkpath(dir + QStringLiteral("/kernels"));
    auto write = [](const QString& path, const QByteArray& bytes) {
        QFile f(path);
        if (f.open(QIODevice::WriteOnly))
            f.write(bytes);
    };
    write(dir + QStringLiteral("/manifest.json"), cut < 0 ? data : data.left(cut));
    if (cut >= 0)
        write(dir + QStringLiteral("/kernels/k0.json"), data.mid(cut + sep.size()));
    return dir;
}

// The CLI command that reads a bad file of this kind.
inline QStringList cliArgsFor(const BadInput& b)
{
    const QString s = b.suffix();
    if (s == QLatin1String("qasm"))
        return {QStringLiteral("qsim"), b.path()};
    if (s == QLatin1String("ham"))
        return {QStringLiteral("vqe"), QStringLiteral("--qubits"), QStringLiteral("2"), QStringLiteral("--layers"), QStringLiteral("1"),
                QStringLiteral("--optimizer"), QStringLiteral("spsa"), QStringLiteral("--iterations"), QStringLiteral("1"),
                QStringLiteral("--seed"), QStringLiteral("1"), QStringLiteral("--hamiltonian"), b.path()};
    return {QStringLiteral("compile"), b.path()};   // .onnx, .onnxtxt
}

}  // namespace spyglass::test
