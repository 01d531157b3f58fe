// AVX2+FMA micro-kernel of gemmF32; only called when the CPU reports both (see gemm_f32.cpp). The file is compiled
// for the baseline ISA, the target pragma enables AVX2/FMA for this kernel alone.
#include "core/spyresim/gemm_f32.h"

#include <stdexcept>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace spyglass::spyresim::gemm_detail {

// 6 x 16 tile: 12 accumulators + 2 B vectors + 1 A broadcast = 15 of the 16 ymm registers, and 12 FMAs per
// 2 loads of B and 6 broadcasts of A, enough to keep both FMA pipes busy from L1.
void avx2MicroKernel(int64_t kc, const float* Ap, const float* Bp, float* C, int64_t ldc, bool accumulate)
{
    static_assert(kAvx2MR == 6 && kAvx2NR == 16, "the kernel below is written out for a 6 x 16 tile");
    // Pull the C tile towards L1 while the K loop runs; it is read (accumulate) or written at the end.
    for (int i = 0; i < kAvx2MR; ++i) {
        _mm_prefetch(reinterpret_cast<const char*>(C + i * ldc), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(C + i * ldc + 15), _MM_HINT_T0);
    }
    __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
    __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
    __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
    __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
    __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
    __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();

#pragma GCC unroll 4
    for (int64_t p = 0; p < kc; ++p) {
        const __m256 b0 = _mm256_load_ps(Bp);
        const __m256 b1 = _mm256_load_ps(Bp + 8);
        __m256 a = _mm256_broadcast_ss(Ap + 0);
        c00 = _mm256_fmadd_ps(a, b0, c00);
        c01 = _mm256_fmadd_ps(a, b1, c01);
        a = _mm256_broadcast_ss(Ap + 1);
        c10 = _mm256_fmadd_ps(a, b0, c10);
        c11 = _mm256_fmadd_ps(a, b1, c11);
        a = _mm256_broadcast_ss(Ap + 2);
        c20 = _mm256_fmadd_ps(a, b0, c20);
        c21 = _mm256_fmadd_ps(a, b1, c21);
        a = _mm256_broadcast_ss(Ap + 3);
        c30 = _mm256_fmadd_ps(a, b0, c30);
        c31 = _mm256_fmadd_ps(a, b1, c31);
        a = _mm256_broadcast_ss(Ap + 4);
        c40 = _mm256_fmadd_ps(a, b0, c40);
        c41 = _mm256_fmadd_ps(a, b1, c41);
        a = _mm256_broadcast_ss(Ap + 5);
        c50 = _mm256_fmadd_ps(a, b0, c50);
        c51 = _mm256_fmadd_ps(a, b1, c51);
        Ap += kAvx2MR;
        Bp += kAvx2NR;
    }

    auto store = [&](float* row, __m256 lo, __m256 hi) {
        if (accumulate) {
            lo = _mm256_add_ps(lo, _mm256_loadu_ps(row));
            hi = _mm256_add_ps(hi, _mm256_loadu_ps(row + 8));
        }
        _mm256_storeu_ps(row, lo);
        _mm256_storeu_ps(row + 8, hi);
    };
    store(C + 0 * ldc, c00, c01);
    store(C + 1 * ldc, c10, c11);
    store(C + 2 * ldc, c20, c21);
    store(C + 3 * ldc, c30, c31);
    store(C + 4 * ldc, c40, c41);
    store(C + 5 * ldc, c50, c51);
}

}  // namespace spyglass::spyresim::gemm_detail
#pragma GCC pop_options

#else

namespace spyglass::spyresim::gemm_detail {
void avx2MicroKernel(int64_t, const float*, const float*, float*, int64_t, bool)
{
    // gemmF32Avx2Supported() is false off x86, so gemmF32 never gets here; a direct call is a caller bug.
    throw std::logic_error("gemmF32Avx2: AVX2 is not available on this architecture");
}
}  // namespace spyglass::spyresim::gemm_detail

#endif
