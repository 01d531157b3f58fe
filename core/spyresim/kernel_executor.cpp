#include "core/spyresim/kernel_executor.h"

#include "core/common/diagnostics.h"
#include "core/spyre/body_fn.h"
#include "core/spyresim/gemm_f32.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>

namespace spyglass::spyresim {

using spyre::AffineExpr;
using spyre::BodyFn;
using spyre::Kernel;
using spyre::Stmt;
using spyre::StmtKind;

namespace {

constexpr int kLanes = 64;   // one stick of the device format: the SFU's vector width
using LaneArray = std::array<float, kLanes>;
using Range = std::pair<int64_t, int64_t>;   // [lo, hi)
using Box = std::vector<Range>;              // one range per var of a group (iteration or reduction vars)

enum class ReduceOp { Sum, Max, Min, Prod };

// A group of cores that share one slice of the iteration vars: together they cover the reduction (a reduction
// split over cores is summed in fp32 here, in core order; the timing model charges the partial-sum exchange).
struct WorkItem {
    std::vector<int> cores;
    std::vector<Box> iterBoxes;   // per iteration-var tile: the group's part of it
    std::vector<Box> redBoxes;    // every member's reduction part, per reduction-var tile
    std::vector<int> redBoxCore;  // the member core each reduction part belongs to
};

// How one access of a kernel meets LX: not at all, read from LX (must be held), or filling it (store, DMA load).
struct LxUse {
    LxResidency* residency = nullptr;
    bool check = false;   // read without DMA: the core must hold the stick
};

[[noreturn]] void fail(const Kernel& k, const std::string& what)
{
    throw InputError(SourceLocation{}, "kernel " + k.name + " (" + k.op + "): " + what);
}

// Device word offsets of host elements h0, h0 + step, ... (n of them); -1 for an element outside the tensor.
void deviceOffsets(const DeviceTensor& t, int64_t h0, int64_t step, int n, int64_t* out)
{
    if (step == 0) {
        const int64_t o = t.deviceOffset(h0);
        std::fill(out, out + n, o);
        return;
    }
    if (step > 0 && h0 >= 0 && h0 + step * (n - 1) < t.hostElements()) {
        const int d = t.dimWithStride(step);
        if (d >= 0) {
            const int64_t c = (h0 / t.hostStrides()[d]) % t.shape()[d];
            if (c + n - 1 < t.shape()[d]) {
                const std::vector<int64_t>& table = t.dimTable(d);
                const int64_t base = t.deviceOffset(h0) - table[c];
                for (int j = 0; j < n; ++j)
                    out[j] = base + table[c + j];
                return;
            }
        }
    }
    for (int j = 0; j < n; ++j)
        out[j] = t.deviceOffset(h0 + step * j);
}

class KernelRun {
public:
    KernelRun(const Kernel& k, std::map<std::string, DeviceTensor>& tensors, DeviceFormat format, LxState* lx)
        : k_(k), format_(format), table_(decodeTable(format))
    {
        const spyre::KernelLoopBody& body = k.loop;
        nIter_ = static_cast<int>(body.ranges.size());
        nVars_ = nIter_ + static_cast<int>(body.reductionRanges.size());
        ranges_ = body.ranges;
        ranges_.insert(ranges_.end(), body.reductionRanges.begin(), body.reductionRanges.end());
        laneVar_ = nIter_ - 1;
        auto tensor = [&](const std::string& name) -> DeviceTensor* {
            const auto it = tensors.find(name);
            if (it == tensors.end())
                fail(k, "names tensor '" + name + "', which the bundle does not hold");
            return &it->second;
        };
        for (const spyre::KernelAccess& a : body.loads)
            loads_.push_back(tensor(a.tensor));
        store_ = tensor(body.store.tensor);
        auto lxUse = [&](const std::string& name, const char* role) {
            LxUse u;
            if (!lx)
                return u;
            for (const spyre::KernelTensorArg& a : k.tensors)
                if (a.tensor == name && a.role == role && a.inLx) {
                    const auto it = lx->find(name);
                    if (it == lx->end())
                        return u;
                    u.residency = &it->second;
                    u.check = std::string(role) == "load" && a.dmaSticks == 0;
                }
            return u;
        };
        for (const spyre::KernelAccess& a : body.loads)
            loadLx_.push_back(lxUse(a.tensor, "load"));
        storeLx_ = lxUse(body.store.tensor, "store");
        for (size_t s = 0; s < body.stmts.size(); ++s) {
            const Stmt& st = body.stmts[s];
            BodyFn f = BodyFn::Unknown;
            if (st.kind == StmtKind::Compute) {
                f = spyre::bodyFnOf(st.fn);
                if (f == BodyFn::Unknown)
                    fail(k, "statement " + std::to_string(s) + " computes ops." + st.fn + ", which the simulator does not know");
            }
            if (st.kind == StmtKind::Reduction) {
                if (redStmt_ >= 0)
                    fail(k, "has two reductions");
                redStmt_ = static_cast<int>(s);
                reduceOp_ = st.fn == "max" ? ReduceOp::Max : st.fn == "min" ? ReduceOp::Min : st.fn == "prod" ? ReduceOp::Prod : ReduceOp::Sum;
                if (st.fn != "sum" && st.fn != "max" && st.fn != "min" && st.fn != "prod")
                    fail(k, "reduces with '" + st.fn + "' (sum, max, min or prod)");
            }
            if (st.kind == StmtKind::IndirectIndex)
                indirectCount_ = std::max(indirectCount_, st.load + 1);
            for (int v : varsOf(st))
                if (v >= 0 && v < spyre::kIndirectVar && v >= nVars_)
                    fail(k, "statement " + std::to_string(s) + " uses a variable the kernel does not have");
            fns_.push_back(f);
        }
        for (const spyre::KernelAccess& a : body.loads)
            checkVars(a.index);
        checkVars(body.store.index);
        if (nVars_ > nIter_ && redStmt_ < 0)
            fail(k, "has reduction variables but no reduction");
        detectMatmul();
        buildWork();
    }

