#include "views/documentexports.h"

#include "views/circuitview.h"
#include "views/document.h"
#include "views/graphview.h"

#include "core/common/pass_dump.h"
#include "core/common/trace.h"
#include "core/quantum/export.h"
#include "core/spyre/kernel_bundle.h"
#include "core/spyre/loop_ir.h"
#include "core/spyresim/spyre_simulator.h"
#include "core/workbench/workbench.h"

#include <QFileInfo>
#include <QObject>
#include <QSaveFile>

#include <sstream>

namespace spyglass {

namespace {

QString writeFile(const QString& path, const std::string& text)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), static_cast<qint64>(text.size())) < 0 || !f.commit())
        return f.errorString();
    return {};
}

}  // namespace

QString exportLabel(ExportKind kind)
{
    switch (kind) {
    case ExportKind::PassDumps: return QObject::tr("IR of every pass (folder of NN-pass.txt)");
    case ExportKind::KernelBundle: return QObject::tr("Kernel bundle (folder)");
    case ExportKind::ChromeTrace: return QObject::tr("Chrome trace of the Spyre simulation (JSON)");
    case ExportKind::GraphDot: return QObject::tr("Graph of this pass as DOT");
    case ExportKind::GraphSvg: return QObject::tr("Graph of this pass as SVG");
    case ExportKind::GraphPng: return QObject::tr("Graph of this pass as PNG");
    case ExportKind::CircuitQasm: return QObject::tr("Optimised circuit as OpenQASM 2.0");
    case ExportKind::CircuitQir: return QObject::tr("Optimised circuit as QIR (LLVM IR)");
    case ExportKind::CircuitSvg: return QObject::tr("Circuit of this pass as SVG");
    case ExportKind::CircuitPng: return QObject::tr("Circuit of this pass as PNG");
    }
    return {};
}

bool exportIsFolder(ExportKind kind) { return kind == ExportKind::PassDumps || kind == ExportKind::KernelBundle; }

QString exportFilter(ExportKind kind)
{
    switch (kind) {
    case ExportKind::ChromeTrace: return QStringLiteral("*.json");
    case ExportKind::GraphDot: return QStringLiteral("*.dot");
    case ExportKind::GraphSvg:
    case ExportKind::CircuitSvg: return QStringLiteral("*.svg");
    case ExportKind::GraphPng:
    case ExportKind::CircuitPng: return QStringLiteral("*.png");
    case ExportKind::CircuitQasm: return QStringLiteral("*.qasm");
    case ExportKind::CircuitQir: return QStringLiteral("*.ll");
    case ExportKind::PassDumps:
    case ExportKind::KernelBundle: break;
    }
    return {};
}

std::vector<ExportKind> availableExports(const Document& document)
{
    std::vector<ExportKind> kinds;
    if (document.passes().empty())
        return kinds;
    kinds.push_back(ExportKind::PassDumps);
    const CompiledDocument& doc = document.compiled();
    const bool model = document.kind() == DocumentKind::Model;
    const auto program = doc.programs.empty() ? nullptr : doc.programs.back();
    if (model && program && program->bundle)
        kinds.push_back(ExportKind::KernelBundle);
    if (model && doc.simulation && doc.simulation->trace)
        kinds.push_back(ExportKind::ChromeTrace);
    if (model)
        kinds.insert(kinds.end(), {ExportKind::GraphDot, ExportKind::GraphSvg, ExportKind::GraphPng});
    if (document.kind() == DocumentKind::Circuit)
        kinds.insert(kinds.end(), {ExportKind::CircuitQasm, ExportKind::CircuitQir, ExportKind::CircuitSvg, ExportKind::CircuitPng});
    return kinds;
}

QString writeExport(ExportKind kind, const QString& target, const Document& document, GraphView& graph, CircuitView& circuit)
{
    const CompiledDocument& doc = document.compiled();
    const QString failed = QObject::tr("the view could not write the file");
    try {
        switch (kind) {
        case ExportKind::PassDumps:
            writePassDumps(target.toStdString(), document.passes());
            return {};
        case ExportKind::KernelBundle:
            if (doc.programs.empty() || !doc.programs.back()->bundle)
                return QObject::tr("the open document has no kernel bundle");
            spyre::exportKernelBundle(*doc.programs.back()->bundle, target.toStdString());
            return {};
        case ExportKind::ChromeTrace: {
            if (!doc.simulation || !doc.simulation->trace)
                return QObject::tr("the open document has no simulator trace");
            std::ostringstream json;
            writeChromeTrace(*doc.simulation->trace, json, "Spyre simulator: " + QFileInfo(document.path()).fileName().toStdString());
            return writeFile(target, json.str());
        }
        case ExportKind::GraphDot: return graph.exportDot(target) ? QString() : failed;
        case ExportKind::GraphSvg: return graph.exportSvg(target) ? QString() : failed;
        case ExportKind::GraphPng: return graph.exportPng(target) ? QString() : failed;
        case ExportKind::CircuitQasm:
        case ExportKind::CircuitQir: {
            if (doc.circuits.empty())
                return QObject::tr("the open document has no circuit");
            const quantum::Circuit& c = *doc.circuits.back();
            return writeFile(target, kind == ExportKind::CircuitQir ? quantum::exportQir(c) : quantum::exportQasm(c));
        }
        case ExportKind::CircuitSvg: return circuit.exportSvg(target) ? QString() : failed;
        case ExportKind::CircuitPng: return circuit.exportPng(target) ? QString() : failed;
        }
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return failed;
}

}  // namespace spyglass
