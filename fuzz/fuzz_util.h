#pragma once
// Shared by the fuzz targets: the one outcome a parser may have besides success is an InputError with a message.
// Anything else (another exception type, a crash, a sanitizer report, a hang, runaway memory) is a finding.

#include "core/common/diagnostics.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace spyglass::fuzz {

// A private folder for the inputs that must be files (the ONNX loader, the kernel-bundle reader), removed at exit.
inline const std::filesystem::path& scratchDir()
{
    static const std::filesystem::path dir = [] {
        std::string tmpl = (std::filesystem::temp_directory_path() / "spyglass-fuzz-XXXXXX").string();
        if (!mkdtemp(tmpl.data())) {
            std::perror("mkdtemp");
            std::abort();
        }
        std::atexit([] { std::error_code ec; std::filesystem::remove_all(scratchDir(), ec); });
        return std::filesystem::path(tmpl);
    }();
    return dir;
}

inline void writeFile(const std::filesystem::path& path, const char* data, size_t size)
{
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(data, static_cast<std::streamsize>(size));
}

// An InputError must say what is wrong; an empty message is as useless to the user as a crash.
inline void checkRejection(const InputError& e)
{
    if (e.diagnostic().message.empty()) {
        std::fprintf(stderr, "InputError without a message\n");
        std::abort();
    }
}

}  // namespace spyglass::fuzz
