#include "core/spyre/ir_evaluator.h"

#include "core/common/diagnostics.h"
#include "core/spyre/body_fn.h"

#include <cmath>
#include <limits>

namespace spyglass::spyre {

namespace {

bool isIntegerDtype(const std::string& d) { return model::isIntegerDtypeName(d); }

model::DType dtypeOf(const std::string& d) { return model::dtypeFromName(d); }

double apply(BodyFn f, const std::vector<double>& a, const Stmt& s)
{
    if (f == BodyFn::Unknown)
        throw std::logic_error("ir_evaluator: a compute statement without a function");
    return applyBodyFn<double>(f, a.empty() ? 0.0 : a[0], a.size() > 1 ? a[1] : 0.0, a.size() > 2 ? a[2] : 0.0, s);
}

class Evaluator {
public:
    Evaluator(const Program& p, std::vector<std::vector<double>>& data) : p_(p), data_(data) {}

    void run(const Op& op)
    {
        const int nIter = static_cast<int>(op.ranges.size());
        const int nVars = op.numVars();
        int redStmt = -1;
        for (size_t s = 0; s < op.body.size(); ++s)
            if (op.body[s].kind == StmtKind::Reduction)
                redStmt = static_cast<int>(s);
        std::vector<int64_t> vars(nVars, 0);
        std::vector<double> vals(op.body.size(), 0.0);
        std::vector<int64_t> indirect(8, 0);
        const int64_t points = shapeProduct(op.ranges);
        const int64_t redPoints = shapeProduct(op.reductionRanges);
        for (int64_t pt = 0; pt < points; ++pt) {
            int64_t rest = pt;
            for (int v = nIter - 1; v >= 0; --v) {
                vars[v] = rest % op.ranges[v];
                rest /= op.ranges[v];
            }
            size_t from = 0;
            if (redStmt >= 0) {
                const ReduceFn kind = op.body[redStmt].reduce;
                double acc = kind == ReduceFn::Max ? -std::numeric_limits<double>::infinity()
                             : kind == ReduceFn::Min ? std::numeric_limits<double>::infinity()
                             : kind == ReduceFn::Prod ? 1.0
                                                      : 0.0;
                for (int64_t rp = 0; rp < redPoints; ++rp) {
                    int64_t r = rp;
                    for (int v = nVars - 1; v >= nIter; --v) {
                        vars[v] = r % op.reductionRanges[v - nIter];
                        r /= op.reductionRanges[v - nIter];
                    }
                    evalRange(op, 0, redStmt, vars, vals, indirect);
                    const double x = vals[op.body[redStmt].args[0]];
                    switch (kind) {
                    case ReduceFn::Sum: acc += x; break;
                    case ReduceFn::Max: acc = std::isnan(x) || std::isnan(acc) ? std::nan("") : std::max(acc, x); break;
                    case ReduceFn::Min: acc = std::isnan(x) || std::isnan(acc) ? std::nan("") : std::min(acc, x); break;
                    case ReduceFn::Prod: acc *= x; break;
                    }
                }
                vals[redStmt] = acc;
                from = redStmt + 1;
            }
            evalRange(op, from, op.body.size(), vars, vals, indirect);
        }
    }

private:
    const Program& p_;
    std::vector<std::vector<double>>& data_;

    int64_t index(const AffineExpr& e, const std::vector<int64_t>& vars, const std::vector<int64_t>& indirect) const
    {
        int64_t i = e.constant;
        for (const auto& [v, c] : e.terms)
            i += c * (v >= kIndirectVar ? indirect.at(v - kIndirectVar) : vars.at(v));
        return i;
    }

