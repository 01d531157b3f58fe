// `spyglass-cli vqe`: VQE on the transverse-field Ising chain (or a Pauli-sum Hamiltonian file) with the
// RY+CZ hardware-efficient ansatz and a seeded Nelder-Mead or SPSA optimiser (see core/quantum/vqe.h).
#include "app/cli/cli.h"
#include "app/cli/session_option.h"

#include "core/common/diagnostics.h"
#include "core/quantum/distributed_statevector.h"
#include "core/quantum/vqe_report.h"
#include "core/workbench/vqe_record.h"

#include <QJsonObject>

#include <cstdio>
#include <iostream>

namespace spyglass::cli {
namespace {

using namespace spyglass::quantum;

int runVqeCommand(Args& args)
{
    // --session NAME [--db FILE]; under mpirun rank 0 records, once.
    std::unique_ptr<CliSession> session;
    if (distributed::isRoot())
        session = openSessionForCli(args);
    else
        (void)args.value("--session"), (void)args.value("--db");
    VqeOptions o;
    const auto qubits = args.integer("--qubits", 1, 34);
    if (!qubits)
        throw UsageError("--qubits N is required");
    o.qubits = static_cast<int>(*qubits);
    o.layers = static_cast<int>(args.integer("--layers", 0, 1000).value_or(1));
    o.optimizer = args.valueOr("--optimizer", "nelder-mead");
    o.iterations = static_cast<int>(args.integer("--iterations", 0, 10000000).value_or(100));
    o.seed = static_cast<uint64_t>(args.integer("--seed", 0, std::numeric_limits<long long>::max()).value_or(1));
    const auto hfile = args.value("--hamiltonian");
    const std::string precision = args.valueOr("--precision", "double");
    const bool noExact = args.flag("--no-exact");
    args.finish();
    if (o.optimizer != "nelder-mead" && o.optimizer != "spsa")
        throw UsageError("--optimizer must be nelder-mead or spsa, got '" + o.optimizer + "'");
    if (precision != "double" && precision != "single")
        throw UsageError("--precision must be double or single");
    o.precision = precision == "double" ? Precision::Double : Precision::Single;
    const VqeReport report = runVqeReport(o, hfile.value_or(std::string()), !noExact, &commandJob());
    const VqeResult& r = report.result;
    const std::optional<double>& exact = report.exactEnergy;
    if (!r.note.empty())
        std::cerr << r.note << '\n';
    const QJsonObject json = vqeReportJson(report);
    if (session)
        recordVqeRun(report, hfile.value_or(std::string()), session->recorder());
    if (args.json()) {
        printJson(json);
        return ExitOk;
    }
    std::cout << "VQE " << report.hamiltonianName << ", " << o.qubits << " qubits, " << o.layers << " layers, "
              << o.optimizer << " " << o.iterations << " iterations, seed " << o.seed << "\n";
    std::cout << "  energy       " << r.energy << "\n";
    if (exact)
        std::cout << "  exact        " << *exact << "  (error " << r.energy - *exact << ")\n";
    std::cout << "  evaluations  " << r.evaluations << "\n  wall         " << r.wallMs << " ms\n";
    return ExitOk;
}

const RegisterCommand reg{{"vqe", "variational ground-state search (TFIM chain or a Pauli-sum Hamiltonian)",
                           "vqe --qubits N --layers L --optimizer nelder-mead|spsa --iterations K --seed S [--hamiltonian FILE] "
                           "[--precision double|single] [--no-exact] [--session NAME [--db FILE]] [--json]",
                           runVqeCommand,
                           "Ansatz: L layers of [RY on every qubit, CZ ring] and a final RY layer; start uniform in [-pi, pi).\n"
                           "Hamiltonian file: terms like '0.5 Z0 Z1 + -1.0 X3', '+' or newlines between terms, '#' comments.\n"
                           "For N <= 14 the exact ground energy (Lanczos) is printed as exact_energy; --json adds the best energy after every\n"
                           "iteration (history), the Hamiltonian's terms and the optimiser's settings."}};

}  // namespace
}  // namespace spyglass::cli
