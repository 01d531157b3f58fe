#pragma once
// Pauli-sum observables (Hamiltonians): "0.5 Z0 Z1 + -1.0 X3", one term per '+' or per line.

#include "core/common/diagnostics.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spyglass::quantum {

struct PauliTerm {
    double coeff = 1;
    uint64_t xMask = 0;   // qubits with X or Y
    uint64_t zMask = 0;   // qubits with Z or Y
    int numY = 0;
    std::string text() const;
};

struct PauliSum {
    std::vector<PauliTerm> terms;
    // Where the highest qubit index is first named (parsed sums; empty file otherwise), so that a sum too wide
    // for the state is reported at that term.
    SourceLocation highestQubitAt;
    int minQubits() const;   // 1 + the highest qubit any term touches
    std::string text() const;
};

// Grammar: term ('+' term)* where newlines also separate terms, '#' starts a comment;
// term = [sign] [coefficient] (X|Y|Z)index ... ; e.g. "-1.0 X3", "0.5 Z0 Z1", "Z2". Errors are InputError.
PauliSum parsePauliSum(const std::string& text, const std::string& fileName = "<hamiltonian>");
PauliSum readPauliSumFile(const std::string& path);

// Transverse-field Ising chain H = -J sum Z_i Z_{i+1} - h sum X_i (periodic for n > 2).
PauliSum tfimHamiltonian(int n, double J = 1, double h = 1);

}  // namespace spyglass::quantum
