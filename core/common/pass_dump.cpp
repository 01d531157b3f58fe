#include "core/common/pass_dump.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace spyglass {

std::string passDumpFileName(size_t index, const std::string& passName)
{
    char prefix[24];
    std::snprintf(prefix, sizeof prefix, "%02zu-", index);
    return prefix + passName + ".txt";
}

void writePassDumps(const std::string& dir, const PassRecords& records)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
        throw InputError(SourceLocation{dir, 0, 0}, "cannot create folder: " + ec.message());
    for (size_t i = 0; i < records.size(); ++i) {
        const std::filesystem::path path = std::filesystem::path(dir) / passDumpFileName(i, records[i].name);
        std::ofstream out(path, std::ios::binary);
        out << records[i].irText;
        out.close();
        if (!out)
            throw InputError(SourceLocation{path.string(), 0, 0}, "cannot write file");
    }
}

}  // namespace spyglass
