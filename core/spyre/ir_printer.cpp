#include "core/spyre/ir_printer.h"
#include "core/spyre/body_fn.h"
#include "core/spyre/pass.h"

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <map>
#include <sstream>

namespace spyglass::spyre {

namespace {

std::string num(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    std::string s = buf;
    if (s.find_first_of(".eEn") == std::string::npos)
        s += ".0";
    return s;
}

std::string hex(int64_t v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%06llx", static_cast<unsigned long long>(v));
    return buf;
}

const char* torchDtype(const std::string& host)
{
    if (host == "float16") return "torch.float16";
    if (host == "float64") return "torch.float64";
    if (host == "int64") return "torch.int64";
    if (host == "int32") return "torch.int32";
    if (host == "int8") return "torch.int8";
    if (host == "uint8") return "torch.uint8";
    if (host == "bool") return "torch.bool";
    return "torch.float32";
}

std::string bufferLine(const Program& p, const Buffer& b)
{
    std::string s = b.name + ": " + bufferKindName(b.kind) + " " + b.dtype + " size=" + shapeText(b.shape) +
                    " stride=" + shapeText(b.strides);
    if (!b.origin.empty() && b.origin != b.name)
        s += "  # '" + b.origin + "'";
    return s;
}

std::string layoutLine(const Program& p, const Buffer& b)
{
    if (b.stickDim < 0)
        return "";
    std::string s = "device_layout=" + p.layoutOf(b).text() + " stick_dim=" + std::to_string(b.stickDim);
    if (b.order == DeviceOrder::BatchOutermost)
        s += " order=batch_outermost";
    if (b.pinned)
        s += " [pinned]";
    return s;
}

std::string lxLine(const Program& p, const Buffer& b)
{
    if (b.lx.firstUse < 0)
        return "";
    std::string s = "lx = ";
    if (b.lx.inLx)
        s += hex(b.lx.offset) + " +" + groupDigits(b.lx.bytes) + " B/core";
    else
        s += "device memory (" + groupDigits(b.lx.bytes) + " B/core)";
    // firstUse/lastUse are timeline positions; the ops there are named, and names are not positions.
    auto at = [&p](int i) { return i >= 0 && i < static_cast<int>(p.ops.size()) ? p.ops[static_cast<size_t>(i)].name : std::to_string(i); };
    s += ", live " + at(b.lx.firstUse) + ".." + at(b.lx.lastUse);
    if (!b.lx.how.empty())
        s += ", " + b.lx.how;
    return s;
}

}  // namespace

std::string affineText(const Op& op, const AffineExpr& e)
{
    std::string s;
    // Inductor prints the largest coefficient first.
    auto terms = e.terms;
    std::stable_sort(terms.begin(), terms.end(), [](const auto& a, const auto& b) { return std::abs(a.second) > std::abs(b.second); });
    for (const auto& [v, c] : terms) {
        std::string t = (c == 1 || c == -1) ? op.varName(v) : std::to_string(std::abs(c)) + "*" + op.varName(v);
        if (s.empty())
            s = c < 0 ? "-" + t : t;
        else
            s += (c < 0 ? " - " : " + ") + t;
    }
    if (e.constant != 0 || s.empty())
        s += s.empty() ? std::to_string(e.constant) : (e.constant < 0 ? " - " : " + ") + std::to_string(std::abs(e.constant));
    return s;
}

namespace {

std::string rangesText(const Op& op, const AffineExpr& e)
{
    std::string s = "{";
    bool first = true;
    for (const auto& [v, c] : e.terms) {
        if (v >= kIndirectVar)
            continue;
        s += (first ? "" : ", ") + op.varName(v) + ": " + std::to_string(op.varRange(v));
        first = false;
    }
    return s + "}";
}

std::string candidateText(const Program& p, const Op& op, const LayoutCandidate& c)
{
    std::string s = "stick " + op.varName(c.stickVar) + ": " + p.buffers[op.store.buffer].name + " dim " +
                    std::to_string(c.outputStickDim) + " <- ";
    for (size_t i = 0; i < op.loads.size(); ++i) {
        s += (i ? ", " : "") + p.buffers[op.loads[i].buffer].name + " ";
        s += c.loadStickDims[i] < 0 ? std::string("any") : "dim " + std::to_string(c.loadStickDims[i]);
    }
    return s;
}

void printBody(std::ostringstream& out, const Program& p, const Op& op, const std::string& name)
{
    out << "class " << name << "_loop_body:\n";
    out << "    var_ranges = {";
    for (int v = 0; v < op.numVars(); ++v)
        out << (v ? ", " : "") << op.varName(v) << ": " << op.varRange(v);
    out << "}\n";
    // Unique index expressions, numbered in order of use (loads, then the store).
    std::vector<std::string> indexTexts;
    auto indexId = [&](const AffineExpr& e) {
        const std::string t = affineText(op, e);
        auto it = std::find(indexTexts.begin(), indexTexts.end(), t);
        if (it != indexTexts.end())
            return static_cast<int>(it - indexTexts.begin());
        indexTexts.push_back(t);
        return static_cast<int>(indexTexts.size() - 1);
    };
    std::vector<int> loadIndex(op.loads.size());
    for (size_t i = 0; i < op.loads.size(); ++i)
        loadIndex[i] = indexId(op.loads[i].index);
    const int storeIndex = indexId(op.store.index);
    for (size_t i = 0; i < indexTexts.size(); ++i)
        out << "    index" << i << " = " << indexTexts[i] << "\n";
    out << "    def body(self, ops):\n";
    std::map<std::string, int> used;
    auto fresh = [&](const std::string& base) {
        const int n = used[base]++;
        return n == 0 ? base : base + "_" + std::to_string(n);
    };
    std::vector<std::string> names(op.body.size());
    std::string last = "None";
    bool afterReduction = false;
    for (size_t i = 0; i < op.body.size(); ++i) {
        const Stmt& s = op.body[i];
        auto arg = [&](int k) { return s.args.size() > static_cast<size_t>(k) ? names[s.args[k]] : std::string("None"); };
        switch (s.kind) {
        case StmtKind::Load: {
            const std::string gi = fresh("get_index");
            out << "        " << gi << " = self.get_index('index" << loadIndex[s.load] << "')\n";
            names[i] = fresh("load");
            out << "        " << names[i] << " = ops.load('" << p.buffers[op.loads[s.load].buffer].name << "', " << gi << ")\n";
            break;
        }
        case StmtKind::IndirectIndex:
            names[i] = "indirect" + std::to_string(s.load);
            out << "        " << names[i] << " = ops.indirect_indexing(" << arg(0) << ", " << s.bound << ")\n";
            break;
        case StmtKind::Constant:
            names[i] = fresh("constant");
            out << "        " << names[i] << " = ops.constant(" << num(s.value) << ", torch.float16)\n";
            break;
        case StmtKind::Compute: {
            names[i] = fresh(bodyFnName(s.fn));
            out << "        " << names[i] << " = ops." << bodyFnName(s.fn) << "(";
            for (size_t a = 0; a < s.args.size(); ++a)
                out << (a ? ", " : "") << names[s.args[a]];
            if (s.fn == BodyFn::LeakyRelu)
                out << ", " << num(s.value);
            out << ")\n";
            break;
        }
        case StmtKind::Select:
            names[i] = fresh("where");
            out << "        " << names[i] << " = ops.where(" << op.varName(s.var) << " < " << s.bound << ", " << arg(0)
                << ", " << arg(1) << ")\n";
            break;
        case StmtKind::Mask:
            names[i] = fresh("masked");
            out << "        " << names[i] << " = ops.masked(" << s.lower << " <= " << affineText(op, s.cond) << " < "
                << s.bound << ", " << arg(0) << ", " << num(s.value) << ")\n";
            break;
        case StmtKind::Reduction:
            names[i] = fresh("reduction");
            out << "        " << names[i] << " = ops.reduction(torch.float16, torch.float16, '" << reduceFnName(s.reduce) << "', " << arg(0)
                << ")\n";
            afterReduction = true;
            break;
        case StmtKind::Store: {
            const std::string gi = fresh("get_index");
            out << "        " << gi << " = self.get_index('index" << storeIndex << "')\n";
            names[i] = fresh(afterReduction ? "store_reduction" : "store");
            out << "        " << names[i] << " = ops." << (afterReduction ? "store_reduction" : "store") << "('"
                << p.buffers[op.store.buffer].name << "', " << gi << ", " << arg(0) << (afterReduction ? ")\n" : ", None)\n");
            break;
        }
        }
        last = names[i];
    }
    out << "        return " << last << "\n";
}

std::string splitText(const Op& op)
{
    std::string s = "{";
    bool first = true;
    for (int v = 0; v < op.numVars() && v < static_cast<int>(op.split.ways.size()); ++v)
        if (op.split.ways[v] > 1) {
            s += (first ? "" : ", ") + op.varName(v) + ": " + std::to_string(op.split.ways[v]);
            first = false;
        }
    return s + "}";
}

}  // namespace

std::string printOp(const Program& p, int index)
{
    const Op& op = p.ops[index];
    std::ostringstream out;
    const std::string& n = op.name;
    const char* node = op.kind == OpKind::Restickify ? "SchedulerNode(Restickify)"
                       : op.fusedFrom.empty()        ? "SchedulerNode(ComputedBuffer)"
                                                     : "FusedSchedulerNode(ComputedBuffer)";
    out << n << ": " << node;
    if (!op.origins.empty()) {
        out << "  # ";
        for (size_t i = 0; i < op.origins.size(); ++i)
            out << (i ? ", " : "") << op.origins[i];
    }
    out << "\n";
    out << n << ".kind = " << opKindName(op.kind) << "\n";
    if (!op.fusedFrom.empty()) {
        out << n << ".fused = [";
        for (size_t i = 0; i < op.fusedFrom.size(); ++i)
            out << (i ? ", " : "") << op.fusedFrom[i];
        out << "]  # ops of the 'lower' snapshot\n";
    }
    const Buffer& ob = p.buffers[op.store.buffer];
    out << n << ".writes = [MemoryDep('" << ob.name << "', " << affineText(op, op.store.index) << ", "
        << rangesText(op, op.store.index) << ")]\n";
    out << n << ".met_dependencies = [";
    for (size_t i = 0; i < op.loads.size(); ++i)
        out << (i ? ", " : "") << "MemoryDep('" << p.buffers[op.loads[i].buffer].name << "', "
            << affineText(op, op.loads[i].index) << ", " << rangesText(op, op.loads[i].index) << ")";
    out << "]\n";
    out << n << ".outputs = [\n    " << ob.name << ": " << bufferKindName(ob.kind) << "\n    " << ob.name
        << ".layout = FixedTiledLayout('spyre', " << torchDtype(ob.dtype) << ", size=" << shapeText(ob.shape)
        << ", stride=" << shapeText(ob.strides);
    if (ob.stickDim >= 0)
        out << ", device_layout=" << p.layoutOf(ob).text();
    out << ")\n]\n";
    out << n << ".sizes = (" << shapeText(op.ranges) << ", " << shapeText(op.reductionRanges) << ")\n";
    if (op.kind == OpKind::Restickify)
        out << n << ".restickify = " << p.buffers[op.loads[0].buffer].name << " stick dim " << op.fromStickDim << " -> "
            << ob.name << " stick dim " << op.toStickDim << ", moving " << groupDigits(p.layoutOf(ob).deviceElements())
            << " elements\n";
    if (!op.candidates.empty()) {
        out << n << ".layout_candidates = [\n";
        for (size_t c = 0; c < op.candidates.size(); ++c)
            out << "    " << candidateText(p, op, op.candidates[c]) << (static_cast<int>(c) == op.chosen ? "   <- chosen" : "")
                << "\n";
        out << "]\n";
    }
    if (!op.tiles.empty()) {
        out << n << ".tiles = [";
        for (size_t t = 0; t < op.tiles.size(); ++t)
            out << (t ? ", " : "") << "for t" << t << " in range(" << op.tiles[t].count << "): " << op.varName(op.tiles[t].var)
                << " += " << op.tiles[t].extent;
        out << "]\n";
    }
    if (!op.split.ways.empty()) {
        out << n << ".core_split = " << splitText(op) << " -> " << op.split.cores << " cores";
        if (op.split.estimatedUs > 0)
            out << ", est " << num(op.split.estimatedUs) << " us";
        if (!op.split.why.empty())
            out << "  # " << op.split.why;
        out << "\n";
        out << n << ".per_core = {";
        const int sv = op.stickVar();
        for (int v = 0; v < op.numVars(); ++v) {
            const int64_t units = v == sv ? ceilDiv(op.varRange(v), p.stickElements) : op.varRange(v);
            out << (v ? ", " : "") << op.varName(v) << ": " << units / std::max(1, op.split.ways[v])
                << (v == sv ? " sticks" : "");
        }
        out << "}\n";
    }
    std::vector<int> lxBufs;
    for (const Access& a : op.loads)
        lxBufs.push_back(a.buffer);
    lxBufs.push_back(op.store.buffer);
    bool anyLx = false;
    for (int b : lxBufs)
        anyLx = anyLx || p.buffers[b].lx.firstUse >= 0;
    if (anyLx) {
        out << n << ".scratchpad = [";
        bool first = true;
        for (size_t i = 0; i < lxBufs.size(); ++i) {
            const Buffer& b = p.buffers[lxBufs[i]];
            if (b.lx.firstUse < 0 || std::find(lxBufs.begin(), lxBufs.begin() + i, lxBufs[i]) != lxBufs.begin() + i)
                continue;
            out << (first ? "" : ", ") << b.name << (b.lx.inLx ? " @ " + hex(b.lx.offset) : std::string(" @ device"));
            first = false;
        }
        out << "]\n";
    }
    printBody(out, p, op, n);
    return out.str();
}

std::string printProgram(const Program& p, std::vector<std::string>* opTexts)
{
    std::ostringstream out;
    out << "# spyglass spyre IR: model '" << p.modelName << "', stick = " << p.stickElements << " x " << p.deviceDtype
        << " (" << p.stickElements * p.deviceDtypeBytes << " B)\n";
    if (p.stage == Stage::Graph) {
        out << "# stage: graph (before lower)\n";
        out << "graph(";
        bool first = true;
        for (const GraphTensor& t : p.tensors)
            if (t.isInput) {
                out << (first ? "" : ", ") << "%" << t.name << ": " << t.dtype << shapeText(t.shape);
                first = false;
            }
        out << "):\n";
        for (const GraphTensor& t : p.tensors)
            if (t.isConstant && (t.producer < 0))
                out << "  const %" << t.name << ": " << t.dtype << shapeText(t.shape) << "\n";
        for (const GraphOp& g : p.graphOps) {
            out << "  ";
            for (size_t i = 0; i < g.outputs.size(); ++i) {
                const GraphTensor& t = p.tensors[g.outputs[i]];
                out << (i ? ", " : "") << "%" << t.name << ": " << t.dtype << shapeText(t.shape);
            }
            out << " = " << g.opType << "(";
            for (size_t i = 0; i < g.inputs.size(); ++i)
                out << (i ? ", " : "") << (g.inputs[i] < 0 ? std::string("None") : "%" + p.tensors[g.inputs[i]].name);
            out << ")";
            bool firstAttr = true;
            auto attr = [&](const std::string& s) {
                out << (firstAttr ? " {" : ", ") << s;
                firstAttr = false;
            };
            for (const auto& [k, v] : g.ints)
                attr(k + "=" + (v.size() == 1 ? std::to_string(v[0]) : shapeText(v)));
            for (const auto& [k, v] : g.floats)
                attr(k + "=" + num(v));
            for (const auto& [k, v] : g.strings)
                attr(k + "=\"" + v + "\"");
            if (!firstAttr)
                out << "}";
            out << "  # '" << g.name << "'";
            if (!g.origin.empty())
                out << " from " << g.origin;
            out << "\n";
        }
        out << "  return ";
        first = true;
        for (const GraphTensor& t : p.tensors)
            if (t.isOutput) {
                out << (first ? "" : ", ") << "%" << t.name;
                first = false;
            }
        out << "\n";
        return out.str();
    }
    if (p.layout.solved)
        out << "# layout: restickify cost " << groupDigits(p.layout.cost) << " elements, lower bound "
            << groupDigits(p.layout.lowerBound) << (p.layout.provenOptimal ? ", proven optimal" : ", not proven optimal")
            << " (" << p.layout.method << ", " << groupDigits(p.layout.statesExplored) << " states"
            << (p.layout.pinsApplied ? ", " + std::to_string(p.layout.pinsApplied) + " pins" : std::string()) << ")\n";
    if (p.scratchpad.planned)
        out << "# scratchpad: " << p.scratchpad.policy << ", peak " << groupDigits(p.scratchpad.peakBytes) << " of "
            << groupDigits(p.scratchpad.capacityBytes) << " B per core, " << p.scratchpad.inLx << " buffers in LX, "
            << p.scratchpad.inDeviceMemory << " in device memory\n";
    out << "\n";
    for (const Buffer& b : p.buffers) {
        if (b.producer >= 0)
            continue;   // printed with its op
        out << bufferLine(p, b) << "\n";
        if (const std::string l = layoutLine(p, b); !l.empty())
            out << "    " << l << "\n";
        if (const std::string l = lxLine(p, b); !l.empty())
            out << "    " << l << "\n";
    }
    for (size_t i = 0; i < p.ops.size(); ++i) {
        std::string text = printOp(p, static_cast<int>(i));
        out << "\n" << text;
        if (opTexts)
            opTexts->push_back(std::move(text));
        const Buffer& ob = p.buffers[p.ops[i].store.buffer];
        if (const std::string l = layoutLine(p, ob); !l.empty())
            out << ob.name << "." << l << "\n";
        if (const std::string l = lxLine(p, ob); !l.empty())
            out << ob.name << "." << l << "\n";
    }
    return out.str();
}

}  // namespace spyglass::spyre
