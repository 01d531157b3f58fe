#include "core/spyre/pass_lower.h"
#include "core/spyre/body_fn.h"

#include "core/common/diagnostics.h"
#include "core/common/job_control.h"

#include <algorithm>
#include <map>
#include <optional>

namespace spyglass::spyre {

namespace {

const std::map<std::string, BodyFn>& unaryOps()
{
    static const std::map<std::string, BodyFn> m = {
        {"Sqrt", BodyFn::Sqrt}, {"Reciprocal", BodyFn::Reciprocal}, {"Neg", BodyFn::Neg},   {"Abs", BodyFn::Abs},     {"Exp", BodyFn::Exp},
        {"Log", BodyFn::Log},   {"Erf", BodyFn::Erf},               {"Relu", BodyFn::Relu}, {"Sigmoid", BodyFn::Sigmoid}, {"Tanh", BodyFn::Tanh},
        {"Floor", BodyFn::Floor}, {"Ceil", BodyFn::Ceil},           {"Round", BodyFn::Round},           {"Sin", BodyFn::Sin},   {"Cos", BodyFn::Cos},     {"Tan", BodyFn::Tan}, {"Asin", BodyFn::Asin}, {"Acos", BodyFn::Acos},
        {"Atan", BodyFn::Atan}, {"Sinh", BodyFn::Sinh}, {"Cosh", BodyFn::Cosh}, {"Asinh", BodyFn::Asinh}, {"Acosh", BodyFn::Acosh}, {"Atanh", BodyFn::Atanh},     {"Cast", BodyFn::ToDtype}, {"CastLike", BodyFn::ToDtype},
        {"LeakyRelu", BodyFn::LeakyRelu}, {"Not", BodyFn::LogicalNot}, {"Sign", BodyFn::Sign}};
    return m;
}

const std::map<std::string, BodyFn>& binaryOps()
{
    static const std::map<std::string, BodyFn> m = {
        {"Add", BodyFn::Add}, {"Sub", BodyFn::Sub}, {"Mul", BodyFn::Mul}, {"Div", BodyFn::TrueDiv}, {"Pow", BodyFn::Pow}, {"Max", BodyFn::Maximum},
        {"Min", BodyFn::Minimum}, {"Equal", BodyFn::Eq}, {"Less", BodyFn::Lt}, {"Greater", BodyFn::Gt}, {"LessOrEqual", BodyFn::Le},
        {"GreaterOrEqual", BodyFn::Ge}, {"And", BodyFn::LogicalAnd}, {"Or", BodyFn::LogicalOr}};
    return m;
}

// A tensor as later loads see it: element (i0, i1, ...) lives at offset + sum coef[d] * i_d of `buffer`.
struct View {
    int buffer = -1;
    Shape shape;
    std::vector<int64_t> coef;
    int64_t offset = 0;
    std::optional<double> scalar;   // a one-element constant, inlined as ops.constant

    bool contiguous() const
    {
        const Shape st = contiguousStrides(shape);
        for (size_t d = 0; d < shape.size(); ++d)
            if (shape[d] > 1 && coef[d] != st[d])
                return false;
        return true;
    }
};

class Lowerer {
public:
    Lowerer(Program& p, const PassContext& ctx) : p_(p), ctx_(ctx) {}

    void run()
    {
        views_.assign(p_.tensors.size(), std::nullopt);
        int inputs = 0;
        for (size_t t = 0; t < p_.tensors.size(); ++t) {
            const GraphTensor& gt = p_.tensors[t];
            if (gt.isInput && !gt.isConstant)
                views_[t] = whole(newBuffer("arg" + std::to_string(inputs++) + "_1", gt.name, gt.shape, gt.dtype,
                                            BufferKind::Input));
        }
        for (const GraphOp& g : p_.graphOps) {
            if (ctx_.job)
                ctx_.job->checkpoint();
            lowerOp(g);
        }
        for (size_t t = 0; t < p_.tensors.size(); ++t)
            if (p_.tensors[t].isOutput)
                finishOutput(static_cast<int>(t));
        for (size_t o = 0; o < p_.ops.size(); ++o) {
            p_.ops[o].name = "op" + std::to_string(o);
            p_.buffers[p_.ops[o].store.buffer].producer = static_cast<int>(o);
        }
        p_.stage = Stage::Loop;
        p_.graphOps.clear();
        p_.tensors.clear();
    }

private:
    Program& p_;
    const PassContext& ctx_;
    std::vector<std::optional<View>> views_;
    int constants_ = 0;
    int intermediates_ = 0;

    InputError error(const GraphOp& g, const std::string& message) const
    {
        Diagnostic d;
        d.location = SourceLocation{p_.sourcePath, 0, 0};
        d.node = g.label();
        d.message = message;
        return InputError(d);
    }

    int newBuffer(const std::string& name, const std::string& origin, const Shape& shape, const std::string& dtype,
                  BufferKind kind)
    {
        Buffer b;
        b.name = name;
        b.origin = origin;
        b.kind = kind;
        b.shape = shape;
        b.strides = contiguousStrides(shape);
        b.dtype = dtype;
        p_.buffers.push_back(std::move(b));
        return static_cast<int>(p_.buffers.size() - 1);
    }

    View whole(int b) const
    {
        View v;
        v.buffer = b;
        v.shape = p_.buffers[b].shape;
        v.coef = p_.buffers[b].strides;
        return v;
    }

