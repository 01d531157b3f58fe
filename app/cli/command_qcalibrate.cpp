// `spyglass-cli qcalibrate`: measure what the quantum fuse pass weighs (each kernel's cost and one pass over the
// state) on this machine and keep it in a file every later run reads (kernel_costs.h), as FFTW keeps its wisdom.
#include "app/cli/cli.h"

#include "core/common/diagnostics.h"
#include "core/quantum/kernel_calibration.h"

#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace spyglass::cli {
namespace {

using namespace spyglass::quantum;

std::string numbers(const double* x, int count)
{
    std::string s;
    char one[32];
    for (int i = 0; i < count; ++i) {
        std::snprintf(one, sizeof one, "%s%.3g", i ? " " : "", x[i]);
        s += one;
    }
    return s;
}

// Fields of one number are plain numbers in the JSON, the others arrays.
QJsonObject jsonTable(const kernels::CostTable& t)
{
    QJsonObject o;
    for (const kernels::CostField& f : kernels::costFields()) {
        const double* x = f.values(t);
        if (f.count == 1) {
            o[QString::fromLatin1(f.key)] = x[0];
            continue;
        }
        QJsonArray a;
        for (int i = 0; i < f.count; ++i)
            a.append(x[i]);
        o[QString::fromLatin1(f.key)] = a;
    }
    return o;
}

void printTable(const char* isa, const std::string& source, const kernels::CostTable& t, const kernels::CostTable* builtin)
{
    std::cout << "[" << isa << "] " << source << "\n";
    for (const kernels::CostField& f : kernels::costFields())
        std::cout << "  " << f.label << std::string(size_t(std::max(1, 26 - static_cast<int>(std::strlen(f.label)))), ' ') << numbers(f.values(t), f.count) << "\n";
    if (builtin)
        std::cout << "  (built in: dense " << numbers(builtin->dense + 1, 6) << "; pass " << numbers(&builtin->passCost, 1) << ")\n";
}

int runQcalibrate(Args& args)
{
    const bool show = args.flag("--show");
    const auto output = args.value("--output");
    const int qubits = static_cast<int>(args.integer("--qubits", 8, 20).value_or(15));
    const int stateQubits = static_cast<int>(args.integer("--state-qubits", 20, 30).value_or(25));
    const kernels::TimingEffort effort = args.flag("--quick") ? kernels::TimingEffort::quick() : kernels::TimingEffort{};
    args.finish();
    const std::string path = output ? *output : kernels::calibrationPath();
    const std::string cpu = kernels::cpuIdentity();
    if (show) {
        // What a run uses now, build by build: activeCostTable() of each build this CPU runs.
        const kernels::Isa active = kernels::activeIsa();
        QJsonArray builds;
        if (!args.json())
            std::cout << "CPU: " << cpu << "\nfile: " << (path.empty() ? "(none: no HOME)" : path) << "\n";
        for (kernels::Isa isa : kernels::kAllIsas) {
            if (!kernels::setActiveIsa(isa))
                continue;
            if (args.json()) {
                QJsonObject o = jsonTable(kernels::activeCostTable());
                o[QStringLiteral("isa")] = QString::fromLatin1(kernels::isaName(isa));
                o[QStringLiteral("source")] = QString::fromStdString(kernels::activeCostSource());
                builds.append(o);
            } else {
                printTable(kernels::isaName(isa), kernels::activeCostSource(), kernels::activeCostTable(), nullptr);
            }
        }
        kernels::setActiveIsa(active);
        if (args.json()) {
            QJsonObject o;
            o[QStringLiteral("cpu")] = QString::fromStdString(cpu);
            o[QStringLiteral("file")] = QString::fromStdString(path);
            o[QStringLiteral("builds")] = builds;
            printJson(o);
        }
        return ExitOk;
    }
    if (path.empty())
        throw UsageError("no HOME or XDG_CACHE_HOME to keep the kernel costs in: give --output FILE");
    {   // Say now, not after the measuring, when the file cannot be written.
        std::error_code ec;
        if (const auto parent = std::filesystem::path(path).parent_path(); !parent.empty())
            std::filesystem::create_directories(parent, ec);
        if (!std::ofstream(path, std::ios::app))
            throw InputError(SourceLocation{path, 0, 0}, "cannot write the kernel costs there");
    }
    const kernels::Calibration c = kernels::measureCalibration(qubits, stateQubits, [&](const std::string& line) {
        if (!args.json())
            std::cerr << "qcalibrate: " << line << "\n";
    }, effort);
    std::string error;
    if (!kernels::writeCalibration(path, c, error))
        throw InputError(SourceLocation{path, 0, 0}, "cannot write the kernel costs: " + error);
    kernels::useCalibration(c, path);
    if (args.json()) {
        QJsonObject o;
        o[QStringLiteral("cpu")] = QString::fromStdString(cpu);
        o[QStringLiteral("file")] = QString::fromStdString(path);
        QJsonArray builds;
        for (const kernels::Calibration::Entry& e : c.entries) {
            QJsonObject b = jsonTable(e.table);
            b[QStringLiteral("isa")] = QString::fromLatin1(kernels::isaName(e.isa));
            b[QStringLiteral("threads")] = e.threads;
            builds.append(b);
        }
        o[QStringLiteral("builds")] = builds;
        printJson(o);
        return ExitOk;
    }
    std::cout << "CPU: " << cpu << "\nwrote " << path << " (every run on this CPU reads it; SPYGLASS_KERNEL_COSTS=builtin ignores it)\n";
    for (const kernels::Calibration::Entry& e : c.entries)
        printTable(kernels::isaName(e.isa), "measured " + e.measured + ", " + std::to_string(e.threads) + " threads", e.table,
                   &kernels::builtinCostTable());
    return ExitOk;
}

const RegisterCommand reg{{"qcalibrate", "measure the quantum kernels' costs on this machine for the fuse pass",
                           "qcalibrate [--output FILE] [--show] [--qubits N] [--state-qubits N] [--quick] [--json]", runQcalibrate,
                           "Times every kernel shape the fuse pass weighs (one thread, a 2^N-amplitude state, N = --qubits, "
                           "default 15, the size of a cache-blocked chunk) in every kernel build this CPU runs, and one pass over a state larger than the cache "
                           "from the in-place memory bandwidth over 2^M complex128 amplitudes (M = --state-qubits, default 25: "
                           "512 MiB). Writes them to FILE (default $SPYGLASS_KERNEL_COSTS, else "
                           "$XDG_CACHE_HOME/spyglass/kernel-costs.txt, else ~/.cache/spyglass/kernel-costs.txt), which every "
                           "later run on the same CPU reads. Each shape is the best of 7 samples of about 2 ms; --quick takes 2 of "
                           "0.2 ms, a rough table in about a second. --show prints the costs a run uses now, and where they come from."}};

}  // namespace
}  // namespace spyglass::cli
