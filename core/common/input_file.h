#pragma once
// Reading files a user names (models, circuits and their includes, Hamiltonians, targets, kernel bundles, test
// data): every reader goes through here, so the same rules hold everywhere. Only regular files are read: a FIFO
// would block forever and a device (/dev/zero) never ends, so both are refused from their type, before they are
// opened. The size is checked before a byte is read. A file inside a folder must stay inside it once symlinks
// are resolved.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

namespace spyglass {

// Bytes of `path`; throws InputError naming `path`: missing, a folder ("is a folder, expected <expected>"), not a
// regular file, or larger than maxBytes (the message is tooLarge(size) when given).
std::string readInputFile(const std::string& path, const std::string& expected, uint64_t maxBytes,
                          const std::function<std::string(uint64_t size)>& tooLarge = {});

// Throws the same errors readInputFile would for `path`, without reading it; returns its size.
uint64_t checkInputFile(const std::string& path, const std::string& expected, uint64_t maxBytes,
                        const std::function<std::string(uint64_t size)>& tooLarge = {});

// Whether `file` (relative to `root`, or absolute) resolves, after symlinks, to a path under `root`.
bool resolvesInside(const std::filesystem::path& root, const std::filesystem::path& file);

// "12 MiB" from 1 MiB up, else "123 bytes".
std::string byteSizeText(uint64_t bytes);

}  // namespace spyglass
