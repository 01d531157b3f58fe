#pragma once
// Consecutive permutation gates of a cache block's run (a chain of CNOTs fused into blocks of four qubits, SWAPs,
// Toffolis) composed into one permutation of the block's rows, moved in one sweep of the block where each gate
// otherwise sweeps it on its own (StateVector::applyAll).

#include "core/quantum/kernels.h"

#include <cstdint>
#include <vector>

namespace spyglass::quantum {

// A permutation of a block's rows, as the cycles they move along. A row is 2^lowest contiguous amplitudes (lowest:
// the lowest of the gates' qubits, controls included); the row of x (x's bits at those qubits) starts at amplitude
// deposit(x, qubits).
struct RowCycles {
    uint64_t qubits = 0;             // the block's qubits the gates act on (their targets and controls)
    int lowest = 0;
    std::vector<uint64_t> rowAt;     // the rows that move, a cycle after another, as offsets in floats from a base
    std::vector<uint32_t> cycleEnd;  // where each cycle ends in rowAt: each row takes the next one's amplitudes,
                                     // a cycle's last row its first's (kernels::cycleRows)
};

// The most qubits a composition spans: its table has a row per combination of them.
constexpr int kMaxComposedQubits = 14;

// Whether g can join a composition on amplitudes of amplitudeBytes bytes: a permutation gate whose qubits all lie
// above the amplitudes of one 64-byte line, so its rows are whole lines.
bool composable(const kernels::PreparedGate& g, int amplitudeBytes);

// The gates (each composable, together on at most kMaxComposedQubits qubits), applied first to last, as one
// permutation of rows.
RowCycles composeRows(const std::vector<const kernels::PreparedGate*>& gates, int amplitudeBytes);

// c on a contiguous block of 2^blockQubits amplitudes, one thread: every combination of the block's other qubits
// above c.lowest moves its rows alike. Nothing where c has no cycles.
void applyRowCycles(float* block, int blockQubits, const RowCycles& c);
void applyRowCycles(double* block, int blockQubits, const RowCycles& c);

}  // namespace spyglass::quantum
