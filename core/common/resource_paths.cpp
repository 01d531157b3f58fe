#include "core/common/resource_paths.h"

#include <QCoreApplication>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace spyglass {

namespace fs = std::filesystem;

std::string findResourceDir(const std::string& kind)
{
    std::vector<fs::path> candidates;
    if (const char* env = std::getenv("SPYGLASS_RESOURCE_DIR"); env && *env)
        candidates.emplace_back(fs::path(env) / kind);
    if (QCoreApplication::instance()) {
        const fs::path appDir = QCoreApplication::applicationDirPath().toStdString();
        candidates.push_back(appDir / ".." / "share" / "spyglass" / kind);
    }
    candidates.push_back(fs::path(SPYGLASS_SOURCE_RESOURCES) / kind);
    std::error_code ec;
    for (const fs::path& c : candidates)
        if (fs::is_directory(c, ec))
            return fs::weakly_canonical(c, ec).string();
    return {};
}

std::vector<std::string> listResourceFiles(const std::string& kind)
{
    std::vector<std::string> files;
    const std::string dir = findResourceDir(kind);
    if (dir.empty())
        return files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.is_regular_file(ec))
            files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace spyglass