    const View& viewOf(const GraphOp& g, size_t input)
    {
        if (input >= g.inputs.size() || g.inputs[input] < 0)
            throw error(g, "missing input " + std::to_string(input));
        const int t = g.inputs[input];
        if (!views_[t]) {
            const GraphTensor& gt = p_.tensors[t];
            if (!gt.isConstant)
                throw error(g, "input '" + gt.name + "' is neither produced by an earlier op nor a graph input or constant");
            View v;
            if (gt.f && gt.f->size() == 1)
                v.scalar = (*gt.f)[0];
            else if (gt.i && gt.i->size() == 1 && gt.dtype != "int64")
                v.scalar = static_cast<double>((*gt.i)[0]);
            if (v.scalar) {
                v.shape = gt.shape;
                v.coef.assign(gt.shape.size(), 0);
            } else {
                const int b = newBuffer("_frozen_param" + std::to_string(constants_++), gt.name, gt.shape, gt.dtype,
                                        BufferKind::Constant);
                p_.buffers[b].f = gt.f;
                p_.buffers[b].i = gt.i;
                v = whole(b);
            }
            views_[t] = v;
        }
        return *views_[t];
    }

    std::vector<int64_t> constInts(const GraphOp& g, size_t input)
    {
        if (input >= g.inputs.size() || g.inputs[input] < 0)
            return {};
        const GraphTensor& t = p_.tensors[g.inputs[input]];
        if (!t.isConstant)
            throw error(g, "input " + std::to_string(input) + " ('" + t.name + "') must be a constant");
        std::vector<int64_t> out;
        if (t.i)
            out = *t.i;
        else if (t.f)
            for (float v : *t.f)
                out.push_back(static_cast<int64_t>(v));
        return out;
    }

    const GraphTensor& outTensor(const GraphOp& g, size_t k = 0) const { return p_.tensors[g.outputs.at(k)]; }

    // --- building ops ---------------------------------------------------------------------------------------

    static int stmt(Op& op, Stmt s)
    {
        op.body.push_back(std::move(s));
        return static_cast<int>(op.body.size() - 1);
    }

    static int load(Op& op, int buffer, AffineExpr index)
    {
        op.loads.push_back(Access{buffer, std::move(index)});
        Stmt s;
        s.kind = StmtKind::Load;
        s.load = static_cast<int>(op.loads.size() - 1);
        return stmt(op, s);
    }

    static int constant(Op& op, double value)
    {
        Stmt s;
        s.kind = StmtKind::Constant;
        s.value = value;
        return stmt(op, s);
    }

    static int compute(Op& op, BodyFn fn, std::vector<int> args, double value = 0, double value2 = 0)
    {
        Stmt s;
        s.kind = StmtKind::Compute;
        s.fn = fn;
        s.args = std::move(args);
        s.value = value;
        s.value2 = value2;
        return stmt(op, s);
    }

    // Load `v` broadcast (numpy, aligned right) to the op's iteration space over `outShape` (vars 0..rank-1).
    static int loadBroadcast(Op& op, const View& v, const Shape& outShape)
    {
        if (v.scalar)
            return constant(op, *v.scalar);
        AffineExpr idx;
        idx.constant = v.offset;
        const size_t shift = outShape.size() - v.shape.size();
        for (size_t d = 0; d < v.shape.size(); ++d)
            if (v.shape[d] > 1 && outShape[d + shift] > 1)
                idx.add(static_cast<int>(d + shift), v.coef[d]);
        return load(op, v.buffer, std::move(idx));
    }

    static AffineExpr contiguousIndex(const Shape& ranges)
    {
        AffineExpr idx;
        const Shape st = contiguousStrides(ranges);
        for (size_t d = 0; d < ranges.size(); ++d)
            if (ranges[d] > 1)
                idx.add(static_cast<int>(d), st[d]);
        return idx;
    }

    // Stores `value` to a fresh buffer for graph tensor `t`, appends the op, and makes `t` a whole view of it.
    void finish(Op& op, int value, const GraphOp& g, int t)
    {
        const GraphTensor& gt = p_.tensors[t];
        const int b = newBuffer("buf" + std::to_string(intermediates_++), gt.name, gt.shape, gt.dtype,
                                BufferKind::Intermediate);
        Stmt s;
        s.kind = StmtKind::Store;
        s.args = {value};
        stmt(op, s);
        op.store = Access{b, contiguousIndex(op.ranges)};
        op.origins.push_back(g.label());
        p_.ops.push_back(std::move(op));
        views_[t] = whole(b);
    }

    View materialise(const View& v, const GraphOp& g, const std::string& origin)
    {
        Op op;
        op.kind = OpKind::Pointwise;
        op.ranges = v.shape;
        const int x = loadBroadcast(op, v, v.shape);
        const int b = newBuffer("buf" + std::to_string(intermediates_++), origin, v.shape, "float32", BufferKind::Intermediate);
        Stmt s;
        s.kind = StmtKind::Store;
        s.args = {x};
        stmt(op, s);
        op.store = Access{b, contiguousIndex(op.ranges)};
        op.origins.push_back(g.label() + " (copy)");
        p_.ops.push_back(std::move(op));
        return whole(b);
    }

    // --- op lowerings ----------------------------------------------------------------------------------------

