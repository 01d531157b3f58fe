#pragma once
// The fp32 GEMM under the Spyre simulator's matmul-heavy kernels. Goto/BLIS structure: B is packed in KC x NC
// panels, A in MC x KC blocks (thread_local buffers), and a register-blocked micro-kernel computes MR x NR tiles
// of C. The micro-kernel is chosen at run time: AVX-512F (6 x 32) when the CPU has it and SPYGLASS_NO_AVX512 is
// not set, else AVX2+FMA (6 x 16) when the CPU has both and SPYGLASS_NO_AVX2 is not set (it also turns AVX-512
// off), else a portable one (4 x 8) that the compiler vectorises with whatever the baseline ISA offers. The two
// x86 kernels give bit-identical results (same FMA sequence per element).

#include <cstdint>

namespace spyglass::spyresim {

// C[M x N] = A[M x K] * B[K x N] (+ C when accumulate), all row-major fp32 with leading dimensions (elements).
// Single-threaded; the simulator runs one call per simulated core on its own thread.
void gemmF32(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
             float* C, int64_t ldc, bool accumulate);
// Which implementation gemmF32 uses on this machine: "avx512f", "avx2+fma" or "generic".
const char* gemmF32Implementation();

// The two implementations behind gemmF32, callable directly so tests and benchmarks can compare them.
// gemmF32Avx2 may only be called when gemmF32Avx2Supported() (the CPU has AVX2 and FMA; ignores the env variable).
void gemmF32Generic(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
                    float* C, int64_t ldc, bool accumulate);
void gemmF32Avx2(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
                 float* C, int64_t ldc, bool accumulate);
bool gemmF32Avx2Supported();
// gemmF32Avx512 may only be called when gemmF32Avx512Supported() (the CPU has AVX-512F; ignores the env variables).
void gemmF32Avx512(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
                   float* C, int64_t ldc, bool accumulate);
bool gemmF32Avx512Supported();

namespace gemm_detail {
// A micro-kernel computes one full MR x NR tile: C = Ap * Bp (+ C when accumulate), where Ap holds kc columns of
// MR packed A values and Bp kc rows of NR packed B values (64-byte aligned). Partial tiles go through a scratch
// tile in the driver.
using MicroKernel = void (*)(int64_t kc, const float* Ap, const float* Bp, float* C, int64_t ldc, bool accumulate);

// The AVX2+FMA micro-kernel (gemm_f32_avx2.cpp): 6 x 16 = 12 ymm accumulators, 2 for B, 1 broadcast of A.
constexpr int kAvx2MR = 6;
constexpr int kAvx2NR = 16;
void avx2MicroKernel(int64_t kc, const float* Ap, const float* Bp, float* C, int64_t ldc, bool accumulate);

// The AVX-512F micro-kernel (gemm_f32_avx512.cpp): 6 x 32 = 12 zmm accumulators; A packed by avx2PackA.
constexpr int kAvx512MR = 6;
constexpr int kAvx512NR = 32;
void avx512MicroKernel(int64_t kc, const float* Ap, const float* Bp, float* C, int64_t ldc, bool accumulate);

// Packs rows [0, mc) x columns [0, kc) of A into MR-row slivers (sliver s holds A[s*MR + i][p] at
// s*MR*kc + p*MR + i, rows past mc zero). The AVX2 version transposes 6 x 8 blocks in registers: with few columns
// of B per row of A (small N) packing A is otherwise a large share of the time.
using PackA = void (*)(int64_t mc, int64_t kc, const float* A, int64_t lda, float* dst);
void avx2PackA(int64_t mc, int64_t kc, const float* A, int64_t lda, float* dst);
}  // namespace gemm_detail

}  // namespace spyglass::spyresim
