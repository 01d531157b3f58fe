#pragma once
// Measuring the kernel cost table (kernel_costs.h) on this machine: every kernel shape the fuse pass weighs, timed
// on a cache-resident state with one thread, and one pass over a state larger than the cache from the in-place
// memory bandwidth at the OpenMP thread count. `spyglass-cli qcalibrate` writes the result for every run to read;
// `quantum_bench --kernel-costs` prints the timings beside the estimates.

#include "core/quantum/kernel_costs.h"
#include "core/quantum/kernels.h"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace spyglass::quantum::kernels {

// One kernel shape to time: its matrix is a random unitary of the kind (dense: complex; real: orthogonal; sparse:
// a phase on the top target times a unitary on the others, half the entries zero, as rz x rx; diagonal: unit
// phases, one in four equal to 1, or all but the last; permutation: one cycle through every row; tensor: a tensor
// product of random one-qubit unitaries, complex or real).
struct KernelProbe {
    std::string name;
    enum Kind { Dense, Real, Sparse, Diagonal, Permutation, Tensor, TensorReal, Program } kind = Dense;
    std::vector<int> controls, targets;
    bool aboveLanes = false;   // every target above the vector lanes of every build and precision
    bool onlyLastFactor = false;   // diagonal: only the last factor != 1 (a controlled phase), not three in four
    // program: `layers` layers of a one-qubit step on every target (of kind `steps`: Real an orthogonal matrix,
    // ImagOff an rx rotation, Complex a unitary), a diagonal of unit phases on all of them between each two (and
    // after the last with trailingDiagonal)
    int layers = 0;
    ProgramStepKind steps = ProgramStepKind::Complex;
    bool trailingDiagonal = false;
};

struct KernelTiming {
    KernelProbe probe;
    PreparedGate gate;       // as prepare() makes it (relativeCost reads its shape)
    double complex128Ns = 0; // ns per amplitude, one thread, best of TimingEffort::samples (timeKernels: on each CPU)
    double complex64Ns = 0;  // the same in complex64; 0 when not asked for
};

// The shapes the fit reads: dense blocks of 1-4 targets from qubit 0 and above the lanes (complex and real),
// dense 5 and 6, a one-qubit gate with a control, sparse 2- and 3-qubit blocks, diagonals on 1-3 qubits (one of
// them with a target inside the vector lanes, which the fit leaves out).
std::vector<KernelProbe> kernelProbes();
// How long each probe is timed: the best of `samples` samples of about `sampleSeconds` each (the least disturbed
// by other processes), taken in rounds of one sample of every probe. The default is what qcalibrate measures with;
// quick() is a rough table in about a second, for smoke checks and for builds (sanitizers) that run the kernels
// ten times slower.
struct TimingEffort {
    int samples = 7;
    double sampleSeconds = 2e-3;
    static TimingEffort quick() { return {2, 2e-4}; }
};

// Times every probe (kernelProbes(), or the caller's) on a 2^qubits state with the active kernel build, one thread
// held on each CPU it may run on in turn (up to 4; the caller's OpenMP setting and CPU affinity are restored): a
// probe's time is the harmonic mean of its CPUs'. `progress` is called for each probe, in order, once all are timed.
std::vector<KernelTiming> timeKernels(int qubits, bool alsoComplex64, const std::function<void(const KernelTiming&)>& progress = {},
                                      TimingEffort effort = {}, const std::vector<KernelProbe>& probes = kernelProbes());

// Best of three in-place read-modify-write passes over `bytes` at the OpenMP thread count, GB/s (read + write).
double measureInPlaceBandwidth(size_t bytes);
// One pass over a complex128 state larger than the cache, in relativeCost's units per amplitude: a pass reads
// and writes 32 bytes an amplitude, twice (into a tile's buffer and back), on `threads` threads sharing `gbs`.
double passCostFromBandwidth(double gbs, int threads);

// How many rows ahead a copied tile's next rows are best asked for (CostTable::tileRowsAhead) on this machine: 0,
// 4, 8 or 16, whichever copies the tiles of a 2^numQubits complex64 state in and out fastest at the OpenMP thread
// count (StateVector::copyTiles, best of 3 interleaved rounds). 0 where such a state's tiles are not copied or
// cannot be allocated.
int measureTileRowsAhead(int numQubits);

// The table of one kernel build from its timings (kernelProbes' order or any other) and a pass cost.
CostTable fitCostTable(const std::vector<KernelTiming>& timings, double passCost);

// The whole calibration: every kernel build this CPU runs, timed on 2^qubits states, and the pass cost from the
// in-place bandwidth over 2^stateQubits complex128 amplitudes. The active build is restored. `say` gets a line of
// progress at a time.
Calibration measureCalibration(int qubits, int stateQubits, const std::function<void(const std::string&)>& say = {},
                               TimingEffort effort = {});

}  // namespace spyglass::quantum::kernels
