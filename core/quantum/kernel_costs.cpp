#include "core/quantum/kernel_costs.h"

#include "core/quantum/kernels.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <unistd.h>

namespace spyglass::quantum::kernels {

const CostTable& builtinCostTable()
{
    // Fitted to `quantum_bench --kernel-costs` (one thread, a 2^13-amplitude state, random unitaries, best of 7;
    // AVX-512 build, complex128) on the 2-vCPU Xeon (Emerald Rapids, 2.3 GHz) of BENCHMARKS.md, 2026-12-04:
    // dense blocks of k = 1..6 targets 0.40-0.54 / 0.85-0.87 / 1.32-1.46 / 2.16-3.50 / 7.9 / 31.6 ns per
    // amplitude (the first value with the targets from qubit 0, the second above the vector lanes), real
    // matrices at k = 2, 3 0.36 / 0.50-0.76 (no real form at k = 1, 4), a one-qubit gate with a control 0.52,
    // sparse blocks of 2 non-zeros a row on 2 qubits 0.76 and of 4 on 3 qubits 1.90, diagonals of 1 / 3 factors
    // != 1 on 1 / 2 qubits 0.29 / 0.35. The pass: an in-place read-modify-write of 32 bytes at the 88-107 GB/s
    // measured for two threads on the EPYC of the earlier tables (0.6 thread-ns), twice for a tile's copy into
    // and out of its buffer.
    static const CostTable table = [] {
        CostTable t;
        const double dense[7] = {0, 0.47, 0.86, 1.39, 2.8, 7.9, 31.6};
        const double real[7] = {0, 0.47, 0.36, 0.63, 2.8, 7.9, 31.6};
        std::copy(dense, dense + 7, t.dense);
        std::copy(real, real + 7, t.denseReal);
        t.controlled = 1.1;
        t.diagonalBase = 0.08;
        t.diagonalSlope = 0.5;
        t.sparseBase = 0.19;   // per non-zero of a row: 0.38 at k = 2, 0.475 at k = 3 (more rows in flight per base)
        t.sparseSlope = 0.095;
        t.sparseFloor = 0.2;
        // Not measured on the Xeon: its dense 1q cost times the ratio measured on the EPYC of BENCHMARKS.md
        // (permutations 0.13-0.39 ns per amplitude moved, 0.25 on average, against 0.36 for dense 1q; 2026-12-05).
        t.permutation = 0.33;
        // The same for tensor products of one-qubit gates: on the EPYC a sweep 0.23-0.28 ns per amplitude, and per
        // factor 0.13-0.14 complex, 0.03-0.04 real, against 0.27-0.33 for dense 1q (3 runs of qcalibrate, 2026-12-05).
        t.tensor[0] = 0.41;
        t.tensor[1] = 0.22;
        t.tensor[2] = 0.055;
        // Not measured on the EPYC: nothing added inside the lanes (the fit above is over both placements).
        t.tensorInLanes[0] = t.tensorInLanes[1] = 0;
        // Program gates: the mean of four runs of qcalibrate's program probes on the Xeon (AVX-512, 2026-12-05
        // 19:34-19:53 UTC; the sweep's fit varied most, 0.10-0.31): a sweep 0.2, per real one-qubit step 0.093, per
        // other 0.286, per diagonal 0.145, and 0.067 more per one-qubit step inside the lanes (two runs). Two of those
        // runs timed the dense 2-4 qubit blocks 1.26-1.62x faster than the dense costs above (0.53-0.57 / 1.00-1.10 /
        // 1.84-2.04 against 0.86 / 1.39 / 2.8), so the program costs are scaled by their mean ratio, 1.45, to weigh
        // against those as they were measured together.
        // Complex steps since their four products are one chain of FMAs (no add): four runs on the same Xeon
        // (2026-12-06 02:45-02:50 UTC) 0.214-0.259, mean 0.243, x 1.45.
        t.program[0] = 0.29;
        t.program[1] = 0.135;
        t.program[2] = 0.35;
        t.program[3] = 0.21;
        t.program[4] = 0.097;
        // rx-like steps: qcalibrate's seventh program probe, seven runs on the same Xeon (2026-12-06 00:55-00:58
        // UTC), measured 0.041-0.104 more than a real step (median 0.045; complex steps 0.18-0.21 more), scaled as
        // above: 0.135 + 1.45 x 0.045.
        t.programRxLike = 0.2;
        t.passCost = 1.2;
        // tileRowsAhead stays 0: on that Xeon the tiles' rows copied slower when asked for ahead (kernels_impl.inc).
        return t;
    }();
    return table;
}

namespace {

// The whole file, with stdio: a process's first std::ifstream took 0.35-0.46 ms here (and its first
// istringstream 0.1 ms), which every simulation paid in its fuse pass when the cost table was first read. With
// `until`, the reading stops once the text holds it (/proc/cpuinfo's first blank line: the file is made as it is
// read, a block per CPU).
bool readWholeFile(const std::string& path, std::string& out, const char* until = nullptr)
{
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f)
        return false;
    out.clear();
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) {
        out.append(buffer, n);
        if (until && out.find(until) != std::string::npos)
            break;
    }
    const bool ok = !std::ferror(f);
    std::fclose(f);
    return ok;
}

