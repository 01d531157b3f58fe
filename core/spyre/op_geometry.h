#pragma once
// Shared arithmetic of the tiling, work-division, scratchpad and codegen passes: how many units (elements, or
// sticks along the stick var) each var has, and which buffers an op touches.

#include "core/spyre/loop_ir.h"

#include <vector>

namespace spyglass::spyre {

// Units of `var` inside one tile: sticks when it walks the stick, elements otherwise.
int64_t varUnits(const Program& p, const Op& op, int var);
// Elements of `var` per tile (the tile loop's extent, or the whole range).
int64_t varTileExtent(const Op& op, int var);
// Distinct buffers the op loads, then the buffer it stores.
std::vector<int> touchedBuffers(const Op& op);
// Does the access to `buffer` in `op` vary along `var`?
bool variesWith(const Op& op, int buffer, int var);
// Largest divisor of n that is <= limit (>= 1).
int64_t largestDivisorAtMost(int64_t n, int64_t limit);
std::vector<int64_t> divisorsAtMost(int64_t n, int64_t limit);

}  // namespace spyglass::spyre
