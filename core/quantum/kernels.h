#pragma once
// Gate kernels on a state vector of interleaved (re, im) amplitudes, amplitude index bit q = qubit q.
// One generic kernel per matrix size k (1..6 qubits) with optional control qubits, a diagonal kernel
// that touches only the amplitudes whose factor is not 1, and a permutation kernel that only moves them. Three builds of the same source (portable, AVX2+FMA,
// AVX-512); the widest the CPU has is chosen at run time.

#include "core/quantum/kernel_costs.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace spyglass::quantum::kernels {

constexpr int kMaxTargets = 6;
// The tensor kernel's widest product: 4 factors, all of them on targets above the vector at worst (the vectors of
// a base are then 16, which stay in registers).
constexpr int kMaxTensorTargets = 4;
// The program kernel's room (kernels_impl.inc, ProgramCode): steps, and coefficient vectors of all of them, a one-qubit
// step taking 8 and a diagonal 2 per vector of a base (at most 2^kMaxTensorTargets). A gate beyond either runs its
// product; the fuse pass makes no program it would not take (programFits).
constexpr int kMaxProgramSteps = 48;
constexpr int kMaxProgramVectors = 512;
constexpr bool programFits(int oneQubitSteps, int diagonalSteps)
{
    return oneQubitSteps + diagonalSteps <= kMaxProgramSteps && 8 * oneQubitSteps + (2 << kMaxTensorTargets) * diagonalSteps <= kMaxProgramVectors;
}

// One step of a program gate (PreparedGate::program): a one-qubit matrix on targets[target] (8 numbers: 2 x 2,
// row-major, re/im), or, target < 0, a diagonal over all the targets (2^k factors re/im, index bit j = targets[j]).
struct ProgramStep {
    int target = -1;
    std::vector<double> values;
};
// What a step costs the program kernel, by the exact zeros of its entries: a real matrix (ry, H) makes a multiply
// and an FMA an output; one real on its diagonal and imaginary off it (rx) the same plus a swap of the inputs'
// re/im; any other one-qubit matrix four multiply-adds an output; a diagonal one multiply (real factors, a cz) or a
// complex product an amplitude.
enum class ProgramStepKind { Real, ImagOff, Complex, Diagonal, ComplexDiagonal };
ProgramStepKind programStepKind(const ProgramStep& step, int k);
// The kind of a one-qubit step's matrix (8 numbers as ProgramStep::values): Real, ImagOff or Complex.
ProgramStepKind oneQubitStepKind(const double* m);

// A gate prepared once before simulation: targets ascending, the matrix permuted to match.
struct PreparedGate {
    int k = 0;                        // number of target qubits
    int targets[kMaxTargets] = {};    // ascending
    std::vector<int> controls;        // control qubits (all must be 1)
    bool diagonal = false;            // runs on the diagonal kernel
    bool diagonalMatrix = false;      // the matrix is diagonal (also when a dense kernel runs it, as for rz)
    bool realMatrix = false;          // every imaginary part is zero: the dense kernels make one FMA a product
    // The local index bits (bit j: targets[j]) that no non-zero entry changes: the gate only selects by them between
    // matrices on its other targets, as a control selects between the identity and one. Where they are all its
    // targets inside a vector, the dense kernel there needs no lane flips (kernels_impl.inc, laneTable).
    int unmixedBits = 0;
    std::vector<double> matrix;       // 2^k x 2^k complex, row-major, interleaved re/im (dense gates)
    std::vector<int> diagIndex;       // diagonal gates: local indices whose factor is not 1 ...
    std::vector<double> diagValue;    // ... and those factors (re, im)
    bool sparse = false;              // dense matrix with at most half its entries non-zero (fused H + phases):
    std::vector<int> rowStart;        // CSR rows (2^k + 1 entries) ...
    std::vector<int> sparseCol;       // ... column of each non-zero ...
    std::vector<double> sparseValue;  // ... and its value (re, im)
    // A permutation matrix, every entry 0 or exactly 1 (X, CNOT, SWAP, Toffoli and products of them, as a chain of
    // CNOTs fuses into): the amplitudes only move, on the permutation kernel; permSource[r] is the column whose
    // amplitude row r takes. Not set for the identity (diagonal).
    bool permutation = false;
    std::vector<int> permSource;
    // A tensor product of one-qubit matrices (H x H, a layer of ry: what gates on different qubits fuse into):
    // the tensor kernel applies each factor in registers, 2k multiply-adds per amplitude instead of the dense
    // kernel's 2^k. tensorFactors: 8 numbers per target (2 x 2 complex, row-major, re/im), factor j on targets[j].
    // `matrix` is kept: the dense kernels run the gate where the tensor kernel cannot (kernels_impl.inc).
    bool tensor = false;
    std::vector<double> tensorFactors;
    // A sequence of one-qubit matrices and diagonals on the targets (a fused block of rotations and cz, which is
    // neither a tensor product nor diagonal): the program kernel applies the steps in registers one after another
    // in one sweep, each with the products its own matrix needs (ProgramStepKind). `matrix` (their product) is
    // kept: the dense kernels run the gate where the program kernel cannot (kernels_impl.inc). Set by setProgram.
    bool program = false;
    std::vector<ProgramStep> programSteps;
    // Dense gates of <= 4 targets, filled by prepareLaneTable: the matrix laid out as the kernels of one vector
    // width (in bytes) read it, so the many calls of a cache-blocked run share one layout (apply() lays it out
    // on every call otherwise). Mutable: a layout of `matrix`, which a cache-blocked run makes in the gates it is
    // given (StateVector::applyAll).
    mutable std::vector<float> laneTableSingle;
    mutable std::vector<double> laneTableDouble;
    mutable int laneTableSingleBytes = 0, laneTableDoubleBytes = 0;
};

