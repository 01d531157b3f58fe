// `spyglass-cli info FILE`: what Spyglass makes of a file before doing any work on it.
#include "app/cli/cli.h"

#include "core/common/diagnostics.h"
#include "core/common/document_kind.h"

#include <QJsonObject>

#include <filesystem>
#include <iostream>

namespace spyglass::cli {
namespace {

int runInfo(Args& args)
{
    const std::string path = args.positional("FILE");
    args.finish();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw InputError(SourceLocation{path, 0, 0}, "no such file or directory");
    const DocumentKind kind = detectDocumentKind(path);
    if (kind == DocumentKind::Unknown)
        throw InputError(SourceLocation{path, 0, 0},
                         "not a model (.onnx, .onnxtxt), circuit (.qasm), VQE recipe (.vqe) or kernel bundle (folder with manifest.json)");
    const auto bytes = std::filesystem::is_directory(path, ec) ? 0 : std::filesystem::file_size(path, ec);
    if (args.json()) {
        QJsonObject o;
        o[QStringLiteral("path")] = QString::fromStdString(path);
        o[QStringLiteral("kind")] = QString::fromLatin1(documentKindName(kind));
        o[QStringLiteral("bytes")] = static_cast<double>(bytes);
        printJson(o);
    } else {
        std::cout << path << ": " << documentKindName(kind) << ", " << bytes << " bytes\n";
    }
    return ExitOk;
}

const RegisterCommand reg{{"info", "say what kind of document a file is", "info FILE [--json]", runInfo}};

}  // namespace
}  // namespace spyglass::cli
