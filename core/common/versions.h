#pragma once
// Versions of Spyglass and of the libraries it links, for --version and Help > About.

#include <string>
#include <vector>
#include <utility>

namespace spyglass {

std::string spyglassVersion();
// Core-side libraries only (Qt Core, SQLite, ONNX, protobuf, Graphviz is reported by views).
std::vector<std::pair<std::string, std::string>> coreLibraryVersions();

}  // namespace spyglass
