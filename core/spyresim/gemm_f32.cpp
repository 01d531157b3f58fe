// The blocked GEMM driver (packing, cache blocking, edge tiles), the portable micro-kernel and the run-time choice
// between it and the AVX2+FMA and AVX-512F ones. The loop order is BLIS's: for each NC-wide column panel of B and each KC-deep
// slice of K, B's slice is packed once (it stays in L3/L2) and reused by every MC-row block of A, whose packed copy
// stays in L2 while the micro-kernel streams NR-wide slivers of B through L1.
#include "core/spyresim/gemm_f32.h"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>

namespace spyglass::spyresim {

namespace {

// KC * NR * 4 bytes of packed B (16 KiB for the AVX2 kernel) must sit in L1 next to a sliver of A; MC * KC * 4
// bytes of packed A (168 KiB) in L2; KC * NC * 4 (1 MiB) of packed B in L2/L3. MC is a multiple of every MR (6, 4),
// NC of every NR (32, 16, 8); KC is the same for all kernels, which keeps their sums identical for K > KC. Measured on a Zen 5 EPYC (48 KiB L1D, 1 MiB L2) with MC = 72/168/336 and
// NC = 1024/2048/4096: all within run-to-run noise, so NC is the smallest, which keeps each thread's pack buffers
// at 1.2 MiB (the simulator may run many cores' threads at once).
constexpr int64_t kKC = 256;
constexpr int64_t kMC = 168;
constexpr int64_t kNC = 1024;

// A 64-byte aligned float buffer that only grows; one per thread, so concurrent calls never share it.
class PackBuffer {
public:
    PackBuffer() = default;
    PackBuffer(const PackBuffer&) = delete;
    PackBuffer& operator=(const PackBuffer&) = delete;
    ~PackBuffer() { std::free(data_); }

