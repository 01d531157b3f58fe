#pragma once
// What the fuse pass weighs: the time one kernel application takes per amplitude (relativeCost), and one pass over
// a state larger than the cache (passCost), in single-thread ns per complex128 amplitude. Their constants are one
// table per kernel build (Isa): built in (fitted on one machine), or measured on this machine by
// `spyglass-cli qcalibrate` and kept in a file, the way FFTW keeps its wisdom: measured once, read by every run,
// so the fused circuit is this machine's best and stays the same from run to run.
//
// The file (calibrationPath()) is read once, at the first relativeCost; a table is used only for the CPU and the
// kernel build it was measured on. SPYGLASS_KERNEL_COSTS names the file; "builtin" there means the built-in
// tables whatever the file says (the tests set it, so their fusions do not depend on a developer's machine).

#include <string>
#include <vector>

namespace spyglass::quantum::kernels {

enum class Isa;
struct PreparedGate;

// What relativeCost reads of a prepared gate, so the fuse pass can weigh a candidate block from its matrix
// without preparing it: shapeOf(g) gives relativeCost(g) == relativeCost(shapeOf(g)).
struct CostShape {
    int k = 0;               // target qubits
    int controls = 0;        // control qubits
    int lowestTarget = 0;    // targets[0]
    unsigned lowTargets = 0; // which of qubits 0-7 are targets (the vector lanes of every build lie among them)
    bool diagonal = false;   // runs on the diagonal kernel (PreparedGate::diagonal)
    bool sparse = false;     // PreparedGate::sparse
    int entries = 0;         // diagonal: factors != 1 (diagIndex); sparse: non-zeros (sparseCol)
    bool real = false;       // PreparedGate::realMatrix: the dense kernels make one FMA a product
    bool permutation = false;   // PreparedGate::permutation; entries: the rows it moves
    bool tensor = false;        // PreparedGate::tensor: k one-qubit factors (real: every one real)
    bool program = false;       // PreparedGate::program: its steps counted by kind ...
    int programReal = 0, programRxLike = 0, programComplex = 0;   // one-qubit steps by ProgramStepKind ...
    int programDiagonal = 0;    // ... and diagonal ones
    int programInLanes = 0;     // ... and its one-qubit steps on a target inside the lanes of a complex128 vector
};

// The constants of relativeCost and passCost for one kernel build. Index k of the arrays: k target qubits.
struct CostTable {
    double dense[7] = {};       // a dense block, complex matrix
    double denseReal[7] = {};   // a dense block, real matrix
    double controlled = 0;      // a one-qubit dense gate with controls, as a multiple of dense[1]
    double diagonalBase = 0;    // a diagonal block: diagonalBase + diagonalSlope x (factors != 1) / 2^k ...
    double diagonalSlope = 0;   // ... of the amplitudes its controls select
    double sparseBase = 0;      // a sparse block, per non-zero of a row: sparseBase + sparseSlope x k ...
    double sparseSlope = 0;
    double sparseFloor = 0;     // ... and never below this
    double permutation = 0;     // a permutation block (amplitudes only move), per amplitude it moves
    double tensor[3] = {};      // a tensor product of one-qubit gates: tensor[0] + k x tensor[1] (complex factors)
                                // or tensor[2] (real ones), above the vector lanes ...
    double tensorInLanes[2] = {};   // ... and what a complex / a real factor on a target inside them adds
    double program[5] = {};     // a program gate above the lanes: program[0] + per step program[1] (a real
                                // one-qubit matrix), program[2] (any other) or program[3] (a diagonal); a one-qubit
                                // step inside the lanes adds program[4]
    double programRxLike = 0;   // a one-qubit step of a real diagonal and an imaginary off it (rx), which the kernel
                                // runs nearly as cheaply as a real one (kernel_program.cpp, pairOps)
    double passCost = 0;        // one pass over a state too large for the cache (StateVector::countPasses)
    double tileRowsAhead = 0;   // not a cost: how many rows ahead a copied tile's next rows are asked for
                                // (kernels::swapTileRows), 0 none; the fastest on this machine (qcalibrate)
};

// The fields of a table, each a run of `count` numbers: what the calibration file, `qcalibrate`'s text and its
// JSON name and print, in this order.
struct CostField {
    const char* key;     // in the file and the JSON
    const char* label;   // in `qcalibrate`'s text
    int count;
    double* (*at)(CostTable&);
    const double* values(const CostTable& t) const { return at(const_cast<CostTable&>(t)); }
};
const std::vector<CostField>& costFields();

// The tables fitted on the 2-vCPU Xeon of BENCHMARKS.md (2026-12-04), used where no calibration applies.
const CostTable& builtinCostTable();

// What a calibration file holds: a table per kernel build, each with the CPU it was measured on.
struct Calibration {
    struct Entry {
        Isa isa;
        std::string cpu;       // cpuIdentity() of the machine it was measured on
        int threads = 0;       // OpenMP threads of the pass-cost measurement
        std::string measured;  // when, UTC
        CostTable table;
    };
    std::vector<Entry> entries;
};
// "model name (family F, model M, stepping S)" of /proc/cpuinfo: a calibration holds for this CPU only.
std::string cpuIdentity();
// SPYGLASS_KERNEL_COSTS (but "builtin"), else $XDG_CACHE_HOME/spyglass/kernel-costs.txt, else ~/.cache/spyglass/kernel-costs.txt.
std::string calibrationPath();
// Reads a calibration file. Returns false with `error` as "file:line: what" when it cannot be read or parsed.
bool readCalibration(const std::string& path, Calibration& out, std::string& error);
// Writes it (the folder is made when missing); false with `error` when the file cannot be written.
bool writeCalibration(const std::string& path, const Calibration& c, std::string& error);

// The table relativeCost and passCost read for the active kernel build: the calibration file's when it has one
// for this CPU and build, else the built-in one.
const CostTable& activeCostTable();
// Where activeCostTable() came from for the active build: "built in" or "PATH (measured DATE)"; what the fuse
// pass's summary and `qcalibrate --show` print.
std::string activeCostSource();
// Uses `c` from now on in place of the file (tests; qcalibrate after it measured), `source` naming it for
// activeCostSource(); an empty one means the built-in tables.
void useCalibration(const Calibration& c, const std::string& source);

// The time one application of a gate takes per amplitude of a cache-resident state, relative units (single-thread
// ns on the machine the table was measured on).
double relativeCost(const CostShape& s);
double relativeCost(const PreparedGate& g);
CostShape shapeOf(const PreparedGate& g);
// Sets s.lowestTarget and s.lowTargets from the n targets.
void placeTargets(CostShape& s, const int* targets, int n);
// How many of s's targets lie inside a complex128 vector of the active build's lane kernels.
int targetsInLanes(const CostShape& s);
// One pass over the state, in relativeCost's units per amplitude.
double passCost();
// CostTable::tileRowsAhead of the active table.
int tileRowsAhead();

}  // namespace spyglass::quantum::kernels
