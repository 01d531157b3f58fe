#include "core/quantum/statevector.h"

#include "core/quantum/row_permutation.h"
#include "core/quantum/swap_network.h"
#include "core/quantum/kernel_costs.h"

#include "core/common/host_memory.h"

#include "core/common/diagnostics.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace spyglass::quantum {

void checkMemory(int n, Precision p, int copies)
{
    const int amp = p == Precision::Double ? 16 : 8;
    if (n < 0 || n > 40)
        throw InputError(SourceLocation{}, std::to_string(n) + " qubits cannot be simulated (a state vector holds at most 40 here)");
    const uint64_t need = (uint64_t(1) << n) * amp * copies;
    const uint64_t avail = availableMemoryBytes();
    if (avail && need > avail - std::min<uint64_t>(avail, 256ull << 20)) {
        std::ostringstream m;
        m.precision(3);
        m << n << " qubits in " << (p == Precision::Double ? "complex128" : "complex64") << " need " << double(need) / (1ull << 30)
          << " GiB" << (copies > 1 ? " (" + std::to_string(copies) + " state copies)" : std::string()) << " but only "
          << double(avail) / (1ull << 30) << " GiB of memory are available";
        if (p == Precision::Double)
            m << "; try --precision single";
        throw InputError(SourceLocation{}, m.str());
    }
}

namespace {
// States from 2 MiB up come straight from mmap, for two reasons. Its pages are zero already, so the state needs
// no zeroing pass of its own, only a first touch of each page, which the threads do in parallel, each on the
// contiguous share the static schedule of the kernels gives it (on a NUMA machine the pages then sit on the node
// of the thread that updates them, and two threads take the page faults at once). And the mapping can be asked
// for transparent huge pages (a tile run reads every row of a tile at the stride of a chunk, 2^15 or 2^16
// amplitudes, a separate 4 KiB page and TLB miss per row without them), on a huge-page boundary.
constexpr size_t kMapBytes = size_t(2) << 20;
constexpr size_t kHugePage = size_t(2) << 20;

bool hugePagesAllowed()
{
    static const bool huge = [] {
        const char* e = std::getenv("SPYGLASS_HUGEPAGES");
        return !(e && *e == '0');
    }();
    return huge;
}

// Touches one byte of every 4 KiB page of [begin, begin + bytes), the threads in parallel.
void firstTouch(char* begin, size_t bytes)
{
    const int64_t pages = int64_t((bytes + 4095) / 4096);
#pragma omp parallel for schedule(static)
    for (int64_t pg = 0; pg < pages; ++pg)
        begin[pg * 4096] = 0;
}

// At least `bytes` of zero pages from mmap, starting on a huge-page boundary (`base`, `mapped`: what to munmap),
// or null. Transparent huge pages are asked for (with THP in "madvise" mode, as on Debian, nothing else gets
// them): the first touch then takes one fault per 2 MiB instead of 512, and on the VM of BENCHMARKS.md a fault is
// the cost (2026-12-02, 2 threads touching 1 GiB: 2.0-3.4 s in 4 KiB pages, fresh memory or not; in huge pages
// 1.1-1.3 s on memory the VM had not touched before, 0.07 s on memory it had). SPYGLASS_HUGEPAGES=0 turns it off:
// where free memory is fragmented (a full page cache) the advice makes the faults compact memory first, which on
// 2026-12-01 took 1.7-2.8 s of CPU for 1 GiB against 0.56-0.66 s in 4 KiB pages.
// advise false: no advice yet (the state's, firstTouchFastest).
char* mapHugePages(size_t bytes, void*& base, size_t& mapped, bool advise = true)
{
    // One huge page more than needed, so the data can start on a huge-page boundary.
    mapped = bytes + kHugePage;
    base = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) {
        base = nullptr;
        return nullptr;
    }
    char* aligned = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(base) + kHugePage - 1) & ~(kHugePage - 1));
#ifdef MADV_HUGEPAGE
    if (advise && hugePagesAllowed())
        madvise(aligned, bytes, MADV_HUGEPAGE);
#endif
    return aligned;
}

