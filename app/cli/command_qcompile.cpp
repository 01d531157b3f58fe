// `spyglass-cli qcompile FILE`: run the QPIR pass pipeline (inline, decompose, optimise, route) and
// emit OpenQASM 2.0 or QIR; --dump-dir writes the canonical QPIR text after every pass.
#include "app/cli/cli.h"
#include "app/cli/pass_options.h"

#include "core/common/diagnostics.h"
#include "core/common/pass_dump.h"
#include "core/quantum/export.h"
#include "core/quantum/pipeline.h"
#include "core/quantum/qasm_parser.h"
#include "core/quantum/qpir_printer.h"
#include "core/workbench/workbench.h"

#include <QJsonArray>
#include <QJsonObject>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>

namespace spyglass::cli {
namespace {

using namespace spyglass::quantum;


void writeFile(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary);
    if (!out)
        throw InputError(SourceLocation{path, 0, 0}, "cannot write file");
    out << text;
    if (!out)
        throw InputError(SourceLocation{path, 0, 0}, "error writing file");
}

std::vector<std::string> quantumPassNames() { return QuantumPipeline::passManager(PipelineOptions{}).names(); }

int runQcompile(Args& args)
{
    const std::string file = args.positional("FILE");
    const std::string basis = args.valueOr("--basis", "u3cx");
    const std::string coupling = args.valueOr("--coupling", "none");
    const auto dumpDir = args.value("--dump-dir");
    auto emitKind = args.value("--emit");
    const auto out = args.value("-o");
    const bool noOpt = args.flag("--no-optimize");
    const PipelineCliOptions pipeline = readPipelineOptions(args);
    args.finish();
    if (basis != "u3cx" && basis != "rzsx")
        throw UsageError("--basis must be u3cx or rzsx, got '" + basis + "'");
    PipelineOptions opt;
    opt.basis = basis == "u3cx" ? Basis::U3Cx : Basis::RzSx;
    if (coupling == "none")
        opt.coupling = Coupling::None;
    else if (coupling == "linear")
        opt.coupling = Coupling::Linear;
    else if (coupling == "grid")
        opt.coupling = Coupling::Grid;
    else if (coupling == "heavyhex")
        opt.coupling = Coupling::HeavyHex;
    else
        throw UsageError("--coupling must be none, linear, grid or heavyhex, got '" + coupling + "'");
    if (emitKind && *emitKind != "qasm" && *emitKind != "qir")
        throw UsageError("--emit must be qasm or qir, got '" + *emitKind + "'");
    if (out && !emitKind)
        emitKind = "qasm";
    opt.optimize = !noOpt;
    opt.recordIrText = dumpDir.has_value();
    opt.stopAfter = pipeline.stopAfter;
    CompileRequest request;
    request.kind = DocumentKind::Circuit;
    request.simulate = false;
    request.maxFileBytes.reset();   // the parser has its own limit
    request.quantum = opt;
    request.plugins = pipeline.plugins;
    request.printAfter = pipeline.printAfter;
    request.printTo = &std::cerr;
    JobControl& job = commandJob();
    const CompiledDocument doc = compileDocument(QString::fromStdString(file), job, request);
    for (const Diagnostic& w : doc.diagnostics)
        std::cerr << w.format() << '\n';
    const Circuit& input = *doc.circuits.front();
    const Circuit& result = *doc.circuits.back();

    if (dumpDir)
        writePassDumps(*dumpDir, doc.passes);
    std::string emitted;
    if (emitKind) {
        try {
            emitted = *emitKind == "qasm" ? exportQasm(result) : exportQir(result);
        } catch (const InputError& e) {
            rethrowWithFile(e, file, input.name);
        }
    }
    if (out)
        writeFile(*out, emitted);

    if (args.json()) {
        QJsonArray passes;
        for (size_t i = 0; i < doc.passes.size(); ++i) {
            const PassRecord& r = doc.passes[i];
            QJsonObject p;
            p[QStringLiteral("name")] = QString::fromStdString(r.name);
            p[QStringLiteral("changed")] = r.changed;
            p[QStringLiteral("summary")] = QString::fromStdString(r.summary);
            p[QStringLiteral("wall_ms")] = r.wallMs;
            p[QStringLiteral("gates")] = doc.circuits[i]->gateCount();
            passes.append(p);
        }
        QJsonObject o;
        o[QStringLiteral("qubits")] = result.numQubits;
        o[QStringLiteral("gates_before")] = input.gateCount();
        o[QStringLiteral("gates_after")] = result.gateCount();
        o[QStringLiteral("passes")] = passes;
        if (!result.finalLayout.empty()) {
            QJsonArray layout;
            for (int p : result.finalLayout)
                layout.append(p);
            o[QStringLiteral("final_layout")] = layout;
        }
        if (out)
            o[QStringLiteral("output")] = QString::fromStdString(*out);
        else if (emitKind)
            o[QStringLiteral("text")] = QString::fromStdString(emitted);
        printJson(o);
        return ExitOk;
    }
    if (emitKind && !out) {
        std::cout << emitted;
        return ExitOk;
    }
    std::cout << file << ": " << input.numQubits << " qubits, " << input.gateCount() << " -> " << result.gateCount()
              << " gates\n";
    for (const PassRecord& r : doc.passes)
        std::cout << "  " << std::left << std::setw(18) << r.name << std::right << std::setw(9) << std::fixed << std::setprecision(2)
                  << r.wallMs << " ms  " << r.summary << '\n';
    if (out)
        std::cout << "wrote " << *out << '\n';
    return ExitOk;
}

const RegisterCommand reg{{"qcompile", "run the quantum pass pipeline and export OpenQASM 2.0 or QIR",
                           "qcompile FILE [--basis u3cx|rzsx] [--coupling none|linear|grid|heavyhex] [--dump-dir DIR] "
                           "[--emit qasm|qir] [-o OUT] [--no-optimize] [--stop-after PASS] [--print-after PASS|all]... "
                           "[--pass-plugin FILE]... [--json]",
                           runQcompile,
                           "With --coupling, route follows, then decompose and cancel_inverses again for its SWAPs.\n"
                           "--dump-dir DIR writes NN-<pass>.txt (the canonical QPIR text; 00-input is the parsed circuit).\n"
                           "--print-after PASS prints the QPIR after PASS (or after every pass: all) to stderr.\n"
                           "--pass-plugin FILE loads a pass plugin (a shared library built against <spyglass/pass_plugin.h>)\n"
                           "and inserts its passes where it says (e.g. after:inline_gates); repeatable.\n"
                           "--emit without -o prints to stdout; -o without --emit writes OpenQASM.",
                           quantumPassNames}};

}  // namespace
}  // namespace spyglass::cli
