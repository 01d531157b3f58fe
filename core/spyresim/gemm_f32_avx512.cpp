// AVX-512F micro-kernel of gemmF32; only called when the CPU reports AVX-512F (see gemm_f32.cpp). Like the AVX2
// file it is compiled for the baseline ISA with a target pragma. Each C element gets the same sequence of FMAs
// (one per p, in K order, from a zero accumulator, then + C) as in the AVX2 kernel, so the two agree bit for bit;
// only the tile width differs. A is packed by avx2PackA (the same 6-row slivers).
#include "core/spyresim/gemm_f32.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#pragma GCC push_options
#pragma GCC target("avx512f")
namespace spyglass::spyresim::gemm_detail {

// 6 x 32 tile: 12 zmm accumulators, 2 B vectors, 1 A broadcast; twice the columns per broadcast of A of the
// 6 x 16 AVX2 tile, which halves the A traffic per FMA and, on cores with 512-bit FMA units (Zen 5), the FMA count.
void avx512MicroKernel(int64_t kc, const float* Ap, const float* Bp, float* C, int64_t ldc, bool accumulate)
{
    static_assert(kAvx512MR == 6 && kAvx512NR == 32, "the kernel below is written out for a 6 x 32 tile");
    for (int i = 0; i < kAvx512MR; ++i) {
        _mm_prefetch(reinterpret_cast<const char*>(C + i * ldc), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(C + i * ldc + 31), _MM_HINT_T0);
    }
    __m512 c00 = _mm512_setzero_ps(), c01 = _mm512_setzero_ps();
    __m512 c10 = _mm512_setzero_ps(), c11 = _mm512_setzero_ps();
    __m512 c20 = _mm512_setzero_ps(), c21 = _mm512_setzero_ps();
    __m512 c30 = _mm512_setzero_ps(), c31 = _mm512_setzero_ps();
    __m512 c40 = _mm512_setzero_ps(), c41 = _mm512_setzero_ps();
    __m512 c50 = _mm512_setzero_ps(), c51 = _mm512_setzero_ps();

#pragma GCC unroll 4
    for (int64_t p = 0; p < kc; ++p) {
        const __m512 b0 = _mm512_load_ps(Bp);
        const __m512 b1 = _mm512_load_ps(Bp + 16);
        __m512 a = _mm512_set1_ps(Ap[0]);
        c00 = _mm512_fmadd_ps(a, b0, c00);
        c01 = _mm512_fmadd_ps(a, b1, c01);
        a = _mm512_set1_ps(Ap[1]);
        c10 = _mm512_fmadd_ps(a, b0, c10);
        c11 = _mm512_fmadd_ps(a, b1, c11);
        a = _mm512_set1_ps(Ap[2]);
        c20 = _mm512_fmadd_ps(a, b0, c20);
        c21 = _mm512_fmadd_ps(a, b1, c21);
        a = _mm512_set1_ps(Ap[3]);
        c30 = _mm512_fmadd_ps(a, b0, c30);
        c31 = _mm512_fmadd_ps(a, b1, c31);
        a = _mm512_set1_ps(Ap[4]);
        c40 = _mm512_fmadd_ps(a, b0, c40);
        c41 = _mm512_fmadd_ps(a, b1, c41);
        a = _mm512_set1_ps(Ap[5]);
        c50 = _mm512_fmadd_ps(a, b0, c50);
        c51 = _mm512_fmadd_ps(a, b1, c51);
        Ap += kAvx512MR;
        Bp += kAvx512NR;
    }

    auto store = [&](float* row, __m512 lo, __m512 hi) {
        if (accumulate) {
            lo = _mm512_add_ps(lo, _mm512_loadu_ps(row));
            hi = _mm512_add_ps(hi, _mm512_loadu_ps(row + 16));
        }
        _mm512_storeu_ps(row, lo);
        _mm512_storeu_ps(row + 16, hi);
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

#include <stdexcept>

namespace spyglass::spyresim::gemm_detail {
void avx512MicroKernel(int64_t, const float*, const float*, float*, int64_t, bool)
{
    throw std::logic_error("avx512MicroKernel called on a non-x86 build");
}
}  // namespace spyglass::spyresim::gemm_detail

#endif
