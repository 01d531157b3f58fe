#pragma once
// OpenQASM 2.0 front end: lexer and recursive-descent parser producing QPIR. Every error is a
// spyglass::InputError with file:line:column and the offending source line; warnings (e.g. a missing
// `OPENQASM 2.0;` header) go to the result.

#include "core/quantum/circuit.h"

#include <string>
#include <vector>

namespace spyglass::quantum {

struct ParseResult {
    Circuit circuit;
    std::vector<Diagnostic> warnings;
};

// Reads a file; `include` resolves relative to the including file and may not leave that file's folder.
ParseResult parseQasmFile(const std::string& path);
// Parses text; `fileName` is used in messages. Includes other than qelib1.inc resolve in `includeDir`
// (and are refused when it is empty).
ParseResult parseQasmString(const std::string& text, const std::string& fileName = "<input>",
                            const std::string& includeDir = {});

}  // namespace spyglass::quantum