// Zero pages for a state of `bytes` at `data` (from mapHugePages without advice), touched first by the threads.
// Which pages are faster to fault in depends on the machine and its state, not on the program: on the EPYC of
// the comment on mapHugePages huge pages were 1.5-50x faster; on the Xeon of 2026-12-04 they were 3.5-7x slower
// whenever the kernel had to find or compact 2 MiB blocks (1 GiB: 0.93-2.57 s against 0.25-0.28 s in 4 KiB pages; 0.10 s
// when the blocks were free, as right after a run of ours). So a large state measures both on its first 2 x 32
// MiB (at most 6 % of a 1 GiB state) and faults the rest in the faster kind, as long as it stays faster.
void firstTouchFastest(char* data, size_t bytes)
{
    constexpr size_t kProbe = size_t(32) << 20;
#ifdef MADV_HUGEPAGE
    if (hugePagesAllowed() && bytes >= 8 * kProbe) {
        const auto seconds = [](auto f) {
            const auto t0 = std::chrono::steady_clock::now();
            f();
            return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        };
        madvise(data, kProbe, MADV_HUGEPAGE);
        madvise(data + kProbe, kProbe, MADV_NOHUGEPAGE);
        const double huge = seconds([&] { firstTouch(data, kProbe); });
        const double small = seconds([&] { firstTouch(data + kProbe, kProbe); });
        // The free 2 MiB blocks may run out part of the way (then each fault compacts memory): the rest goes in
        // pieces of the probe's size, each timed, and in 4 KiB pages from the first huge-page piece that is
        // slower than the 4 KiB probe. The 4 KiB probe takes the final choice (khugepaged may collapse it).
        bool hugeFaster = huge <= small;
        for (size_t at = 2 * kProbe; at < bytes; at += kProbe) {
            const size_t len = std::min(kProbe, bytes - at);
            madvise(data + at, len, hugeFaster ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
            const double t = seconds([&] { firstTouch(data + at, len); });
            hugeFaster = hugeFaster && t * double(kProbe) <= small * double(len);
        }
        madvise(data + kProbe, kProbe, hugeFaster ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
        return;
    }
    if (hugePagesAllowed())
        madvise(data, bytes, MADV_HUGEPAGE);
#endif
    firstTouch(data, bytes);
}
}  // namespace

StateVector::StateVector(int n, Precision p) : n_(n), prec_(p)
{
    checkMemory(n, p);
    bytes_ = std::max<size_t>(64, (size_t(1) << n) * (p == Precision::Double ? 16 : 8));
    if (bytes_ >= kMapBytes) {
        void* base = nullptr;
        size_t mapped = 0;
        char* aligned = mapHugePages(bytes_, base, mapped, false);
        if (!aligned)
            throw InputError(SourceLocation{}, "could not allocate the state vector (" + std::to_string(bytes_ >> 20) + " MiB)");
        mapBase_ = base;
        mapBytes_ = mapped;
        data_ = aligned;
        firstTouchFastest(aligned, bytes_);
        if (prec_ == Precision::Double)
            dataDouble()[0] = 1;
        else
            dataFloat()[0] = 1;
        return;
    }
    data_ = std::aligned_alloc(64, (bytes_ + 63) / 64 * 64);
    if (!data_)
        throw InputError(SourceLocation{}, "could not allocate the state vector (" + std::to_string(bytes_ >> 20) + " MiB)");
    setZero();
}

StateVector::~StateVector()
{
    if (mapBase_)
        munmap(mapBase_, mapBytes_);
    else
        std::free(data_);
}

namespace {
template <class T>
T* as(void* p) { return static_cast<T*>(p); }
}  // namespace

void StateVector::setZero()
{
    const int64_t len = int64_t(2 * size());
    if (prec_ == Precision::Double) {
        double* d = dataDouble();
#pragma omp parallel for schedule(static) if (len > (int64_t(1) << 18))
        for (int64_t i = 0; i < len; ++i)
            d[i] = 0;
        d[0] = 1;
    } else {
        float* f = dataFloat();
#pragma omp parallel for schedule(static) if (len > (int64_t(1) << 18))
        for (int64_t i = 0; i < len; ++i)
            f[i] = 0;
        f[0] = 1;
    }
}

void StateVector::copyFrom(const StateVector& o)
{
    if (o.n_ != n_ || o.prec_ != prec_)
        throw std::invalid_argument("state vector shapes differ");
    std::memcpy(data_, o.data_, size() * (prec_ == Precision::Double ? 16 : 8));
}

void StateVector::setAmplitudes(const std::vector<cplx>& a)
{
    if (a.size() != size())
        throw std::invalid_argument("wrong number of amplitudes");
    for (uint64_t i = 0; i < size(); ++i) {
        if (prec_ == Precision::Double) {
            dataDouble()[2 * i] = a[i].real();
            dataDouble()[2 * i + 1] = a[i].imag();
        } else {
            dataFloat()[2 * i] = float(a[i].real());
            dataFloat()[2 * i + 1] = float(a[i].imag());
        }
    }
}

cplx StateVector::amplitude(uint64_t i) const
{
    if (prec_ == Precision::Double)
        return {as<double>(data_)[2 * i], as<double>(data_)[2 * i + 1]};
    return {as<float>(data_)[2 * i], as<float>(data_)[2 * i + 1]};
}

std::vector<cplx> StateVector::amplitudes() const
{
    std::vector<cplx> out(size());
    for (uint64_t i = 0; i < size(); ++i)
        out[i] = amplitude(i);
    return out;
}

void StateVector::apply(const kernels::PreparedGate& g)
{
    if (prec_ == Precision::Double)
        kernels::apply(dataDouble(), n_, g);
    else
        kernels::apply(dataFloat(), n_, g);
}

namespace {
// 2^15 amplitudes: 512 KiB in complex128, half an L2 of 1 MiB. Against 2^13 (the first choice, never measured)
// the kernels' per-call work is spread over 4x the amplitudes and two more qubits fit a chunk: complex64 gates
// phase on the Zen 5 EPYC, median of 5-11 interleaved runs: vqe_24 -16 %, random_22 -7 %, qft_24 -7 %,
// random_24 -3 %, random_20 -1 to -3 %; 2^16 was no better (BENCHMARKS.md).
constexpr int kChunkQubits = 15;
// A tile holds <= 512 KiB when it can: 2^15 amplitudes in complex128, 2^16 in complex64. The one more low qubit
// in complex64 makes a tile's rows whole 64-byte cache lines at 26 qubits (half lines, each read twice, before).
constexpr int kTileAmplitudeQubits = 15;
// A tile's rows are 2^(n-b) amplitudes runs 2^b apart, each in a 4 KiB page of its own: with more rows than the
// L2 TLB holds (3072 entries on Zen 4) every row misses it twice per tile (copy in, copy out), which made a tile
// run of 20 H on 26 qubits (2^13 rows of 64 bytes) take 6x its memory bound. So a tile has at most 2^10 rows (up
// to 26 qubits; 2^12 at 28), and the chunks grow instead, up to 2^16 amplitudes (1 MiB in complex128, streamed
// in place, where the L3 backs what the L2 misses).
constexpr int kTileRowQubits = 10;
constexpr int kMaxChunkQubits = 16;
// Up to 2^5 rows (states of up to 21 qubits, chunkQubits) a tile's gates run on the state in place: copying a tile in and out
// costs a pass over the state of its own, more than the gates lose to rows that share cache sets (every row
// starts at a multiple of the chunk). With more rows the rows come back from memory for every gate: measured
// even at 2^6 and slower from 2^7 (BENCHMARKS.md, "tiles in place or streamed back").
constexpr int kMaxInPlaceTileRowQubits = 5;

// The chunk qubits b (the tile's rows are the qubits >= b). Where chunks of 2^16 leave tiles of few enough rows
// to run in place (states of up to 21 qubits), chunks are 2^16: the tiles have half the rows, 16 at 20 qubits (no
// more than the L2's ways), and each kernel call covers twice the amplitudes: 4-7 % off 20- and 21-qubit
// circuits in complex64, complex128 unchanged, 2^14 slower (BENCHMARKS.md, "tiles in place or streamed back").
int chunkQubits(int n)
{
    if (n > kChunkQubits + 1 && n - kMaxChunkQubits <= kMaxInPlaceTileRowQubits)
        return kMaxChunkQubits;
    return std::clamp(n - kTileRowQubits, kChunkQubits, kMaxChunkQubits);
}
constexpr size_t kLookAheadGates = 4096;   // gates examined per cache-blocked run

// Parity of the set bits without a popcount instruction (the portable build has none; a libcall per
// amplitude would dominate the expectation value).
inline int parity(uint64_t x)
{
    x ^= x >> 32;
    x ^= x >> 16;
    x ^= x >> 8;
    x ^= x >> 4;
    return (0x6996 >> (x & 0xf)) & 1;
}

}  // namespace

namespace {

// A gate of a cache-blocked run, specialised for every value of its qubits that a block holds fixed. Inside a
// block only the free qubits vary, so a control on a fixed qubit either always fires (it is dropped) or never
// does (the gate is skipped), and a diagonal gate on fixed qubits reduces to a smaller diagonal, or a scalar, on
// its free ones. That is what lets diagonal gates on any qubit (a QFT's controlled phases, rz and rzz layers) and
// gates controlled from far qubits join a run instead of costing a pass over the state each.
struct BlockGate {
    std::vector<int> fixedQubits;                                  // the gate's state qubits fixed in a block, ascending
    std::vector<const kernels::PreparedGate*> variants;            // bit i of the index = value of fixedQubits[i];
                                                                   // null: nothing to do in such a block
    // The variants that are not the gate itself. A gate with no qubit fixed, on the same qubit numbers (a chunk's,
    // or a tile's in place), is its own only variant: a copy cost a page fault for every 4 KiB of matrix it made
    // (BENCHMARKS.md run 38). Reserved, so the pointers stay; not copyable, since a copy's would point here.
    std::vector<kernels::PreparedGate> made;
    std::vector<std::optional<kernels::GatePhases>> phases;        // each diagonal variant that is a product of phases
    // Set instead of the variants: consecutive permutation gates of the run composed (composeRuns below), one
    // composition for each value of fixedQubits (no cycles where none of the gates fires), on composedQubits.
    std::vector<RowCycles> composed;
    uint64_t composedQubits = 0;
    bool readIn = false;   // the block is read in first (readIn below): the composition is a chunk run's first gate

    BlockGate() = default;
    BlockGate(BlockGate&&) = default;
    BlockGate& operator=(BlockGate&&) = default;
    BlockGate(const BlockGate&) = delete;
    BlockGate& operator=(const BlockGate&) = delete;
};

// 2^8 variants per gate at most; a diagonal on more fixed qubits (a wide fused block) runs alone.
constexpr int kMaxFixedQubitsPerGate = 8;

using kernels::qubitMask;
using kernels::targetMask;

// Whether g can run inside blocks in which the qubits of `fixedMask` are fixed.
bool fitsBlock(const StateVector::Footprint& g, uint64_t fixedMask)
{
    if (std::popcount((g.targets | g.controls) & fixedMask) > kMaxFixedQubitsPerGate)
        return false;
    return g.diagonalMatrix || (g.targets & fixedMask) == 0;
}

// `localQubit` maps a free state qubit to its qubit in the block (monotonic, so target order is kept).
template <class LocalQubit>
BlockGate specialise(const kernels::PreparedGate& g, uint64_t fixedMask, LocalQubit localQubit)
{
    BlockGate bg;
    for (int j = 0; j < g.k; ++j)
        if (fixedMask >> g.targets[j] & 1)
            bg.fixedQubits.push_back(g.targets[j]);
    for (int c : g.controls)
        if (fixedMask >> c & 1)
            bg.fixedQubits.push_back(c);
    std::sort(bg.fixedQubits.begin(), bg.fixedQubits.end());
    const int dim = 1 << g.k;
    const auto fixedValue = [&](uint64_t v, int q) {
        const auto at = std::find(bg.fixedQubits.begin(), bg.fixedQubits.end(), q) - bg.fixedQubits.begin();
        return int(v >> at & 1);
    };
    bg.variants.assign(size_t(1) << bg.fixedQubits.size(), nullptr);
    bg.made.reserve(bg.variants.size());
    const auto add = [&](uint64_t v, kernels::PreparedGate&& variant) { bg.variants[v] = &bg.made.emplace_back(std::move(variant)); };
    for (uint64_t v = 0; v < bg.variants.size(); ++v) {
        bool fires = true;
        std::vector<int> controls;
        for (int c : g.controls) {
            if (!(fixedMask >> c & 1))
                controls.push_back(localQubit(c));
            else if (!fixedValue(v, c))
                fires = false;
        }
        if (!fires)
            continue;
        std::vector<int> freeTargets;   // positions in g.targets
        int fixedBits = 0;              // the gate-local index bits the fixed targets set
        for (int j = 0; j < g.k; ++j) {
            if (!(fixedMask >> g.targets[j] & 1))
                freeTargets.push_back(j);
            else if (fixedValue(v, g.targets[j]))
                fixedBits |= 1 << j;
        }
        std::vector<int> targets;
        for (int j : freeTargets)
            targets.push_back(localQubit(g.targets[j]));
        if (static_cast<int>(freeTargets.size()) == g.k) {
            if (controls == g.controls && std::equal(targets.begin(), targets.end(), g.targets)) {
                bg.variants[v] = &g;
                continue;
            }
            add(v, kernels::prepare(controls, targets, g.matrix));
            kernels::carryProgram(bg.made.back(), g, targets);
            continue;
        }
        // A diagonal gate with fixed targets: the entries whose fixed-target bits match, on the free targets.
        const int f = static_cast<int>(freeTargets.size()), fdim = 1 << f;
        std::vector<double> m(size_t(2) * fdim * fdim, 0.0);
        bool identity = true;
        for (int u = 0; u < fdim; ++u) {
            int full = fixedBits;
            for (int i = 0; i < f; ++i)
                if (u >> i & 1)
                    full |= 1 << freeTargets[i];
            const double re = g.matrix[2 * (size_t(full) * dim + full)], im = g.matrix[2 * (size_t(full) * dim + full) + 1];
            m[2 * (size_t(u) * fdim + u)] = re;
            m[2 * (size_t(u) * fdim + u) + 1] = im;
            identity = identity && re == 1 && im == 0;
        }
        if (identity)
            continue;
        if (f == 0) {
            // A scalar on the whole block (or its controlled part): a one-qubit diagonal on a free qubit that is
            // no control.
            int t = 0;
            while (std::find(controls.begin(), controls.end(), t) != controls.end())
                ++t;
            add(v, kernels::prepare(controls, {t}, {m[0], m[1], 0, 0, 0, 0, m[0], m[1]}));
            continue;
        }
        add(v, kernels::prepare(controls, targets, m));
    }
    bg.phases.resize(bg.variants.size());
    for (size_t v = 0; v < bg.variants.size(); ++v)
        if (kernels::GatePhases p; bg.variants[v] && kernels::phasesOf(*bg.variants[v], p))
            bg.phases[v] = p;
    return bg;
}

}  // namespace

std::optional<kernels::PreparedGate> restrictGate(const kernels::PreparedGate& g, uint64_t fixedMask, uint64_t values,
                                                  const std::function<int(int)>& renumber)
{
    const BlockGate bg = specialise(g, fixedMask, renumber);
    size_t v = 0;
    for (size_t i = 0; i < bg.fixedQubits.size(); ++i)
        v |= size_t(values >> bg.fixedQubits[i] & 1) << i;
    if (!bg.variants[v])
        return std::nullopt;
    return *bg.variants[v];
}

namespace {

// Diagonal gates of a block that are products of phases (a QFT's controlled phases on one qubit, whether that
// qubit is fixed in the block or not; rz) run as one PhaseProduct when that touches fewer amplitudes: the
// diagonal kernel reads and writes the amplitudes of each gate whose factor is not 1, the product every amplitude
// its common controls select once, with twice the arithmetic (two complex products), so it runs when the gates
// would touch more than twice as many. The gates between them on other qubits run first (they commute with the
// held ones): in a QFT the Hadamards and dense blocks of the next qubits come between them, and the phases of two
// qubits interleave, so several products are open at once (a QFT fused into blocks of four qubits with its
// phases held, pass_fuse.cpp, has one a qubit of the block before). QFT simulation 11-25 % faster at 22-26 qubits
// (BENCHMARKS.md). A gate that is not diagonal takes only the groups on its qubits out before it (applyAfter), and
// a program gate takes their factors on its own targets into its sweep (kernels::applyProgram), where each group
// cost a sweep of its own: a QFT's phases from the qubits of one block of four to those of the next.
template <class T>
class PhaseRun {
public:
    PhaseRun(T* block, int blockQubits, uint64_t held)
        : block_(block), n_(blockQubits), held_(held),
          laneBits_((uint64_t(1) << kernels::laneBits(kernels::activeIsa(), sizeof(T) == sizeof(float))) - 1)
    {
    }
    // Holds g (its phases `phases`): in the first group whose product it merges with, else in a group of its own.
    // Held gates are all diagonal, so they commute and the groups may run in any order.
    void add(const kernels::PreparedGate& g, const kernels::GatePhases& phases)
    {
        const kernels::PhaseProduct p = kernels::phaseProduct(phases);
        Group* into = nullptr;
        for (int i = 0; i < groups_ && !into; ++i)
            if (group_[i].count < kMaxGates && kernels::mergePhaseProducts(group_[i].product, p))
                into = &group_[i];
        if (!into) {
            if (groups_ == kMaxGroups)
                flush();
            into = &group_[groups_++];
            reset(*into);
            into->product = p;
        }
        into->gates[into->count++] = &g;
        into->touched += kernels::diagonalTouched(g);
        into->qubits |= qubitMask(g);
        qubits_ |= qubitMask(g);
    }
    // g, not diagonal, after the gates held. The groups on none of its qubits stay held (they commute with it);
    // the others go first. Where g is a program (no controls), a group whose controls are off g's targets and above
    // the vector gives g its factors on g's targets and on the vector's lanes (and its scale) to apply in g's own
    // sweep, and stays held with the rest, which commutes with g. The program kernel
    // works the factors out again for every base whose controls differ from the last one's, but for a few fast
    // controls on the lowest bits the bases vary (kernels::applyProgram): groups go in while their fast controls
    // stay within those few. A diagonal g commutes with them all.
    void applyAfter(const kernels::PreparedGate& g)
    {
        const uint64_t mask = qubitMask(g);
        if (!(mask & qubits_) || g.diagonalMatrix) {
            applyHeld(g);
            return;
        }
        const uint64_t targets = targetMask(g);
        const bool program = g.program && g.controls.empty();
        // The lowest bits the program's bases vary: controls there are fast (kernels::applyProgram).
        const uint64_t fastWindow = kernels::fastControlWindow(targets | laneBits_ | held_);
        const int maxFast = kernels::maxFastControls(std::popcount(targets & ~laneBits_));
        uint64_t fastTaken = 0;
        kernels::PhaseProduct before[kMaxGroups];
        int beforeCount = 0, kept = 0;
        qubits_ = 0;
        for (int i = 0; i < groups_; ++i) {
            Group& gr = group_[i];
            const kernels::PhaseProduct& p = gr.product;
            if (gr.qubits & mask) {
                // (The kernel takes no fast controls when a product has both kinds.)
                const bool fastFits = !((p.controls & fastWindow) && (p.controls & ~fastWindow)) &&
                                      std::popcount(fastTaken | (p.controls & fastWindow)) <= maxFast;
                if (program && fastFits && !(p.controls & (targets | laneBits_))) {
                    fastTaken |= p.controls & fastWindow;
                    kernels::PhaseProduct& on = before[beforeCount++];
                    on.controls = p.controls;
                    on.targets = p.targets & (targets | laneBits_);
                    on.scale[0] = p.scale[0];
                    on.scale[1] = p.scale[1];
                    for (uint64_t t = on.targets; t; t &= t - 1) {
                        on.factor[std::countr_zero(t)][0] = p.factor[std::countr_zero(t)][0];
                        on.factor[std::countr_zero(t)][1] = p.factor[std::countr_zero(t)][1];
                    }
                    gr.product.targets &= ~(targets | laneBits_);
                    gr.product.scale[0] = 1;
                    gr.product.scale[1] = 0;
                    gr.split = true;
                    gr.qubits = gr.product.controls | gr.product.targets;
                    if (!gr.product.targets) {
                        reset(gr);
                        continue;
                    }
                } else {
                    flushGroup(gr);
                    continue;
                }
            }
            qubits_ |= gr.qubits;
            if (kept != i)
                group_[kept] = gr;
            ++kept;
        }
        groups_ = kept;
        if (beforeCount && kernels::applyProgram(block_, n_, g, held_, before, beforeCount))
            return;
        for (int i = 0; i < beforeCount; ++i)
            kernels::applyPhaseProduct(block_, n_, before[i], held_);
        applyHeld(g);
    }
    // The groups on any of `mask`'s qubits go now, before something that is no gate (a composed permutation) acts
    // on those qubits; the others stay held.
    void flushOn(uint64_t mask)
    {
        int kept = 0;
        qubits_ = 0;
        for (int i = 0; i < groups_; ++i) {
            if (group_[i].qubits & mask) {
                flushGroup(group_[i]);
                continue;
            }
            qubits_ |= group_[i].qubits;
            if (kept != i)
                group_[kept] = group_[i];
            ++kept;
        }
        groups_ = kept;
    }
    void flush()
    {
        for (int i = 0; i < groups_; ++i)
            flushGroup(group_[i]);
        groups_ = 0;
        qubits_ = 0;
    }

    // g on the block (held: 0 for a contiguous block, else the fixed qubits it strides over in place).
    void applyHeld(const kernels::PreparedGate& g) const
    {
        if (held_)
            kernels::apply(block_, n_, g, held_);
        else
            kernels::apply(block_, n_, g);
    }

private:
    static constexpr int kMaxGates = 64, kMaxGroups = 16;
    static_assert(kMaxGroups <= kernels::kMaxLaneProducts);   // every group's factors on the lanes may go to a program
    struct Group {
        kernels::PhaseProduct product;
        const kernels::PreparedGate* gates[kMaxGates];
        int count = 0;
        double touched = 0;
        uint64_t qubits = 0;   // of its gates
        bool split = false;    // applyAfter took part of the product: `gates` are no longer it
    };
    void reset(Group& gr)
    {
        gr.count = 0;
        gr.touched = 0;
        gr.qubits = 0;
        gr.split = false;
    }
    void flushGroup(Group& gr)
    {
        if (gr.split || (gr.count >= 2 && gr.touched > 2 * std::ldexp(1.0, -std::popcount(gr.product.controls)))) {
            kernels::applyPhaseProduct(block_, n_, gr.product, held_);
        } else {
            for (int j = 0; j < gr.count; ++j)
                applyHeld(*gr.gates[j]);
        }
        reset(gr);
    }
    T* block_;
    int n_;
    uint64_t held_;
    uint64_t laneBits_;   // the qubits inside a vector of the active build
    Group group_[kMaxGroups];
    int groups_ = 0;
    uint64_t qubits_ = 0;   // of the gates held
};

// Reads a byte of every 64-byte line of the block, in address order, so that it comes into the cache at the
// memory's pace (the hardware prefetchers follow the addresses) before a composed permutation visits its rows along
// their cycles, which no prefetcher can follow. Eight accumulators, so no chain of operations holds the loads back.
template <class T>
void readIn(const T* block, int blockQubits)
{
    const unsigned char* p = reinterpret_cast<const unsigned char*>(block);
    const size_t bytes = (size_t(2) << blockQubits) * sizeof(T);
    unsigned acc[8] = {};
    for (size_t i = 0; i < bytes; i += 8 * 64)
        for (int j = 0; j < 8; ++j)
            acc[j] |= p[i + 64 * j];
    volatile unsigned kept = acc[0] | acc[1] | acc[2] | acc[3] | acc[4] | acc[5] | acc[6] | acc[7];
    (void)kept;
}

// The run's gates on one block: each gate's variant for the block's values of the fixed qubits (base). held is 0
// for a block that is contiguous (a chunk, a copied tile), else the fixed qubits the block strides over in place.
template <class T>
void applyInBlock(T* block, int blockQubits, const std::vector<BlockGate>& gates, uint64_t base, uint64_t held = 0)
{
    PhaseRun<T> phases(block, blockQubits, held);
    for (const BlockGate& bg : gates) {
        size_t v = 0;
        for (size_t i = 0; i < bg.fixedQubits.size(); ++i)
            v |= size_t(base >> bg.fixedQubits[i] & 1) << i;
        if (!bg.composed.empty()) {   // (composed only for contiguous blocks: held is 0)
            if (bg.readIn)
                readIn(block, blockQubits);
            phases.flushOn(bg.composedQubits);
            applyRowCycles(block, blockQubits, bg.composed[v]);
            continue;
        }
        const auto& g = bg.variants[v];
        if (!g)
            continue;
        if (const auto& p = bg.phases[v]) {
            phases.add(*g, *p);
            continue;
        }
        phases.applyAfter(*g);
    }
    phases.flush();
}

// Chunks: 2^b contiguous amplitudes (qubits >= b fixed), updated in place while they stay in cache.
template <class T>
void chunkRun(T* a, int n, int b, const std::vector<BlockGate>& gates)
{
    const int64_t chunks = int64_t(1) << (n - b);
#pragma omp parallel for schedule(dynamic, 1) if (chunks >= 4)
    for (int64_t ch = 0; ch < chunks; ++ch)
        applyInBlock(a + (uint64_t(ch) << (b + 1)), b, gates, uint64_t(ch) << b);
}

// Each thread's tile buffer, kept from run to run (and freed with the thread): a fresh one is freshly mapped
// pages, a fault each, about 25 us on the machine of BENCHMARKS.md, so it is mapped in huge pages (a 512 KiB
// tile: 128 faults per thread, about 3 ms of a 20-qubit random circuit's 50, against one).
template <class T>
T* tileBuffer(size_t count)
{
    struct Buffer {
        T* data = nullptr;
        size_t count = 0;
        void* base = nullptr;
        size_t mapped = 0;
        void release()
        {
            if (base)
                munmap(base, mapped);
            else
                std::free(data);
            data = nullptr;
            base = nullptr;
        }
        ~Buffer() { release(); }
    };
    thread_local Buffer buffer;
    if (buffer.count < count) {
        buffer.release();
        // Whole huge pages: a page is only huge where all its 2 MiB are advised.
        buffer.data = reinterpret_cast<T*>(mapHugePages((count * sizeof(T) + kHugePage - 1) / kHugePage * kHugePage, buffer.base, buffer.mapped));
        if (!buffer.data)
            buffer.data = static_cast<T*>(std::aligned_alloc(64, (count * sizeof(T) + 63) / 64 * 64));
        buffer.count = count;
    }
    return buffer.data;
}

// Tiles: 2^w contiguous amplitudes (qubits < w) of every one of the 2^(n-b) rows (qubits >= b), the qubits
// w..b-1 fixed, copied into a contiguous buffer of w + n - b qubits where tile qubit j is state qubit j (j < w)
// or j - w + b (j >= w). A thread's tile stays in its buffer until its next tile comes in (kernels::swapTileRows
// streams each row back as the same row of the next tile comes in); the last goes back at the end: qft_26
// complex64 0.428 -> 0.392 s, ghz_26 0.090 -> 0.083 s on the EPYC of BENCHMARKS.md ("permutations and swapped
// tiles").
template <class T>
void tileRun(T* a, int n, int b, int w, const std::vector<BlockGate>& gates, uint64_t ahead)
{
    const int h = n - b, tq = w + h;
    const int64_t tiles = int64_t(1) << (b - w);
    const uint64_t cols = uint64_t(1) << w, rows = uint64_t(1) << h;
#pragma omp parallel if (tiles >= 2)
    {
        T* buf = tileBuffer<T>(size_t(2) << tq);
        T* held = nullptr;   // the tile in buf, its gates run
        // Rows as floats for kernels::swapTileRows, which moves them a 64-byte line at a time.
        const auto floats = [](T* p) { return reinterpret_cast<float*>(p); };
        const uint64_t rowFloats = 2 * cols * sizeof(T) / sizeof(float), strideFloats = (uint64_t(2) << b) * sizeof(T) / sizeof(float);
#pragma omp for schedule(dynamic, 1) nowait
        for (int64_t t = 0; t < tiles; ++t) {
            T* const tile = a + 2 * (uint64_t(t) << w);
            kernels::swapTileRows(held ? floats(held) : nullptr, floats(buf), floats(tile), rows, rowFloats, strideFloats, ahead);
            applyInBlock(buf, tq, gates, uint64_t(t) << w);
            held = tile;
        }
        if (held)
            kernels::swapTileRows(floats(held), floats(buf), nullptr, rows, rowFloats, strideFloats, ahead);
#if defined(__SSE__)
        _mm_sfence();   // the streamed rows are visible before another thread (or the next run) reads them
#endif
    }
}

// Tiles in place (few rows, kMaxInPlaceTileRowQubits): each tile's gates run on the state itself with the tile's
// fixed qubits w..b-1 held at the tile's values, and keep their state qubits.
template <class T>
void tileRunInPlace(T* a, int n, int w, uint64_t tileFixed, const std::vector<BlockGate>& gates)
{
    const int64_t tiles = int64_t(1) << std::popcount(tileFixed);
#pragma omp parallel for schedule(dynamic, 1) if (tiles >= 2)
    for (int64_t t = 0; t < tiles; ++t) {
        const uint64_t base = uint64_t(t) << w;
        applyInBlock(a + 2 * base, n, gates, base, tileFixed);
    }
}

}  // namespace

namespace {
int tileLowQubits(int n, Precision p)
{
    // Rows of at least one 64-byte line: 4 amplitudes in complex128, 8 in complex64.
    const int b = chunkQubits(n), single = p == Precision::Single;
    return std::clamp(kTileAmplitudeQubits + single - (n - b), 2 + single, b);
}
}  // namespace

StateVector::Blocks StateVector::blocks(int n, Precision p)
{
    return Blocks{chunkQubits(n), tileLowQubits(n, p), n - chunkQubits(n) <= kMaxInPlaceTileRowQubits};
}

bool StateVector::fitsCacheBlocks(int n, const std::vector<int>& qubits)
{
    if (n <= kChunkQubits + 1)
        return true;
    // complex128's tiles: complex64's have one more low qubit, so what fits the one fits the other.
    const int b = chunkQubits(n), w = tileLowQubits(n, Precision::Double);
    const bool chunk = std::all_of(qubits.begin(), qubits.end(), [&](int q) { return q < b; });
    const bool tile = std::all_of(qubits.begin(), qubits.end(), [&](int q) { return q < w || q >= b; });
    return chunk || tile;
}

namespace {

// A gate alone from a tile run (planRuns): its sweep of the state in place, half a pass, or less where controls
// select part of it (qubits 0-2 lie inside a 64-byte line in either precision, a control above them selects whole
// lines), while its kernel works.
double costAlone(const StateVector::Footprint& g)
{
    return std::max(g.cost, std::ldexp(kernels::passCost() / 2, -std::popcount(g.controls >> 3)));
}

// Cache blocking. A chunk is 2^b contiguous amplitudes (qubits >= b fixed); a tile is 2^w columns x all 2^(n-b)
// high rows, <= 512 KiB (qubits w..b-1 fixed). A gate fits a block when its non-diagonal targets are free there
// (controls and diagonal factors on fixed qubits are resolved per block, see BlockGate). Each step takes the
// longest run of gates fitting chunks (or tiles) that can move to the front past the gates it skips (gates on
// disjoint qubits commute, and so do two diagonal gates) and applies it in one memory pass; a gate that fits
// neither (or a run of one) is applied alone. SWAP gates on disjoint qubits >= w (their runs whole tile rows)
// that can move to the front go in one pass of their own, a swap network (swap_network.h), when one of them fits
// no block, where each such swap cost a pass (a QFT's closing swaps from the middle qubits to the high ones:
// qft_26 complex64 0.615 -> 0.533 s, median of 9 interleaved runs, qft_24 level, on the Xeon of BENCHMARKS.md,
// 2026-12-06). The network waits while runs of two gates or more can go: they may free more swaps for it (at
// 24 qubits one network instead of two). step(kind, gate indices, gates applied before): kind 0
// chunks, 1 tiles, 2 a swap network, -1 one gate alone, -2 one gate of a tile run that goes alone (cheaperAlone
// below). The plan depends on the gates and n only, so the fuse
// pass can count the passes of a gate list without a state.
template <class Step>
void planRuns(int n, int w, const std::vector<StateVector::Footprint>& gates, Step step)
{
    const int b = chunkQubits(n);
    const uint64_t all = n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1;
    const uint64_t chunkFixed = all & ~((uint64_t(1) << b) - 1);
    const uint64_t tileFixed = ((uint64_t(1) << b) - 1) & ~((uint64_t(1) << w) - 1);
    const size_t count = gates.size();
    std::vector<uint64_t> masks(count);
    std::vector<char> fits[2] = {std::vector<char>(count), std::vector<char>(count)};
    for (size_t i = 0; i < count; ++i) {
        masks[i] = gates[i].targets | gates[i].controls;
        fits[0][i] = fitsBlock(gates[i], chunkFixed);
        fits[1][i] = fitsBlock(gates[i], tileFixed);
    }
    std::vector<char> done(count, 0), inRun(count, 0), behindUnfit(count, 0);
    // A copied tile's run costs a pass (kernels::passCost: the copy in and out) and then its gates' kernels on the
    // tile in cache, one after another, while the memory waits. A gate alone sweeps the state in place, half a
    // pass's traffic (less where controls above a cache line select part of it), and its kernel works while the
    // amplitudes stream, so it costs about the larger of the two. Where the run's gates are estimated to cost
    // clearly less alone (kSinglesMargin), they go alone. The estimate of a gate alone is optimistic for targets
    // far apart (each a stream of its own), hence the margin: on the Zen 5 EPYC of BENCHMARKS.md run 39, knn_n25's
    // three dense 3-qubit blocks on 0, 3-5 and 15-17 (estimated 0.67 of the run alone) took 26 ms as a tile run
    // and 16 ms alone, and wstate_n27 (whose two cx on 15-17, 0.41, took 51 ms as a tile run) ran 6 % faster with
    // them alone; without the margin wstate_n27's dense 3-qubit blocks on 16-26 (0.99) and random_22's and
    // random_26's programs (0.77-1.0) went alone too, 3-28 % slower. Only where every gate's cost is known (a
    // footprint without one keeps its run).
    constexpr double kSinglesMargin = 0.7;
    const bool copiedTiles = !StateVector::blocks(n, Precision::Double).tilesInPlace;
    const auto cheaperAlone = [&](const std::vector<size_t>& r) {
        double inTile = kernels::passCost(), alone = 0;
        for (size_t i : r) {
            if (gates[i].cost <= 0)
                return false;
            inTile += gates[i].cost;
            alone += costAlone(gates[i]);
        }
        return alone < kSinglesMargin * inTile;
    };
    std::vector<size_t> run[2], seen, network;
    const uint64_t networkLow = (uint64_t(1) << w) - 1;   // qubits a swap network leaves to the blocks
    const bool anySwaps = std::any_of(gates.begin(), gates.end(), [&](const auto& g) { return g.swap && !(g.targets & networkLow); });
    size_t first = 0, applied = 0;
    const auto take = [&](const std::vector<size_t>& gateIndices) {
        applied += gateIndices.size();
        for (size_t i : gateIndices)
            done[i] = 1;
        while (first < count && done[first])
            ++first;
    };
    while (first < count) {
        bool networkNeeded = false;   // a swap of the network fits no block
        if (anySwaps) {
            network.clear();
            uint64_t skipped = 0, used = 0;
            size_t looked = 0;
            for (size_t i = first; i < count && skipped != all && looked < kLookAheadGates; ++i) {
                if (done[i])
                    continue;
                ++looked;
                if (gates[i].swap && !(masks[i] & (networkLow | skipped | used))) {
                    network.push_back(i);
                    used |= masks[i];
                    networkNeeded = networkNeeded || !(fits[0][i] || fits[1][i]);
                } else {
                    skipped |= masks[i];
                }
            }
        }
        for (int kind = 0; kind < 2; ++kind) {
            run[kind].clear();
            seen.clear();
            uint64_t skipped = 0, skippedDense = 0;   // qubits of the gates left behind (of the non-diagonal ones)
            uint64_t stuck = 0;   // qubits of the gates left behind that fit no block, and of those left behind after them on their qubits
            // The look-ahead is bounded so a long circuit of gates that fit no block stays linear.
            for (size_t i = first; i < count && skippedDense != all && seen.size() < kLookAheadGates; ++i) {
                if (done[i])
                    continue;
                seen.push_back(i);
                const bool commutes = (masks[i] & (gates[i].diagonalMatrix ? skippedDense : skipped)) == 0;
                inRun[i] = fits[kind][i] && commutes;
                behindUnfit[i] = !inRun[i] && (!(fits[0][i] || fits[1][i]) || (masks[i] & stuck));
                if (behindUnfit[i])
                    stuck |= masks[i];
                if (inRun[i]) {
                    run[kind].push_back(i);
                } else {
                    skipped |= masks[i];
                    if (!gates[i].diagonalMatrix)
                        skippedDense |= masks[i];
                }
            }
            // A diagonal gate that no later gate of the run needs (none on its qubits is not diagonal), but a gate
            // left for a later run does, waits for that run: a QFT's phases from the qubits of the tiles' rows to
            // those of the chunks, which the tiles' run would apply in sweeps of their own, run in the chunks',
            // where the rows' qubits are fixed and they are phases on one qubit, which the program gates there
            // take into their sweeps (PhaseRun). Only gates that fit a block count (one that fits none runs alone,
            // and the gate waiting for it might be left to run alone too), and of those only the ones no gate that
            // fits none holds back (behindUnfit: they cannot join the diagonal's next run, which would then be
            // the diagonal alone, a pass of its own: qram_n20's diagonal on qubits 6, 14 and 19, waiting for gates
            // behind a sparse block on 5, 13 and 19, took 0.5-0.9 ms of a 3.9 ms gates phase that way); the
            // gates the look-ahead did not reach need nothing.
            uint64_t neededInRun = 0, neededLater = 0;
            bool deferred = false;
            for (size_t s = seen.size(); s-- > 0;) {
                const size_t i = seen[s];
                if (!gates[i].diagonalMatrix) {
                    if (inRun[i])
                        neededInRun |= masks[i];
                    else if ((fits[0][i] || fits[1][i]) && !behindUnfit[i])
                        neededLater |= masks[i];
                    continue;
                }
                if (inRun[i] && !(masks[i] & neededInRun) && (masks[i] & neededLater)) {
                    inRun[i] = 0;
                    deferred = true;
                }
            }
            if (deferred)
                run[kind].erase(std::remove_if(run[kind].begin(), run[kind].end(), [&](size_t i) { return !inRun[i]; }), run[kind].end());
        }
        const int kind = run[1].size() > run[0].size() ? 1 : 0;
        if (run[kind].size() < 2 && networkNeeded) {
            step(2, network, applied);
            take(network);
        } else if (run[kind].size() < 2) {
            step(-1, std::vector<size_t>{first}, applied);
            take(std::vector<size_t>{first});
        } else if (kind == 1 && copiedTiles && cheaperAlone(run[kind])) {
            // The run's gates commute with those they skip, so they may go alone in the run's order (kind -2).
            for (size_t i : run[kind]) {
                step(-2, std::vector<size_t>{i}, applied);
                take(std::vector<size_t>{i});
            }
        } else {
            step(kind, run[kind], applied);
            take(run[kind]);
        }
    }
}

}  // namespace

namespace {

// Composes each stretch of two or more consecutive permutation gates of a run (kernels' permutation gates, their
// rows whole cache lines, together on at most kMaxComposedQubits qubits and kMaxComposedFixed qubits fixed in the
// block) into one permutation of rows (row_permutation.h): one sweep of the block in cache, where each gate made
// one. A chain of CNOTs fuses into permutations of four qubits, each sharing one with the next: ghz_26's chunks
// swept six times. A gate with qubits fixed in the block (a CNOT whose control is a tile's fixed qubit) is the
// variant the block's values of them select, or nothing: one composition for each of their values. A composed
// permutation that is a chunk run's first gate reads the chunk in, in address order, first (readIn); a copied
// tile is in cache before its first gate. wstate_n27's last run, complex64 (five permutations, the first from
// memory), in 4 interleaved runs: 64-68 ms with the first gate left as it was, 52-61 composed and read in.
constexpr size_t kMaxComposedFixed = 3;
int composeRuns(std::vector<BlockGate>& gates, bool fromMemory, int amplitudeBytes)
{
    // The block's qubits a gate's variants move, 0 where one of them cannot join a composition.
    const auto movedQubits = [&](const BlockGate& bg) -> uint64_t {
        uint64_t qubits = 0;
        for (const kernels::PreparedGate* v : bg.variants) {
            if (v && !composable(*v, amplitudeBytes))
                return 0;
            qubits |= v ? qubitMask(*v) : 0;
        }
        return bg.fixedQubits.size() <= kMaxComposedFixed ? qubits : 0;
    };
    int composed = 0;
    std::vector<BlockGate> out;
    out.reserve(gates.size());
    for (size_t i = 0; i < gates.size();) {
        uint64_t qubits = 0;
        std::vector<int> fixed;
        size_t j = i;
        for (; j < gates.size(); ++j) {
            const uint64_t moved = movedQubits(gates[j]);
            std::vector<int> withFixed = fixed;
            for (int q : gates[j].fixedQubits)
                if (std::find(fixed.begin(), fixed.end(), q) == fixed.end())
                    withFixed.push_back(q);
            if (!moved || std::popcount(qubits | moved) > kMaxComposedQubits || withFixed.size() > kMaxComposedFixed)
                break;
            qubits |= moved;
            fixed = std::move(withFixed);
        }
        if (j - i < 2) {
            out.push_back(std::move(gates[i++]));
            continue;
        }
        BlockGate rows;
        std::sort(fixed.begin(), fixed.end());
        rows.fixedQubits = fixed;
        for (size_t v = 0; v < size_t(1) << fixed.size(); ++v) {
            std::vector<const kernels::PreparedGate*> stretch;
            for (size_t m = i; m < j; ++m) {
                size_t own = 0;   // the gate's variant for the fixed qubits' values v
                for (size_t b = 0; b < gates[m].fixedQubits.size(); ++b) {
                    const auto at = std::find(fixed.begin(), fixed.end(), gates[m].fixedQubits[b]) - fixed.begin();
                    own |= (v >> at & 1) << b;
                }
                if (const kernels::PreparedGate* g = gates[m].variants[own])
                    stretch.push_back(g);
            }
            rows.composed.push_back(stretch.empty() ? RowCycles{} : composeRows(stretch, amplitudeBytes));
        }
        rows.composedQubits = qubits;
        rows.readIn = fromMemory && i == 0;
        out.push_back(std::move(rows));
        composed += static_cast<int>(j - i);
        i = j;
    }
    gates = std::move(out);
    return composed;
}

}  // namespace

StateVector::Footprint StateVector::footprint(const kernels::PreparedGate& g)
{
    const bool swap = g.permutation && g.k == 2 && g.controls.empty() && g.permSource == std::vector<int>{0, 2, 1, 3};
    return Footprint{targetMask(g), qubitMask(g) & ~targetMask(g), g.diagonalMatrix, swap, kernels::relativeCost(g)};
}

namespace {
std::vector<StateVector::Footprint> footprints(const std::vector<kernels::PreparedGate>& gates)
{
    std::vector<StateVector::Footprint> f(gates.size());
    for (size_t i = 0; i < gates.size(); ++i)
        f[i] = StateVector::footprint(gates[i]);
    return f;
}
}  // namespace

StateVector::Passes StateVector::countPasses(int n, Precision p, const std::vector<kernels::PreparedGate>& gates)
{
    return countPasses(n, p, footprints(gates));
}

StateVector::Passes StateVector::countPasses(int n, Precision p, const std::vector<Footprint>& gates)
{
    Passes passes;
    if (n <= kChunkQubits + 1) {
        passes.singleGates = static_cast<int>(gates.size());
        return passes;
    }
    planRuns(n, tileLowQubits(n, p), gates, [&](int kind, const std::vector<size_t>&, size_t) {
        ++(kind < 0 ? passes.singleGates : kind == 0 ? passes.chunkRuns : kind == 1 ? passes.tileRuns : passes.swapNetworks);
    });
    return passes;
}

double StateVector::plannedCost(int n, Precision p, const std::vector<Footprint>& gates)
{
    const double pass = kernels::passCost();
    double cost = 0;
    if (n <= kChunkQubits + 1) {
        for (const Footprint& g : gates)
            cost += g.cost;
        return cost;
    }
    planRuns(n, tileLowQubits(n, p), gates, [&](int kind, const std::vector<size_t>& run, size_t) {
        if (kind == -2) {
            cost += costAlone(gates[run[0]]);
            return;
        }
        cost += pass;
        for (size_t i : run)
            cost += gates[i].cost;
    });
    return cost;
}

StateVector::Passes StateVector::applyAll(const std::vector<kernels::PreparedGate>& gates, JobControl* job)
{
    Passes passes;
    const auto between = [&](size_t applied) {
        if (job) {
            job->checkpoint();
            job->report(double(applied) / double(std::max<size_t>(1, gates.size())), "simulating");
        }
    };
    if (n_ <= kChunkQubits + 1) {
        for (size_t i = 0; i < gates.size(); ++i) {
            if (i % 256 == 0)
                between(i);
            apply(gates[i]);
        }
        passes.singleGates = static_cast<int>(gates.size());
        return passes;
    }
    const int b = chunkQubits(n_);
    const int w = tileLowQubits(n_, prec_);
    const uint64_t all = n_ >= 64 ? ~uint64_t(0) : (uint64_t(1) << n_) - 1;
    const uint64_t chunkFixed = all & ~((uint64_t(1) << b) - 1);
    const uint64_t tileFixed = ((uint64_t(1) << b) - 1) & ~((uint64_t(1) << w) - 1);
    const bool inPlace = blocks(n_, prec_).tilesInPlace;
    planRuns(n_, w, footprints(gates), [&](int kind, const std::vector<size_t>& run, size_t applied) {
        between(applied);
        if (kind < 0) {
            apply(gates[run[0]]);
            ++passes.singleGates;
            return;
        }
        if (kind == 2) {
            std::vector<std::pair<int, int>> swaps;
            for (size_t i : run)
                swaps.emplace_back(gates[i].targets[0], gates[i].targets[1]);
            if (prec_ == Precision::Double)
                applySwapNetwork(dataDouble(), n_, swaps);
            else
                applySwapNetwork(dataFloat(), n_, swaps);
            ++passes.swapNetworks;
            return;
        }
        const uint64_t fixed = kind == 0 ? chunkFixed : tileFixed;
        std::vector<BlockGate> blockGates;
        blockGates.reserve(run.size());
        for (size_t i : run) {
            if (kind == 0 || inPlace)
                blockGates.push_back(specialise(gates[i], fixed, [](int q) { return q; }));
            else
                blockGates.push_back(specialise(gates[i], fixed, [&](int q) { return q < w ? q : q - b + w; }));
            // Every block applies the same variants: their coefficients are laid out once for the run.
            for (const kernels::PreparedGate* variant : blockGates.back().variants)
                if (variant)
                    kernels::prepareLaneTable(*variant, prec_ == Precision::Single);
        }
        if (kind == 0 || !inPlace)
            passes.composedGates += composeRuns(blockGates, kind == 0, prec_ == Precision::Double ? 16 : 8);
        ++(kind == 0 ? passes.chunkRuns : passes.tileRuns);
        if (kind == 0) {
            if (prec_ == Precision::Double)
                chunkRun(dataDouble(), n_, b, blockGates);
            else
                chunkRun(dataFloat(), n_, b, blockGates);
        } else if (inPlace) {
            if (prec_ == Precision::Double)
                tileRunInPlace(dataDouble(), n_, w, tileFixed, blockGates);
            else
                tileRunInPlace(dataFloat(), n_, w, tileFixed, blockGates);
        } else {
            const uint64_t ahead = static_cast<uint64_t>(kernels::tileRowsAhead());
            if (prec_ == Precision::Double)
                tileRun(dataDouble(), n_, b, w, blockGates, ahead);
            else
                tileRun(dataFloat(), n_, b, w, blockGates, ahead);
        }
    });
    return passes;
}

void StateVector::copyTiles(uint64_t rowsAhead)
{
    if (n_ <= kChunkQubits + 1 || blocks(n_, prec_).tilesInPlace)
        return;
    const int b = chunkQubits(n_), w = tileLowQubits(n_, prec_);
    if (prec_ == Precision::Double)
        tileRun(dataDouble(), n_, b, w, {}, rowsAhead);
    else
        tileRun(dataFloat(), n_, b, w, {}, rowsAhead);
}

namespace {

// A measurement's two passes (probOne, then collapseImpl) walk the state in pieces of up to 2^12 amplitudes on
// one side of the measured qubit (its runs of 2^q amplitudes), each a loop over 16-byte vectors; a qubit below 3
// has runs shorter than a group of 8 amplitudes, which a lane pattern covers instead. The element-by-element
// loops they replace, with an index rebuilt and a branch per amplitude (never vectorised), took half of a
// QASMBench circuit with 9207 resets (bwt_n21).
constexpr int kMeasurePieceQubits = 12;
constexpr int kMeasureGroupQubits = 3;   // amplitudes in a lane pattern: 2^3
constexpr int kMeasureParallelQubits = 16;   // states of more qubits are measured by all the threads

typedef double Double2 __attribute__((vector_size(16)));
// One amplitude as a vector of doubles (the sums are in double for either precision).
inline Double2 amplitudeAsDoubles(const double* p)
{
    Double2 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline Double2 amplitudeAsDoubles(const float* p)
{
    typedef float Float2 __attribute__((vector_size(8)));
    Float2 v;
    std::memcpy(&v, p, sizeof v);
    return __builtin_convertvector(v, Double2);
}

// Sum of |a_j|^2 over `count` amplitudes (a multiple of 4), times weight[j % 4] (1 or 0 per lane pattern, or
// none): four running sums, so the additions do not wait on one another.
template <class T>
double sumSquares(const T* a, int64_t count, const Double2* weight = nullptr)
{
    Double2 s[4] = {};
    for (int64_t j = 0; j < count; j += 4)
        for (int k = 0; k < 4; ++k) {
            const Double2 v = amplitudeAsDoubles(a + 2 * (j + k));
            s[k] += weight ? weight[k] * v * v : v * v;
        }
    const Double2 t = (s[0] + s[1]) + (s[2] + s[3]);
    return t[0] + t[1];
}

template <class T>
double probOne(const T* a, int n, int q)
{
    if (n < kMeasureGroupQubits) {
        double s = 0;
        for (uint64_t i = 0; i < uint64_t(1) << n; ++i)
            if (i >> q & 1)
                s += double(a[2 * i]) * a[2 * i] + double(a[2 * i + 1]) * a[2 * i + 1];
        return s;
    }
    if (q < kMeasureGroupQubits - 1) {
        // Every 4 amplitudes hold the same pattern of bit q (q = 0, 1): weight 1 where it is set.
        Double2 weight[4];
        for (int k = 0; k < 4; ++k)
            weight[k] = Double2{1, 1} * double(k >> q & 1);
        const int pieceQubits = std::min(n, kMeasurePieceQubits);
        const int64_t pieces = int64_t(1) << (n - pieceQubits);
        double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static) if (n > kMeasureParallelQubits)
        for (int64_t p = 0; p < pieces; ++p)
            s += sumSquares(a + 2 * (p << pieceQubits), int64_t(1) << pieceQubits, weight);
        return s;
    }
    const int pieceQubits = std::min(q, kMeasurePieceQubits);
    const int64_t pieces = int64_t(1) << (n - 1 - pieceQubits);   // of the half with bit q set
    double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static) if (n > kMeasureParallelQubits)
    for (int64_t p = 0; p < pieces; ++p) {
        const uint64_t i = uint64_t(p) << pieceQubits;   // index among the amplitudes with bit q set
        const uint64_t idx = ((i >> q) << (q + 1)) | (i & ((uint64_t(1) << q) - 1)) | (uint64_t(1) << q);
        s += sumSquares(a + 2 * idx, int64_t(1) << pieceQubits);
    }
    return s;
}

template <class T>
void collapseImpl(T* a, int n, int q, int outcome, double prob)
{
    typedef T Vec __attribute__((vector_size(16)));
    typedef std::conditional_t<sizeof(T) == 8, int64_t, int32_t> Lane;
    typedef Lane Mask __attribute__((vector_size(16)));
    constexpr int lanes = int(sizeof(Vec) / sizeof(T)), groupVectors = (2 << kMeasureGroupQubits) / lanes;
    const T scale = T(1 / std::sqrt(prob));
    if (n < kMeasureGroupQubits) {
        for (uint64_t i = 0; i < uint64_t(1) << n; ++i) {
            const bool keep = int(i >> q & 1) == outcome;
            a[2 * i] = keep ? a[2 * i] * scale : T(0);
            a[2 * i + 1] = keep ? a[2 * i + 1] * scale : T(0);
        }
        return;
    }
    const int pieceQubits = std::min(n, kMeasurePieceQubits);
    const int64_t pieces = int64_t(1) << (n - pieceQubits), pieceVectors = (int64_t(2) << pieceQubits) / lanes;
    if (q < kMeasureGroupQubits) {
        // Every 8 amplitudes hold the same pattern of bit q: kept lanes scaled, the others cleared (a mask, not a
        // product by 0, which would leave -0 where an amplitude was negative).
        Mask keep[groupVectors];
        for (int v = 0; v < groupVectors; ++v)
            for (int l = 0; l < lanes; ++l)
                keep[v][l] = int(((v * lanes + l) / 2) >> q & 1) == outcome ? Lane(-1) : Lane(0);
#pragma omp parallel for schedule(static) if (n > kMeasureParallelQubits)
        for (int64_t p = 0; p < pieces; ++p) {
            T* const x = a + 2 * (p << pieceQubits);
            for (int64_t v = 0; v < pieceVectors; ++v) {
                Vec y;
                std::memcpy(&y, x + v * lanes, sizeof y);
                y = reinterpret_cast<Vec>(reinterpret_cast<Mask>(y * scale) & keep[v % groupVectors]);
                std::memcpy(x + v * lanes, &y, sizeof y);
            }
        }
        return;
    }
    const int runQubits = std::min(q, kMeasurePieceQubits);   // pieces within one run of bit q
    const int64_t runs = int64_t(1) << (n - runQubits), runVectors = (int64_t(2) << runQubits) / lanes;
#pragma omp parallel for schedule(static) if (n > kMeasureParallelQubits)
    for (int64_t p = 0; p < runs; ++p) {
        T* const x = a + 2 * (p << runQubits);
        if (int((uint64_t(p) << runQubits >> q) & 1) != outcome) {
            std::memset(x, 0, size_t(runVectors) * sizeof(Vec));
            continue;
        }
        for (int64_t v = 0; v < runVectors; ++v) {
            Vec y;
            std::memcpy(&y, x + v * lanes, sizeof y);
            y *= scale;
            std::memcpy(x + v * lanes, &y, sizeof y);
        }
    }
}

// A reset measured 1: the collapse onto 1 and the flip back to |0> in one pass, each amplitude with bit q set
// scaled into its partner without it, and cleared.
template <class T>
void resetFromOne(T* a, int n, int q, double prob)
{
    typedef T Vec __attribute__((vector_size(16)));
    constexpr int lanes = int(sizeof(Vec) / sizeof(T));
    const T scale = T(1 / std::sqrt(prob));
    const uint64_t bit = uint64_t(1) << q;
    if (q < kMeasureGroupQubits) {
        // Partners inside groups of 8 amplitudes (or the whole of a smaller state).
        const int groupQubits = std::min(n, kMeasureGroupQubits);
        const int64_t groups = int64_t(1) << (n - groupQubits);
#pragma omp parallel for schedule(static) if (n > kMeasureParallelQubits)
        for (int64_t g = 0; g < groups; ++g) {
            T* const x = a + 2 * (g << groupQubits);
            for (uint64_t k = 0; k < uint64_t(1) << groupQubits; ++k)
                if (!(k & bit)) {
                    x[2 * k] = x[2 * (k | bit)] * scale;
                    x[2 * k + 1] = x[2 * (k | bit) + 1] * scale;
                    x[2 * (k | bit)] = x[2 * (k | bit) + 1] = T(0);
                }
        }
        return;
    }
    const int pieceQubits = std::min(q, kMeasurePieceQubits);
    const int64_t pieces = int64_t(1) << (n - 1 - pieceQubits), pieceVectors = (int64_t(2) << pieceQubits) / lanes;
#pragma omp parallel for schedule(static) if (n > kMeasureParallelQubits)
    for (int64_t p = 0; p < pieces; ++p) {
        const uint64_t i = uint64_t(p) << pieceQubits;   // index among the amplitudes with bit q clear
        T* const to = a + 2 * (((i >> q) << (q + 1)) | (i & (bit - 1)));
        T* const from = to + 2 * bit;
        for (int64_t v = 0; v < pieceVectors; ++v) {
            Vec y;
            std::memcpy(&y, from + v * lanes, sizeof y);
            y *= scale;
            std::memcpy(to + v * lanes, &y, sizeof y);
        }
        std::memset(from, 0, size_t(pieceVectors) * sizeof(Vec));
    }
}

// Several qubits measured at once (Qiskit Aer's measurement of a list of qubits): one pass for the probabilities
// of all their 2^k outcomes, one to project onto the outcome drawn, where each qubit had taken two. The state is
// walked in pieces on which the qubits' values are constant: 2^min(lowest qubit, 12) amplitudes.
inline uint64_t outcomeOf(uint64_t index, const std::vector<int>& qubits)
{
    uint64_t bits = 0;
    for (size_t j = 0; j < qubits.size(); ++j)
        bits |= (index >> qubits[j] & 1) << j;
    return bits;
}

template <class T>
std::vector<double> outcomeProbabilitiesImpl(const T* a, int n, const std::vector<int>& qubits)
{
    const int pieceQubits = std::min(*std::min_element(qubits.begin(), qubits.end()), kMeasurePieceQubits);
    const int64_t pieces = int64_t(1) << (n - pieceQubits), length = int64_t(1) << pieceQubits;
    std::vector<double> table(size_t(1) << qubits.size(), 0.0);
#pragma omp parallel if (n > kMeasureParallelQubits)
    {
        std::vector<double> mine(table.size(), 0.0);
#pragma omp for schedule(static) nowait
        for (int64_t p = 0; p < pieces; ++p) {
            const T* x = a + 2 * (p << pieceQubits);
            double sum = 0;
            if (length >= 4) {
                sum = sumSquares(x, length);
            } else {
                for (int64_t k = 0; k < 2 * length; ++k)
                    sum += double(x[k]) * double(x[k]);
            }
            mine[outcomeOf(uint64_t(p) << pieceQubits, qubits)] += sum;
        }
#pragma omp critical(spyglass_outcome_probabilities)
        for (size_t o = 0; o < table.size(); ++o)
            table[o] += mine[o];
    }
    return table;
}

template <class T>
void projectImpl(T* a, int n, const std::vector<int>& qubits, uint64_t target, uint64_t flip, double prob)
{
    const int pieceQubits = std::min(*std::min_element(qubits.begin(), qubits.end()), kMeasurePieceQubits);
    const int64_t pieces = int64_t(1) << (n - pieceQubits), reals = int64_t(2) << pieceQubits;
    const T scale = T(1 / std::sqrt(prob));
    uint64_t flipIndex = 0;   // the flipped qubits as bits of an amplitude's index
    for (size_t j = 0; j < qubits.size(); ++j)
        if (flip >> j & 1)
            flipIndex |= uint64_t(1) << qubits[j];
    // The pieces of the target outcome, from themselves or (flip) from those of the outcome measured, whose
    // pieces no other thread writes in this loop; then every other piece cleared.
#pragma omp parallel if (n > kMeasureParallelQubits)
    {
#pragma omp for schedule(static)
        for (int64_t p = 0; p < pieces; ++p) {
            const uint64_t start = uint64_t(p) << pieceQubits;
            if (outcomeOf(start, qubits) != target)
                continue;
            T* const to = a + 2 * start;
            const T* const from = a + 2 * (start ^ flipIndex);
            for (int64_t k = 0; k < reals; ++k)
                to[k] = from[k] * scale;
        }
#pragma omp for schedule(static)
        for (int64_t p = 0; p < pieces; ++p) {
            const uint64_t start = uint64_t(p) << pieceQubits;
            if (outcomeOf(start, qubits) != target)
                std::memset(a + 2 * start, 0, size_t(reals) * sizeof(T));
        }
    }
}

template <class T>
double norm2Impl(const T* a, int n)
{
    const int64_t len = int64_t(2) << n;
    double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static) if (len > (int64_t(1) << 18))
    for (int64_t i = 0; i < len; ++i)
        s += double(a[i]) * a[i];
    return s;
}

