// `spyglass-cli qsim FILE`: simulate an OpenQASM 2.0 circuit on the state-vector simulator and print
// counts in Qiskit's bit order (registers joined by a space, the last declared leftmost, MSB first).
#include "app/cli/cli.h"
#include "app/cli/session_option.h"

#include "core/common/diagnostics.h"
#include "core/quantum/simulator.h"
#include "core/workbench/circuit_run.h"

#include <QJsonObject>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>

namespace spyglass::cli {
namespace {

using namespace spyglass::quantum;


// Writes amplitudes [offset, offset + sv.size()) of an n-qubit state: the whole file when they are all of
// them, else one rank's part, appended in rank order (the first part opens the object, the last closes it).
void writeStatevector(const std::string& path, const StateVector& sv, int numQubits, uint64_t offset)
{
    const bool first = offset == 0, last = offset + sv.size() == uint64_t(1) << numQubits;
    FILE* f = std::fopen(path.c_str(), first ? "wb" : "ab");
    if (!f)
        throw InputError(SourceLocation{path, 0, 0}, "cannot write the state vector file");
    if (first)
        std::fprintf(f, "{\"qubits\": %d, \"amplitudes\": [", numQubits);
    for (uint64_t i = 0; i < sv.size(); ++i) {
        const cplx a = sv.amplitude(i);
        std::fprintf(f, "%s[%.17g, %.17g]", offset + i ? ", " : "", a.real(), a.imag());
    }
    if (last)
        std::fprintf(f, "]}\n");
    if (std::fclose(f) != 0)
        throw InputError(SourceLocation{path, 0, 0}, "error writing the state vector file");
}

int runQsim(Args& args)
{
    // --session NAME [--db FILE]; under mpirun rank 0 records, once.
    std::unique_ptr<CliSession> session;
    if (distributed::isRoot())
        session = openSessionForCli(args);
    else
        (void)args.value("--session"), (void)args.value("--db");
    const std::string file = args.positional("FILE");
    const long long shots = args.integer("--shots", 0, 100000000).value_or(1024);
    const auto seedOpt = args.integer("--seed", 0, std::numeric_limits<long long>::max());
    const std::string precision = args.valueOr("--precision", "double");
    const bool noFusion = args.flag("--no-fusion");
    const long long fuseMax = args.integer("--fuse-max", 2, 6).value_or(4);
    const auto svOut = args.value("--statevector");
    const bool force = args.flag("--force");
    args.finish();
    if (precision != "double" && precision != "single")
        throw UsageError("--precision must be double or single, got '" + precision + "'");

    CircuitRunRequest request;
    request.shots = static_cast<int>(shots);
    if (seedOpt)
        request.seed = static_cast<uint64_t>(*seedOpt);
    request.precision = precision == "double" ? Precision::Double : Precision::Single;
    request.fusion = !noFusion;
    request.fuseMaxQubits = static_cast<int>(fuseMax);
    request.force = force;
    const CircuitRun run = runCircuitFile(file, request, commandJob());
    for (const Diagnostic& w : run.warnings)
        std::cerr << w.format() << '\n';
    const SimResult& res = run.result;
    const Circuit& inlined = run.circuit;
    if (!res.note.empty())
        std::cerr << res.note << '\n';
    if (svOut) {
        try {
            if (distributed::ranks() > 1) {
                const auto ds = finalDistributedState(run.simulated, request.precision);
                distributed::inTurn([&] {
                    if (ds->holdsAmplitudes())
                        writeStatevector(*svOut, *ds->local(), inlined.numQubits, ds->offset());
                });
            } else {
                writeStatevector(*svOut, *finalState(run.simulated, request.precision), inlined.numQubits, 0);
            }
        } catch (const InputError& e) {
            rethrowWithFile(e, file, inlined.name);
        }
    }
    if (session)
        recordRun(run, session->recorder());

    if (args.json()) {
        QJsonObject counts;
        for (const auto& [k, n] : res.counts)
            counts[QString::fromStdString(k)] = n;
        QJsonObject o;
        o[QStringLiteral("qubits")] = inlined.numQubits;
        o[QStringLiteral("gates")] = inlined.gateCount();
        o[QStringLiteral("counts")] = counts;
        o[QStringLiteral("sim_ms")] = res.simMs;
        o[QStringLiteral("fused_blocks")] = res.fusedBlocks;
        o[QStringLiteral("shots")] = static_cast<double>(shots);
        o[QStringLiteral("seed")] = static_cast<double>(run.seed);
        o[QStringLiteral("precision")] = QString::fromStdString(precision);
        o[QStringLiteral("trajectories")] = res.trajectories;
        o[QStringLiteral("ranks")] = res.ranks;
        if (distributed::ranks() > 1) {
            // Per rank, what the qubit swaps moved (distributed_plan.h).
            o[QStringLiteral("mpi_exchanges")] = static_cast<double>(res.traffic.exchanges);
            o[QStringLiteral("mpi_bytes_sent")] = static_cast<double>(res.traffic.bytesSent);
        }
        printJson(o);
        return ExitOk;
    }
    std::cout << file << ": " << inlined.numQubits << " qubits, " << inlined.gateCount() << " gates, " << res.fusedBlocks
              << " fused blocks, " << shots << " shots (seed " << run.seed << ")" << (res.trajectories ? ", per-shot trajectories" : "")
              << ", " << res.simMs << " ms";
    if (distributed::ranks() > 1)
        std::cout << ", " << res.ranks << " MPI ranks (" << res.traffic.exchanges << " exchanges, " << res.traffic.bytesSent
                  << " bytes sent per rank)";
    std::cout << '\n';
    std::vector<std::pair<std::string, int>> sorted(res.counts.begin(), res.counts.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [k, n] : sorted)
        std::cout << "  " << k << ": " << n << '\n';
    return ExitOk;
}

const RegisterCommand reg{{"qsim", "simulate an OpenQASM 2.0 circuit on the state-vector simulator",
                           "qsim FILE [--shots N] [--seed S] [--precision double|single] [--no-fusion] [--fuse-max K] "
                           "[--statevector OUT] [--force] [--session NAME [--db FILE]] [--json]",
                           runQsim,
                           "Counts are keyed by bitstring in Qiskit's convention: each classical register most significant\n"
                           "bit first, registers separated by a space with the last declared leftmost.\n"
                           "--statevector OUT writes {\"qubits\": n, \"amplitudes\": [[re, im], ...]} (index bit k = qubit k)\n"
                           "for circuits without mid-circuit measurement; terminal measurements are ignored for it.\n"
                           "--fuse-max K fuses gates into blocks of at most K qubits (default 4).\n"
                           "--force runs a simulation estimated past 2^38 amplitude updates (about 5 minutes on a 2-core\n"
                           "machine; shots re-run the circuit when it measures, resets or branches before its end), which is\n"
                           "refused otherwise.\n"
                           "Under mpirun -np 2^k the state is split over the ranks (README: Running on a cluster)."}};

}  // namespace
}  // namespace spyglass::cli