    ExecutionStats run(int threads)
    {
        std::exception_ptr error;
        std::mutex errorMutex;
        parallelFor(static_cast<int>(work_.size()), threads, [&](int w) {
            try {
                runItem(work_[w]);
            } catch (...) {
                std::lock_guard<std::mutex> lock(errorMutex);
                if (!error)
                    error = std::current_exception();
            }
        });
        if (error)
            std::rethrow_exception(error);
        ExecutionStats s;
        s.usedMatmulPath = matmul_;
        s.points = points_.load();
        return s;
    }

private:
    const Kernel& k_;
    DeviceFormat format_;
    const float* table_;
    int nIter_ = 0, nVars_ = 0, laneVar_ = -1;
    spyre::Shape ranges_;
    std::vector<DeviceTensor*> loads_;
    DeviceTensor* store_ = nullptr;
    std::vector<LxUse> loadLx_;
    LxUse storeLx_;
    std::vector<BodyFn> fns_;
    int redStmt_ = -1;
    ReduceOp reduceOp_ = ReduceOp::Sum;
    int indirectCount_ = 0;
    std::vector<WorkItem> work_;
    std::atomic<int64_t> points_{0};
    // Matmul path: which load is A (M x K) and which is B (K x N), and the vars that play M, N, K.
    bool matmul_ = false;
    int loadA_ = -1, loadB_ = -1, varM_ = -1, varN_ = -1, varK_ = -1;

    static std::vector<int> varsOf(const Stmt& st)
    {
        std::vector<int> v;
        if (st.kind == StmtKind::Select)
            v.push_back(st.var);
        for (const auto& [var, c] : st.cond.terms)
            v.push_back(var);
        return v;
    }

    void checkVars(const AffineExpr& e) const
    {
        for (const auto& [v, c] : e.terms)
            if ((v < spyre::kIndirectVar && v >= nVars_) || (v >= spyre::kIndirectVar && v - spyre::kIndirectVar >= indirectCount_))
                fail(k_, "an index uses a variable the kernel does not have");
    }