    void lowerOp(const GraphOp& g)
    {
        const std::string& t = g.opType;
        if (auto u = unaryOps().find(t); u != unaryOps().end())
            return pointwise(g, u->second, 1);
        if (auto b = binaryOps().find(t); b != binaryOps().end())
            return pointwise(g, b->second, 2);
        if (t == "Where")
            return pointwise(g, BodyFn::Where, 3);
        if (t == "Mod")
            return pointwise(g, g.intAttr("fmod", 0) ? BodyFn::FMod : BodyFn::Mod, 2);
        if (t == "Trilu")
            return trilu(g);
        if (t == "GatherElements")
            return gatherElements(g);
        if (t == "GatherND")
            return gatherND(g);
        if (t == "Clip")
            return clip(g);
        if (t == "MatMul")
            return matmul(g);
        if (t == "ReduceSum" || t == "ReduceMax" || t == "ReduceMin" || t == "ReduceProd")
            return reduction(g, t == "ReduceSum" ? ReduceFn::Sum : t == "ReduceMax" ? ReduceFn::Max : t == "ReduceMin" ? ReduceFn::Min : ReduceFn::Prod);
        if (t == "Transpose")
            return transpose(g);
        if (t == "Reshape")
            return reshape(g);
        if (t == "Expand")
            return expand(g);
        if (t == "Slice")
            return slice(g);
        if (t == "Concat")
            return concat(g);
        if (t == "Gather")
            return gather(g);
        if (t == "PadConstant")
            return padConstant(g);
        if (t == "CumSum")
            return cumSum(g);
        if (t == "Im2Col" || t == "WindowReduce")
            return slidingWindow(g, t == "Im2Col");
        throw error(g, "op type '" + t + "' is not supported by the Spyre compiler");
    }

    void pointwise(const GraphOp& g, BodyFn fn, size_t arity)
    {
        if (g.inputs.size() < arity)
            throw error(g, "expects " + std::to_string(arity) + " inputs");
        if ((g.opType == "Max" || g.opType == "Min") && g.inputs.size() != 2)
            throw error(g, "only the two-input form is supported");
        const GraphTensor& out = outTensor(g);
        Op op;
        op.kind = OpKind::Pointwise;
        op.ranges = out.shape;
        std::vector<int> args;
        for (size_t i = 0; i < arity; ++i)
            args.push_back(loadBroadcast(op, viewOf(g, i), out.shape));
        double value = 0;
        if (g.opType == "LeakyRelu")
            value = g.floatAttr("alpha", 0.01);
        if (g.opType == "Cast" && g.ints.count("saturate") == 0 && g.strings.count("round_mode"))
            throw error(g, "attribute 'round_mode' is not supported");
        // ONNX Div on integers truncates; on floats it is a true division.
        const BodyFn f =
            (fn == BodyFn::TrueDiv && out.dtype != "float32" && out.dtype != "float16" && out.dtype != "float64") ? BodyFn::TruncDiv : fn;
        const int r = compute(op, f, args, value);
        finish(op, r, g, g.outputs.at(0));
    }

    void clip(const GraphOp& g)
    {
        const GraphTensor& out = outTensor(g);
        Op op;
        op.kind = OpKind::Pointwise;
        op.ranges = out.shape;
        int v = loadBroadcast(op, viewOf(g, 0), out.shape);
        // Bounds are attributes (opset < 11) or optional inputs, constant or known only at run time.
        auto bound = [&](size_t input, const char* attr, BodyFn fn) {
            if (input < g.inputs.size() && g.inputs[input] >= 0)
                v = compute(op, fn, {v, loadBroadcast(op, viewOf(g, input), out.shape)});
            else if (g.floats.count(attr))
                v = compute(op, fn, {v, constant(op, g.floats.at(attr))});
        };
        bound(1, "min", BodyFn::Maximum);
        bound(2, "max", BodyFn::Minimum);
        finish(op, v, g, g.outputs.at(0));
    }

    void matmul(const GraphOp& g)
    {
        View a = viewOf(g, 0), b = viewOf(g, 1);
        if (a.scalar || b.scalar)
            throw error(g, "MatMul of a one-element constant is not supported");
        if (a.shape.size() == 1) {
            a.shape.insert(a.shape.begin(), 1);
            a.coef.insert(a.coef.begin(), 0);
        }
        if (b.shape.size() == 1) {
            b.shape.push_back(1);
            b.coef.push_back(0);
        }
        const size_t ra = a.shape.size(), rb = b.shape.size();
        const int64_t m = a.shape[ra - 2], k = a.shape[ra - 1], kb = b.shape[rb - 2], n = b.shape[rb - 1];
        if (k != kb)
            throw error(g, "inner dimensions differ: " + shapeText(a.shape) + " x " + shapeText(b.shape));
        const size_t batchRank = std::max(ra, rb) - 2;
        Shape batch(batchRank, 1);
        for (size_t d = 0; d < batchRank; ++d) {
            const int64_t ia = static_cast<int64_t>(d) - static_cast<int64_t>(batchRank - (ra - 2));
            const int64_t ib = static_cast<int64_t>(d) - static_cast<int64_t>(batchRank - (rb - 2));
            const int64_t da = ia >= 0 ? a.shape[ia] : 1;
            const int64_t db = ib >= 0 ? b.shape[ib] : 1;
            if (da != db && da != 1 && db != 1)
                throw error(g, "batch dimensions do not broadcast: " + shapeText(a.shape) + " x " + shapeText(b.shape));
            batch[d] = std::max(da, db);
        }
        Op op;
        op.kind = OpKind::MatMul;
        op.ranges = batch;
        op.ranges.push_back(m);
        op.ranges.push_back(n);
        op.reductionRanges = {k};
        const int mVar = static_cast<int>(batchRank), nVar = mVar + 1, kVar = nVar + 1;
        auto operandIndex = [&](const View& v, size_t rank, int rowVar, int rowDim, int colVar, int colDim) {
            AffineExpr idx;
            idx.constant = v.offset;
            for (size_t d = 0; d + 2 < rank; ++d) {
                const size_t bd = d + batchRank - (rank - 2);
                if (v.shape[d] > 1)
                    idx.add(static_cast<int>(bd), v.coef[d]);
            }
            if (v.shape[rowDim] > 1)
                idx.add(rowVar, v.coef[rowDim]);
            if (v.shape[colDim] > 1)
                idx.add(colVar, v.coef[colDim]);
            return idx;
        };
        const int la = load(op, a.buffer, operandIndex(a, ra, mVar, static_cast<int>(ra - 2), kVar, static_cast<int>(ra - 1)));
        const int lb = load(op, b.buffer, operandIndex(b, rb, kVar, static_cast<int>(rb - 2), nVar, static_cast<int>(rb - 1)));
        op.matmul = MatmulRoles{op.body[la].load, op.body[lb].load, mVar, nVar, kVar};
        const int mul = compute(op, BodyFn::Mul, {la, lb});
        Stmt red;
        red.kind = StmtKind::Reduction;
        red.reduce = ReduceFn::Sum;
        red.args = {mul};
        const int r = stmt(op, red);
        finish(op, r, g, g.outputs.at(0));
    }

