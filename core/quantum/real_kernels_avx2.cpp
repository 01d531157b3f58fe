// AVX2+FMA build of the real-amplitude VQE loops; only called when the CPU reports both (see real_kernels.cpp).
#include "core/quantum/real_kernels.h"

#include <cstdint>

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace spyglass::quantum::realk::avx2 {
#include "core/quantum/real_kernels_impl.inc"
}
#pragma GCC pop_options