// Calls line(text) for each line of `text` (without its end), until line returns false.
template <class Line>
void forEachLine(const std::string& text, const Line& line)
{
    for (size_t start = 0; start < text.size();) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        if (!line(text.substr(start, end - start)))
            return;
        start = end + 1;
    }
}

}  // namespace

std::string cpuIdentity()
{
    std::string text;
    std::map<std::string, std::string> field;
    if (readWholeFile("/proc/cpuinfo", text, "\n\n"))
        forEachLine(text, [&](const std::string& line) {   // the first processor's block
            if (line.empty())
                return false;
            const auto colon = line.find(':');
            if (colon == std::string::npos)
                return true;
            std::string key = line.substr(0, colon);
            key.erase(key.find_last_not_of(" \t") + 1);
            const auto start = line.find_first_not_of(" \t", colon + 1);
            field[key] = start == std::string::npos ? "" : line.substr(start);
            return true;
        });
    if (field.count("model name") == 0)
        return "unknown CPU";
    return field["model name"] + " (family " + field["cpu family"] + ", model " + field["model"] + ", stepping " + field["stepping"] + ")";
}

std::string calibrationPath()
{
    if (const char* e = std::getenv("SPYGLASS_KERNEL_COSTS"); e && *e && std::string(e) != "builtin")
        return e;
    if (const char* e = std::getenv("XDG_CACHE_HOME"); e && *e)
        return std::string(e) + "/spyglass/kernel-costs.txt";
    if (const char* e = std::getenv("HOME"); e && *e)
        return std::string(e) + "/.cache/spyglass/kernel-costs.txt";
    return {};
}

namespace {

}  // namespace

const std::vector<CostField>& costFields()
{
    static const std::vector<CostField> fields = {
        {"dense", "dense 1..6 qubits", 6, [](CostTable& t) { return t.dense + 1; }},
        {"dense_real", "dense real 1..6", 6, [](CostTable& t) { return t.denseReal + 1; }},
        {"controlled", "controlled 1q (x)", 1, [](CostTable& t) { return &t.controlled; }},
        {"diagonal", "diagonal base, slope", 2, [](CostTable& t) { return &t.diagonalBase; }},   // adjacent members
        {"sparse", "sparse base, slope, floor", 3, [](CostTable& t) { return &t.sparseBase; }},
        {"permutation", "permutation (per move)", 1, [](CostTable& t) { return &t.permutation; }},
        {"tensor", "tensor base, complex, real factor", 3, [](CostTable& t) { return t.tensor; }},
        {"tensor_lanes", "tensor factor in the lanes, +", 2, [](CostTable& t) { return t.tensorInLanes; }},
        {"program", "program base, real, other, diagonal step, + in lanes", 5, [](CostTable& t) { return t.program; }},
        {"program_rx", "program rx-like step", 1, [](CostTable& t) { return &t.programRxLike; }},
        {"pass", "pass", 1, [](CostTable& t) { return &t.passCost; }},
        {"tile_ahead", "tile rows read ahead", 1, [](CostTable& t) { return &t.tileRowsAhead; }},
    };
    return fields;
}

