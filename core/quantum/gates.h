#pragma once
// The gates Spyglass knows by matrix (Qiskit's definitions, little-endian: qubits[0] is bit 0 of the
// matrix index) and the text of the built-in qelib1.inc that also defines them for inlining.

#include "core/quantum/circuit.h"

#include <string_view>

namespace spyglass::quantum {

struct StdGate {
    const char* name;
    int qubits;
    int params;
    int controls;   // leading qubits that are controls (the rest is the target of a smaller matrix)
};

const StdGate* findStdGate(std::string_view name);
const std::vector<StdGate>& stdGates();

// Full matrix of a standard gate (2^q x 2^q, row-major). Throws std::invalid_argument for unknown names.
std::vector<cplx> stdGateMatrix(const std::string& name, const std::vector<double>& params);
// The matrix of the gate without its controls (e.g. X for cx, diag(1, e^{i l}) for cp).
std::vector<cplx> stdTargetMatrix(const std::string& name, const std::vector<double>& params);
// Matrix of a primitive or fused gate op.
std::vector<cplx> opMatrix(const Op& op);

// Built-in qelib1.inc text (the QE header plus Qiskit's later gates).
std::string_view builtinQelib();

// Small dense-matrix helpers used by passes and tests.
std::vector<cplx> matMul(const std::vector<cplx>& a, const std::vector<cplx>& b, int dim);   // a*b
std::vector<cplx> adjoint(const std::vector<cplx>& a, int dim);
// Is `a` equal to `b` times a global phase (|phase| = 1)?
bool equalUpToPhase(const std::vector<cplx>& a, const std::vector<cplx>& b, double tol = 1e-9);
bool isIdentityUpToPhase(const std::vector<cplx>& a, int dim, double tol = 1e-9);
bool isDiagonal(const std::vector<cplx>& a, int dim, double tol = 0);
// (re, im) pairs, the layout the state-vector kernels take matrices in.
std::vector<double> interleavedMatrix(const std::vector<cplx>& m);
// Expands `m` acting on `opQubits` to the qubit list `onto` (a superset), both little-endian.
std::vector<cplx> embedMatrix(const std::vector<cplx>& m, const std::vector<int>& opQubits, const std::vector<int>& onto);
// ZYZ angles (theta, phi, lambda) with U = e^{i g} u3(theta, phi, lambda).
void u3Angles(const std::vector<cplx>& m2, double& theta, double& phi, double& lambda);

}  // namespace spyglass::quantum