    void evalRange(const Op& op, size_t from, size_t to, const std::vector<int64_t>& vars, std::vector<double>& vals,
                   std::vector<int64_t>& indirect)
    {
        std::vector<double> args;
        for (size_t s = from; s < to; ++s) {
            const Stmt& st = op.body[s];
            switch (st.kind) {
            case StmtKind::Load: {
                const Access& a = op.loads[st.load];
                const auto& buf = data_[a.buffer];
                const int64_t i = index(a.index, vars, indirect);
                // Out of range only under a mask (padding) or a select (concat): the value is never used.
                vals[s] = i >= 0 && i < static_cast<int64_t>(buf.size()) ? buf[i] : std::nan("");
                break;
            }
            case StmtKind::IndirectIndex: {
                int64_t i = static_cast<int64_t>(vals[st.args[0]]);
                if (i < 0)
                    i += st.bound;
                indirect.at(st.load) = i;
                vals[s] = static_cast<double>(i);
                break;
            }
            case StmtKind::Constant:
                vals[s] = st.value;
                break;
            case StmtKind::Compute:
                args.clear();
                for (int a : st.args)
                    args.push_back(vals[a]);
                vals[s] = apply(st.fn, args, st);
                break;
            case StmtKind::Select:
                vals[s] = vars.at(st.var) < st.bound ? vals[st.args[0]] : vals[st.args[1]];
                break;
            case StmtKind::Mask: {
                const int64_t c = index(st.cond, vars, indirect);
                vals[s] = c >= st.lower && c < st.bound ? vals[st.args[0]] : st.value;
                break;
            }
            case StmtKind::Reduction:
                break;   // handled by run()
            case StmtKind::Store: {
                auto& buf = data_[op.store.buffer];
                const int64_t i = index(op.store.index, vars, indirect);
                if (i < 0 || i >= static_cast<int64_t>(buf.size()))
                    throw std::logic_error("ir_evaluator: " + op.name + " stores out of bounds");
                buf[i] = vals[st.args[0]];
                vals[s] = buf[i];
                break;
            }
            }
        }
    }
};

double roundTo(const std::string& dtype, double x)
{
    if (dtype == "bool")
        return x != 0 ? 1.0 : 0.0;
    if (isIntegerDtype(dtype))
        return std::trunc(x);
    return x;
}

}  // namespace

std::map<std::string, model::HostTensor> evaluateProgram(const Program& p,
                                                         const std::map<std::string, model::HostTensor>& inputs)
{
    if (p.stage != Stage::Loop)
        throw InputError(SourceLocation{p.sourcePath, 0, 0}, "the program is not lowered yet: nothing to evaluate");
    std::vector<std::vector<double>> data(p.buffers.size());
    for (size_t b = 0; b < p.buffers.size(); ++b) {
        const Buffer& buf = p.buffers[b];
        const int64_t n = shapeProduct(buf.shape);
        if (buf.kind == BufferKind::Input) {
            const auto it = inputs.find(buf.origin);
            if (it == inputs.end())
                throw InputError(SourceLocation{p.sourcePath, 0, 0}, "no value given for input '" + buf.origin + "'");
            const model::HostTensor& t = it->second;
            if (t.size() != n)
                throw InputError(SourceLocation{p.sourcePath, 0, 0}, "input '" + buf.origin + "' has " +
                                                                        std::to_string(t.size()) + " elements, expected " +
                                                                        std::to_string(n));
            data[b].resize(n);
            for (int64_t i = 0; i < n; ++i)
                data[b][i] = t.isFloating() ? t.f[i] : static_cast<double>(t.i[i]);
        } else if (buf.kind == BufferKind::Constant) {
            const size_t have = buf.f ? buf.f->size() : buf.i ? buf.i->size() : 0;
            if (static_cast<int64_t>(have) != n)
                throw InputError(SourceLocation{p.sourcePath, 0, 0}, "constant '" + buf.origin + "' carries no data");
            data[b].resize(n);
            for (int64_t i = 0; i < n; ++i)
                data[b][i] = buf.f ? (*buf.f)[i] : static_cast<double>((*buf.i)[i]);
        } else {
            data[b].assign(n, std::nan(""));
        }
    }
    Evaluator ev(p, data);
    for (const Op& op : p.ops)
        ev.run(op);
    std::map<std::string, model::HostTensor> out;
    for (size_t b = 0; b < p.buffers.size(); ++b) {
        const Buffer& buf = p.buffers[b];
        if (buf.kind != BufferKind::Output)
            continue;
        model::HostTensor t;
        t.dtype = dtypeOf(buf.dtype);
        t.shape = buf.shape;
        if (t.isFloating()) {
            t.f.reserve(data[b].size());
            for (double x : data[b])
                t.f.push_back(static_cast<float>(x));
        } else {
            t.i.reserve(data[b].size());
            for (double x : data[b])
                t.i.push_back(static_cast<int64_t>(roundTo(buf.dtype, x)));
        }
        out[buf.origin] = std::move(t);
    }
    return out;
}

}  // namespace spyglass::spyre
