#pragma once
// QPIR: the circuit IR every part of the quantum toolchain shares. Qubits and classical bits are numbered
// globally (registers are named slices); an op is a gate, measure, reset or barrier, optionally conditioned
// on a classical register's value. Gate definitions (qelib1.inc and the user's `gate` blocks) stay attached
// so inline_gates can expand them and the printer can show them.

#include "core/common/diagnostics.h"
#include "core/quantum/expr.h"

#include <complex>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace spyglass::quantum {

using cplx = std::complex<double>;

struct Register {
    std::string name;
    int size = 0;
    int offset = 0;   // index of its first bit among all qubits (or all clbits)
};

enum class OpKind { Gate, Measure, Reset, Barrier };

struct Condition {
    int creg = -1;        // index into Circuit::cregs; -1 = unconditional
    uint64_t value = 0;   // the register's value (its bit 0 least significant) that enables the op
    bool active() const { return creg >= 0; }
    bool operator==(const Condition&) const = default;
};

// A block of gates multiplied into one matrix by the fuse pass.
// A step of a fused block that runs as a program (kernels::setProgram): a one-qubit matrix on the op's
// qubits[target] (2 x 2, row-major), or, target < 0, a diagonal over all the op's qubits (2^k factors, index bit
// j = qubits[j]).
struct FusedStep {
    int target = -1;
    std::vector<cplx> values;
};

struct FusedBlock {
    std::vector<cplx> matrix;   // 2^k x 2^k row-major; matrix index bit j = the op's qubits[j]
    int gateCount = 0;
    bool diagonal = false;
    std::vector<FusedStep> program;   // not empty: the simulator applies these steps, whose product is `matrix`
};

struct Op {
    OpKind kind = OpKind::Gate;
    std::string name;               // gate name ("h", "cx", "fused", a user gate); "measure"/"reset"/"barrier"
    std::vector<double> params;
    std::vector<int> qubits;        // for gates: qubits[0] is matrix index bit 0 (controls first, as in QASM)
    std::vector<int> clbits;        // measure: clbits[i] receives qubits[i]
    Condition cond;
    std::shared_ptr<const FusedBlock> fused;
    int line = 0;                   // source line in the top-level file, 0 when generated

    bool isGate() const { return kind == OpKind::Gate; }
};

// One statement inside a gate body; qubit arguments index the definition's qubit list.
struct GateCall {
    std::string name;               // a gate, or "barrier"
    std::vector<ExprPtr> params;
    std::vector<int> args;
};

struct GateDef {
    std::string name;
    std::vector<std::string> params;
    std::vector<std::string> qubits;
    std::vector<GateCall> body;
    bool opaque = false;
    bool builtin = false;           // from the built-in qelib1.inc (or U/CX)
    SourceLocation location;
};

using GateLibrary = std::map<std::string, GateDef>;

struct Circuit {
    std::string name;
    std::vector<Register> qregs, cregs;
    int numQubits = 0;
    int numClbits = 0;
    std::vector<Op> ops;
    std::shared_ptr<const GateLibrary> gates;   // may be null for generated circuits
    std::vector<int> finalLayout;   // after routing: finalLayout[logical] = physical wire; empty = identity

    const GateDef* findGate(const std::string& name) const;
    // A gate the simulator and passes know by matrix (qelib1's primitives, not shadowed by a user gate).
    bool isPrimitive(const Op& op) const;
    int gateCount() const;
    // "q[3]" / "c[0]" for a global index.
    std::string qubitName(int q) const;
    std::string clbitName(int c) const;
};

}  // namespace spyglass::quantum