    // MatMul bodies are load A, load B, mul, sum-reduction over one K var, then an optional epilogue.
    void detectMatmul()
    {
        const auto& st = k_.loop.stmts;
        if (k_.op != "MatMul" || nVars_ != nIter_ + 1 || redStmt_ < 0 || reduceOp_ != ReduceOp::Sum)
            return;
        const Stmt& red = st[redStmt_];
        const Stmt& mul = st[red.args[0]];
        if (mul.kind != StmtKind::Compute || fns_[red.args[0]] != BodyFn::Mul || mul.args.size() != 2)
            return;
        const Stmt& la = st[mul.args[0]];
        const Stmt& lb = st[mul.args[1]];
        if (la.kind != StmtKind::Load || lb.kind != StmtKind::Load)
            return;
        for (int s = 0; s < redStmt_; ++s)   // nothing else may feed the reduction
            if (s != red.args[0] && s != mul.args[0] && s != mul.args[1] && st[s].kind != StmtKind::Load)
                return;
        int a = la.load, b = lb.load;
        const AffineExpr* ea = &k_.loop.loads[a].index;
        const AffineExpr* eb = &k_.loop.loads[b].index;
        for (const AffineExpr* e : {ea, eb})
            for (const auto& [v, c] : e->terms)
                if (v >= spyre::kIndirectVar)
                    return;
        if (loads_[a]->isInteger() || loads_[b]->isInteger() || store_->isInteger())
            return;
        const int kv = nIter_;
        if (ea->coeffOf(kv) == 0 || eb->coeffOf(kv) == 0)
            return;
        const AffineExpr& ec = k_.loop.store.index;
        // N: the innermost iteration var that only one operand walks (that operand is B). A product with N = 1
        // ([96,288] x [288,1], a conv with a 1x1 output) has a lane var nothing walks: that var is N, of one element.
        int n = -1;
        auto walked = [&](int v) { return ea->coeffOf(v) != 0 || eb->coeffOf(v) != 0 || ec.coeffOf(v) != 0; };
        if (laneVar_ >= 0 && ranges_[laneVar_] == 1 && !walked(laneVar_))
            n = laneVar_;
        for (int v = nIter_ - 1; v >= 0 && n < 0; --v) {
            if (ec.coeffOf(v) == 0)
                continue;
            if (eb->coeffOf(v) != 0 && ea->coeffOf(v) == 0)
                n = v;
            else if (ea->coeffOf(v) != 0 && eb->coeffOf(v) == 0) {
                n = v;
                std::swap(a, b);
                std::swap(ea, eb);
            }
        }
        if (n < 0)
            return;
        int m = -1;
        for (int v = nIter_ - 1; v >= 0 && m < 0; --v)
            if (v != n && ec.coeffOf(v) != 0 && ea->coeffOf(v) != 0 && eb->coeffOf(v) == 0)
                m = v;
        matmul_ = true;
        loadA_ = a;
        loadB_ = b;
        varM_ = m;
        varN_ = n;
        varK_ = kv;
    }

    // Slices and tiles -> work items. A tile loop on a var cuts its range into `count` tiles of `extent`; a core's
    // slice is relative to the tile, so the core works on tileStart + slice in every tile.
    void buildWork()
    {
        std::vector<int64_t> tileExtent = ranges_, tileCount(nVars_, 1);
        for (const spyre::TileLoop& t : k_.tiles) {
            if (t.var < 0 || t.var >= nVars_ || t.extent < 1 || t.count < 1)
                fail(k_, "has a tile loop on a variable it does not have");
            tileExtent[t.var] = t.extent;
            tileCount[t.var] = t.count;
        }
        std::vector<spyre::KernelSlice> slices = k_.slices;
        if (slices.empty()) {
            spyre::KernelSlice all;
            all.start.assign(nVars_, 0);
            all.extent = tileExtent;
            slices.push_back(all);
        }
        auto boxes = [&](const spyre::KernelSlice& s, int from, int to) {
            std::vector<Box> out;
            std::vector<int64_t> idx(nVars_, 0);
            for (;;) {
                Box b;
                bool empty = false;
                for (int v = from; v < to; ++v) {
                    const int64_t lo = idx[v] * tileExtent[v] + s.start[v];
                    const int64_t hi = std::min({lo + s.extent[v], (idx[v] + 1) * tileExtent[v], ranges_[v]});
                    empty = empty || lo >= hi;
                    b.emplace_back(lo, hi);
                }
                if (!empty)
                    out.push_back(std::move(b));
                int v = to - 1;
                while (v >= from && ++idx[v] == tileCount[v])
                    idx[v--] = 0;
                if (v < from)
                    break;
            }
            return out;
        };
        std::map<std::vector<int64_t>, size_t> groups;
        for (const spyre::KernelSlice& s : slices) {
            if (static_cast<int>(s.start.size()) != nVars_ || static_cast<int>(s.extent.size()) != nVars_)
                fail(k_, "core " + std::to_string(s.core) + " has a slice of the wrong rank");
            for (int v = 0; v < nVars_; ++v)
                if (s.start[v] < 0 || s.extent[v] < 0)
                    fail(k_, "core " + std::to_string(s.core) + " has a negative slice");
            std::vector<int64_t> key(s.start.begin(), s.start.begin() + nIter_);
            key.insert(key.end(), s.extent.begin(), s.extent.begin() + nIter_);
            auto [it, fresh] = groups.emplace(key, work_.size());
            if (fresh) {
                work_.emplace_back();
                work_.back().iterBoxes = boxes(s, 0, nIter_);
            }
            WorkItem& w = work_[it->second];
            w.cores.push_back(s.core);
            for (Box& b : boxes(s, nIter_, nVars_)) {
                w.redBoxes.push_back(std::move(b));
                w.redBoxCore.push_back(s.core);
            }
        }
    }

