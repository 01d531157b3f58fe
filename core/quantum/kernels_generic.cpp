// Portable build of the gate kernels (SSE2 on x86-64).
#include "core/quantum/kernels.h"

#include <cstdint>
#include <omp.h>

namespace spyglass::quantum::kernels::generic {
constexpr int kVectorBytes = 32;   // SSE2 runs the 256-bit vectors as pairs of 128-bit ones
constexpr bool kLaneFlips = false;   // split vectors scalarise the lane flips (denseLanesRange ran 3-4x slower)
#include "core/quantum/kernels_impl.inc"
}
