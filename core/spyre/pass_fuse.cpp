#include "core/spyre/pass_fuse.h"

#include "core/spyre/ir_edit.h"

#include <algorithm>

namespace spyglass::spyre {

namespace {

bool hasStmt(const Op& op, StmtKind k)
{
    return std::any_of(op.body.begin(), op.body.end(), [k](const Stmt& s) { return s.kind == k; });
}

// Whether the op's load statements read its loads in order, each once: then its loads and statements can be
// taken over as they are, exactly as re-emitting them one by one would number them.
bool loadsInOrder(const Op& op)
{
    size_t next = 0;
    for (const Stmt& s : op.body)
        if (s.kind == StmtKind::Load && s.load != static_cast<int>(next++))
            return false;
    return next == op.loads.size();
}

int storedValue(const Op& op)
{
    for (const Stmt& s : op.body)
        if (s.kind == StmtKind::Store)
            return s.args.at(0);
    return -1;
}

class Fuser {
public:
    Fuser(Program& p, const CompileOptions& o) : p_(p), options_(o) {}

    int prologues = 0;
    int epilogues = 0;

    void run()
    {
        consumers_ = p_.consumersOfBuffers();
        bool changed = true;
        while (changed) {
            changed = false;
            for (size_t i = 0; i < p_.ops.size(); ++i)
                if (!p_.ops[i].name.empty() && tryInline(static_cast<int>(i))) {
                    ++prologues;
                    changed = true;
                }
        }
        for (size_t i = 0; i < p_.ops.size(); ++i)
            if (!p_.ops[i].name.empty() && p_.ops[i].kind == OpKind::MatMul && tryEpilogue(static_cast<int>(i)))
                ++epilogues;
        // fusedFrom lists the ops of the `lower` snapshot a fused op is made of, itself included.
        for (Op& op : p_.ops)
            if (!op.name.empty() && !op.fusedFrom.empty() &&
                std::find(op.fusedFrom.begin(), op.fusedFrom.end(), op.name) == op.fusedFrom.end())
                op.fusedFrom.push_back(op.name);
        compactProgram(p_);
    }

private:
    Program& p_;
    const CompileOptions& options_;
    std::vector<std::vector<int>> consumers_;

    bool pinned(const Buffer& b) const { return options_.pins.count(b.name) || options_.pins.count(b.origin); }

    int soleConsumer(int buffer) const
    {
        int c = -1;
        for (int o : consumers_[buffer]) {
            if (p_.ops[o].name.empty())
                continue;
            if (c >= 0 && c != o)
                return -1;
            c = o;
        }
        return c;
    }

    void moveConsumers(const Op& from, int fromIndex, int to)
    {
        for (const Access& a : from.loads) {
            auto& list = consumers_[a.buffer];
            std::replace(list.begin(), list.end(), fromIndex, to);
            std::sort(list.begin(), list.end());
            list.erase(std::unique(list.begin(), list.end()), list.end());
        }
    }