namespace {

std::string trimmed(const std::string& s)
{
    const auto a = s.find_first_not_of(" \t\r");
    if (a == std::string::npos)
        return {};
    return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

// What activeCostTable() reads: a table and its source per kernel build.
struct Resolved {
    const CostTable* table[3] = {};
    std::string source[3];
    Calibration calibration;   // owns the tables it points into
};

Resolved* resolve(Calibration c, const std::string& source)
{
    // Every Resolved made stays reachable until exit: a run that reads a table while a test swaps it in keeps a
    // valid one, and nothing leaks.
    static std::deque<Resolved> made;
    static std::mutex m;
    std::lock_guard<std::mutex> lock(m);
    Resolved& r = made.emplace_back();
    r.calibration = std::move(c);
    const std::string cpu = cpuIdentity();
    for (int i = 0; i < 3; ++i) {
        r.table[i] = &builtinCostTable();
        r.source[i] = "built in";
        for (const Calibration::Entry& e : r.calibration.entries)
            if (e.isa == kAllIsas[i] && e.cpu == cpu) {
                r.table[i] = &e.table;
                r.source[i] = source + " (measured " + e.measured + ")";
            }
    }
    return &r;
}

std::atomic<Resolved*>& current()
{
    static std::atomic<Resolved*> slot{[] {
        const char* env = std::getenv("SPYGLASS_KERNEL_COSTS");
        const std::string path = calibrationPath();
        Calibration c;
        std::string error;
        if (env && std::string(env) == "builtin")
            return resolve({}, {});
        // access(), not std::filesystem::exists: this runs inside every simulation's fuse pass, and the first
        // std::filesystem call of a process took 0.12 ms here (BENCHMARKS.md run 39).
        if (path.empty() || ::access(path.c_str(), F_OK) != 0) {
            if (env && *env)   // named but missing: say so; the default file is simply not made yet
                std::fprintf(stderr, "spyglass: SPYGLASS_KERNEL_COSTS=%s: no such file; using the built-in kernel costs\n", env);
            return resolve({}, {});
        }
        if (!readCalibration(path, c, error)) {
            std::fprintf(stderr, "spyglass: %s; using the built-in kernel costs (spyglass-cli qcalibrate measures them anew)\n", error.c_str());
            return resolve({}, {});
        }
        Resolved* r = resolve(std::move(c), path);
        if (r->table[int(activeIsa())] == &builtinCostTable())
            std::fprintf(stderr, "spyglass: %s has no kernel costs for this CPU (%s) and the %s kernels; using the built-in ones "
                                 "(spyglass-cli qcalibrate measures them)\n",
                         path.c_str(), cpuIdentity().c_str(), isaName(activeIsa()));
        return r;
    }()};
    return slot;
}

}  // namespace

bool readCalibration(const std::string& path, Calibration& out, std::string& error)
{
    std::string text;
    if (!readWholeFile(path, text)) {
        error = path + ": cannot read the file";
        return false;
    }
    out.entries.clear();
    Calibration::Entry* entry = nullptr;
    std::map<std::string, bool> seen;
    auto complete = [&](int line) {
        if (!entry)
            return true;
        for (const char* key : {"cpu", "threads", "measured"})
            if (!seen[key]) {
                error = path + ":" + std::to_string(line) + ": section [" + isaName(entry->isa) + "] has no " + key;
                return false;
            }
        for (const CostField& f : costFields()) {
            if (seen[f.key])
                continue;
            // A file written before permutations had a kernel of their own: the built-in cost relative to a
            // one-qubit dense gate, scaled by this table's (qcalibrate measures it).
            // The same for tensor products of one-qubit gates.
            if (entry->table.dense[1] > 0 && (std::string(f.key) == "permutation" || std::string(f.key) == "tensor")) {
                const CostTable& builtin = builtinCostTable();
                const double scale = entry->table.dense[1] / builtin.dense[1];
                CostTable& t = entry->table;
                for (int i = 0; i < f.count; ++i)
                    f.at(t)[i] = f.values(builtin)[i] * scale;
                continue;
            }
            // A file written before program gates: the built-in costs, scaled as above where the file says how.
            if (std::string(f.key) == "program") {
                const double scale = entry->table.dense[1] > 0 ? entry->table.dense[1] / builtinCostTable().dense[1] : 1;
                for (int i = 0; i < f.count; ++i)
                    f.at(entry->table)[i] = f.values(builtinCostTable())[i] * scale;
                continue;
            }
            // A file written before rx-like steps were priced apart: a third of the way from a real step to a
            // complex one, as their vector operations a pair of outputs are (4, 6 and 10; kernel_program.cpp).
            if (std::string(f.key) == "program_rx") {
                const CostTable& t = entry->table;
                entry->table.programRxLike = t.program[1] + (t.program[2] - t.program[1]) / 3;
                continue;
            }
            // A file written before factors inside the lanes were priced apart: nothing added for them, as then.
            // One written before the tiles' rows were read ahead: none, as then.
            if (std::string(f.key) == "tensor_lanes" || std::string(f.key) == "tile_ahead")
                continue;
            error = path + ":" + std::to_string(line) + ": section [" + isaName(entry->isa) + "] has no " + f.key;
            return false;
        }
        return true;
    };
    int lineNo = 0;
    bool ok = true;
    // The file's lines; false (and `error` set) where one is wrong.
    auto readLine = [&](const std::string& raw) {
        const std::string line = trimmed(raw.substr(0, raw.find('#')));
        if (line.empty())
            return true;
        auto fail = [&](const std::string& what) {
            error = path + ":" + std::to_string(lineNo) + ": " + what;
            return false;
        };
        if (line.front() == '[') {
            if (!complete(lineNo))
                return false;
            const std::string name = trimmed(line.substr(1, line.find(']') - 1));
            const Isa* isa = std::find_if(std::begin(kAllIsas), std::end(kAllIsas), [&](Isa i) { return name == isaName(i); });
            if (line.back() != ']' || isa == std::end(kAllIsas))
                return fail("expected a section [portable], [avx2] or [avx512], found '" + line + "'");
            entry = &out.entries.emplace_back();
            entry->isa = *isa;
            seen.clear();
            return true;
        }
        const auto eq = line.find('=');
        if (eq == std::string::npos)
            return fail("expected 'key = value', found '" + line + "'");
        if (!entry)
            return fail("a value before the first section ([avx512], ...)");
        const std::string key = trimmed(line.substr(0, eq)), value = trimmed(line.substr(eq + 1));
        if (seen[key])
            return fail("'" + key + "' given twice in one section");
        seen[key] = true;
        if (key == "cpu") {
            entry->cpu = value;
            return true;
        }
        if (key == "measured") {
            entry->measured = value;
            return true;
        }
        if (key == "threads") {
            char* end = nullptr;
            const long n = std::strtol(value.c_str(), &end, 10);
            if (value.empty() || *end || n < 1 || n > 4096)
                return fail("threads: expected a count, found '" + value + "'");
            entry->threads = int(n);
            return true;
        }
        const auto f = std::find_if(costFields().begin(), costFields().end(), [&](const CostField& x) { return key == x.key; });
        if (f == costFields().end())
            return fail("unknown key '" + key + "'");
        double* at = f->at(entry->table);
        const char *p = value.data(), *end = value.data() + value.size();
        const auto skipSpace = [&] {
            while (p < end && (*p == ' ' || *p == '\t'))
                ++p;
        };
        for (int i = 0; i < f->count; ++i) {
            double x = 0;
            skipSpace();
            if (p < end && *p == '+')   // as the stream extraction it replaces read it
                ++p;
            // Locale-independent, as the file is written. Every cost is a time: finite and not negative (the slopes
            // may be 0; a time of 0 would make a kernel free).
            const std::from_chars_result r = std::from_chars(p, end, x);
            if (r.ec != std::errc() || (r.ptr < end && *r.ptr != ' ' && *r.ptr != '\t') || !std::isfinite(x) || x < 0)
                return fail(key + ": expected " + std::to_string(f->count) + " non-negative numbers, found '" + value + "'");
            p = r.ptr;
            at[i] = x;
        }
        skipSpace();
        if (p < end)
            return fail(key + ": expected " + std::to_string(f->count) + " numbers, found more: '" + value + "'");
        return true;
    };
    forEachLine(text, [&](const std::string& raw) {
        ++lineNo;
        ok = readLine(raw);
        return ok;
    });
    if (!ok)
        return false;
    if (!complete(lineNo))
        return false;
    for (const Calibration::Entry& e : out.entries)
        if (*std::min_element(e.table.dense + 1, e.table.dense + 7) <= 0 || *std::min_element(e.table.denseReal + 1, e.table.denseReal + 7) <= 0 ||
            e.table.passCost <= 0 || e.table.permutation <= 0 || e.table.tensor[1] <= 0 || e.table.tensor[2] <= 0) {
            error = path + ": section [" + isaName(e.isa) + "]: a dense kernel, a permutation, a tensor factor or the pass costs 0";
            return false;
        }
    return true;
}

bool writeCalibration(const std::string& path, const Calibration& c, std::string& error)
{
    std::error_code ec;
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (!parent.empty())
        std::filesystem::create_directories(parent, ec);
    std::ofstream out(path, std::ios::trunc);
    if (!out) {
        error = path + ": cannot write the file";
        return false;
    }
    out << "# Spyglass kernel costs, written by `spyglass-cli qcalibrate`: what the quantum fuse pass weighs on this\n"
           "# machine, per kernel build. Single-thread ns per complex128 amplitude of a cache-resident state:\n"
           "#   dense, dense_real  a dense block of 1..6 target qubits, complex / real matrix\n"
           "#   controlled         a one-qubit gate with controls, as a multiple of dense 1\n"
           "#   diagonal           base + slope x (factors != 1) / 2^k\n"
           "#   sparse             (base + slope x k) per non-zero of a row, and a floor\n"
           "#   permutation        a block that only moves amplitudes (CNOT chains), per amplitude moved\n"
           "#   tensor             a tensor product of one-qubit gates: base + k x (complex or real factor)\n"
           "#   tensor_lanes       what a factor of such a product adds on a target inside the vector lanes\n"
           "#   program            a sequence of one-qubit matrices and diagonals in one sweep: base + per step (a real\n"
           "#                      one-qubit matrix, any other one, a diagonal), and what a one-qubit step adds inside the lanes\n"
           "#   program_rx         what a one-qubit step of a real diagonal and an imaginary off it (rx) costs a program\n"
           "#   pass               one pass over a state larger than the cache (threads x 2 x 32 B / in-place bandwidth)\n"
           "#   tile_ahead         not a cost: how many rows ahead a copied tile's next rows are read (0: none), the\n"
           "#                      fastest on this machine\n"
           "# A section is used only on the CPU it names; `spyglass-cli qcalibrate` measures it anew.\n";
    char number[32];
    for (const Calibration::Entry& e : c.entries) {
        out << "\n[" << isaName(e.isa) << "]\ncpu = " << e.cpu << "\nthreads = " << e.threads << "\nmeasured = " << e.measured << "\n";
        for (const CostField& f : costFields()) {
            out << f.key << " =";
            for (int i = 0; i < f.count; ++i) {
                std::snprintf(number, sizeof number, " %.6g", f.values(e.table)[i]);
                out << number;
            }
            out << "\n";
        }
    }
    out.close();
    if (!out) {
        error = path + ": error writing the file";
        return false;
    }
    return true;
}

const CostTable& activeCostTable() { return *current().load(std::memory_order_acquire)->table[int(activeIsa())]; }

std::string activeCostSource() { return current().load(std::memory_order_acquire)->source[int(activeIsa())]; }

void useCalibration(const Calibration& c, const std::string& source) { current().store(resolve(c, source), std::memory_order_release); }

CostShape shapeOf(const PreparedGate& g)
{
    CostShape s;
    s.k = g.k;
    s.controls = static_cast<int>(g.controls.size());
    placeTargets(s, g.targets, g.k);
    s.diagonal = g.diagonal;
    s.sparse = g.sparse;
    s.entries = static_cast<int>(g.diagonal ? g.diagIndex.size() : g.sparse ? g.sparseCol.size() : 0);
    s.real = g.realMatrix;
    s.permutation = g.permutation;
    s.tensor = g.tensor;
    if (g.program)
        programShape(g, s);
    if (g.permutation)
        for (int r = 0; r < (1 << g.k); ++r)
            s.entries += g.permSource[r] != r;
    return s;
}

void placeTargets(CostShape& s, const int* targets, int n)
{
    s.lowestTarget = *std::min_element(targets, targets + n);
    s.lowTargets = 0;
    for (int j = 0; j < n; ++j)
        if (targets[j] < 8)
            s.lowTargets |= 1u << targets[j];
}

int targetsInLanes(const CostShape& s) { return std::popcount(s.lowTargets & ((1u << laneBits(activeIsa(), false)) - 1)); }

double relativeCost(const PreparedGate& g) { return relativeCost(shapeOf(g)); }

double relativeCost(const CostShape& g)
{
    const CostTable& t = activeCostTable();
    const double touched = 1.0 / double(uint64_t(1) << g.controls);
    const double dim = double(1 << g.k);
    if (g.diagonal)
        return t.diagonalBase + t.diagonalSlope * touched * double(g.entries) / dim;
    if (g.permutation)
        return t.permutation * touched * double(g.entries) / dim;
    // The portable build has no tensor kernel (kernels_impl.inc: it needs lane flips): its dense one runs them.
    if (g.tensor && activeIsa() != Isa::Portable) {
        return touched * (t.tensor[0] + double(g.k) * t.tensor[g.real ? 2 : 1] + double(targetsInLanes(g)) * t.tensorInLanes[g.real ? 1 : 0]);
    }
    // The same for program gates.
    if (g.program && activeIsa() != Isa::Portable)
        return t.program[0] + g.programReal * t.program[1] + g.programRxLike * t.programRxLike + g.programComplex * t.program[2] +
               g.programDiagonal * t.program[3] + g.programInLanes * t.program[4];
    // The wide builds run a sparse gate with a target inside a complex128 vector as a dense one (kernels_impl.inc,
    // laneTargetMask).
    const bool sparseKernel = g.sparse && !(g.k <= 4 && g.lowestTarget < laneBits(activeIsa(), false));
    if (sparseKernel)
        return std::max(t.sparseFloor, touched * double(g.entries) / dim * (t.sparseBase + t.sparseSlope * g.k));
    return (g.real ? t.denseReal : t.dense)[g.k] * (g.k == 1 && g.controls > 0 ? t.controlled : touched);
}

double passCost() { return activeCostTable().passCost; }
int tileRowsAhead() { return static_cast<int>(activeCostTable().tileRowsAhead); }

}  // namespace spyglass::quantum::kernels