// <psi|P|psi> for one Pauli string restricted to amplitudes [begin, end): sum_i conj(psi[i^x]) s(i) psi[i]
// with s(i) = (-1)^{|i & z|}, then multiplied by i^numY (only the real part is kept: P is Hermitian).
template <class T>
double termRange(const T* a, const PauliTerm& t, uint64_t begin, uint64_t end)
{
    double sr = 0, si = 0;
    const uint64_t x = t.xMask, z = t.zMask;
    if (z == 0 && t.numY == 0) {
        // P = product of X: terms i and i^x are complex conjugates, so sum one of each pair, twice the real part.
        const uint64_t low = x & (~x + 1);
        for (uint64_t i = begin; i < end; ++i) {
            if (i & low)
                continue;
            const uint64_t j = i ^ x;
            sr += 2 * (double(a[2 * j]) * a[2 * i] + double(a[2 * j + 1]) * a[2 * i + 1]);
        }
        return t.coeff * sr;
    }
    if (z == 0) {
        for (uint64_t i = begin; i < end; ++i) {
            const uint64_t j = i ^ x;
            const double ar = a[2 * j], ai = -double(a[2 * j + 1]), br = a[2 * i], bi = a[2 * i + 1];
            sr += ar * br - ai * bi;
            si += ar * bi + ai * br;
        }
    } else {
        for (uint64_t i = begin; i < end; ++i) {
            const uint64_t j = i ^ x;
            const double sign = parity(i & z) ? -1.0 : 1.0;
            const double ar = a[2 * j], ai = -double(a[2 * j + 1]), br = a[2 * i], bi = a[2 * i + 1];
            sr += sign * (ar * br - ai * bi);
            si += sign * (ar * bi + ai * br);
        }
    }
    switch (t.numY & 3) {
    case 0: return t.coeff * sr;
    case 1: return -t.coeff * si;
    case 2: return -t.coeff * sr;
    default: return t.coeff * si;
    }
}