    float* reserve(int64_t count)
    {
        if (count > capacity_) {
            std::free(data_);
            data_ = nullptr;
            capacity_ = 0;
            const size_t bytes = (static_cast<size_t>(count) * sizeof(float) + 63) / 64 * 64;
            data_ = static_cast<float*>(std::aligned_alloc(64, bytes));
            if (!data_)
                throw std::bad_alloc();
            capacity_ = count;
        }
        return data_;
    }

private:
    float* data_ = nullptr;
    int64_t capacity_ = 0;
};

struct PackBuffers {
    PackBuffer a;
    PackBuffer b;
};

PackBuffers& threadBuffers()
{
    thread_local PackBuffers buffers;
    return buffers;
}

// Rows [0, mc) x columns [0, kc) of A (already offset to the block) into MR-row slivers: sliver s holds
// A[s*MR + i][p] at s*MR*kc + p*MR + i. Rows past mc are zero so edge tiles can run the full micro-kernel.
// The portable version; gemm_f32_avx2.cpp has a vectorised one for MR = 6.
template<int MR>
void packA(int64_t mc, int64_t kc, const float* A, int64_t lda, float* dst)
{
    for (int64_t r0 = 0; r0 < mc; r0 += MR, dst += MR * kc) {
        const int64_t rows = std::min<int64_t>(MR, mc - r0);
        const float* a = A + r0 * lda;
        if (rows == MR) {
            for (int64_t p = 0; p < kc; ++p)
                for (int i = 0; i < MR; ++i)
                    dst[p * MR + i] = a[i * lda + p];
        } else {
            for (int64_t p = 0; p < kc; ++p)
                for (int i = 0; i < MR; ++i)
                    dst[p * MR + i] = i < rows ? a[i * lda + p] : 0.0f;
        }
    }
}

// Rows [0, kc) x columns [0, nc) of B (already offset) into NR-column slivers: sliver s holds B[p][s*NR + j] at
// s*NR*kc + p*NR + j; columns past nc are zero. B is copied in chunks of kRowChunk rows: walking down a whole
// sliver (or writing a whole row across all slivers) would touch a new page on every access once ldb (or kc) is a
// few thousand floats, which defeats the hardware prefetchers and the TLB; a chunk reads a few pages sequentially
// and writes kRowChunk * NR contiguous floats per sliver.
template<int NR>
void packB(int64_t kc, int64_t nc, const float* B, int64_t ldb, float* dst)
{
    constexpr int64_t kRowChunk = 8;
    const int64_t full = nc / NR;
    const int64_t rest = nc - full * NR;
    for (int64_t p0 = 0; p0 < kc; p0 += kRowChunk) {
        const int64_t rows = std::min(kRowChunk, kc - p0);
        for (int64_t s = 0; s < full; ++s) {
            const float* b = B + p0 * ldb + s * NR;
            float* d = dst + s * NR * kc + p0 * NR;
            for (int64_t p = 0; p < rows; ++p)
                for (int j = 0; j < NR; ++j)
                    d[p * NR + j] = b[p * ldb + j];
        }
        if (rest) {
            const float* b = B + p0 * ldb + full * NR;
            float* d = dst + full * NR * kc + p0 * NR;
            for (int64_t p = 0; p < rows; ++p)
                for (int j = 0; j < NR; ++j)
                    d[p * NR + j] = j < rest ? b[p * ldb + j] : 0.0f;
        }
    }
}

void checkArguments(int64_t M, int64_t N, int64_t K, int64_t lda, int64_t ldb, int64_t ldc)
{
    auto fail = [](const std::string& what) { throw std::invalid_argument("gemmF32: " + what); };
    if (M < 0 || N < 0 || K < 0)
        fail("negative size M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" + std::to_string(K));
    if (M > 1 && lda < K)
        fail("lda=" + std::to_string(lda) + " is smaller than K=" + std::to_string(K));
    if (K > 1 && ldb < N)
        fail("ldb=" + std::to_string(ldb) + " is smaller than N=" + std::to_string(N));
    if (M > 1 && ldc < N)
        fail("ldc=" + std::to_string(ldc) + " is smaller than N=" + std::to_string(N));
}

template<int MR, int NR>
void blockedGemm(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C,
                 int64_t ldc, bool accumulate, gemm_detail::MicroKernel kernel, gemm_detail::PackA packA)
{
    static_assert(kMC % MR == 0 && kNC % NR == 0, "block sizes must be whole numbers of micro-tiles");
    checkArguments(M, N, K, lda, ldb, ldc);
    if (M == 0 || N == 0)
        return;
    if (K == 0) {
        if (!accumulate)
            for (int64_t i = 0; i < M; ++i)
                std::fill(C + i * ldc, C + i * ldc + N, 0.0f);
        return;
    }

    PackBuffers& buffers = threadBuffers();
    const int64_t kcMax = std::min(K, kKC);
    // Panels are rounded up to whole slivers, which packing pads with zeros.
    float* Bp = buffers.b.reserve(kcMax * ((std::min(N, kNC) + NR - 1) / NR * NR));
    float* Ap = buffers.a.reserve(kcMax * ((std::min(M, kMC) + MR - 1) / MR * MR));
    alignas(64) float edge[MR * NR];

    for (int64_t jc = 0; jc < N; jc += kNC) {
        const int64_t nc = std::min(kNC, N - jc);
        for (int64_t pc = 0; pc < K; pc += kKC) {
            const int64_t kc = std::min(kKC, K - pc);
            // The first K slice overwrites C unless the caller asked to accumulate; later slices add to it.
            const bool addToC = accumulate || pc > 0;
            packB<NR>(kc, nc, B + pc * ldb + jc, ldb, Bp);
            for (int64_t ic = 0; ic < M; ic += kMC) {
                const int64_t mc = std::min(kMC, M - ic);
                packA(mc, kc, A + ic * lda + pc, lda, Ap);
                for (int64_t jr = 0; jr < nc; jr += NR) {
                    const int64_t nr = std::min<int64_t>(NR, nc - jr);
                    const float* b = Bp + jr * kc;
                    for (int64_t ir = 0; ir < mc; ir += MR) {
                        const int64_t mr = std::min<int64_t>(MR, mc - ir);
                        const float* a = Ap + ir * kc;
                        float* c = C + (ic + ir) * ldc + jc + jr;
                        if (mr == MR && nr == NR) {
                            kernel(kc, a, b, c, ldc, addToC);
                            continue;
                        }
                        // Edge tile: compute the whole zero-padded tile aside, write back only what is inside C.
                        kernel(kc, a, b, edge, NR, false);
                        for (int64_t i = 0; i < mr; ++i)
                            for (int64_t j = 0; j < nr; ++j)
                                c[i * ldc + j] = addToC ? c[i * ldc + j] + edge[i * NR + j] : edge[i * NR + j];
                    }
                }
            }
        }
    }
}

// Portable 4 x 8 micro-kernel: 32 accumulators that the compiler keeps in vector registers (8 SSE registers on
// baseline x86-64, 8 NEON registers on AArch64) and vectorises along the 8 columns.
constexpr int kGenericMR = 4;
constexpr int kGenericNR = 8;

void genericMicroKernel(int64_t kc, const float* Ap, const float* Bp, float* C, int64_t ldc, bool accumulate)
{
    float acc[kGenericMR][kGenericNR] = {};
    for (int64_t p = 0; p < kc; ++p) {
        const float* a = Ap + p * kGenericMR;
        const float* b = Bp + p * kGenericNR;
        for (int i = 0; i < kGenericMR; ++i)
            for (int j = 0; j < kGenericNR; ++j)
                acc[i][j] += a[i] * b[j];
    }
    for (int i = 0; i < kGenericMR; ++i)
        for (int j = 0; j < kGenericNR; ++j)
            C[i * ldc + j] = accumulate ? C[i * ldc + j] + acc[i][j] : acc[i][j];
}

bool envSet(const char* name)
{
    const char* e = std::getenv(name);
    return e && *e && *e != '0';
}

bool useAvx2()
{
    static const bool yes = !envSet("SPYGLASS_NO_AVX2") && gemmF32Avx2Supported();
    return yes;
}

bool useAvx512()
{
    // avx512MicroKernel shares avx2PackA, so AVX-512 needs the AVX2 path too.
    static const bool yes = useAvx2() && !envSet("SPYGLASS_NO_AVX512") && gemmF32Avx512Supported();
    return yes;
}

}  // namespace

bool gemmF32Avx2Supported()
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}