    // A core touches stick `offset / 64` of an LX-resident tensor: reading it without DMA needs the stick in the
    // core's LX; a store or a DMA load puts it there.
    void touchLx(const LxUse& u, const DeviceTensor& t, const int64_t* offsets, int n, int core) const
    {
        if (!u.residency || core < 0 || core >= static_cast<int>(u.residency->held.size()))
            return;
        std::vector<uint8_t>& held = u.residency->held[core];
        for (int j = 0; j < n; ++j) {
            if (offsets[j] < 0)
                continue;
            const int64_t stick = offsets[j] / kLanes;
            if (!u.check) {
                held[stick] = 1;
            } else if (!held[stick]) {
                fail(k_, "core " + std::to_string(core) + " reads stick " + std::to_string(stick) + " of " + t.meta().name +
                             " from its LX, but that core's LX does not hold it (another core stored it, or it was never loaded)");
            }
        }
    }

    // ---- generic path: statements over lanes of the innermost iteration var
    struct Lanes {
        std::vector<LaneArray> vals;
        std::vector<int64_t> vars;
        std::vector<std::array<int64_t, kLanes>> indirect;
        int n = 1;
        std::array<int64_t, kLanes> offs{};
        // The cores of the work item: a reduction split over cores ends with the combined result in every
        // member's LX (the partial sums go round the group), so a store lands in all of them.
        const std::vector<int>* group = nullptr;
    };

    int64_t hostBase(const AffineExpr& e, const Lanes& L) const
    {
        int64_t h = e.constant;
        for (const auto& [v, c] : e.terms)
            if (v < spyre::kIndirectVar)
                h += c * L.vars[v];
        return h;
    }

    bool hasIndirect(const AffineExpr& e) const { return !e.terms.empty() && e.terms.back().first >= spyre::kIndirectVar; }

    // Host offsets per lane (lane j has the lane var advanced by j).
    void hostOffsets(const AffineExpr& e, const Lanes& L, int64_t* out) const
    {
        const int64_t base = hostBase(e, L);
        const int64_t step = laneVar_ >= 0 ? e.coeffOf(laneVar_) : 0;
        for (int j = 0; j < L.n; ++j) {
            int64_t h = base + step * j;
            for (const auto& [v, c] : e.terms)
                if (v >= spyre::kIndirectVar)
                    h += c * L.indirect[v - spyre::kIndirectVar][j];
            out[j] = h;
        }
    }

    void load(const Stmt& st, Lanes& L, LaneArray& out, int core) const
    {
        const spyre::KernelAccess& a = k_.loop.loads[st.load];
        const DeviceTensor& t = *loads_[st.load];
        std::array<int64_t, kLanes> h{};
        hostOffsets(a.index, L, h.data());
        if (t.isInteger()) {
            for (int j = 0; j < L.n; ++j)
                out[j] = h[j] >= 0 && h[j] < t.hostElements() ? static_cast<float>(t.ints()[h[j]]) : std::numeric_limits<float>::quiet_NaN();
            return;
        }
        if (hasIndirect(a.index)) {
            for (int j = 0; j < L.n; ++j)
                L.offs[j] = t.deviceOffset(h[j]);
        } else {
            deviceOffsets(t, h[0], L.n > 1 ? h[1] - h[0] : 0, L.n, L.offs.data());
        }
        touchLx(loadLx_[st.load], t, L.offs.data(), L.n, core);
        const uint16_t* w = t.words();
        // Out of range only under a mask (padding) or a select (concat): the value is never used.
        for (int j = 0; j < L.n; ++j)
            out[j] = L.offs[j] >= 0 ? table_[w[L.offs[j]]] : std::numeric_limits<float>::quiet_NaN();
    }

