#pragma once
// What File > Export can write for the open document, and the writing of it: pass dumps, the kernel bundle and the
// Chrome trace of a model; the Graph's and the Circuit's pictures; the optimised circuit as OpenQASM or QIR.

#include <QString>

#include <vector>

namespace spyglass {

class CircuitView;
class Document;
class GraphView;

enum class ExportKind { PassDumps, KernelBundle, ChromeTrace, GraphDot, GraphSvg, GraphPng, CircuitQasm, CircuitQir, CircuitSvg, CircuitPng };

// The Export dialog's entry for `kind`.
QString exportLabel(ExportKind kind);
// What the open document can export, in the dialog's order (nothing before a compile).
std::vector<ExportKind> availableExports(const Document& document);
// A folder (pass dumps, kernel bundle) rather than one file; the file dialog's filter otherwise ("*.svg").
bool exportIsFolder(ExportKind kind);
QString exportFilter(ExportKind kind);
// Writes `kind` of `document` to `target`; the pictures come from the views that draw them. Returns the error
// ("" on success).
QString writeExport(ExportKind kind, const QString& target, const Document& document, GraphView& graph, CircuitView& circuit);

}  // namespace spyglass