bool gemmF32Avx512Supported()
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return gemmF32Avx2Supported() && __builtin_cpu_supports("avx512f");
#else
    return false;
#endif
}

void gemmF32Generic(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
                    float* C, int64_t ldc, bool accumulate)
{
    blockedGemm<kGenericMR, kGenericNR>(M, N, K, A, lda, B, ldb, C, ldc, accumulate, genericMicroKernel,
                                             packA<kGenericMR>);
}

void gemmF32Avx2(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
                 float* C, int64_t ldc, bool accumulate)
{
    using namespace gemm_detail;
    blockedGemm<kAvx2MR, kAvx2NR>(M, N, K, A, lda, B, ldb, C, ldc, accumulate, avx2MicroKernel, avx2PackA);
}

void gemmF32Avx512(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
                   float* C, int64_t ldc, bool accumulate)
{
    using namespace gemm_detail;
    blockedGemm<kAvx512MR, kAvx512NR>(M, N, K, A, lda, B, ldb, C, ldc, accumulate, avx512MicroKernel, avx2PackA);
}

void gemmF32(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C,
             int64_t ldc, bool accumulate)
{
    if (useAvx512())
        gemmF32Avx512(M, N, K, A, lda, B, ldb, C, ldc, accumulate);
    else if (useAvx2())
        gemmF32Avx2(M, N, K, A, lda, B, ldb, C, ldc, accumulate);
    else
        gemmF32Generic(M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

const char* gemmF32Implementation()
{
    return useAvx512() ? "avx512f" : useAvx2() ? "avx2+fma" : "generic";
}

}  // namespace spyglass::spyresim
