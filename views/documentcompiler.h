#pragma once
// Turns a file into a CompiledDocument on a worker thread: reads it (bounded size), then runs the compiler
// that fits its kind and collects one PassRecord per pass. This is the only place the GUI calls compilers.

#include "views/document.h"

#include "core/common/job_control.h"

namespace spyglass {

// Files larger than this are refused before reading (a model or circuit of this size is not a document).
constexpr qint64 kMaxDocumentBytes = 512ll * 1024 * 1024;

// Throws InputError for unreadable or unsupported files.
CompiledDocument compileDocument(const QString& path, JobControl& control);

}  // namespace spyglass
