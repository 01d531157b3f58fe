// AVX-512 build of the gate kernels (512-bit vectors: four complex128 or eight complex64 amplitudes); only called
// when the CPU reports AVX-512F/DQ/VL and FMA (see kernels.cpp). The ISA comes from the target pragma, so the rest
// of the program keeps the baseline one.
#include "core/quantum/kernels.h"

#include <cstdint>
#include <omp.h>

#pragma GCC push_options
#pragma GCC target("avx2,fma,avx512f,avx512dq,avx512vl")
namespace spyglass::quantum::kernels::avx512 {
constexpr int kVectorBytes = 64;
constexpr bool kLaneFlips = true;
#include "core/quantum/kernels_impl.inc"
}
#pragma GCC pop_options