    void store(const LaneArray& v, Lanes& L, int core) const
    {
        DeviceTensor& t = *store_;
        std::array<int64_t, kLanes> h{};
        hostOffsets(k_.loop.store.index, L, h.data());
        for (int j = 0; j < L.n; ++j)
            if (h[j] < 0 || h[j] >= t.hostElements())
                fail(k_, "core " + std::to_string(core) + " stores outside tensor '" + t.meta().name + "' (host element " +
                             std::to_string(h[j]) + " of " + std::to_string(t.hostElements()) + ")");
        if (t.isInteger()) {
            const bool isBool = t.meta().dtype == "bool";
            for (int j = 0; j < L.n; ++j)
                t.ints()[h[j]] = isBool ? (v[j] != 0 ? 1 : 0) : static_cast<int64_t>(std::trunc(v[j]));
            return;
        }
        deviceOffsets(t, h[0], L.n > 1 ? h[1] - h[0] : 0, L.n, L.offs.data());
        if (L.group)
            for (int c : *L.group)
                touchLx(storeLx_, t, L.offs.data(), L.n, c);
        else
            touchLx(storeLx_, t, L.offs.data(), L.n, core);
        uint16_t* w = t.words();
        for (int j = 0; j < L.n; ++j)
            w[L.offs[j]] = encode(format_, v[j]);
    }

    void eval(size_t from, size_t to, Lanes& L, int core) const
    {
        const auto& stmts = k_.loop.stmts;
        for (size_t s = from; s < to; ++s) {
            const Stmt& st = stmts[s];
            LaneArray& out = L.vals[s];
            switch (st.kind) {
            case StmtKind::Load:
                load(st, L, out, core);
                break;
            case StmtKind::IndirectIndex: {
                auto& ind = L.indirect.at(st.load);
                for (int j = 0; j < L.n; ++j) {
                    int64_t i = static_cast<int64_t>(L.vals[st.args[0]][j]);
                    if (i < 0)
                        i += st.bound;
                    ind[j] = i;
                    out[j] = static_cast<float>(i);
                }
                break;
            }
            case StmtKind::Constant:
                out.fill(static_cast<float>(st.value));
                break;
            case StmtKind::Compute: {
                const BodyFn f = fns_[s];
                const LaneArray& x = L.vals[st.args[0]];
                const LaneArray* y = st.args.size() > 1 ? &L.vals[st.args[1]] : &x;
                const LaneArray* z = st.args.size() > 2 ? &L.vals[st.args[2]] : &x;
                for (int j = 0; j < L.n; ++j)
                    out[j] = spyre::applyBodyFn<float>(f, x[j], (*y)[j], (*z)[j], st);
                break;
            }
            case StmtKind::Select: {
                const LaneArray& a = L.vals[st.args[0]];
                const LaneArray& b = L.vals[st.args[1]];
                for (int j = 0; j < L.n; ++j) {
                    const int64_t v = L.vars[st.var] + (st.var == laneVar_ ? j : 0);
                    out[j] = v < st.bound ? a[j] : b[j];
                }
                break;
            }
            case StmtKind::Mask: {
                std::array<int64_t, kLanes> c{};
                hostOffsets(st.cond, L, c.data());
                const LaneArray& a = L.vals[st.args[0]];
                for (int j = 0; j < L.n; ++j)
                    out[j] = c[j] >= st.lower && c[j] < st.bound ? a[j] : static_cast<float>(st.value);
                break;
            }
            case StmtKind::Reduction:
                break;   // accumulated by the caller
            case StmtKind::Store:
                store(L.vals[st.args[0]], L, core);
                out = L.vals[st.args[0]];
                break;
            }
        }
    }

    void reduceInto(LaneArray& acc, const LaneArray& x, int n) const
    {
        switch (reduceOp_) {
        case ReduceOp::Sum:
            for (int j = 0; j < n; ++j)
                acc[j] += x[j];
            break;
        case ReduceOp::Max:
            for (int j = 0; j < n; ++j)
                acc[j] = std::isnan(x[j]) || std::isnan(acc[j]) ? std::numeric_limits<float>::quiet_NaN() : std::max(acc[j], x[j]);
            break;
        case ReduceOp::Min:
            for (int j = 0; j < n; ++j)
                acc[j] = std::isnan(x[j]) || std::isnan(acc[j]) ? std::numeric_limits<float>::quiet_NaN() : std::min(acc[j], x[j]);
            break;
        case ReduceOp::Prod:
            for (int j = 0; j < n; ++j)
                acc[j] *= x[j];
            break;
        }
    }