// g's target qubits, and its targets and controls, as masks of qubits.
uint64_t targetMask(const PreparedGate& g);
uint64_t qubitMask(const PreparedGate& g);

// Builds a prepared gate from a little-endian matrix on `qubits` (controls first, then targets).
PreparedGate prepare(const std::vector<int>& controls, const std::vector<int>& targets, const std::vector<double>& interleavedMatrix);

void apply(double* amps, int numQubits, const PreparedGate& g);
void apply(float* amps, int numQubits, const PreparedGate& g);
// g on the amplitudes whose index has every bit of heldZero clear (amps may be offset to select other values of
// those bits): a block of the state strided through it in place, as a tile of rows is. Serial.
void apply(double* amps, int numQubits, const PreparedGate& g, uint64_t heldZero);
void apply(float* amps, int numQubits, const PreparedGate& g, uint64_t heldZero);
// Makes g (prepared from a matrix on `qubits`, in that order) run as `steps` (their targets index `qubits`, their
// diagonals' bits too), whose product must be g's matrix: steps moved to g's ascending targets, one-qubit
// diagonals made diagonal steps, and steps merged where they meet (diagonals with diagonals, one-qubit matrices on
// the same target with each other) across steps they commute with. Clears tensor, sparse and diagonal kernels'
// choices: the program kernel runs g.
void setProgram(PreparedGate& g, const std::vector<int>& qubits, const std::vector<ProgramStep>& steps);
// The same steps on `qubits` renumbered (g prepared again with other qubit numbers, as a cache block's tile or an
// MPI rank's map does): `from`'s steps onto `to`, whose targets are `from`'s mapped one to one, in from's order.
void carryProgram(PreparedGate& to, const PreparedGate& from, const std::vector<int>& mappedTargets);
// The steps setProgram keeps for a gate on `targets` (ascending, k of them) of `steps` on `qubits`.
std::vector<ProgramStep> normalizedProgram(const int* targets, int k, const std::vector<int>& qubits, const std::vector<ProgramStep>& steps);
// The product of `steps` (on local qubits 0..k-1, the first applied first): a 2^k x 2^k matrix, interleaved re/im.
std::vector<double> programMatrix(int k, const std::vector<ProgramStep>& steps);
// Fills s's program fields from normalized steps on `targets` (ascending): what relativeCost weighs.
void programShape(const std::vector<ProgramStep>& steps, const int* targets, int k, CostShape& s);
inline void programShape(const PreparedGate& g, CostShape& s) { programShape(g.programSteps, g.targets, g.k, s); }
// Lays out g's matrix for the active build's kernels in the given precision (see PreparedGate::laneTableSingle);
// for gates applied to many cache blocks.
void prepareLaneTable(const PreparedGate& g, bool single);

