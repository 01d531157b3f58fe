// AVX2+FMA micro-kernel of gemmF32; only called when the CPU reports both (see gemm_f32.cpp). The file is compiled
// for the baseline ISA, the target pragma enables AVX2/FMA for this kernel alone.
#include "core/spyresim/gemm_f32.h"

#include <algorithm>
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

void avx2PackA(int64_t mc, int64_t kc, const float* A, int64_t lda, float* dst)
{
    constexpr int MR = kAvx2MR;
    for (int64_t r0 = 0; r0 < mc; r0 += MR, dst += MR * kc) {
        const int64_t rows = std::min<int64_t>(MR, mc - r0);
        const float* a = A + r0 * lda;
        int64_t p = 0;
        if (rows == MR) {
            // 8 columns of 6 rows at a time: rows 0-3 transposed with the usual unpack/shuffle 4 x 8 transpose
            // (s0..s3 hold columns 0-3 in the low lane, 4-7 in the high lane), rows 4-5 interleaved pairwise
            // (u0: columns 0, 1 | 4, 5; u1: columns 2, 3 | 6, 7); each packed column is 4 + 2 floats.
            for (; p + 8 <= kc; p += 8) {
                const __m256 x0 = _mm256_loadu_ps(a + p);
                const __m256 x1 = _mm256_loadu_ps(a + lda + p);
                const __m256 x2 = _mm256_loadu_ps(a + 2 * lda + p);
                const __m256 x3 = _mm256_loadu_ps(a + 3 * lda + p);
                const __m256 x4 = _mm256_loadu_ps(a + 4 * lda + p);
                const __m256 x5 = _mm256_loadu_ps(a + 5 * lda + p);
                const __m256 t0 = _mm256_unpacklo_ps(x0, x1), t1 = _mm256_unpackhi_ps(x0, x1);
                const __m256 t2 = _mm256_unpacklo_ps(x2, x3), t3 = _mm256_unpackhi_ps(x2, x3);
                const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
                const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
                const __m256 u0 = _mm256_unpacklo_ps(x4, x5), u1 = _mm256_unpackhi_ps(x4, x5);
                float* d = dst + p * MR;
                auto put = [](float* col, __m128 top, __m128 pairs, bool high) {
                    _mm_storeu_ps(col, top);
                    if (high)
                        _mm_storeh_pi(reinterpret_cast<__m64*>(col + 4), pairs);
                    else
                        _mm_storel_pi(reinterpret_cast<__m64*>(col + 4), pairs);
                };
                const __m128 u0lo = _mm256_castps256_ps128(u0), u0hi = _mm256_extractf128_ps(u0, 1);
                const __m128 u1lo = _mm256_castps256_ps128(u1), u1hi = _mm256_extractf128_ps(u1, 1);
                put(d + 0 * MR, _mm256_castps256_ps128(s0), u0lo, false);
                put(d + 1 * MR, _mm256_castps256_ps128(s1), u0lo, true);
                put(d + 2 * MR, _mm256_castps256_ps128(s2), u1lo, false);
                put(d + 3 * MR, _mm256_castps256_ps128(s3), u1lo, true);
                put(d + 4 * MR, _mm256_extractf128_ps(s0, 1), u0hi, false);
                put(d + 5 * MR, _mm256_extractf128_ps(s1, 1), u0hi, true);
                put(d + 6 * MR, _mm256_extractf128_ps(s2, 1), u1hi, false);
                put(d + 7 * MR, _mm256_extractf128_ps(s3, 1), u1hi, true);
            }
        }
        for (; p < kc; ++p)
            for (int i = 0; i < MR; ++i)
                dst[p * MR + i] = i < rows ? a[i * lda + p] : 0.0f;
    }
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
void avx2PackA(int64_t, int64_t, const float*, int64_t, float*)
{
    throw std::logic_error("gemmF32Avx2: AVX2 is not available on this architecture");
}
}  // namespace spyglass::spyresim::gemm_detail

#endif
