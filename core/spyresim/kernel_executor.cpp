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

using Range = std::pair<int64_t, int64_t>;   // [lo, hi)
using Box = std::vector<Range>;              // one range per var of a group (iteration or reduction vars)

using spyre::ReduceFn;

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
    throw InputError(SourceLocation{}, "kernel " + k.name + " (" + opKindName(k.op) + "): " + what);
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

// Whether offsets o[0..n) are one run of consecutive device words (a chunk along the stick dim is), so that it can
// be converted as a whole (decodeRun, encodeRun) instead of element by element.
bool isOneRun(const int64_t* o, int n)
{
    bool run = o[0] >= 0;
    for (int e = 1; e < n; ++e)
        run &= o[e] == o[0] + e;
    return run;
}

class KernelRun {
public:
    KernelRun(const Kernel& k, std::map<std::string, DeviceTensor>& tensors, DeviceFormat format, int stickElements, LxState* lx)
        : k_(k), format_(format), table_(decodeTable(format)), lanes_(stickElements)
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
        auto lxUse = [&](const std::string& name, spyre::AccessRole role) {
            LxUse u;
            if (!lx)
                return u;
            for (const spyre::KernelTensorArg& a : k.tensors)
                if (a.tensor == name && a.role == role && a.inLx) {
                    const auto it = lx->find(name);
                    if (it == lx->end())
                        return u;
                    u.residency = &it->second;
                    u.check = role == spyre::AccessRole::Load && a.dmaSticks == 0;
                }
            return u;
        };
        for (const spyre::KernelAccess& a : body.loads)
            loadLx_.push_back(lxUse(a.tensor, spyre::AccessRole::Load));
        storeLx_ = lxUse(body.store.tensor, spyre::AccessRole::Store);
        for (size_t s = 0; s < body.stmts.size(); ++s) {
            const Stmt& st = body.stmts[s];
            if (st.kind == StmtKind::Compute && st.fn == BodyFn::Unknown)
                fail(k, "statement " + std::to_string(s) + " computes a function the simulator does not know");
            if (st.kind == StmtKind::Reduction) {
                if (redStmt_ >= 0)
                    fail(k, "has two reductions");
                redStmt_ = static_cast<int>(s);
                reduceOp_ = st.reduce;
            }
            if (st.kind == StmtKind::IndirectIndex)
                indirectCount_ = std::max(indirectCount_, st.load + 1);
            for (int v : varsOf(st))
                if (v >= 0 && v < spyre::kIndirectVar && v >= nVars_)
                    fail(k, "statement " + std::to_string(s) + " uses a variable the kernel does not have");
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
        const std::vector<MatmulTask> tasks = matmul_ ? matmulTasks(threads) : std::vector<MatmulTask>{};
        const int count = static_cast<int>(matmul_ ? tasks.size() : work_.size());
        parallelFor(count, threads, [&](int w) {
            try {
                if (matmul_)
                    runMatmulGroup(tasks[w].items, tasks[w].tile, tasks[w].nLo, tasks[w].nHi);
                else
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
    const int lanes_;   // elements per stick: the SFU's vector width
    int nIter_ = 0, nVars_ = 0, laneVar_ = -1;
    spyre::Shape ranges_;
    std::vector<DeviceTensor*> loads_;
    DeviceTensor* store_ = nullptr;
    std::vector<LxUse> loadLx_;
    LxUse storeLx_;
    int redStmt_ = -1;
    ReduceFn reduceOp_ = ReduceFn::Sum;
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

    // The GEMM path takes a MatMul whose body is load A, load B, mul, a sum over one K var, then an optional
    // epilogue; the operand roles come from the bundle (the loader checked them against the body).
    void detectMatmul()
    {
        const auto& st = k_.loop.stmts;
        if (k_.op != spyre::OpKind::MatMul || nVars_ != nIter_ + 1 || redStmt_ < 0 || reduceOp_ != ReduceFn::Sum)
            return;
        const spyre::MatmulRoles& mm = k_.matmul;
        const Stmt& red = st[redStmt_];
        const Stmt& mul = st[red.args[0]];
        if (mul.kind != StmtKind::Compute || mul.fn != BodyFn::Mul || mul.args.size() != 2)
            return;
        const Stmt& la = st[mul.args[0]];
        const Stmt& lb = st[mul.args[1]];
        if (la.kind != StmtKind::Load || lb.kind != StmtKind::Load ||
            !((la.load == mm.a && lb.load == mm.b) || (la.load == mm.b && lb.load == mm.a)))
            return;
        for (int s = 0; s < redStmt_; ++s)   // nothing else may feed the reduction
            if (s != red.args[0] && s != mul.args[0] && s != mul.args[1] && st[s].kind != StmtKind::Load)
                return;
        for (int l : {mm.a, mm.b})
            for (const auto& [v, c] : k_.loop.loads[l].index.terms)
                if (v >= spyre::kIndirectVar)
                    return;
        if (loads_[mm.a]->isInteger() || loads_[mm.b]->isInteger() || store_->isInteger())
            return;
        matmul_ = true;
        loadA_ = mm.a;
        loadB_ = mm.b;
        varM_ = mm.m;
        varN_ = mm.n;
        varK_ = mm.k;
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
        // Work items that read the same B (they differ only in their rows of M) one after another: matmulTasks
        // makes each run of them one GEMM; the order of the items does not change any result.
        if (matmul_)
            std::stable_sort(work_.begin(), work_.end(), [&](const WorkItem& a, const WorkItem& b) { return bKey(a) < bKey(b); });
    }

    std::pair<std::vector<Box>, std::vector<Box>> bKey(const WorkItem& w) const
    {
        std::vector<Box> iter = w.iterBoxes;
        for (Box& b : iter)
            b[varM_] = {0, 0};
        return {std::move(iter), w.redBoxes};
    }

    // A core touches stick `offset / lanes_` of an LX-resident tensor: reading it without DMA needs the stick in the
    // core's LX; a store or a DMA load puts it there.
    void touchLx(const LxUse& u, const DeviceTensor& t, const int64_t* offsets, int n, int core) const
    {
        if (!u.residency || core < 0 || core >= static_cast<int>(u.residency->held.size()))
            return;
        std::vector<uint8_t>& held = u.residency->held[core];
        for (int j = 0; j < n; ++j) {
            if (offsets[j] < 0)
                continue;
            const int64_t stick = offsets[j] / lanes_;
            if (!u.check) {
                held[stick] = 1;
            } else if (!held[stick]) {
                fail(k_, "core " + std::to_string(core) + " reads stick " + std::to_string(stick) + " of " + t.meta().name +
                             " from its LX, but that core's LX does not hold it (another core stored it, or it was never loaded)");
            }
        }
    }

    // ---- generic path: statements over lanes of the innermost iteration var
    // The SFU computes one stick at a time: every statement holds `width` lanes (a stick's elements), of which
    // the first n are live.
    struct Lanes {
        int width = 0;
        std::vector<float> vals;         // statement s: lanes [s * width, (s + 1) * width)
        std::vector<float> acc;          // the reduction's running value
        std::vector<int64_t> vars;
        std::vector<int64_t> indirect;   // gather slot k: lanes [k * width, ...)
        std::vector<int64_t> offs, hostA, hostB;   // per-lane scratch
        int n = 1;
        // The cores of the work item: a reduction split over cores ends with the combined result in every
        // member's LX (the partial sums go round the group), so a store lands in all of them.
        const std::vector<int>* group = nullptr;

        Lanes(int lanes, size_t stmts, int nVars, int indirectSlots)
            : width(lanes), vals(stmts * lanes), acc(lanes), vars(nVars, 0), indirect(static_cast<size_t>(indirectSlots) * lanes),
              offs(lanes), hostA(lanes), hostB(lanes)
        {
        }
        float* val(int s) { return vals.data() + static_cast<size_t>(s) * width; }
        const float* val(int s) const { return vals.data() + static_cast<size_t>(s) * width; }
        int64_t* slot(int k) { return indirect.data() + static_cast<size_t>(k) * width; }
        const int64_t* slot(int k) const { return indirect.data() + static_cast<size_t>(k) * width; }
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
                    h += c * L.slot(v - spyre::kIndirectVar)[j];
            out[j] = h;
        }
    }

    void load(const Stmt& st, Lanes& L, float* out, int core) const
    {
        const spyre::KernelAccess& a = k_.loop.loads[st.load];
        const DeviceTensor& t = *loads_[st.load];
        int64_t* h = L.hostA.data();
        hostOffsets(a.index, L, h);
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

    void store(const float* v, Lanes& L, int core) const
    {
        DeviceTensor& t = *store_;
        int64_t* h = L.hostA.data();
        hostOffsets(k_.loop.store.index, L, h);
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
        if (isOneRun(L.offs.data(), L.n)) {   // every matmul epilogue's store is
            encodeRun(format_, v, L.n, w + L.offs[0]);
            return;
        }
        for (int j = 0; j < L.n; ++j)
            w[L.offs[j]] = encode(format_, v[j]);
    }

    void eval(size_t from, size_t to, Lanes& L, int core) const
    {
        const auto& stmts = k_.loop.stmts;
        for (size_t s = from; s < to; ++s) {
            const Stmt& st = stmts[s];
            float* out = L.val(static_cast<int>(s));
            switch (st.kind) {
            case StmtKind::Load:
                load(st, L, out, core);
                break;
            case StmtKind::IndirectIndex: {
                int64_t* ind = L.slot(st.load);
                const float* x = L.val(st.args[0]);
                for (int j = 0; j < L.n; ++j) {
                    int64_t i = static_cast<int64_t>(x[j]);
                    if (i < 0)
                        i += st.bound;
                    ind[j] = i;
                    out[j] = static_cast<float>(i);
                }
                break;
            }
            case StmtKind::Constant:
                std::fill_n(out, L.n, static_cast<float>(st.value));
                break;
            case StmtKind::Compute: {
                const BodyFn f = st.fn;
                const float* x = L.val(st.args[0]);
                const float* y = st.args.size() > 1 ? L.val(st.args[1]) : x;
                const float* z = st.args.size() > 2 ? L.val(st.args[2]) : x;
                for (int j = 0; j < L.n; ++j)
                    out[j] = spyre::applyBodyFn<float>(f, x[j], y[j], z[j], st);
                break;
            }
            case StmtKind::Select: {
                const float* a = L.val(st.args[0]);
                const float* b = L.val(st.args[1]);
                for (int j = 0; j < L.n; ++j) {
                    const int64_t v = L.vars[st.var] + (st.var == laneVar_ ? j : 0);
                    out[j] = v < st.bound ? a[j] : b[j];
                }
                break;
            }
            case StmtKind::Mask: {
                int64_t* c = L.hostB.data();
                hostOffsets(st.cond, L, c);
                const float* a = L.val(st.args[0]);
                for (int j = 0; j < L.n; ++j)
                    out[j] = c[j] >= st.lower && c[j] < st.bound ? a[j] : static_cast<float>(st.value);
                break;
            }
            case StmtKind::Reduction:
                break;   // accumulated by the caller
            case StmtKind::Store:
                store(L.val(st.args[0]), L, core);
                std::copy_n(L.val(st.args[0]), L.n, out);
                break;
            }
        }
    }

    void reduceInto(float* acc, const float* x, int n) const
    {
        switch (reduceOp_) {
        case ReduceFn::Sum:
            for (int j = 0; j < n; ++j)
                acc[j] += x[j];
            break;
        case ReduceFn::Max:
            for (int j = 0; j < n; ++j)
                acc[j] = std::isnan(x[j]) || std::isnan(acc[j]) ? std::numeric_limits<float>::quiet_NaN() : std::max(acc[j], x[j]);
            break;
        case ReduceFn::Min:
            for (int j = 0; j < n; ++j)
                acc[j] = std::isnan(x[j]) || std::isnan(acc[j]) ? std::numeric_limits<float>::quiet_NaN() : std::min(acc[j], x[j]);
            break;
        case ReduceFn::Prod:
            for (int j = 0; j < n; ++j)
                acc[j] *= x[j];
            break;
        }
    }

    float identity() const
    {
        return reduceOp_ == ReduceFn::Max ? -std::numeric_limits<float>::infinity()
               : reduceOp_ == ReduceFn::Min ? std::numeric_limits<float>::infinity()
               : reduceOp_ == ReduceFn::Prod ? 1.0f
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
        Lanes L(lanes_, k_.loop.stmts.size(), nVars_, indirectCount_);
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
                for (int64_t b = lo; b < hi; b += lanes_) {
                    L.vars[laneVar_] = b;
                    L.n = static_cast<int>(std::min<int64_t>(lanes_, hi - b));
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
        float* acc = L.acc.data();
        std::fill_n(acc, L.n, identity());
        const int redArg = k_.loop.stmts[redStmt_].args[0];
        for (size_t b = 0; b < w.redBoxes.size(); ++b)
            forEachPoint(w.redBoxes[b], nIter_, nVars_, -1, L.vars, [&] {
                eval(0, static_cast<size_t>(redStmt_), L, w.redBoxCore[b]);
                reduceInto(acc, L.val(redArg), L.n);
            });
        std::copy_n(acc, L.n, L.val(redStmt_));
        eval(static_cast<size_t>(redStmt_) + 1, all, L, core);
    }

    // ---- matmul path
    void unpackRow(const DeviceTensor& t, const LxUse& lx, int core, int64_t h0, int64_t step, int64_t n, float* out,
                   std::vector<int64_t>& offs) const
    {
        offs.resize(static_cast<size_t>(n));
        const uint16_t* const w = t.words();
        const float* const table = table_;
        for (int64_t j = 0; j < n; j += lanes_) {
            const int len = static_cast<int>(std::min<int64_t>(lanes_, n - j));
            int64_t* const o = offs.data() + j;
            deviceOffsets(t, h0 + step * j, step, len, o);
            touchLx(lx, t, o, len, core);
            // Along the stick dim a chunk is one run of device words: decode it without the per-element offsets
            // (this loop is most of unpacking, which costs as much as the GEMM on BERT-base's FFN).
            float* const dst = out + j;
            if (isOneRun(o, len)) {
                decodeRun(format_, w + o[0], len, dst);
                continue;
            }
            for (int e = 0; e < len; ++e) {
                if (o[e] < 0)
                    fail(k_, "reads outside tensor '" + t.meta().name + "'");
                dst[e] = table[w[o[e]]];
            }
        }
    }

    // One product of items that differ only in their rows of M (a group, see matmulTasks), over columns
    // [nLo, nHi) of tile `tile`: their A rows stacked into one GEMM, B unpacked once. Each element's sum runs over
    // the same K order whatever M and N the GEMM gets, so the group's results are those of one GEMM per item.
    void runMatmulGroup(const std::vector<const WorkItem*>& items, size_t tile, int64_t nLo, int64_t nHi)
    {
        const AffineExpr& ea = k_.loop.loads[loadA_].index;
        const AffineExpr& eb = k_.loop.loads[loadB_].index;
        const DeviceTensor& A = *loads_[loadA_];
        const DeviceTensor& B = *loads_[loadB_];
        const WorkItem& first = *items.front();
        const Box& ib = first.iterBoxes[tile];
        // K segments: every member core's reduction part, in core order (their sum is the partial-sum exchange).
        // The items of a group have the same parts (bKey), held by different cores.
        std::vector<Range> ks;
        for (const Box& rb : first.redBoxes)
            ks.push_back(rb[0]);
        int64_t K = 0;
        for (const Range& r : ks)
            K += r.second - r.first;
        std::vector<int64_t> rowOf;   // first row of each item in the stacked A and C
        int64_t M = 0;
        for (const WorkItem* w : items) {
            rowOf.push_back(M);
            const Range mr = w->iterBoxes[tile][varM_];
            M += mr.second - mr.first;
        }
        const int64_t N = nHi - nLo;
        thread_local std::vector<float> pa, pb, pc;
        thread_local std::vector<int64_t> offs;
        pa.resize(static_cast<size_t>(M * K));
        pb.resize(static_cast<size_t>(K * N));
        pc.resize(static_cast<size_t>(M * N));
        Lanes L(lanes_, k_.loop.stmts.size(), nVars_, indirectCount_);
        // Batch vars: every iteration var that is neither M nor N (the same for every item of the group).
        Box batch = ib;
        batch[varM_] = {ib[varM_].first, ib[varM_].first + 1};
        batch[varN_] = {nLo, nLo + 1};
        forEachPoint(batch, 0, nIter_, -1, L.vars, [&] {
            std::vector<int64_t> vars = L.vars;
            // A: each item's M rows of K, read by its own member cores.
            for (size_t i = 0; i < items.size(); ++i) {
                const WorkItem& w = *items[i];
                const Range mr = w.iterBoxes[tile][varM_];
                for (int64_t m = 0; m < mr.second - mr.first; ++m) {
                    vars[varM_] = mr.first + m;
                    float* row = pa.data() + (rowOf[i] + m) * K;
                    int64_t col = 0;
                    for (size_t s = 0; s < ks.size(); ++s) {
                        const Range& r = ks[s];
                        vars[varK_] = r.first;
                        int64_t h = ea.constant;
                        for (const auto& [v, c] : ea.terms)
                            h += c * vars[v];
                        unpackRow(A, loadLx_[loadA_], w.redBoxCore[s], h, ea.coeffOf(varK_), r.second - r.first, row + col, offs);
                        col += r.second - r.first;
                    }
                }
            }
            // B: K rows of the N columns. Only a group of one item can read B from LX (matmulTasks), so the
            // cores checked are that item's.
            vars[varN_] = nLo;
            int64_t row = 0;
            for (size_t s = 0; s < ks.size(); ++s)
                for (int64_t kk = ks[s].first; kk < ks[s].second; ++kk, ++row) {
                    vars[varK_] = kk;
                    int64_t h = eb.constant;
                    for (const auto& [v, c] : eb.terms)
                        h += c * vars[v];
                    unpackRow(B, loadLx_[loadB_], first.redBoxCore[s], h, eb.coeffOf(varN_), N, pb.data() + row * N, offs);
                }
            gemmF32(M, N, K, pa.data(), K, pb.data(), N, pc.data(), N, false);
            // Epilogue and store per item (its cores' LX), one stick of N at a time, the reduction's value from C.
            if (varN_ != laneVar_)
                fail(k_, "matmul output is not walked along N");
            for (size_t i = 0; i < items.size(); ++i) {
                const WorkItem& w = *items[i];
                L.group = &w.cores;
                const int core = w.cores.front();
                const Range mr = w.iterBoxes[tile][varM_];
                for (int64_t m = 0; m < mr.second - mr.first; ++m) {
                    L.vars[varM_] = mr.first + m;
                    const float* c = pc.data() + (rowOf[i] + m) * N;
                    for (int64_t b = 0; b < N; b += lanes_) {
                        L.vars[varN_] = nLo + b;
                        L.n = static_cast<int>(std::min<int64_t>(lanes_, N - b));
                        std::copy_n(c + b, L.n, L.val(redStmt_));
                        eval(static_cast<size_t>(redStmt_) + 1, k_.loop.stmts.size(), L, core);
                    }
                }
            }
            L.vars[varM_] = ib[varM_].first;
            L.vars[varN_] = nLo;
            points_ += M * N;
        });
    }

    // The matmul path's host tasks: work items that read the same B (consecutive after buildWork's sort) form a
    // group, one GEMM per tile; a B read from LX keeps every item alone, since each core's read is checked
    // against its own LX. With fewer group tiles than host threads, each is split along N into whole sticks
    // (the epilogue walks N a stick at a time from the tile's start, so the chunks are the same).
    struct MatmulTask {
        std::vector<const WorkItem*> items;
        size_t tile = 0;
        int64_t nLo = 0, nHi = 0;
    };
    std::vector<MatmulTask> matmulTasks(int threads) const
    {
        std::vector<std::vector<const WorkItem*>> groups;
        const bool share = !loadLx_[loadB_].residency;
        for (size_t i = 0; i < work_.size(); ++i) {
            if (!share || groups.empty() || bKey(*groups.back().front()) != bKey(work_[i]))
                groups.emplace_back();
            groups.back().push_back(&work_[i]);
        }
        size_t tiles = 0;
        for (const auto& g : groups)
            tiles += g.front()->iterBoxes.size();
        const int64_t slices = tiles == 0 ? 1 : std::max<int64_t>(1, (threads + static_cast<int64_t>(tiles) - 1) / static_cast<int64_t>(tiles));
        std::vector<MatmulTask> tasks;
        for (const auto& g : groups)
            for (size_t t = 0; t < g.front()->iterBoxes.size(); ++t) {
                const Range nr = g.front()->iterBoxes[t][varN_];
                const int64_t sticks = (nr.second - nr.first + lanes_ - 1) / lanes_;
                const int64_t parts = std::min(slices, std::max<int64_t>(1, sticks));
                for (int64_t p = 0; p < parts; ++p) {
                    const int64_t lo = nr.first + sticks * p / parts * lanes_;
                    const int64_t hi = std::min(nr.second, nr.first + sticks * (p + 1) / parts * lanes_);
                    if (hi > lo)
                        tasks.push_back({g, t, lo, hi});
                }
            }
        return tasks;
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

ExecutionStats executeKernel(const Kernel& kernel, std::map<std::string, DeviceTensor>& tensors, DeviceFormat format, int stickElements,
                             int hostThreads, LxState* lx)
{
    KernelRun run(kernel, tensors, format, stickElements, lx);
    return run.run(hostThreads);
}

}  // namespace spyglass::spyresim
