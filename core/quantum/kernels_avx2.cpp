// AVX2+FMA build of the gate kernels; only called when the CPU reports both (see kernels.cpp).
#include "core/quantum/kernels.h"

#include <cstdint>
#include <omp.h>

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace spyglass::quantum::kernels::avx2 {
constexpr int kVectorBytes = 32;
constexpr bool kLaneFlips = true;
#include "core/quantum/kernels_impl.inc"
}
#pragma GCC pop_options
