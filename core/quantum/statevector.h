#pragma once
// The state vector: 2^n amplitudes in complex128 or complex64, allocated only after checking that the
// machine has the memory (a clear error instead of an OOM kill).

#include "core/common/job_control.h"
#include "core/quantum/circuit.h"
#include "core/quantum/kernels.h"
#include "core/quantum/pauli.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <vector>

namespace spyglass::quantum {

enum class Precision { Double, Single };

// Bytes for `copies` state vectors of n qubits; throws InputError when they do not fit in available memory.
void checkMemory(int numQubits, Precision p, int copies = 1);

// g on the part of a state in which the qubits of `fixedMask` hold the bits of `values` (a cache block's fixed
// qubits, or an MPI rank's global ones): controls there are dropped, or the gate is (nullopt: it does nothing
// there), diagonal factors there are folded in, and the other qubits are renumbered by `renumber`. g's
// non-diagonal targets must not be fixed.
std::optional<kernels::PreparedGate> restrictGate(const kernels::PreparedGate& g, uint64_t fixedMask, uint64_t values,
                                                  const std::function<int(int)>& renumber);

class StateVector {
public:
    StateVector(int numQubits, Precision p);
    ~StateVector();
    StateVector(const StateVector&) = delete;
    StateVector& operator=(const StateVector&) = delete;

    int numQubits() const { return n_; }
    Precision precision() const { return prec_; }
    uint64_t size() const { return uint64_t(1) << n_; }

    void setZero();                                   // |0...0>
    void copyFrom(const StateVector& other);
    void setAmplitudes(const std::vector<cplx>& amps);
    std::vector<cplx> amplitudes() const;
    cplx amplitude(uint64_t i) const;

    void apply(const kernels::PreparedGate& g);
    // Applies a gate list in cache-blocked runs: chunk by chunk (2^15 or 2^16 contiguous amplitudes) or tile by tile
    // (the lowest few and the high qubits), each run one memory pass. Diagonal gates on any qubits and controls
    // on any qubits fit a run; SWAP gates that fit neither go in one pass together (a swap network); gates move
    // only past gates they commute with (statevector.cpp). `job` is
    // checked and told the progress between runs. The gates' lane tables are laid out in them as the runs need
    // them (PreparedGate's mutable tables), so one list is not applied from two threads at once.
    // Returns how many passes over the state it made, of each kind.
    struct Passes {
        int chunkRuns = 0, tileRuns = 0, singleGates = 0, swapNetworks = 0;
        // Permutation gates of the runs moved as one composed permutation with their neighbours (no passes of
        // their own; applyAll only, countPasses leaves it 0).
        int composedGates = 0;
        int total() const { return chunkRuns + tileRuns + singleGates + swapNetworks; }
    };
    Passes applyAll(const std::vector<kernels::PreparedGate>& gates, JobControl* job = nullptr);
    // The passes applyAll would make for `gates` on an n-qubit state, without one.
    static Passes countPasses(int numQubits, Precision p, const std::vector<kernels::PreparedGate>& gates);
    // All the plan of applyAll reads of a gate: its qubits, whether its matrix is diagonal and its cost (so the fuse
    // pass can plan a gate list it has not prepared).
    struct Footprint {
        uint64_t targets = 0, controls = 0;   // qubit masks
        bool diagonalMatrix = false;          // kernels::PreparedGate::diagonalMatrix
        bool swap = false;                    // a SWAP gate without controls (it may join a swap network)
        double cost = 0;                      // kernels::relativeCost of the gate; 0: not known (see planRuns)
    };
    static Footprint footprint(const kernels::PreparedGate& g);
    static Passes countPasses(int numQubits, Precision p, const std::vector<Footprint>& gates);
    // What applyAll would spend on `gates` per amplitude, in kernels::relativeCost's units, from their costs: each
    // run a pass (kernels::passCost) and its gates' costs, each gate alone its cost and a pass, or, where it goes
    // alone from a tile run (planRuns), the larger of its cost and its sweep.
    static double plannedCost(int numQubits, Precision p, const std::vector<Footprint>& gates);
    // Whether a non-diagonal gate on `qubits` of an n-qubit state can join applyAll's chunk or tile runs (a gate
    // that cannot costs a pass over the state of its own): the fuse pass keeps its blocks within this.
    static bool fitsCacheBlocks(int numQubits, const std::vector<int>& qubits);
    // applyAll's blocks on an n-qubit state (n > 14): chunks of 2^chunkQubits contiguous amplitudes, tiles of
    // 2^tileLowQubits contiguous amplitudes in each of 2^(n - chunkQubits) rows, whose gates run on the state in
    // place (tilesInPlace: few rows) or on a copy of the tile.
    struct Blocks {
        int chunkQubits = 0, tileLowQubits = 0;
        bool tilesInPlace = false;
    };
    static Blocks blocks(int numQubits, Precision p);
    // A run of copied tiles without gates: every tile copied into its thread's buffer and back, the next tile's rows
    // asked for `rowsAhead` ahead (kernels::swapTileRows). What the calibration times (measureTileRowsAhead).
    // Nothing is done where the tiles are not copied (blocks().tilesInPlace, or a state too small to be blocked).
    void copyTiles(uint64_t rowsAhead);
    double probabilityOfOne(int qubit) const;
    // Projects `qubit` onto `outcome` and renormalises (prob = probability of that outcome).
    void collapse(int qubit, int outcome, double prob);
    // A reset that measured `outcome` (with probability prob): the collapse, then `qubit` back to |0> (one pass).
    void resetAfter(int qubit, int outcome, double prob);
    // Measuring several qubits at once (one pass each, where each qubit alone takes two): the probability of each
    // of their 2^k outcomes (bit j = qubits[j]), then the projection onto the outcome `target ^ flip` drawn (of
    // probability prob), renormalised, with the qubits of `flip` put back to 0 (resets).
    std::vector<double> outcomeProbabilities(const std::vector<int>& qubits) const;
    void projectOntoOutcome(const std::vector<int>& qubits, uint64_t target, uint64_t flip, double prob);
    double norm2() const;
    double expectation(const PauliSum& h) const;
    // Draws `shots` basis-state indices from |amplitude|^2 (one pass over the state).
    std::vector<uint64_t> sample(int shots, std::mt19937_64& rng) const;

    double* dataDouble() { return static_cast<double*>(data_); }
    float* dataFloat() { return static_cast<float*>(data_); }

private:
    int n_;
    Precision prec_;
    void* data_ = nullptr;
    size_t bytes_ = 0;
    void* mapBase_ = nullptr;   // set when the state is an mmap of mapBytes_ (large states)
    size_t mapBytes_ = 0;
};

}  // namespace spyglass::quantum
