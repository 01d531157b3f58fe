#pragma once
// A VQE document (.vqe): the recipe `spyglass-cli vqe` takes as flags, written one "key value" per line with the
// flags' names and limits, so that opening it in the explorer runs that search and shows it with the VQE layout:
//   qubits 6                  # required, 1..34
//   layers 2                  # 0..1000, default 1
//   optimizer nelder-mead     # or spsa
//   iterations 300            # 0..10 000 000, default 100
//   seed 1
//   precision double          # or single
//   exact yes                 # the Lanczos ground energy for n <= 14 (no: --no-exact)
//   hamiltonian tfim.pauli    # a Pauli-sum file, relative to this one; default the TFIM chain
// '#' starts a comment. Errors name the file, line and column.

#include "core/quantum/vqe.h"

#include <string>

namespace spyglass {

struct VqeRecipe {
    quantum::VqeOptions options;   // options.hamiltonian is left empty: runVqeReport reads hamiltonianFile
    std::string hamiltonianFile;   // resolved against the recipe's folder; empty for the TFIM chain
    bool exact = true;
};

// Throws InputError (file:line:column) for a bad recipe; the Hamiltonian file is read later, by runVqeReport.
VqeRecipe readVqeRecipe(const std::string& path);

}  // namespace spyglass
