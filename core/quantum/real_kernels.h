#pragma once
// Hot loops of the real-amplitude VQE path (ansatz_real.h, pauli_expectation.h), built twice like the gate
// kernels: a portable build and an AVX2+FMA build picked at run time (kernels::usingAvx2()). Plain structs of
// pointers only, so the AVX2 build instantiates no standard-library code.

#include <cstdint>

namespace spyglass::quantum::realk {

// One state preparation of the RY/CZ ansatz; see ansatz_real.h for the schedule.
struct AnsatzPlan {
    int n = 0;
    int lowQubits = 0;                   // b
    int tileQubits = 0;                  // w
    int layers = 0;
    const double* cs = nullptr;          // cos(theta/2), (layers+1) x n
    const double* sn = nullptr;          // sin(theta/2)
    const double* lowProduct = nullptr;  // first-layer product over qubits < b, 2^b entries
    const unsigned char* signTable[4] = {};   // CZ ring sign bit per chunk-local index, by chunk selector
    int threads = 1;                     // OpenMP threads for every pass
};

struct ZTerm {
    uint64_t z;
    double c;
};

// The fast passes of expectationReal: the diagonal weight and the X-string groups that a chunk or a tile holds.
struct ExpectationPlan {
    int n = 0;
    int lowQubits = 0;
    int tileQubits = 0;
    // Diagonal weight per index, in blocks of 2^diagBits: low[k] + sum over `high` terms of c (-1)^|i0 & z|
    // + sum over straddling terms of (-1)^|i0 & straddleMask| straddle[s][k] (see pauli_expectation.cpp).
    bool diagonal = false;
    int diagBits = 0;
    const double* low = nullptr;
    const ZTerm* high = nullptr;
    int numHigh = 0;
    const uint64_t* straddleMask = nullptr;
    const double* const* straddle = nullptr;
    int numStraddle = 0;
    // Groups of pure X strings: weight (sum of coefficients) per flip mask.
    const uint64_t* chunkX = nullptr;    // masks < 2^lowQubits
    const double* chunkW = nullptr;
    int numChunk = 0;
    const uint64_t* tileX = nullptr;     // masks >= 2^lowQubits whose low part is < 2^tileQubits
    const double* tileW = nullptr;
    int numTile = 0;
    double* partial = nullptr;           // scratch: one double per chunk and per tile
    int threads = 1;                     // OpenMP threads for every pass
};

// Best: the AVX2 build when the CPU has AVX2+FMA (and SPYGLASS_NO_AVX2 is unset); Portable: always the portable
// build (tests compare the two).
enum class Build { Best, Portable };

void prepareAnsatz(double* a, const AnsatzPlan& p, Build b = Build::Best);
void prepareAnsatz(float* a, const AnsatzPlan& p, Build b = Build::Best);
double expectationPasses(const double* a, const ExpectationPlan& p, Build b = Build::Best);
double expectationPasses(const float* a, const ExpectationPlan& p, Build b = Build::Best);

namespace generic {
void prepareAnsatz(double* a, const AnsatzPlan& p);
void prepareAnsatz(float* a, const AnsatzPlan& p);
double expectationPasses(const double* a, const ExpectationPlan& p);
double expectationPasses(const float* a, const ExpectationPlan& p);
}  // namespace generic
namespace avx2 {
void prepareAnsatz(double* a, const AnsatzPlan& p);
void prepareAnsatz(float* a, const AnsatzPlan& p);
double expectationPasses(const double* a, const ExpectationPlan& p);
double expectationPasses(const float* a, const ExpectationPlan& p);
}  // namespace avx2

}  // namespace spyglass::quantum::realk