    float identity() const
    {
        return reduceOp_ == ReduceOp::Max ? -std::numeric_limits<float>::infinity()
               : reduceOp_ == ReduceOp::Min ? std::numeric_limits<float>::infinity()
               : reduceOp_ == ReduceOp::Prod ? 1.0f
                                            : 0.0f;
    }

    // Walks every point of `box` over vars [from, to) except `skip`, calling fn at each.
    template <typename Fn>
    void forEachPoint(const Box& box, int from, int to, int skip, std::vector<int64_t>& vars, Fn&& fn) const
    {
        for (int v = from; v < to; ++v)
            vars[v] = box[v - from].first;
        for (;;) {
            fn();
            int v = to - 1;
            while (v >= from) {
                if (v != skip && ++vars[v] < box[v - from].second)
                    break;
                vars[v] = box[v - from].first;
                --v;
            }
            if (v < from)
                return;
        }
    }

    void runItem(const WorkItem& w)
    {
        if (matmul_) {
            for (const Box& ib : w.iterBoxes)
                runMatmulBox(w, ib);
            return;
        }
        Lanes L;
        L.vals.resize(k_.loop.stmts.size());
        L.vars.assign(nVars_, 0);
        L.indirect.resize(indirectCount_);
        L.group = &w.cores;
        const int core = w.cores.front();
        int64_t points = 0;
        for (const Box& ib : w.iterBoxes) {
            if (nIter_ == 0) {
                L.n = 1;
                runChunk(w, L, core);
                ++points;
                continue;
            }
            forEachPoint(ib, 0, nIter_, laneVar_, L.vars, [&] {
                const auto [lo, hi] = ib[laneVar_];
                for (int64_t b = lo; b < hi; b += kLanes) {
                    L.vars[laneVar_] = b;
                    L.n = static_cast<int>(std::min<int64_t>(kLanes, hi - b));
                    runChunk(w, L, core);
                    points += L.n;
                }
                L.vars[laneVar_] = lo;
            });
        }
        points_ += points;
    }

    void runChunk(const WorkItem& w, Lanes& L, int core) const
    {
        const size_t all = k_.loop.stmts.size();
        if (redStmt_ < 0) {
            eval(0, all, L, core);
            return;
        }
        LaneArray acc;
        acc.fill(identity());
        const int redArg = k_.loop.stmts[redStmt_].args[0];
        for (size_t b = 0; b < w.redBoxes.size(); ++b)
            forEachPoint(w.redBoxes[b], nIter_, nVars_, -1, L.vars, [&] {
                eval(0, static_cast<size_t>(redStmt_), L, w.redBoxCore[b]);
                reduceInto(acc, L.vals[redArg], L.n);
            });
        L.vals[redStmt_] = acc;
        eval(static_cast<size_t>(redStmt_) + 1, all, L, core);
    }

    // ---- matmul path
    void unpackRow(const DeviceTensor& t, const LxUse& lx, int core, int64_t h0, int64_t step, int64_t n, float* out,
                   std::vector<int64_t>& offs) const
    {
        offs.resize(static_cast<size_t>(n));
        for (int64_t j = 0; j < n; j += kLanes) {
            const int len = static_cast<int>(std::min<int64_t>(kLanes, n - j));
            deviceOffsets(t, h0 + step * j, step, len, offs.data() + j);
            touchLx(lx, t, offs.data() + j, len, core);
        }
        const uint16_t* w = t.words();
        for (int64_t j = 0; j < n; ++j) {
            if (offs[j] < 0)
                fail(k_, "reads outside tensor '" + t.meta().name + "'");
            out[j] = table_[w[offs[j]]];
        }
    }

