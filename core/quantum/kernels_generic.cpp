// Portable build of the gate kernels (SSE2 on x86-64).
#include "core/quantum/kernels.h"

#include <cstdint>
#include <cstring>
#include <omp.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace spyglass::quantum::kernels::generic {
constexpr int kVectorBytes = 32;   // SSE2 runs the 256-bit vectors as pairs of 128-bit ones
// One 64-byte line from `from` to `to` past the caches (non-temporal) where SSE has the stores, both 64-byte aligned.
inline void streamLine(float* to, const float* from)
{
#if defined(__SSE__)
    for (int i = 0; i < 16; i += 4)
        _mm_stream_ps(to + i, _mm_load_ps(from + i));
#else
    std::memcpy(to, from, 64);
#endif
}
constexpr bool kLaneFlips = false;   // split vectors scalarise the lane flips (denseLanesRange ran 3-4x slower)
#include "core/quantum/kernels_impl.inc"
}