// A diagonal gate that is a product of one-qubit phases wherever its controls are set: amplitude x (every bit of
// `controls` set in x) is multiplied by scale x factor[t] for every qubit t of `targets` set in x. A QFT's
// controlled phases on one qubit are one (that qubit the control), and so is a layer of rz. Several in a row
// merge into one (mergePhaseProducts) and run in one sweep (applyPhaseProduct), where the diagonal kernel would
// touch the amplitudes again for each.
struct PhaseProduct {
    uint64_t controls = 0, targets = 0;
    double scale[2] = {1, 0};
    double factor[64][2];   // (re, im) for the qubits of `targets`
};
// The same for one gate, compact: its factors in the order of the set bits of `targets`.
struct GatePhases {
    uint64_t controls = 0, targets = 0;
    double scale[2] = {1, 0};
    double factor[kMaxTargets][2];
};
// Whether g (a diagonal matrix, on the diagonal kernel or not) is a product of phases (to 1e-14 in every factor), and which: g's controls, the target
// qubits whose 0 leaves every factor 1, and the others' factors.
bool phasesOf(const PreparedGate& g, GatePhases& out);
PhaseProduct phaseProduct(const GatePhases& g);
// `into` then `next` as one PhaseProduct on the controls both share; false (and `into` unchanged) when that
// product is none (a control only one of them has must be that one's only such control, and it must have no
// targets: the control then becomes its target).
bool mergePhaseProducts(PhaseProduct& into, const PhaseProduct& next);
// The fraction of a state's amplitudes g's kernel touches, g a diagonal matrix (on the diagonal kernel, the
// factors != 1 where its controls are set; on a dense one, all those).
double diagonalTouched(const PreparedGate& g);
// Serial (it runs on the blocks of cache-blocked runs); only on the amplitudes whose index has every bit of
// heldZero clear, as apply() with heldZero.
void applyPhaseProduct(double* amps, int numQubits, const PhaseProduct& p, uint64_t heldZero = 0);
void applyPhaseProduct(float* amps, int numQubits, const PhaseProduct& p, uint64_t heldZero = 0);
// g, a program gate, with the products before[0..beforeCount) applied first, in the same sweep: the program kernel
// multiplies each base's vectors by their factors after it loads them (a QFT's phases to the qubits of the block
// after, applied with it where they took sweeps of their own). Every product's controls must be off g's targets and
// above the vector, its targets among g's targets and the vector's lanes (at most kMaxLaneProducts products, where
// any has factors on the lanes). False, nothing done, where the program kernel does not run g (the portable build,
// a program that does not fit it) or a product is not so; as apply() with heldZero otherwise.
// The factors are worked out again for every base whose controls differ from the last one's, but for the fast
// controls, those in fastControlWindow(the vector's lanes, g's targets and the held bits): when no product has
// controls of both kinds and there are at most maxFastControls(g's targets above the vector) of them, their factors
// are worked out once for each of their values.
constexpr int kMaxLaneProducts = 16;
constexpr int kFastControlBits = 3;
constexpr int maxFastControls(int highTargets)
{
    // A table of at most 64 vectors, 2^(highTargets + 1) for each value of the fast controls.
    return std::min(kFastControlBits, 5 - highTargets);
}
// The lowest kFastControlBits bits not in `notVarying`: the bits a program's bases vary fastest.
uint64_t fastControlWindow(uint64_t notVarying);
bool applyProgram(double* amps, int numQubits, const PreparedGate& g, uint64_t heldZero, const PhaseProduct* before, int beforeCount);
bool applyProgram(float* amps, int numQubits, const PreparedGate& g, uint64_t heldZero, const PhaseProduct* before, int beforeCount);

