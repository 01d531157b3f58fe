// AVX-512 build of the gate kernels (512-bit vectors: four complex128 or eight complex64 amplitudes); only called
// when the CPU reports AVX-512F/DQ/VL and FMA (see kernels.cpp). The ISA comes from the target pragma, so the rest
// of the program keeps the baseline one.
#include "core/quantum/kernels.h"

#include <cstdint>
#include <immintrin.h>
#include <omp.h>

#pragma GCC push_options
#pragma GCC target("avx2,fma,avx512f,avx512dq,avx512vl")
namespace spyglass::quantum::kernels::avx512 {
constexpr int kVectorBytes = 64;
// One 64-byte line from `from` to `to` past the caches (non-temporal), both 64-byte aligned.
inline void streamLine(float* to, const float* from) { _mm512_stream_ps(to, _mm512_load_ps(from)); }
constexpr bool kLaneFlips = true;
#include "core/quantum/kernels_impl.inc"
}
#pragma GCC pop_options