template <class T>
double expectationImpl(const T* a, int n, const PauliSum& h)
{
    // Work in blocks of 2^b amplitudes that stay in cache: all diagonal terms and every term that only flips
    // qubits inside the block are summed in one memory pass; terms flipping higher qubits get a pass each.
    const int b = std::min(n, kChunkQubits);
    const int64_t blocks = int64_t(1) << (n - b);
    const int64_t blen = int64_t(1) << b;
    std::vector<PauliTerm> diag, low, high;
    for (const PauliTerm& t : h.terms)
        (t.xMask == 0 ? diag : t.xMask < (uint64_t(1) << b) ? low : high).push_back(t);
    std::vector<double> diagTable(diag.size() * 256);
    for (size_t j = 0; j < diag.size(); ++j)
        for (uint64_t k = 0; k < 256; ++k)
            diagTable[j * 256 + k] = parity(k & diag[j].zMask) ? -diag[j].coeff : diag[j].coeff;
    double total = 0;
#pragma omp parallel for reduction(+ : total) schedule(static) if (blocks >= 4)
    for (int64_t blk = 0; blk < blocks; ++blk) {
        const uint64_t begin = uint64_t(blk * blen), end = begin + uint64_t(blen);
        if (!diag.empty()) {
            // parity(i & z) = parity(low 8 bits) ^ parity(the rest): the low part comes from a per-term table of
            // signed coefficients, so the inner loop is a plain vectorisable sum.
            double fac[256];
            for (uint64_t i0 = begin; i0 < end; i0 += 256) {
                const int len = static_cast<int>(std::min<uint64_t>(256, end - i0));
                for (int k = 0; k < len; ++k)
                    fac[k] = 0;
                for (size_t j = 0; j < diag.size(); ++j) {
                    const double* tab = &diagTable[j * 256];
                    if (parity(i0 & diag[j].zMask & ~uint64_t(255)))
                        for (int k = 0; k < len; ++k)
                            fac[k] -= tab[k];
                    else
                        for (int k = 0; k < len; ++k)
                            fac[k] += tab[k];
                }
                double s = 0;
                for (int k = 0; k < len; ++k) {
                    const uint64_t i = i0 + uint64_t(k);
                    s += fac[k] * (double(a[2 * i]) * a[2 * i] + double(a[2 * i + 1]) * a[2 * i + 1]);
                }
                total += s;
            }
        }
        for (const PauliTerm& t : low)
            total += termRange(a, t, begin, end);
    }
    for (const PauliTerm& t : high) {
        const int64_t len = int64_t(1) << n;
        const int64_t parts = std::min<int64_t>(len / 4096 + 1, 64);
        double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static) if (len > (int64_t(1) << 17))
        for (int64_t p = 0; p < parts; ++p)
            s += termRange(a, t, uint64_t(len * p / parts), uint64_t(len * (p + 1) / parts));
        total += s;
    }
    return total;
}

