// The MPI engine behind distributed_statevector.h (compiled only when CMake finds MPI).
#include "core/quantum/distributed_statevector.h"

#include "core/common/diagnostics.h"
#include "core/quantum/gates.h"

#include <mpi.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>

namespace spyglass::quantum::distributed {

namespace {

bool g_initialised = false;
int g_rank = 0, g_ranks = 1;

// Amplitudes per MPI message: 16 MiB in complex128, far below MPI's 2^31-element count limit, and the size of the
// two staging buffers an exchange needs besides the state.
constexpr uint64_t kMessageAmplitudes = uint64_t(1) << 20;

double sumOverRanks(double v)
{
    // Reduce then broadcast, so every rank holds the same bits (the optimiser's decisions depend on them).
    if (!g_initialised)
        return v;
    double total = 0;
    MPI_Reduce(&v, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Bcast(&total, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return total;
}

}  // namespace

std::optional<std::string> init(int* argc, char*** argv)
{
    if (!launchedUnderMpi())
        return std::nullopt;
    int provided = 0;
    // Only the main thread calls MPI; OpenMP threads run the kernels in between.
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    g_initialised = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_ranks);
    if (g_rank != 0) {
        std::fflush(stdout);
        std::fflush(stderr);
        if (!std::freopen("/dev/null", "w", stdout) || !std::freopen("/dev/null", "w", stderr))
            return std::string("cannot silence rank ") + std::to_string(g_rank) + "'s output";
    }
    if (!std::has_single_bit(unsigned(g_ranks)))
        return "the state vector is split in halves: the rank count must be a power of two (1, 2, 4, 8, ...), not " + std::to_string(g_ranks);
    return std::nullopt;
}

void finalize()
{
    if (g_initialised)
        MPI_Finalize();
    g_initialised = false;
}

bool builtWithMpi() { return true; }
int rank() { return g_rank; }
int ranks() { return g_ranks; }

void agree(const std::optional<std::string>& error)
{
    if (!g_initialised) {
        if (error)
            throw InputError(SourceLocation{}, *error);
        return;
    }
    int mine = error ? g_rank : g_ranks, first = g_ranks;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == g_ranks)
        return;
    std::string text = g_rank == first ? *error : std::string();
    int len = static_cast<int>(text.size());
    MPI_Bcast(&len, 1, MPI_INT, first, MPI_COMM_WORLD);
    text.resize(static_cast<size_t>(len));
    MPI_Bcast(text.data(), len, MPI_CHAR, first, MPI_COMM_WORLD);
    if (first != 0)
        text = "rank " + std::to_string(first) + ": " + text;
    throw InputError(SourceLocation{}, text);
}

void barrier()
{
    if (g_initialised)
        MPI_Barrier(MPI_COMM_WORLD);
}

void inTurn(const std::function<void()>& fn)
{
    std::optional<std::string> error;
    for (int r = 0; r < g_ranks; ++r) {
        if (r == g_rank && !error) {
            try {
                fn();
            } catch (const InputError& e) {
                error = e.what();
            } catch (const std::exception& e) {
                error = e.what();
            }
        }
        barrier();
    }
    agree(error);
}

uint64_t broadcast(uint64_t v)
{
    if (g_initialised)
        MPI_Bcast(&v, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    return v;
}

double maxOverRanks(double v)
{
    double m = v;
    if (g_initialised)
        MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

struct DistributedState::Impl {
    int n = 0;
    Precision prec = Precision::Double;
    int k = 0;                 // global qubits
    int minLocal = 1;
    bool holds = false;
    MPI_Comm comm = MPI_COMM_NULL;   // the ranks that hold amplitudes
    std::unique_ptr<StateVector> local;
    QubitMap map{0, 0};
    Traffic traffic;
    std::vector<double> sendBuf, recvBuf;   // staging for exchanges (doubles; complex64 states use half)

    int L() const { return n - k; }
    int ampBytes() const { return prec == Precision::Double ? 16 : 8; }
    uint64_t globalMask() const { return n >= 64 ? ~uint64_t(0) << L() : ((uint64_t(1) << n) - 1) & ~((uint64_t(1) << L()) - 1); }
    uint64_t globalValues() const { return uint64_t(g_rank) << L(); }

    // Zeroes the whole local state.
    void zero()
    {
        local->setZero();
        if (prec == Precision::Double)
            local->dataDouble()[0] = 0;
        else
            local->dataFloat()[0] = 0;
    }

    // Global slot `slot` trades places with local qubit `p`: the amplitudes whose bit p differs from this rank's
    // bit of the slot go to the partner rank (which sends the matching half back into the same places).
    template <class T>
    void exchange(T* a, int slot, int p)
    {
        const int partner = g_rank ^ (1 << slot);
        const uint64_t away = uint64_t(((g_rank >> slot) & 1) ^ 1);
        const uint64_t half = uint64_t(1) << (L() - 1), run = uint64_t(1) << p;
        const uint64_t chunk = std::min(half, kMessageAmplitudes);
        T* send = reinterpret_cast<T*>(sendBuf.data());
        T* recv = reinterpret_cast<T*>(recvBuf.data());
        // Half index j -> local index: bit `away` inserted at position p; runs of 2^p contiguous amplitudes.
        const auto copyRuns = [&](uint64_t j0, uint64_t count, bool pack) {
            uint64_t j = j0;
            while (j < j0 + count) {
                const uint64_t inRun = j & (run - 1), len = std::min(run - inRun, j0 + count - j);
                const uint64_t idx = ((j >> p) << (p + 1)) | (away << p) | inRun;
                if (pack)
                    std::memcpy(send + 2 * (j - j0), a + 2 * idx, 2 * len * sizeof(T));
                else
                    std::memcpy(a + 2 * idx, recv + 2 * (j - j0), 2 * len * sizeof(T));
                j += len;
            }
        };
        const MPI_Datatype type = sizeof(T) == 8 ? MPI_DOUBLE : MPI_FLOAT;
        for (uint64_t j0 = 0; j0 < half; j0 += chunk) {
            copyRuns(j0, chunk, true);
            MPI_Sendrecv(send, static_cast<int>(2 * chunk), type, partner, 0, recv, static_cast<int>(2 * chunk), type, partner, 0, comm,
                         MPI_STATUS_IGNORE);
            copyRuns(j0, chunk, false);
        }
        ++traffic.exchanges;
        traffic.bytesSent += half * uint64_t(ampBytes());
    }

    // A one-target gate on a global qubit with local controls (distributed_plan.h: exchangeInPlace): this rank
    // holds the target's value b, its partner 1 - b; both send the amplitudes whose local controls are all 1 and
    // each keeps row b of the matrix applied to (its own, the partner's) pair.
    template <class T>
    void inPlace(T* a, const kernels::PreparedGate& g)
    {
        const int slot = map.physical(g.targets[0]) - L();
        std::vector<int> localControls;
        for (int c : g.controls) {
            const int p = map.physical(c);
            if (p >= L() && !((g_rank >> (p - L())) & 1))
                return;   // a global control is 0 here, and on the partner (it differs in the target's bit only)
            if (p < L())
                localControls.push_back(p);
        }
        std::sort(localControls.begin(), localControls.end());
        const int partner = g_rank ^ (1 << slot), b = (g_rank >> slot) & 1;
        const double* m = g.matrix.data();   // 2x2, (re, im) interleaved, row-major
        const double ur = m[2 * (2 * b + b)], ui = m[2 * (2 * b + b) + 1];
        const double vr = m[2 * (2 * b + (1 - b))], vi = m[2 * (2 * b + (1 - b)) + 1];
        const uint64_t count = inPlaceAmplitudes(map, g), chunk = std::min(count, kMessageAmplitudes);
        ensureBuffers(chunk);
        T* send = reinterpret_cast<T*>(sendBuf.data());
        T* recv = reinterpret_cast<T*>(recvBuf.data());
        const auto index = [&](uint64_t j) {
            for (int c : localControls)
                j = ((j >> c) << (c + 1)) | (uint64_t(1) << c) | (j & ((uint64_t(1) << c) - 1));
            return j;
        };
        const MPI_Datatype type = sizeof(T) == 8 ? MPI_DOUBLE : MPI_FLOAT;
        for (uint64_t j0 = 0; j0 < count; j0 += chunk) {
            for (uint64_t j = 0; j < chunk; ++j) {
                const uint64_t i = index(j0 + j);
                send[2 * j] = a[2 * i];
                send[2 * j + 1] = a[2 * i + 1];
            }
            MPI_Sendrecv(send, static_cast<int>(2 * chunk), type, partner, 1, recv, static_cast<int>(2 * chunk), type, partner, 1, comm,
                         MPI_STATUS_IGNORE);
            for (uint64_t j = 0; j < chunk; ++j) {
                const uint64_t i = index(j0 + j);
                const double xr = send[2 * j], xi = send[2 * j + 1], yr = recv[2 * j], yi = recv[2 * j + 1];
                a[2 * i] = T(ur * xr - ui * xi + vr * yr - vi * yi);
                a[2 * i + 1] = T(ur * xi + ui * xr + vr * yi + vi * yr);
            }
        }
        ++traffic.exchanges;
        traffic.bytesSent += count * uint64_t(ampBytes());
    }

    void ensureBuffers(uint64_t amplitudes)
    {
        if (sendBuf.size() < 2 * amplitudes) {
            sendBuf.resize(2 * amplitudes);
            recvBuf.resize(2 * amplitudes);
        }
    }

    void swap(const Swap& s)
    {
        ensureBuffers(std::min(uint64_t(1) << (L() - 1), kMessageAmplitudes));
        if (prec == Precision::Double)
            exchange(local->dataDouble(), s.slot, s.local);
        else
            exchange(local->dataFloat(), s.slot, s.local);
    }

    // g (logical qubits) on this rank's local state under the current map; nullopt when it does nothing here.
    std::optional<kernels::PreparedGate> localGate(const kernels::PreparedGate& g) const
    {
        std::vector<int> controls, targets;
        for (int c : g.controls)
            controls.push_back(map.physical(c));
        for (int j = 0; j < g.k; ++j)
            targets.push_back(map.physical(g.targets[j]));
        kernels::PreparedGate phys = kernels::prepare(controls, targets, g.matrix);
        kernels::carryProgram(phys, g, targets);
        return restrictGate(phys, globalMask(), globalValues(), [](int q) { return q; });
    }
};

DistributedState::DistributedState(int numQubits, Precision p, int minLocal) : impl_(std::make_unique<Impl>())
{
    Impl& s = *impl_;
    s.n = numQubits;
    s.prec = p;
    s.minLocal = std::max(1, minLocal);
    const int launched = std::countr_zero(unsigned(g_ranks));
    s.k = std::clamp(std::min(launched, numQubits - s.minLocal), 0, launched);
    s.map = QubitMap(numQubits, s.k);
    s.holds = g_rank < (1 << s.k);
    if (g_initialised)
        MPI_Comm_split(MPI_COMM_WORLD, s.holds ? 0 : MPI_UNDEFINED, g_rank, &s.comm);
    // Every rank of a node allocates its part at once: check the node's total before anyone allocates.
    std::optional<std::string> error;
    int onNode = 1;
    if (g_initialised) {
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &node);
        int mine = s.holds ? 1 : 0;
        MPI_Allreduce(&mine, &onNode, 1, MPI_INT, MPI_SUM, node);
        MPI_Comm_free(&node);
    }
    if (s.holds) {
        try {
            checkMemory(s.L(), p, std::max(1, onNode));
        } catch (const InputError& e) {
            error = std::string(e.what()) + (onNode > 1 ? " (" + std::to_string(onNode) + " ranks share this node's memory)" : std::string());
        }
    }
    agree(error);
    if (s.holds) {
        try {
            s.local = std::make_unique<StateVector>(s.L(), p);
        } catch (const InputError& e) {
            error = e.what();
        } catch (const std::bad_alloc&) {
            error = "out of memory allocating " + std::to_string(s.L()) + " qubits";
        }
    }
    agree(error);
    setZero();
}

DistributedState::~DistributedState()
{
    if (impl_->comm != MPI_COMM_NULL)
        MPI_Comm_free(&impl_->comm);
}

int DistributedState::numQubits() const { return impl_->n; }
int DistributedState::usedRanks() const { return 1 << impl_->k; }
bool DistributedState::holdsAmplitudes() const { return impl_->holds; }
const QubitMap& DistributedState::map() const { return impl_->map; }
const StateVector* DistributedState::local() const { return impl_->local.get(); }
Traffic DistributedState::traffic() const { return impl_->traffic; }
uint64_t DistributedState::offset() const { return impl_->holds ? uint64_t(g_rank) << impl_->L() : 0; }

std::string DistributedState::note() const
{
    const Impl& s = *impl_;
    if (usedRanks() == g_ranks)
        return {};
    std::ostringstream m;
    m << "note: " << s.n << " qubits over " << g_ranks << " ranks would leave fewer than " << s.minLocal
      << " qubits per rank (the circuit's widest gate must fit in one); the state is split over " << usedRanks()
      << (usedRanks() == 1 ? " rank" : " ranks") << " and the others wait";
    return m.str();
}

void DistributedState::setZero()
{
    Impl& s = *impl_;
    s.map = QubitMap(s.n, s.k);
    if (!s.holds)
        return;
    if (g_rank == 0)
        s.local->setZero();
    else
        s.zero();
}

void DistributedState::copyFrom(const DistributedState& o)
{
    if (o.impl_->n != impl_->n || o.impl_->k != impl_->k)
        throw std::invalid_argument("distributed state shapes differ");
    impl_->map = o.impl_->map;
    if (impl_->holds)
        impl_->local->copyFrom(*o.impl_->local);
}

void DistributedState::applyAll(const std::vector<kernels::PreparedGate>& gates, JobControl* job)
{
    Impl& s = *impl_;
    if (!s.holds)
        return;
    std::vector<kernels::PreparedGate> run;
    for (size_t i = 0; i < gates.size(); ++i) {
        if (relabel(s.map, gates[i]))
            continue;
        if (exchangeInPlace(s.map, gates, i)) {
            s.local->applyAll(run, job);
            run.clear();
            if (s.prec == Precision::Double)
                s.inPlace(s.local->dataDouble(), gates[i]);
            else
                s.inPlace(s.local->dataFloat(), gates[i]);
            continue;
        }
        const std::vector<Swap> swaps = swapsBefore(s.map, gates, i);
        if (!swaps.empty()) {
            // The map has already moved: apply the run under the placement it was prepared for.
            s.local->applyAll(run, job);
            run.clear();
            for (const Swap& w : swaps)
                s.swap(w);
        }
        if (auto g = s.localGate(gates[i]))
            run.push_back(std::move(*g));
    }
    s.local->applyAll(run, job);
}

void DistributedState::restoreOrder()
{
    Impl& s = *impl_;
    if (!s.holds || s.map.identity())
        return;
    const Restore r = restoreIdentity(s.map);
    for (const Swap& w : r.swaps)
        s.swap(w);
    std::vector<kernels::PreparedGate> swaps;
    const std::vector<double> m = interleavedMatrix(stdTargetMatrix("swap", {}));
    for (const auto& [a, b] : r.localSwaps)
        swaps.push_back(kernels::prepare({}, {a, b}, m));
    s.local->applyAll(swaps);
}

double DistributedState::probabilityOfOne(int q) const
{
    const Impl& s = *impl_;
    double mine = 0;
    if (s.holds) {
        const int p = s.map.physical(q);
        mine = p < s.L() ? s.local->probabilityOfOne(p) : ((g_rank >> (p - s.L())) & 1) ? s.local->norm2() : 0.0;
    }
    return sumOverRanks(mine);
}

void DistributedState::collapse(int q, int outcome, double prob)
{
    Impl& s = *impl_;
    if (!s.holds)
        return;
    const int p = s.map.physical(q);
    if (p < s.L()) {
        s.local->collapse(p, outcome, prob);
    } else if (((g_rank >> (p - s.L())) & 1) == outcome) {
        const double f = 1 / std::sqrt(prob);
        s.local->apply(kernels::prepare({}, {0}, {f, 0, 0, 0, 0, 0, f, 0}));
    } else {
        s.zero();
    }
}

void DistributedState::resetAfter(int q, int outcome, double prob)
{
    // Every rank takes the same steps (apply is collective), whether the qubit is local or global.
    collapse(q, outcome, prob);
    if (outcome)
        apply(kernels::prepare({}, {q}, {0, 0, 1, 0, 1, 0, 0, 0}));
}

double DistributedState::expectation(const PauliSum& h)
{
    Impl& s = *impl_;
    if (h.minQubits() > s.n)
        throw InputError(SourceLocation{}, "the Hamiltonian acts on qubit " + std::to_string(h.minQubits() - 1) + " but the state has " +
                                               std::to_string(s.n) + " qubits");
    double mine = 0;
    if (s.holds) {
        const int L = s.L();
        const auto physMask = [&](uint64_t logical) {
            uint64_t m = 0;
            for (int q = 0; q < s.n; ++q)
                if (logical >> q & 1)
                    m |= uint64_t(1) << s.map.physical(q);
            return m;
        };
        const uint64_t localMask = (uint64_t(1) << L) - 1;
        std::vector<PauliTerm> left = h.terms;
        // Terms flipping only local qubits are summed now; a term flipping a global qubit waits until that qubit
        // has been swapped with a local one that no waiting term flips.
        while (!left.empty()) {
            PauliSum now;
            std::vector<PauliTerm> later;
            uint64_t laterFlips = 0;
            for (const PauliTerm& t : left) {
                const uint64_t x = physMask(t.xMask), z = physMask(t.zMask);
                if (x & ~localMask) {
                    later.push_back(t);
                    laterFlips |= t.xMask;
                    continue;
                }
                PauliTerm lt = t;
                lt.xMask = x;
                lt.zMask = z & localMask;
                if (std::popcount((z >> L) & uint64_t(g_rank)) & 1)
                    lt.coeff = -lt.coeff;
                now.terms.push_back(lt);
            }
            if (!now.terms.empty())
                mine += s.local->expectation(now);
            if (later.empty())
                break;
            std::vector<char> taken(static_cast<size_t>(L), 0);
            for (int slot = 0; slot < s.k; ++slot) {
                const int q = s.map.logical(L + slot);
                if (!(laterFlips >> q & 1))
                    continue;
                int best = -1;
                for (int p = L - 1; p >= 0; --p) {
                    if (taken[p])
                        continue;
                    const bool flipped = laterFlips >> s.map.logical(p) & 1;
                    if (best < 0 || (!flipped && (laterFlips >> s.map.logical(best) & 1)))
                        best = p;
                }
                taken[best] = 1;
                const Swap w{slot, best};
                s.map.swapGlobalLocal(w.slot, w.local);
                s.swap(w);
            }
            left = std::move(later);
        }
    }
    return sumOverRanks(mine);
}

std::vector<uint64_t> DistributedState::sample(int shots, std::mt19937_64& rng)
{
    Impl& s = *impl_;
    restoreOrder();
    // The draws of StateVector::sample: sorted uniforms against the cumulative distribution in logical order.
    // Each rank walks its own range from the cumulative probability of the ranks before it (per-rank sums from
    // an Allgather, added in rank order on every rank, so the boundaries agree everywhere).
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<std::pair<double, int>> r(static_cast<size_t>(shots));
    for (int i = 0; i < shots; ++i)
        r[i] = {u(rng), i};
    std::sort(r.begin(), r.end());
    double mine = s.holds ? s.local->norm2() : 0.0;
    std::vector<double> sums(static_cast<size_t>(g_ranks), mine);
    if (g_initialised)
        MPI_Allgather(&mine, 1, MPI_DOUBLE, sums.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD);
    double total = 0;
    for (double v : sums)
        total += v;
    std::vector<double> start(static_cast<size_t>(g_ranks) + 1, 0.0);
    for (int q = 0; q < g_ranks; ++q)
        start[q + 1] = start[q] + sums[q] / total;
    int lastNonZero = 0;
    for (int q = 0; q < g_ranks; ++q)
        if (sums[q] > 0)
            lastNonZero = q;
    std::vector<uint64_t> out(static_cast<size_t>(shots), 0);
    if (s.holds && sums[g_rank] > 0) {
        const double end = g_rank == lastNonZero ? std::numeric_limits<double>::infinity() : start[g_rank + 1];
        size_t k = std::lower_bound(r.begin(), r.end(), std::make_pair(start[g_rank], -1)) - r.begin();
        const uint64_t base = offset(), len = s.local->size();
        double acc = start[g_rank];
        uint64_t last = base;
        for (uint64_t i = 0; i < len && k < r.size() && r[k].first < end; ++i) {
            const cplx a = s.local->amplitude(i);
            const double p = std::norm(a);
            if (p == 0)
                continue;
            last = base + i;
            acc += p / total;
            while (k < r.size() && r[k].first < acc && r[k].first < end)
                out[r[k++].second] = last;
        }
        while (k < r.size() && r[k].first < end)
            out[r[k++].second] = last;
    }
    if (g_initialised) {
        // Every shot was assigned on exactly one rank (the others hold 0).
        for (size_t at = 0; at < out.size(); at += kMessageAmplitudes) {
            const int count = static_cast<int>(std::min<uint64_t>(kMessageAmplitudes, out.size() - at));
            MPI_Allreduce(MPI_IN_PLACE, out.data() + at, count, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
        }
    }
    return out;
}

}  // namespace spyglass::quantum::distributed
