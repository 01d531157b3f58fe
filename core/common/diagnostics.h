#pragma once
// Errors that come from the user's input: a file position (or an op/node name) and a plain message.
// Every loader and parser throws InputError; the CLI turns it into exit code 2, the GUI into a Problems entry.

#include <stdexcept>
#include <string>
#include <vector>

namespace spyglass {

enum class Severity { Note, Warning, Error };

struct SourceLocation {
    std::string file;   // as the user named it
    int line = 0;       // 1-based; 0 when the input has no lines (binary protobuf)
    int column = 0;     // 1-based; 0 when unknown
};

struct Diagnostic {
    Severity severity = Severity::Error;
    SourceLocation location;
    std::string message;
    std::string sourceLine;   // the offending line of text, when there is one (shown with a caret)
    std::string node;         // op type and node name for model errors, e.g. "MatMul 'layer0/mm'"

    // "file:line:column: error: message" followed, when known, by the source line and a caret.
    std::string format() const;
};

class InputError : public std::runtime_error {
public:
    explicit InputError(Diagnostic d);
    InputError(SourceLocation loc, std::string message);
    const Diagnostic& diagnostic() const { return diag_; }

private:
    Diagnostic diag_;
};

// Collects warnings (e.g. a missing OPENQASM header) that do not stop the job.
class DiagnosticSink {
public:
    void add(Diagnostic d) { items_.push_back(std::move(d)); }
    void warn(SourceLocation loc, std::string message);
    const std::vector<Diagnostic>& items() const { return items_; }
    bool empty() const { return items_.empty(); }

private:
    std::vector<Diagnostic> items_;
};

const char* severityName(Severity s);

}  // namespace spyglass