    void reduction(const GraphOp& g, ReduceFn fn)
    {
        const View x = viewOf(g, 0);
        if (x.scalar)
            throw error(g, "reduction of a one-element constant");
        std::vector<int64_t> axes = g.ints.count("axes") ? g.ints.at("axes") : std::vector<int64_t>{};
        Op op;
        op.kind = OpKind::Reduction;
        std::vector<int> varOfDim(x.shape.size(), -1);
        std::vector<bool> reduced(x.shape.size(), false);
        for (int64_t a : axes) {
            if (a < 0 || a >= static_cast<int64_t>(x.shape.size()))
                throw error(g, "attribute 'axes' has " + std::to_string(a) + ", out of range");
            reduced[a] = true;
        }
        for (size_t d = 0; d < x.shape.size(); ++d)
            if (!reduced[d]) {
                varOfDim[d] = static_cast<int>(op.ranges.size());
                op.ranges.push_back(x.shape[d]);
            }
        int rk = 0;
        for (size_t d = 0; d < x.shape.size(); ++d)
            if (reduced[d]) {
                varOfDim[d] = static_cast<int>(op.ranges.size()) + rk++;
                op.reductionRanges.push_back(x.shape[d]);
            }
        AffineExpr idx;
        idx.constant = x.offset;
        for (size_t d = 0; d < x.shape.size(); ++d)
            if (x.shape[d] > 1)
                idx.add(varOfDim[d], x.coef[d]);
        const int l = load(op, x.buffer, std::move(idx));
        if (op.reductionRanges.empty()) {
            finish(op, l, g, g.outputs.at(0));   // nothing to reduce: a copy
            p_.ops.back().kind = OpKind::Pointwise;
            return;
        }
        Stmt red;
        red.kind = StmtKind::Reduction;
        red.reduce = fn;
        red.args = {l};
        const int r = stmt(op, red);
        finish(op, r, g, g.outputs.at(0));
    }

    bool onlyMatmulsRead(int tensor) const
    {
        if (p_.tensors[tensor].isOutput)
            return false;
        bool read = false;
        for (const GraphOp& c : p_.graphOps)
            for (int in : c.inputs)
                if (in == tensor) {
                    if (c.opType != "MatMul")
                        return false;
                    read = true;
                }
        return read;
    }

