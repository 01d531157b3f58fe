#include "core/common/diagnostics.h"

namespace spyglass {

const char* severityName(Severity s)
{
    switch (s) {
    case Severity::Note: return "note";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
    }
    return "error";
}

std::string Diagnostic::format() const
{
    std::string out;
    if (!location.file.empty()) {
        out += location.file;
        if (location.line > 0) {
            out += ':' + std::to_string(location.line);
            if (location.column > 0)
                out += ':' + std::to_string(location.column);
        }
        out += ": ";
    }
    out += severityName(severity);
    out += ": ";
    if (!node.empty())
        out += node + ": ";
    out += message;
    if (!sourceLine.empty()) {
        out += "\n  " + sourceLine + "\n  ";
        // Keep tabs so the caret lines up under tab-indented source.
        for (int i = 1; i < location.column && i - 1 < static_cast<int>(sourceLine.size()); ++i)
            out += sourceLine[i - 1] == '\t' ? '\t' : ' ';
        out += '^';
    }
    return out;
}

InputError::InputError(Diagnostic d) : std::runtime_error(d.format()), diag_(std::move(d)) {}

InputError::InputError(SourceLocation loc, std::string message)
    : InputError(Diagnostic{Severity::Error, std::move(loc), std::move(message), {}, {}})
{
}

void DiagnosticSink::warn(SourceLocation loc, std::string message)
{
    items_.push_back(Diagnostic{Severity::Warning, std::move(loc), std::move(message), {}, {}});
}

}  // namespace spyglass