    void runMatmulBox(const WorkItem& w, const Box& ib)
    {
        const AffineExpr& ea = k_.loop.loads[loadA_].index;
        const AffineExpr& eb = k_.loop.loads[loadB_].index;
        const DeviceTensor& A = *loads_[loadA_];
        const DeviceTensor& B = *loads_[loadB_];
        // K segments: every member core's reduction part, in core order (their sum is the partial-sum exchange).
        std::vector<Range> ks;
        for (const Box& rb : w.redBoxes)
            ks.push_back(rb[0]);
        const std::vector<int>& ksCore = w.redBoxCore;
        int64_t K = 0;
        for (const Range& r : ks)
            K += r.second - r.first;
        const Range mr = varM_ >= 0 ? ib[varM_] : Range{0, 1};
        const Range nr = ib[varN_];
        const int64_t M = mr.second - mr.first, N = nr.second - nr.first;
        thread_local std::vector<float> pa, pb, pc;
        thread_local std::vector<int64_t> offs;
        pa.resize(static_cast<size_t>(M * K));
        pb.resize(static_cast<size_t>(K * N));
        pc.resize(static_cast<size_t>(M * N));
        Lanes L;
        L.vals.resize(k_.loop.stmts.size());
        L.vars.assign(nVars_, 0);
        L.group = &w.cores;
        const int core = w.cores.front();
        // Batch vars: every iteration var that is neither M nor N.
        Box batch = ib;
        if (varM_ >= 0)
            batch[varM_] = {mr.first, mr.first + 1};
        batch[varN_] = {nr.first, nr.first + 1};
        forEachPoint(batch, 0, nIter_, -1, L.vars, [&] {
            std::vector<int64_t> vars = L.vars;
            // A: M rows of K.
            for (int64_t m = 0; m < M; ++m) {
                if (varM_ >= 0)
                    vars[varM_] = mr.first + m;
                int64_t col = 0;
                for (size_t s = 0; s < ks.size(); ++s) {
                    const Range& r = ks[s];
                    vars[varK_] = r.first;
                    int64_t h = ea.constant;
                    for (const auto& [v, c] : ea.terms)
                        h += c * vars[v];
                    unpackRow(A, loadLx_[loadA_], ksCore[s], h, ea.coeffOf(varK_), r.second - r.first, pa.data() + m * K + col, offs);
                    col += r.second - r.first;
                }
            }
            // B: K rows of N.
            vars[varN_] = nr.first;
            int64_t row = 0;
            for (size_t s = 0; s < ks.size(); ++s)
                for (int64_t kk = ks[s].first; kk < ks[s].second; ++kk, ++row) {
                    vars[varK_] = kk;
                    int64_t h = eb.constant;
                    for (const auto& [v, c] : eb.terms)
                        h += c * vars[v];
                    unpackRow(B, loadLx_[loadB_], ksCore[s], h, eb.coeffOf(varN_), N, pb.data() + row * N, offs);
                }
            gemmF32(M, N, K, pa.data(), K, pb.data(), N, pc.data(), N, false);
            // Epilogue and store, one stick of N at a time, with the reduction's value taken from C.
            for (int64_t m = 0; m < M; ++m) {
                if (varM_ >= 0)
                    L.vars[varM_] = mr.first + m;
                for (int64_t b = 0; b < N; b += kLanes) {
                    L.vars[varN_] = nr.first + b;
                    L.n = static_cast<int>(std::min<int64_t>(kLanes, N - b));
                    std::copy(pc.data() + m * N + b, pc.data() + m * N + b + L.n, L.vals[redStmt_].begin());
                    if (varN_ != laneVar_)
                        fail(k_, "matmul output is not walked along N");
                    eval(static_cast<size_t>(redStmt_) + 1, k_.loop.stmts.size(), L, core);
                }
            }
            if (varM_ >= 0)
                L.vars[varM_] = mr.first;
            L.vars[varN_] = nr.first;
            points_ += M * N;
        });
    }
};

}  // namespace

void parallelFor(int count, int threads, const std::function<void(int)>& fn)
{
    threads = std::max(1, std::min(threads, count));
    if (threads == 1) {
        for (int i = 0; i < count; ++i)
            fn(i);
        return;
    }
    std::atomic<int> next{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&] {
            for (int i = next++; i < count; i = next++)
                fn(i);
        });
    for (std::thread& t : pool)
        t.join();
}

ExecutionStats executeKernel(const Kernel& kernel, std::map<std::string, DeviceTensor>& tensors, DeviceFormat format, int hostThreads,
                             LxState* lx)
{
    KernelRun run(kernel, tensors, format, lx);
    return run.run(hostThreads);
}

}  // namespace spyglass::spyresim