    void transpose(const GraphOp& g)
    {
        const View x = viewOf(g, 0);
        const size_t rank = x.shape.size();
        std::vector<int64_t> perm = g.ints.count("perm") ? g.ints.at("perm") : std::vector<int64_t>{};
        if (perm.empty())
            for (size_t d = 0; d < rank; ++d)
                perm.push_back(static_cast<int64_t>(rank - 1 - d));
        if (perm.size() != rank)
            throw error(g, "attribute 'perm' has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(rank));
        if (x.scalar) {
            views_[g.outputs.at(0)] = x;
            return;
        }
        if (p_.buffers[x.buffer].kind == BufferKind::Constant || onlyMatmulsRead(g.outputs.at(0))) {
            // A transposed weight is a view (Inductor's permute): the host writes the constant in whatever
            // layout its consumer needs, so no kernel moves it. A transpose only matmuls read is a view too: a
            // matmul reads its operands through any strides, so the transpose costs at most the one restickify
            // layout propagation adds when the operand's stick is on the wrong dim, not a copy kernel as well.
            View v;
            v.buffer = x.buffer;
            v.offset = x.offset;
            for (size_t j = 0; j < rank; ++j) {
                v.shape.push_back(x.shape.at(perm[j]));
                v.coef.push_back(x.coef.at(perm[j]));
            }
            views_[g.outputs.at(0)] = v;
            return;
        }
        Op op;
        op.kind = OpKind::Pointwise;
        for (size_t j = 0; j < rank; ++j)
            op.ranges.push_back(x.shape.at(perm[j]));
        AffineExpr idx;
        idx.constant = x.offset;
        for (size_t j = 0; j < rank; ++j)
            if (x.shape[perm[j]] > 1)
                idx.add(static_cast<int>(j), x.coef[perm[j]]);
        const int l = load(op, x.buffer, std::move(idx));
        finish(op, l, g, g.outputs.at(0));
    }

    void reshape(const GraphOp& g)
    {
        View x = viewOf(g, 0);
        const GraphTensor& out = outTensor(g);
        if (shapeProduct(out.shape) != shapeProduct(x.shape))
            throw error(g, "cannot reshape " + shapeText(x.shape) + " into " + shapeText(out.shape));
        if (!x.scalar && !x.contiguous())
            x = materialise(x, g, out.name + ".contiguous");
        View v;
        v.buffer = x.buffer;
        v.scalar = x.scalar;
        v.offset = x.offset;
        v.shape = out.shape;
        v.coef = x.scalar ? std::vector<int64_t>(out.shape.size(), 0) : contiguousStrides(out.shape);
        views_[g.outputs.at(0)] = v;
    }

    void expand(const GraphOp& g)
    {
        const View x = viewOf(g, 0);
        const Shape& target = outTensor(g).shape;
        if (target.size() < x.shape.size())
            throw error(g, "cannot expand " + shapeText(x.shape) + " to " + shapeText(target));
        View v = x;
        v.shape = target;
        v.coef.assign(target.size(), 0);
        const size_t shift = target.size() - x.shape.size();
        for (size_t d = 0; d < x.shape.size(); ++d) {
            if (x.shape[d] != target[d + shift] && x.shape[d] != 1)
                throw error(g, "cannot expand " + shapeText(x.shape) + " to " + shapeText(target));
            v.coef[d + shift] = x.shape[d] == 1 ? 0 : x.coef[d];
        }
        views_[g.outputs.at(0)] = v;
    }

    void slice(const GraphOp& g)
    {
        View x = viewOf(g, 0);
        std::vector<int64_t> starts, ends, axes, steps;
        if (g.inputs.size() > 1) {
            starts = constInts(g, 1);
            ends = constInts(g, 2);
            axes = constInts(g, 3);
            steps = constInts(g, 4);
        } else {
            starts = g.ints.count("starts") ? g.ints.at("starts") : std::vector<int64_t>{};
            ends = g.ints.count("ends") ? g.ints.at("ends") : std::vector<int64_t>{};
            axes = g.ints.count("axes") ? g.ints.at("axes") : std::vector<int64_t>{};
            steps = g.ints.count("steps") ? g.ints.at("steps") : std::vector<int64_t>{};   // decompose's slices
        }
        if (starts.size() != ends.size())
            throw error(g, "starts and ends differ in length");
        if (axes.empty())
            for (size_t i = 0; i < starts.size(); ++i)
                axes.push_back(static_cast<int64_t>(i));
        if (steps.empty())
            steps.assign(starts.size(), 1);
        const Shape& outShape = outTensor(g).shape;
        View v = x;
        for (size_t i = 0; i < starts.size(); ++i) {
            int64_t a = axes[i] < 0 ? axes[i] + static_cast<int64_t>(x.shape.size()) : axes[i];
            if (a < 0 || a >= static_cast<int64_t>(x.shape.size()))
                throw error(g, "axis " + std::to_string(axes[i]) + " out of range");
            const int64_t dim = x.shape[a], step = steps[i];
            if (step == 0)
                throw error(g, "a step of 0");
            int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
            s = step > 0 ? std::clamp<int64_t>(s, 0, dim) : std::clamp<int64_t>(s, 0, dim - 1);
            v.offset += s * x.coef[a];
            v.coef[a] = x.coef[a] * step;
        }
        if (outShape.size() != x.shape.size())
            throw error(g, "output rank differs from input rank");
        v.shape = outShape;
        for (size_t d = 0; d < outShape.size(); ++d)
            if (outShape[d] <= 1)
                v.coef[d] = 0;
        if (x.scalar)
            v.scalar = x.scalar;
        views_[g.outputs.at(0)] = v;
    }

    void concat(const GraphOp& g)
    {
        const GraphTensor& out = outTensor(g);
        const size_t rank = out.shape.size();
        int64_t axis = g.intAttr("axis", 0);
        if (axis < 0)
            axis += static_cast<int64_t>(rank);
        if (axis < 0 || axis >= static_cast<int64_t>(rank))
            throw error(g, "attribute 'axis' out of range");
        Op op;
        op.kind = OpKind::Pointwise;
        op.ranges = out.shape;
        std::vector<int> loads;
        std::vector<int64_t> offsets;
        int64_t off = 0;
        for (size_t i = 0; i < g.inputs.size(); ++i) {
            const View& v = viewOf(g, i);
            if (v.shape.size() != rank)
                throw error(g, "inputs differ in rank");
            if (v.shape[axis] == 0)
                continue;
            if (v.scalar) {
                loads.push_back(constant(op, *v.scalar));
            } else {
                AffineExpr idx;
                idx.constant = v.offset - off * v.coef[axis];
                for (size_t d = 0; d < rank; ++d)
                    if (v.shape[d] > 1 || static_cast<int64_t>(d) == axis)
                        idx.add(static_cast<int>(d), v.coef[d]);
                loads.push_back(load(op, v.buffer, std::move(idx)));
            }
            offsets.push_back(off);
            off += v.shape[axis];
        }
        if (off != out.shape[axis])
            throw error(g, "input sizes along the axis add up to " + std::to_string(off) + ", output has " +
                               std::to_string(out.shape[axis]));
        int value = loads.back();
        for (int i = static_cast<int>(loads.size()) - 2; i >= 0; --i) {
            Stmt s;
            s.kind = StmtKind::Select;
            s.var = static_cast<int>(axis);
            s.bound = offsets[i + 1];
            s.args = {loads[i], value};
            value = stmt(op, s);
        }
        finish(op, value, g, g.outputs.at(0));
    }

    void gather(const GraphOp& g)
    {
        const View data = viewOf(g, 0);
        const View idx = viewOf(g, 1);
        if (data.scalar)
            throw error(g, "gather from a one-element constant");
        int64_t axis = g.intAttr("axis", 0);
        if (axis < 0)
            axis += static_cast<int64_t>(data.shape.size());
        if (axis < 0 || axis >= static_cast<int64_t>(data.shape.size()))
            throw error(g, "attribute 'axis' out of range");
        const GraphTensor& out = outTensor(g);
        Op op;
        op.kind = OpKind::Pointwise;
        op.ranges = out.shape;
        const int q = static_cast<int>(idx.shape.size());
        int li;
        if (idx.scalar) {
            li = constant(op, *idx.scalar);
        } else {
            AffineExpr ii;
            ii.constant = idx.offset;
            for (int d = 0; d < q; ++d)
                if (idx.shape[d] > 1)
                    ii.add(static_cast<int>(axis) + d, idx.coef[d]);
            li = load(op, idx.buffer, std::move(ii));
        }
        Stmt ind;
        ind.kind = StmtKind::IndirectIndex;
        ind.args = {li};
        ind.load = 0;
        ind.bound = data.shape[axis];
        stmt(op, ind);
        AffineExpr di;
        di.constant = data.offset;
        for (size_t d = 0; d < data.shape.size(); ++d) {
            if (static_cast<int64_t>(d) == axis) {
                di.add(kIndirectVar, data.coef[d]);
                continue;
            }
            const int var = static_cast<int64_t>(d) < axis ? static_cast<int>(d) : static_cast<int>(d) + q - 1;
            if (data.shape[d] > 1)
                di.add(var, data.coef[d]);
        }
        const int ld = load(op, data.buffer, std::move(di));
        finish(op, ld, g, g.outputs.at(0));
    }

    // Trilu: a copy masked to j - i >= k (upper) or i - j >= -k (lower) over the last two dims.
    void trilu(const GraphOp& g)
    {
        const View x = viewOf(g, 0);
        const Shape& out = outTensor(g).shape;
        if (out.size() < 2)
            throw error(g, "input must have rank >= 2");
        const std::vector<int64_t> kv = constInts(g, 1);
        if (kv.size() > 1)
            throw error(g, "input 'k' must be a scalar");
        const int64_t k = kv.empty() ? 0 : kv[0];
        const bool upper = g.intAttr("upper", 1) != 0;
        Op op;
        op.kind = OpKind::Pointwise;
        op.ranges = out;
        Stmt m;
        m.kind = StmtKind::Mask;
        m.args = {loadBroadcast(op, x, out)};
        const int i = static_cast<int>(out.size() - 2), j = i + 1;
        m.cond.add(j, upper ? 1 : -1);
        m.cond.add(i, upper ? -1 : 1);
        m.lower = upper ? k : -k;
        m.bound = out[i] + out[j] + 1;   // above any difference of the two indices
        m.value = 0.0;
        finish(op, stmt(op, m), g, g.outputs.at(0));
    }

    // GatherElements: out[p] = data[p with p_axis replaced by indices[p]] (an indirect index along the axis).
    void gatherElements(const GraphOp& g)
    {
        const View data = viewOf(g, 0);
        const View idx = viewOf(g, 1);
        if (data.scalar)
            throw error(g, "gather from a one-element constant");
        const Shape& out = outTensor(g).shape;
        int64_t axis = g.intAttr("axis", 0);
        if (axis < 0)
            axis += static_cast<int64_t>(out.size());
        if (axis < 0 || axis >= static_cast<int64_t>(out.size()) || data.shape.size() != out.size())
            throw error(g, "attribute 'axis' out of range, or data and indices differ in rank");
        Op op;
        op.kind = OpKind::Pointwise;
        op.ranges = out;
        Stmt ind;
        ind.kind = StmtKind::IndirectIndex;
        ind.args = {loadBroadcast(op, idx, out)};
        ind.load = 0;
        ind.bound = data.shape[axis];
        stmt(op, ind);
        AffineExpr di;
        di.constant = data.offset;
        for (size_t d = 0; d < out.size(); ++d) {
            if (static_cast<int64_t>(d) == axis)
                di.add(kIndirectVar, data.coef[d]);
            else if (data.shape[d] > 1)
                di.add(static_cast<int>(d), data.coef[d]);
        }
        finish(op, load(op, data.buffer, std::move(di)), g, g.outputs.at(0));
    }

    // GatherND (batch_dims 0): out[u..., e...] = data[indices[u..., 0], ..., indices[u..., q-1], e...], one
    // indirect index per tuple component.
    void gatherND(const GraphOp& g)
    {
        const View data = viewOf(g, 0);
        const View idx = viewOf(g, 1);
        if (data.scalar || idx.scalar)
            throw error(g, "gather from or with a one-element constant");
        const Shape& out = outTensor(g).shape;
        const int64_t q = idx.shape.back();
        const int outer = static_cast<int>(idx.shape.size()) - 1;
        if (q < 1 || q > static_cast<int64_t>(data.shape.size()))
            throw error(g, "the last dimension of indices must be between 1 and the rank of data");
        Op op;
        op.kind = OpKind::Pointwise;
        op.ranges = out;
        for (int64_t j = 0; j < q; ++j) {
            AffineExpr ii;
            ii.constant = idx.offset + j * idx.coef.back();
            for (int d = 0; d < outer; ++d)
                if (idx.shape[d] > 1)
                    ii.add(d, idx.coef[d]);
            Stmt ind;
            ind.kind = StmtKind::IndirectIndex;
            ind.args = {load(op, idx.buffer, std::move(ii))};
            ind.load = static_cast<int>(j);
            ind.bound = data.shape[j];
            stmt(op, ind);
        }
        AffineExpr di;
        di.constant = data.offset;
        for (int64_t j = 0; j < q; ++j)
            di.add(kIndirectVar + static_cast<int>(j), data.coef[j]);
        for (size_t d = q; d < data.shape.size(); ++d)
            if (data.shape[d] > 1)
                di.add(outer + static_cast<int>(d - q), data.coef[d]);
        finish(op, load(op, data.buffer, std::move(di)), g, g.outputs.at(0));
    }

    // A masked copy: output element i reads x[i - pads_begin]; outside x along a padded dim it is the fill value
    // (a constant, or input 1 known only at run time: then a mask of ones picks between x and it).
    void padConstant(const GraphOp& g)
    {
        const View x = viewOf(g, 0);
        const Shape& out = outTensor(g).shape;
        const std::vector<int64_t>& pads = g.ints.at("pads");
        const size_t rank = out.size();
        Op op;
        op.kind = OpKind::Pointwise;
        op.ranges = out;
        int value;
        if (x.scalar) {
            value = constant(op, *x.scalar);
        } else {
            AffineExpr idx;
            idx.constant = x.offset;
            for (size_t d = 0; d < rank; ++d) {
                if (x.shape[d] > 1 || pads[d] || pads[d + rank])
                    idx.add(static_cast<int>(d), x.coef[d]);
                idx.constant -= pads[d] * x.coef[d];
            }
            value = load(op, x.buffer, std::move(idx));
        }
        const bool runtimeFill = g.inputs.size() > 1;
        auto masked = [&](int v, double fill) {
            for (size_t d = 0; d < rank; ++d) {
                if (!pads[d] && !pads[d + rank])
                    continue;
                Stmt m;
                m.kind = StmtKind::Mask;
                m.args = {v};
                m.cond.add(static_cast<int>(d), 1);
                m.lower = pads[d];
                m.bound = pads[d] + x.shape[d];
                m.value = fill;
                v = stmt(op, m);
            }
            return v;
        };
        value = masked(value, runtimeFill ? 0.0 : g.floatAttr("value", 0.0));
        if (runtimeFill) {
            const int inside = masked(constant(op, 1.0), 0.0);
            value = compute(op, BodyFn::Where, {inside, value, loadBroadcast(op, viewOf(g, 1), out)});
        }
        finish(op, value, g, g.outputs.at(0));
    }

    // CumSum: a sum over r of x[..., r, ...] masked to r <= i (r < i exclusive; r >= i, r > i in reverse).
    void cumSum(const GraphOp& g)
    {
        const View x = viewOf(g, 0);
        const Shape& out = outTensor(g).shape;
        const std::vector<int64_t> a = constInts(g, 1);
        if (a.size() != 1)
            throw error(g, "input 'axis' must be a scalar");
        const int64_t axis = a[0] < 0 ? a[0] + static_cast<int64_t>(out.size()) : a[0];
        if (axis < 0 || axis >= static_cast<int64_t>(out.size()))
            throw error(g, "axis " + std::to_string(a[0]) + " is out of range");
        if (x.scalar)
            throw error(g, "cumulative sum of a one-element constant");
        const bool exclusive = g.intAttr("exclusive", 0) != 0, reverse = g.intAttr("reverse", 0) != 0;
        const int64_t n = out[axis];
        Op op;
        op.kind = OpKind::Reduction;
        op.ranges = out;
        op.reductionRanges = {n};
        const int r = static_cast<int>(out.size());
        AffineExpr idx;
        idx.constant = x.offset;
        for (size_t d = 0; d < out.size(); ++d)
            if (x.shape[d] > 1)
                idx.add(static_cast<int64_t>(d) == axis ? r : static_cast<int>(d), x.coef[d]);
        const int l = load(op, x.buffer, std::move(idx));
        Stmt m;
        m.kind = StmtKind::Mask;
        m.args = {l};
        // forward: i - r in [0, n) (exclusive [1, n)); reverse: r - i likewise.
        m.cond.add(static_cast<int>(axis), reverse ? -1 : 1);
        m.cond.add(r, reverse ? 1 : -1);
        m.lower = exclusive ? 1 : 0;
        m.bound = n;
        m.value = 0.0;
        const int masked = stmt(op, m);
        Stmt red;
        red.kind = StmtKind::Reduction;
        red.reduce = ReduceFn::Sum;
        red.args = {masked};
        finish(op, stmt(op, red), g, g.outputs.at(0));
    }

    // Im2Col (conv's input windows as matmul columns: a pointwise copy over [N, C, K..., O...]) and WindowReduce
    // (pools: a max or sum reduction over the kernel window). Out-of-bounds positions are masked.
    void slidingWindow(const GraphOp& g, bool im2col)
    {
        const View x = viewOf(g, 0);
        if (x.scalar)
            throw error(g, "sliding window over a one-element constant");
        const auto& kernel = g.ints.at("kernel");
        const auto& strides = g.ints.at("strides");
        const auto& dil = g.ints.at("dilations");
        const auto& pads = g.ints.at("pads");
        const int d = static_cast<int>(kernel.size());
        const Shape& out = outTensor(g).shape;
        const std::vector<int64_t> os = im2col ? g.ints.at("out_spatial") : std::vector<int64_t>(out.begin() + 2, out.end());
        Op op;
        op.kind = im2col ? OpKind::Pointwise : OpKind::Reduction;
        op.ranges = {x.shape[0], x.shape[1]};
        int kVar0, oVar0;
        if (im2col) {
            op.ranges.insert(op.ranges.end(), kernel.begin(), kernel.end());
            op.ranges.insert(op.ranges.end(), os.begin(), os.end());
            kVar0 = 2;
            oVar0 = 2 + d;
        } else {
            op.ranges.insert(op.ranges.end(), os.begin(), os.end());
            op.reductionRanges = kernel;
            oVar0 = 2;
            kVar0 = 2 + d;
        }
        AffineExpr idx;
        idx.constant = x.offset;
        if (x.shape[0] > 1)
            idx.add(0, x.coef[0]);
        if (x.shape[1] > 1)
            idx.add(1, x.coef[1]);
        std::vector<AffineExpr> position(d);
        for (int i = 0; i < d; ++i) {
            if (os[i] > 1)
                position[i].add(oVar0 + i, strides[i]);
            if (kernel[i] > 1)
                position[i].add(kVar0 + i, dil[i]);
            for (const auto& [v, c] : position[i].terms)
                idx.add(v, c * x.coef[i + 2]);
            idx.constant -= pads[i] * x.coef[i + 2];
        }
        int value = load(op, x.buffer, std::move(idx));
        const double fill = (!im2col && g.strings.at("mode") == "max") ? -3.4028234663852886e38 : 0.0;
        for (int i = 0; i < d; ++i) {
            const int64_t hi = (os[i] - 1) * strides[i] + (kernel[i] - 1) * dil[i];
            if (pads[i] == 0 && hi < x.shape[i + 2])
                continue;   // the window never leaves the input along this dim
            Stmt m;
            m.kind = StmtKind::Mask;
            m.args = {value};
            m.cond = position[i];
            m.lower = pads[i];
            m.bound = x.shape[i + 2] + pads[i];
            m.value = fill;
            value = stmt(op, m);
        }
        if (!im2col) {
            Stmt red;
            red.kind = StmtKind::Reduction;
            if (!reduceFnOf(g.strings.at("mode"), red.reduce))
                throw error(g, "window reduction mode '" + g.strings.at("mode") + "' is not sum, max, min or prod");
            red.args = {value};
            value = stmt(op, red);
        }
        finish(op, value, g, g.outputs.at(0));
    }

    void finishOutput(int t)
    {
        const GraphTensor& gt = p_.tensors[t];
        if (!views_[t] && gt.isConstant) {
            // The loader folded the whole output to a constant: a copy kernel writes it to the output buffer.
            GraphOp g;
            g.name = gt.name;
            g.opType = "Constant";
            g.inputs = {t};
            viewOf(g, 0);
        }
        if (!views_[t])
            throw InputError(SourceLocation{p_.sourcePath, 0, 0}, "graph output '" + gt.name + "' is never computed");
        View v = *views_[t];
        // A view of an intermediate (a decomposition ending in a Reshape) is the output itself; its dtype is the
        // output's when both are floating (the device holds them alike), else a copy converts.
        auto floating = [](const std::string& d) { return d == "float32" || d == "float16" || d == "float64"; };
        const bool ownBuffer = !v.scalar && v.offset == 0 && v.contiguous() &&
                               shapeProduct(p_.buffers[v.buffer].shape) == shapeProduct(v.shape) &&
                               p_.buffers[v.buffer].kind == BufferKind::Intermediate &&
                               (p_.buffers[v.buffer].dtype == gt.dtype || (floating(p_.buffers[v.buffer].dtype) && floating(gt.dtype)));
        if (!ownBuffer) {
            GraphOp g;
            g.name = gt.name;
            g.opType = "Output";
            Op op;
            op.kind = OpKind::Pointwise;
            op.ranges = v.shape;
            const int x = loadBroadcast(op, v, v.shape);
            finish(op, x, g, t);
            v = *views_[t];
        }
        Buffer& b = p_.buffers[v.buffer];
        b.kind = BufferKind::Output;
        b.dtype = gt.dtype;
        b.origin = gt.name;
        b.shape = gt.shape;
        b.strides = contiguousStrides(gt.shape);
    }
};

}  // namespace

PassResult LowerPass::run(Program& program, PassContext& ctx)
{
    if (program.stage != Stage::Graph)
        return {false, "nothing to do: already lowered"};
    const size_t graphOps = program.graphOps.size();
    Lowerer(program, ctx).run();
    int pw = 0, red = 0, mm = 0;
    for (const Op& op : program.ops)
        (op.kind == OpKind::MatMul ? mm : op.kind == OpKind::Reduction ? red : pw)++;
    PassResult r;
    r.changed = true;
    r.summary = std::to_string(graphOps) + " graph ops -> " + std::to_string(program.ops.size()) + " ComputedBuffers (" +
                std::to_string(pw) + " pointwise, " + std::to_string(red) + " reduction, " + std::to_string(mm) +
                " matmul), " + std::to_string(program.buffers.size()) + " buffers";
    return r;
}

}  // namespace spyglass::spyre
