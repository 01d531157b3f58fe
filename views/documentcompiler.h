#pragma once
// Turns a file into a CompiledDocument on a worker thread: reads it (bounded size), then runs the compiler
// that fits its kind and collects one PassRecord per pass. This is the only place the GUI calls compilers.

#include "views/document.h"

#include "core/common/job_control.h"
#include "core/plugins/pass_plugin_loader.h"

#include <map>
#include <string>

namespace spyglass {

// Files larger than this are refused before reading (a model or circuit of this size is not a document).
constexpr qint64 kMaxDocumentBytes = 512ll * 1024 * 1024;

// What the user asked for beyond the defaults: the "what-if" pins (tensor -> stick dimension; op -> var -> ways),
// and the pass plugins loaded with File > Load Pass Plugin (their passes join whichever pipeline fits the file).
struct CompileRequest {
    std::map<std::string, int> pins;
    std::map<std::string, std::map<std::string, int>> splitPins;
    std::vector<const plugins::LoadedPlugin*> plugins;
};

// Throws InputError for unreadable or unsupported files (and for pins the compiler rejects).
CompiledDocument compileDocument(const QString& path, JobControl& control, const CompileRequest& request = {});

}  // namespace spyglass
