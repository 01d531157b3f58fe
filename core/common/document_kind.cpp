#include "core/common/document_kind.h"

#include <algorithm>
#include <filesystem>

namespace spyglass {

DocumentKind detectDocumentKind(const std::string& path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path p(path);
    if (fs::is_directory(p, ec))
        return fs::is_regular_file(p / "manifest.json", ec) ? DocumentKind::KernelBundle : DocumentKind::Unknown;
    std::string ext = p.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    if (ext == ".onnx" || ext == ".onnxtxt")
        return DocumentKind::Model;
    if (ext == ".qasm")
        return DocumentKind::Circuit;
    if (ext == ".vqe")
        return DocumentKind::Vqe;
    if (p.filename() == "manifest.json")
        return DocumentKind::KernelBundle;
    return DocumentKind::Unknown;
}

const char* documentKindName(DocumentKind kind)
{
    switch (kind) {
    case DocumentKind::Model: return "model";
    case DocumentKind::Circuit: return "circuit";
    case DocumentKind::KernelBundle: return "kernel bundle";
    case DocumentKind::Vqe: return "VQE recipe";
    case DocumentKind::Unknown: break;
    }
    return "unknown";
}

}  // namespace spyglass
