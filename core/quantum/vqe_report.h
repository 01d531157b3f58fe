#pragma once
// One VQE run as everything outside the optimiser sees it: the recipe (Hamiltonian, ansatz, optimiser and its
// settings), the best energy after every iteration and, for small n, the exact ground energy. `spyglass-cli vqe
// --json` prints vqeReportJson(); the session store keeps the same object as the run's result, and the explorer's
// VQE view draws a report it computed itself or read back from the store (vqeReportFromJson) — so the three
// show the same numbers.

#include "core/common/job_control.h"
#include "core/quantum/vqe.h"

#include <QJsonObject>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace spyglass::quantum {

// Above this the Lanczos reference (2^n complex vectors, up to 150 of them kept) costs more than the VQE itself.
constexpr int kVqeExactMaxQubits = 14;

struct VqeReport {
    VqeOptions options;              // options.hamiltonian is always set
    std::string hamiltonianName;     // the file it was read from, or the TFIM chain's description
    VqeResult result;
    std::optional<double> exactEnergy;
};

// Reads `hamiltonianFile` when not empty (InputError on a bad file), runs the VQE and, when `exact` and
// qubits <= kVqeExactMaxQubits, the Lanczos ground energy.
VqeReport runVqeReport(VqeOptions options, const std::string& hamiltonianFile, bool exact, JobControl* job = nullptr);

// "2 layers of [RY on each of the 6 qubits, then 6 CZ on the ring], then a final RY layer: 18 parameters".
std::string vqeAnsatzText(int qubits, int layers);
// The optimiser's constants by name ("reflection" -> 1), as the optimiser uses them; empty for an unknown name.
std::vector<std::pair<std::string, double>> vqeOptimizerSettings(const std::string& optimizer);

QJsonObject vqeReportJson(const VqeReport& report);
// The inverse for what vqeReportJson wrote (a session run's result); InputError naming the missing field otherwise.
VqeReport vqeReportFromJson(const QJsonObject& json);

}  // namespace spyglass::quantum