template <class T>
std::vector<uint64_t> sampleImpl(const T* a, int n, int shots, std::mt19937_64& rng)
{
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<std::pair<double, int>> r(static_cast<size_t>(shots));
    for (int s = 0; s < shots; ++s)
        r[s] = {u(rng), s};
    std::sort(r.begin(), r.end());
    std::vector<uint64_t> out(static_cast<size_t>(shots), 0);
    const uint64_t len = uint64_t(1) << n;
    // Total first, so rounding in the sum cannot leave shots unassigned.
    double total = norm2Impl(a, n);
    double acc = 0;
    size_t k = 0;
    uint64_t last = 0;
    for (uint64_t i = 0; i < len && k < r.size(); ++i) {
        const double p = double(a[2 * i]) * a[2 * i] + double(a[2 * i + 1]) * a[2 * i + 1];
        if (p == 0)
            continue;
        last = i;
        acc += p / total;
        while (k < r.size() && r[k].first < acc)
            out[r[k++].second] = i;
    }
    while (k < r.size())
        out[r[k++].second] = last;
    return out;
}

}  // namespace

double StateVector::probabilityOfOne(int q) const
{
    return prec_ == Precision::Double ? probOne(as<double>(data_), n_, q) : probOne(as<float>(data_), n_, q);
}

