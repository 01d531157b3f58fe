#pragma once
// Exporters: OpenQASM 2.0 text that parses back to the same circuit, and QIR base profile (LLVM IR text,
// typed pointers as LLVM 14 reads them).

#include "core/quantum/circuit.h"

#include <string>

namespace spyglass::quantum {

// Throws InputError for fused blocks (not expressible in OpenQASM).
std::string exportQasm(const Circuit& c);

// Base profile: gates, then measurements at the end; no reset, no if, no mid-circuit measurement
// (InputError otherwise). Gates outside QIR's qis set are decomposed (u3 -> rz ry rz, others by definition).
std::string exportQir(const Circuit& c);

}  // namespace spyglass::quantum
