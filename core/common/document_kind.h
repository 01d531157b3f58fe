#pragma once
// What kind of thing a path on disk is, so the shell knows which compiler to open it with.

#include <string>

namespace spyglass {

enum class DocumentKind { Unknown, Model, Circuit, KernelBundle, Vqe };

// By extension (.onnx, .onnxtxt -> Model; .qasm -> Circuit; .vqe -> Vqe, a VQE recipe) or, for a directory, by its manifest.json.
DocumentKind detectDocumentKind(const std::string& path);
const char* documentKindName(DocumentKind kind);

}  // namespace spyglass
