#pragma once
// VQE for the transverse-field Ising chain (or any Pauli-sum Hamiltonian), defined exactly:
//   ansatz: `layers` times [RY(theta) on every qubit, then CZ on (i, i+1 mod n) for every i (one CZ when
//           n == 2)], followed by a final RY layer (as Qiskit's RealAmplitudes), n*(layers+1) parameters;
//   start:  parameters drawn uniformly from [-pi, pi) with the seed;
//   energy: exact expectation <psi|H|psi> from the state vector (no shot noise), computed on the real
//           amplitudes of the ansatz (ansatz_real.h, pauli_expectation.h) with 1 or all OpenMP threads, whichever
//           timed faster on probe evaluations (the energies do not depend on it); under mpirun -np 2^k the
//           ansatz circuit runs fused (<= 4 qubits) on the distributed complex state instead, every rank
//           computing the same energies and so taking the same optimiser steps;
//   optimisers: Nelder-Mead (NelderMeadSettings; one iteration = one simplex update) and SPSA (SpsaSettings,
//           Rademacher perturbations from the seed; two evaluations per iteration). Both run exactly
//           `iterations` iterations and report the best energy evaluated.

#include "core/common/job_control.h"
#include "core/quantum/circuit.h"
#include "core/quantum/pauli.h"
#include "core/quantum/statevector.h"

#include <optional>
#include <string>
#include <vector>

namespace spyglass::quantum {

// The optimisers' constants, in one place: the optimisers run with them and the VQE view lists them.
struct NelderMeadSettings {
    double initialStep = 0.5;   // the initial simplex: x0 plus this along each parameter
    double reflection = 1;
    double expansion = 2;
    double contraction = 0.5;
    double shrink = 0.5;
};
struct SpsaSettings {
    // Step a_k = a / (k + 1 + A)^alpha, perturbation c_k = c / (k + 1)^gamma (Spall's recommended exponents).
    double a = 0.2;
    double c = 0.1;
    double A = 10;
    double alpha = 0.602;
    double gamma = 0.101;
};

struct VqeOptions {
    int qubits = 4;
    int layers = 1;
    std::string optimizer = "nelder-mead";   // or "spsa"
    int iterations = 100;
    uint64_t seed = 1;
    std::optional<PauliSum> hamiltonian;     // default: tfimHamiltonian(qubits)
    Precision precision = Precision::Double;
};

struct VqeResult {
    double energy = 0;
    std::vector<double> parameters;
    int evaluations = 0;
    double wallMs = 0;
    std::vector<double> history;   // best energy after each iteration (one entry per iteration)
    int ranks = 1;                 // MPI ranks that held the state (distributed_statevector.h)
    std::string note;              // why fewer ranks than launched did, if so
};

Circuit vqeAnsatz(int qubits, int layers, const std::vector<double>& theta);
// The ansatz state written into `sv` the fast way (RealAnsatzState: real amplitudes, 2 * layers passes).
void prepareAnsatzState(StateVector& sv, int layers, const std::vector<double>& theta);
VqeResult runVqe(const VqeOptions& options, JobControl* job = nullptr);

// Ground-state energy by Lanczos (full reorthogonalisation), exact for small n; n <= 20.
double exactGroundEnergy(const PauliSum& h, int qubits);

}  // namespace spyglass::quantum
