#pragma once
// Content hashes that identify artifacts and target descriptions across sessions.

#include <string>

namespace spyglass::session {

// SHA-256 (lower-case hex) of a file's bytes, or of a folder (a kernel bundle): every regular file below it
// in path order, each as its relative path and its bytes. Throws InputError when the path cannot be read.
std::string contentHashOfPath(const std::string& path);

// SHA-256 (lower-case hex) of bytes in memory, e.g. a document the GUI holds unsaved.
std::string contentHashOfBytes(const std::string& bytes);

}  // namespace spyglass::session