// The builds of the kernels, narrowest first.
enum class Isa { Portable, Avx2, Avx512 };
constexpr Isa kAllIsas[] = {Isa::Portable, Isa::Avx2, Isa::Avx512};
const char* isaName(Isa isa);   // "portable", "avx2", "avx512"
bool isaSupported(Isa isa);     // whether this CPU can run the build (Portable always)
// The build apply() runs: the widest supported one, unless SPYGLASS_KERNELS names another (portable, avx2 or
// avx512; one the CPU lacks falls back to the widest it has) or SPYGLASS_NO_AVX2 is set (portable; the Spyre GEMM
// reads it too).
Isa activeIsa();
// Makes apply() run `isa` from now on (tests run every supported build in one process); false, and no change, when
// the CPU cannot run it.
bool setActiveIsa(Isa isa);
// x = x * scale + offset over count doubles (a multiple of 8), the threads in parallel, in the active build's
// widest vectors: the in-place pass kernels::measureInPlaceBandwidth times.
void sweepInPlace(double* x, int64_t count, double scale, double offset);
// Moves a copied tile's rows (StateVector::applyAll, one thread): row r of `next` (rowFloats floats each,
// strideFloats apart) into the contiguous buffer `buf`, after streaming the buffer's row r to row r of `back` where
// `back` is not null; with `next` null only the streaming back. Row r + ahead of `next` is asked for (prefetched)
// as row r comes in, where ahead > 0 (tileRowsAhead(): how far pays depends on the machine). Every pointer and row
// 64-byte aligned.
void swapTileRows(float* back, float* buf, const float* next, uint64_t rows, uint64_t rowFloats, uint64_t strideFloats, uint64_t ahead);
// Copies `runs` runs of runFloats floats (whole 64-byte lines, 64-byte aligned) in the active build's widest vectors,
// one thread: run c from run (fromBase | fromRun[c]) of `from` to run (toBase | toRun[c]) of `to` (run i of p starting
// at p + i * runFloats). A swap network's gathering of a tile and scattering of it to its images (swap_network.cpp).
void moveRuns(float* to, uint64_t toBase, const uint64_t* toRun, const float* from, uint64_t fromBase, const uint64_t* fromRun, size_t runs, uint64_t runFloats);
// Moves rows of rowFloats floats (whole 64-byte lines) of `base` along cycles, one thread: for each cycle c (its
// rows rowAt[cycleEnd[c - 1]] .. rowAt[cycleEnd[c] - 1], cycleEnd[-1] taken as 0, each an offset in floats from
// base), every row takes the next row's contents and the last row the first's. A composed permutation of a cache
// block's rows (row_permutation.h).
void cycleRows(float* base, const uint64_t* rowAt, const uint32_t* cycleEnd, size_t cycles, uint64_t rowFloats);
// The qubits inside one vector of a build's lane kernels (whose targets there are permuted within the vector):
// 512 bits hold 4 complex128 or 8 complex64 amplitudes, 256 bits half that; 0 for the portable build, which has none.
int laneBits(Isa isa, bool single);
// Whether the active build is AVX2 or wider: the real-amplitude VQE loops (real_kernels.h) have an AVX2 build only.
bool usingAvx2();

// The rules by which prepare() chooses a kernel, from counts of a k-target matrix's exact zeros and ones: a
// diagonal matrix runs on the diagonal kernel, except one qubit with both factors != 1 (rz: the dense kernel is
// faster); any other matrix of >= 2 qubits with at most half its entries non-zero runs on the sparse kernel
// where the cost table in use (kernel_costs.h) says it beats the dense one. Stated once here for prepare() and
// for the fuse pass, which weighs products it has not prepared (and whose counts it may know from their
// factors). Gives k, diagonal, sparse, entries and real; controls and lowestTarget are the caller's.
// permutation: a permutation matrix that is not the identity (its diagonalFactorsNotOne are the rows it moves).
// tensor: a tensor product of one-qubit matrices (not diagonal, not a permutation); it runs on the tensor kernel
// where the cost table says that beats the dense or sparse one.
CostShape kernelShape(int k, bool diagonalMatrix, int nonZeros, int diagonalFactorsNotOne, bool realMatrix, bool permutation = false,
                      bool tensor = false);
// What prepare() reads off a 2^k x 2^k matrix (interleaved re/im; the order of the targets changes none of it).
// onlyDiagonal: as if the entries off the diagonal were zero.
struct MatrixShape {
    CostShape kernel;             // kernelShape of the counts below, and realMatrix
    bool diagonalMatrix = false;  // no non-zero off the diagonal
    bool realMatrix = false;      // every imaginary part is zero
    bool permutation = false;     // a permutation matrix other than the identity (PreparedGate::permutation)
    bool tensor = false;          // a tensor product of one-qubit matrices, neither diagonal nor a permutation
    int nonZeros = 0;
};
MatrixShape shapeOfMatrix(const double* interleaved, int k, bool onlyDiagonal = false);
// Whether the 2^k x 2^k matrix is a tensor product of k one-qubit matrices, to 1e-13 of its largest entry in every
// entry, and which
// (factors, when not null: 8 numbers per index bit j, PreparedGate::tensorFactors' layout).
bool tensorFactorsOf(const double* interleaved, int k, double* factors);
// Puts g (a tensor product, as tensorFactorsOf finds) on the tensor kernel: its factors filled, `tensor` set and
// `sparse` cleared; prepare() does this where the cost table picks the tensor kernel. False, g unchanged, when its
// matrix is no tensor product.
bool useTensorKernel(PreparedGate& g);
// Whether a one-qubit factor (8 numbers, tensorFactors' layout) is a butterfly [[s, s], [t, -t]], s and t real and
// of the same magnitude (a Hadamard, as a factor of a fused block): the tensor kernel applies it on a target above
// the vector as x0 + x1 and x0 - x1, two additions where the general form makes four multiply-adds, and multiplies
// the scales in once for all such factors.
bool isButterflyFactor(const double* factor);

