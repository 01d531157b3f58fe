#include "views/documentcompiler.h"

#include "core/common/diagnostics.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>

namespace spyglass {

namespace {

SourceLocation at(const QString& path) { return SourceLocation{path.toStdString(), 0, 0}; }

QString readText(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        throw InputError(at(path), "cannot open: " + f.errorString().toStdString());
    return QString::fromUtf8(f.readAll());
}

}  // namespace

CompiledDocument compileDocument(const QString& path, JobControl& control)
{
    const QFileInfo info(path);
    if (!info.exists())
        throw InputError(at(path), "no such file or directory");
    CompiledDocument doc;
    doc.path = info.absoluteFilePath();
    doc.kind = detectDocumentKind(path.toStdString());
    if (doc.kind == DocumentKind::Unknown)
        throw InputError(at(path), "not a model (.onnx, .onnxtxt), circuit (.qasm) or kernel bundle");
    if (info.isFile() && info.size() > kMaxDocumentBytes)
        throw InputError(at(path), "file is larger than the " + std::to_string(kMaxDocumentBytes >> 20) + " MiB limit");

    control.report(0.0, "reading " + info.fileName().toStdString());
    QElapsedTimer timer;
    timer.start();
    const bool binary = path.endsWith(QLatin1String(".onnx"), Qt::CaseInsensitive) || info.isDir();
    if (!binary)
        doc.sourceText = readText(path);
    control.checkpoint();

    // The first record is the input as read; the compilers' passes follow it.
    PassRecord source;
    source.name = "source";
    source.description = "the document as read from disk";
    source.changed = true;
    source.summary = binary ? "binary model, " + std::to_string(info.size()) + " bytes"
                            : std::to_string(doc.sourceText.count(QLatin1Char('\n'))) + " lines";
    source.wallMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    source.irText = doc.sourceText.toStdString();
    doc.passes.push_back(std::move(source));
    control.report(1.0, "done");
    return doc;
}

}  // namespace spyglass