void StateVector::collapse(int q, int outcome, double prob)
{
    if (prec_ == Precision::Double)
        collapseImpl(dataDouble(), n_, q, outcome, prob);
    else
        collapseImpl(dataFloat(), n_, q, outcome, prob);
}

void StateVector::resetAfter(int q, int outcome, double prob)
{
    if (outcome == 0)
        collapse(q, 0, prob);
    else if (prec_ == Precision::Double)
        resetFromOne(dataDouble(), n_, q, prob);
    else
        resetFromOne(dataFloat(), n_, q, prob);
}

std::vector<double> StateVector::outcomeProbabilities(const std::vector<int>& qubits) const
{
    return prec_ == Precision::Double ? outcomeProbabilitiesImpl(as<double>(data_), n_, qubits) : outcomeProbabilitiesImpl(as<float>(data_), n_, qubits);
}

void StateVector::projectOntoOutcome(const std::vector<int>& qubits, uint64_t target, uint64_t flip, double prob)
{
    if (prec_ == Precision::Double)
        projectImpl(dataDouble(), n_, qubits, target, flip, prob);
    else
        projectImpl(dataFloat(), n_, qubits, target, flip, prob);
}

double StateVector::norm2() const
{
    return prec_ == Precision::Double ? norm2Impl(as<double>(data_), n_) : norm2Impl(as<float>(data_), n_);
}

double StateVector::expectation(const PauliSum& h) const
{
    if (h.minQubits() > n_)
        throw InputError(SourceLocation{}, "the Hamiltonian acts on qubit " + std::to_string(h.minQubits() - 1) + " but the state has " +
                                               std::to_string(n_) + " qubits");
    return prec_ == Precision::Double ? expectationImpl(as<double>(data_), n_, h) : expectationImpl(as<float>(data_), n_, h);
}

std::vector<uint64_t> StateVector::sample(int shots, std::mt19937_64& rng) const
{
    return prec_ == Precision::Double ? sampleImpl(as<double>(data_), n_, shots, rng) : sampleImpl(as<float>(data_), n_, shots, rng);
}

}  // namespace spyglass::quantum
