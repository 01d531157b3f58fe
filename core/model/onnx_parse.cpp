// Reading ONNX models: the binary protobuf form and the textual syntax of onnx/defs/parser.h.
#include "core/common/diagnostics.h"
#include "core/model/onnx_import.h"

#include <onnx/defs/parser.h>

#include <cstdio>
#include <sstream>

namespace spyglass::model::import {

namespace {

std::string lineOf(const std::string& text, int line)
{
    std::istringstream in(text);
    std::string s;
    for (int k = 0; k < line && std::getline(in, s); ++k) {
    }
    return s;
}

// libonnx's text parser recurses once per nested graph, list or type ('If' branches inside 'If' branches,
// seq(seq(...))); 5 000 levels overflow the stack. The nesting is counted here first, outside strings and comments,
// and refused past a depth no real model comes near (a model with an If inside a Loop is about 10 deep).
constexpr int kMaxTextNesting = 256;

void checkNesting(const std::string& text, const std::string& displayName)
{
    int depth = 0, line = 1, column = 0;
    bool inString = false, inComment = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        ++column;
        if (c == '\n') {
            ++line;
            column = 0;
            inComment = false;
            continue;
        }
        if (inComment)
            continue;
        if (inString) {
            if (c == '\\')
                ++i, ++column;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"')
            inString = true;
        else if (c == '#')
            inComment = true;
        else if (c == '{' || c == '(' || c == '[') {
            if (++depth > kMaxTextNesting) {
                Diagnostic d;
                d.location = SourceLocation{displayName, line, column};
                d.message = "graphs, lists and types nested more than " + std::to_string(kMaxTextNesting) + " deep";
                d.sourceLine = lineOf(text, line);
                throw InputError(d);
            }
        } else if ((c == '}' || c == ')' || c == ']') && depth > 0)
            --depth;
    }
}

}  // namespace

onnx::ModelProto parseText(const std::string& text, const std::string& displayName)
{
    checkNesting(text, displayName);
    onnx::ModelProto model;
    onnx::OnnxParser parser(text.c_str());
    onnx::Status status;
    try {
        status = parser.Parse(model);
    } catch (const std::exception& e) {
        // The parser throws on some malformed literals (e.g. std::stoll on an out-of-range integer).
        throw InputError(SourceLocation{displayName, 0, 0}, std::string("syntax error: ") + e.what());
    }
    if (status.IsOK() && !parser.EndOfInput())
        status = parser.ParseError("Unexpected text after the end of the model.");
    if (!status.IsOK()) {
        // The message reads "[ParseError at position (line: L column: C)]\nError context: ...\n<what>".
        const std::string& msg = status.ErrorMessage();
        Diagnostic d;
        int line = 0, column = 0;
        const auto pos = msg.find("(line: ");
        if (pos != std::string::npos)
            std::sscanf(msg.c_str() + pos, "(line: %d column: %d)", &line, &column);
        const auto lastNewline = msg.rfind('\n');
        std::string what = lastNewline == std::string::npos ? msg : msg.substr(lastNewline + 1);
        if (what.empty())
            what = "syntax error";
        d.location = SourceLocation{displayName, line, column};
        d.message = "syntax error: " + what;
        if (line > 0)
            d.sourceLine = lineOf(text, line);
        throw InputError(d);
    }
    return model;
}

onnx::ModelProto parseBinary(const std::string& bytes, const std::string& displayName)
{
    onnx::ModelProto model;
    if (bytes.empty())
        throw InputError(SourceLocation{displayName, 0, 0}, "empty file: not an ONNX model");
    if (!model.ParseFromString(bytes))
        throw InputError(SourceLocation{displayName, 0, 0},
                         "not a valid ONNX model: the protobuf data could not be decoded (file truncated or not ONNX)");
    if (!model.has_graph())
        throw InputError(SourceLocation{displayName, 0, 0}, "not a valid ONNX model: it has no graph (file truncated or not ONNX)");
    return model;
}

}  // namespace spyglass::model::import