// Implementations (the three builds of kernels_impl.inc).
namespace generic {
void apply(double* amps, int numQubits, const PreparedGate& g, uint64_t heldZero = 0);
void apply(float* amps, int numQubits, const PreparedGate& g, uint64_t heldZero = 0);
void applyPhaseProduct(double* amps, int numQubits, const PhaseProduct& p, uint64_t heldZero = 0);
void applyPhaseProduct(float* amps, int numQubits, const PhaseProduct& p, uint64_t heldZero = 0);
bool applyProgram(double* amps, int numQubits, const PreparedGate& g, uint64_t heldZero, const PhaseProduct* before, int beforeCount);
bool applyProgram(float* amps, int numQubits, const PreparedGate& g, uint64_t heldZero, const PhaseProduct* before, int beforeCount);
int fillLaneTable(const PreparedGate& g, double* out);   // length in numbers; writes it when out is not null
int fillLaneTable(const PreparedGate& g, float* out);
int vectorBytes();
void sweepInPlace(double* x, int64_t count, double scale, double offset);
void swapTileRows(float* back, float* buf, const float* next, uint64_t rows, uint64_t rowFloats, uint64_t strideFloats, uint64_t ahead);
void moveRuns(float* to, uint64_t toBase, const uint64_t* toRun, const float* from, uint64_t fromBase, const uint64_t* fromRun, size_t runs, uint64_t runFloats);
void cycleRows(float* base, const uint64_t* rowAt, const uint32_t* cycleEnd, size_t cycles, uint64_t rowFloats);
}
namespace avx2 {
void apply(double* amps, int numQubits, const PreparedGate& g, uint64_t heldZero = 0);
void apply(float* amps, int numQubits, const PreparedGate& g, uint64_t heldZero = 0);
void applyPhaseProduct(double* amps, int numQubits, const PhaseProduct& p, uint64_t heldZero = 0);
void applyPhaseProduct(float* amps, int numQubits, const PhaseProduct& p, uint64_t heldZero = 0);
bool applyProgram(double* amps, int numQubits, const PreparedGate& g, uint64_t heldZero, const PhaseProduct* before, int beforeCount);
bool applyProgram(float* amps, int numQubits, const PreparedGate& g, uint64_t heldZero, const PhaseProduct* before, int beforeCount);
int fillLaneTable(const PreparedGate& g, double* out);   // length in numbers; writes it when out is not null
int fillLaneTable(const PreparedGate& g, float* out);
int vectorBytes();
void sweepInPlace(double* x, int64_t count, double scale, double offset);
void swapTileRows(float* back, float* buf, const float* next, uint64_t rows, uint64_t rowFloats, uint64_t strideFloats, uint64_t ahead);
void moveRuns(float* to, uint64_t toBase, const uint64_t* toRun, const float* from, uint64_t fromBase, const uint64_t* fromRun, size_t runs, uint64_t runFloats);
void cycleRows(float* base, const uint64_t* rowAt, const uint32_t* cycleEnd, size_t cycles, uint64_t rowFloats);
}
namespace avx512 {
void apply(double* amps, int numQubits, const PreparedGate& g, uint64_t heldZero = 0);
void apply(float* amps, int numQubits, const PreparedGate& g, uint64_t heldZero = 0);
void applyPhaseProduct(double* amps, int numQubits, const PhaseProduct& p, uint64_t heldZero = 0);
void applyPhaseProduct(float* amps, int numQubits, const PhaseProduct& p, uint64_t heldZero = 0);
bool applyProgram(double* amps, int numQubits, const PreparedGate& g, uint64_t heldZero, const PhaseProduct* before, int beforeCount);
bool applyProgram(float* amps, int numQubits, const PreparedGate& g, uint64_t heldZero, const PhaseProduct* before, int beforeCount);
int fillLaneTable(const PreparedGate& g, double* out);   // length in numbers; writes it when out is not null
int fillLaneTable(const PreparedGate& g, float* out);
int vectorBytes();
void sweepInPlace(double* x, int64_t count, double scale, double offset);
void swapTileRows(float* back, float* buf, const float* next, uint64_t rows, uint64_t rowFloats, uint64_t strideFloats, uint64_t ahead);
void moveRuns(float* to, uint64_t toBase, const uint64_t* toRun, const float* from, uint64_t fromBase, const uint64_t* fromRun, size_t runs, uint64_t runFloats);
void cycleRows(float* base, const uint64_t* rowAt, const uint32_t* cycleEnd, size_t cycles, uint64_t rowFloats);
}

}  // namespace spyglass::quantum::kernels