    bool tryInline(int pi)
    {
        Op& P = p_.ops[pi];
        const Buffer& out = p_.buffers[P.store.buffer];
        if (P.kind != OpKind::Pointwise || out.kind != BufferKind::Intermediate || pinned(out) ||
            hasStmt(P, StmtKind::Select) || hasStmt(P, StmtKind::Mask) || hasStmt(P, StmtKind::IndirectIndex))
            return false;
        const int ci = soleConsumer(P.store.buffer);
        if (ci < 0 || ci == pi)
            return false;
        Op& C = p_.ops[ci];
        if (C.kind != OpKind::Pointwise && C.kind != OpKind::Reduction)
            return false;
        // Every load of P's buffer must split into per-dimension indices we can substitute for P's vars.
        std::vector<std::vector<AffineExpr>> dimsOfLoad(C.loads.size());
        for (size_t l = 0; l < C.loads.size(); ++l)
            if (C.loads[l].buffer == P.store.buffer) {
                auto dims = perDimIndex(C, C.loads[l].index, P.ranges);
                if (!dims)
                    return false;
                dimsOfLoad[l] = std::move(*dims);
            }
        const int pValue = storedValue(P);
        moveConsumers(P, pi, ci);   // while P still has its loads
        std::vector<Stmt> body;
        std::vector<Access> loads;
        std::vector<int> remap(C.body.size(), -1);
        // A chain (relu(relu(...))) inlines a body that grows by one op each time: copying it every time would be
        // quadratic in the chain's length. When P's value is C's first statement and its only use of P, P's body
        // becomes the start of C's as it is (its statement and load indices stay), so each step costs C's size.
        int pLoadsInC = 0;
        for (const Stmt& st : C.body)
            pLoadsInC += st.kind == StmtKind::Load && C.loads[st.load].buffer == P.store.buffer;
        const bool takeWhole = pLoadsInC == 1 && !C.body.empty() && C.body.front().kind == StmtKind::Load &&
                               C.loads[C.body.front().load].buffer == P.store.buffer && !P.body.empty() &&
                               P.body.back().kind == StmtKind::Store && pValue >= 0 &&
                               static_cast<size_t>(pValue) + 1 < P.body.size() &&
                               std::count_if(P.body.begin(), P.body.end(), [](const Stmt& x) { return x.kind == StmtKind::Store; }) == 1 &&
                               loadsInOrder(P);
        for (size_t s = 0; s < C.body.size(); ++s) {
            Stmt st = C.body[s];
            if (s == 0 && takeWhole) {
                body = std::move(P.body);
                body.pop_back();   // P's store
                loads = std::move(P.loads);
                for (Access& a : loads)
                    a.index = substitute(a.index, dimsOfLoad[st.load]);
                remap[s] = pValue;
                continue;
            }
            if (st.kind == StmtKind::Load && C.loads[st.load].buffer == P.store.buffer) {
                // Inline P's body here, re-indexed through this load.
                std::vector<int> premap(P.body.size(), -1);
                for (size_t k = 0; k < P.body.size(); ++k) {
                    Stmt ps = P.body[k];
                    if (ps.kind == StmtKind::Store)
                        continue;
                    for (int& a : ps.args)
                        a = premap[a];
                    if (ps.kind == StmtKind::Load) {
                        loads.push_back(Access{P.loads[ps.load].buffer, substitute(P.loads[ps.load].index, dimsOfLoad[st.load])});
                        ps.load = static_cast<int>(loads.size() - 1);
                    }
                    body.push_back(ps);
                    premap[k] = static_cast<int>(body.size() - 1);
                }
                remap[s] = premap[pValue];
                continue;
            }
            for (int& a : st.args)
                a = remap[a];
            if (st.kind == StmtKind::Load) {
                loads.push_back(C.loads[st.load]);
                st.load = static_cast<int>(loads.size() - 1);
            }
            body.push_back(st);
            remap[s] = static_cast<int>(body.size() - 1);
        }
        C.body = std::move(body);
        C.loads = std::move(loads);
        // P's lists first, then C's: appended to P's (moved) so that a long chain does not copy them each step.
        std::vector<std::string> origins = std::move(P.origins);
        origins.insert(origins.end(), C.origins.begin(), C.origins.end());
        C.origins = std::move(origins);
        std::vector<std::string> fused = std::move(P.fusedFrom);
        fused.push_back(P.name);
        fused.insert(fused.end(), C.fusedFrom.begin(), C.fusedFrom.end());
        C.fusedFrom = std::move(fused);
        // A fused-away op keeps nothing: its body lives on in C, and holding every step's copy until
        // compactProgram was quadratic memory (2.3 GB for a 4 000-op ReLU chain).
        p_.ops[pi] = Op{};
        return true;
    }

    bool tryEpilogue(int mi)
    {
        Op& M = p_.ops[mi];
        const Buffer& out = p_.buffers[M.store.buffer];
        if (out.kind != BufferKind::Intermediate || pinned(out))
            return false;
        const int ci = soleConsumer(M.store.buffer);
        if (ci < 0)
            return false;
        Op& C = p_.ops[ci];
        if (C.kind != OpKind::Pointwise || C.ranges != M.ranges || hasStmt(C, StmtKind::Select) ||
            hasStmt(C, StmtKind::Mask) || hasStmt(C, StmtKind::IndirectIndex))
            return false;
        for (const Access& a : C.loads)
            if (a.buffer == M.store.buffer && !(a.index == M.store.index))
                return false;
        std::vector<Stmt> body;
        for (const Stmt& s : M.body)
            if (s.kind != StmtKind::Store)
                body.push_back(s);
        const int acc = storedValue(M);
        std::vector<int> remap(C.body.size(), -1);
        for (size_t s = 0; s < C.body.size(); ++s) {
            Stmt st = C.body[s];
            if (st.kind == StmtKind::Load && C.loads[st.load].buffer == M.store.buffer) {
                remap[s] = acc;
                continue;
            }
            for (int& a : st.args)
                a = remap[a];
            if (st.kind == StmtKind::Load) {
                M.loads.push_back(C.loads[st.load]);
                st.load = static_cast<int>(M.loads.size() - 1);
            }
            body.push_back(st);
            remap[s] = static_cast<int>(body.size() - 1);
        }
        M.body = std::move(body);
        M.store = C.store;
        M.origins.insert(M.origins.end(), C.origins.begin(), C.origins.end());
        M.fusedFrom.insert(M.fusedFrom.end(), C.fusedFrom.begin(), C.fusedFrom.end());
        M.fusedFrom.push_back(M.name);
        // The fused matmul runs where its epilogue ran (all the epilogue's inputs exist by then).
        M.name = C.name;
        moveConsumers(M, mi, ci);
        p_.ops[ci] = std::move(M);
        p_.ops[mi].name.clear();
        return true;
    }
};

}  // namespace

PassResult FusePass::run(Program& program, PassContext& ctx)
{
    if (program.stage != Stage::Loop)
        return {false, "nothing to do: not lowered"};
    if (!ctx.options.fuse)
        return {false, "fusion disabled"};
    const size_t before = program.ops.size();
    Fuser f(program, ctx.options);
    f.run();
    PassResult r;
    r.changed = f.prologues + f.epilogues > 0;
    r.summary = "fused " + std::to_string(f.prologues) + " pointwise ops into consumers and " + std::to_string(f.epilogues) +
                " into matmul epilogues; " + std::to_string(before) + " -> " + std::to_string(program.ops.size()) + " ops";
    return r;
}

}  // namespace spyglass::spyre
