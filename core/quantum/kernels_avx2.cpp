// AVX2+FMA build of the gate kernels; only called when the CPU reports both (see kernels.cpp).
#include "core/quantum/kernels.h"

#include <cstdint>
#include <immintrin.h>
#include <omp.h>

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace spyglass::quantum::kernels::avx2 {
constexpr int kVectorBytes = 32;
// One 64-byte line from `from` to `to` past the caches (non-temporal), both 64-byte aligned.
inline void streamLine(float* to, const float* from)
{
    _mm256_stream_ps(to, _mm256_load_ps(from));
    _mm256_stream_ps(to + 8, _mm256_load_ps(from + 8));
}
constexpr bool kLaneFlips = true;
#include "core/quantum/kernels_impl.inc"
}
#pragma GCC pop_options
