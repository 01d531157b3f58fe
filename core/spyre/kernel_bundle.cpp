#include "core/spyre/kernel_bundle.h"

#include "core/common/diagnostics.h"
#include "core/model/tensor_file.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <cstdio>
#include <limits>

namespace spyglass::spyre {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

template <typename T>
QJsonArray intArray(const std::vector<T>& v)
{
    QJsonArray a;
    for (T x : v)
        a.append(static_cast<double>(x));
    return a;
}

QJsonArray stringArray(const std::vector<std::string>& v)
{
    QJsonArray a;
    for (const auto& s : v)
        a.append(qs(s));
    return a;
}

QJsonObject layoutJson(const SpyreTensorLayout& l)
{
    QJsonObject o;
    o[QStringLiteral("device_size")] = intArray(l.deviceSize);
    o[QStringLiteral("dim_map")] = intArray(l.dimMap);
    o[QStringLiteral("stride_map")] = intArray(l.strideMap);
    o[QStringLiteral("device_dtype")] = qs(l.deviceDtype);
    return o;
}

QJsonObject tensorJson(const BundleTensor& t)
{
    QJsonObject o;
    o[QStringLiteral("name")] = qs(t.name);
    o[QStringLiteral("origin")] = qs(t.origin);
    o[QStringLiteral("kind")] = qs(t.kind);
    o[QStringLiteral("dtype")] = qs(t.dtype);
    o[QStringLiteral("host_shape")] = intArray(t.hostShape);
    o[QStringLiteral("stick_dim")] = t.stickDim;
    o[QStringLiteral("device_order")] = qs(t.deviceOrder);
    o[QStringLiteral("device_layout")] = layoutJson(t.layout);
    return o;
}

const char* const kStmtKindNames[] = {"load", "indirect_index", "constant", "compute", "select", "mask", "reduction", "store"};

QJsonObject affineJson(const AffineExpr& e)
{
    QJsonArray terms;
    for (const auto& [var, coeff] : e.terms)
        terms.append(QJsonArray{var, static_cast<double>(coeff)});
    QJsonObject o;
    o[QStringLiteral("terms")] = terms;
    o[QStringLiteral("constant")] = static_cast<double>(e.constant);
    return o;
}

QJsonObject accessJson(const KernelAccess& a)
{
    QJsonObject o = affineJson(a.index);
    o[QStringLiteral("tensor")] = qs(a.tensor);
    return o;
}

// JSON has no infinities (max-pool padding is -inf): those are written as the strings "inf", "-inf", "nan".
QJsonValue numberJson(double x)
{
    if (std::isfinite(x))
        return x;
    return std::isnan(x) ? QStringLiteral("nan") : x > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
}

double readNumber(const QJsonValue& v)
{
    if (v.isString()) {
        const QString s = v.toString();
        if (s == QStringLiteral("inf")) return std::numeric_limits<double>::infinity();
        if (s == QStringLiteral("-inf")) return -std::numeric_limits<double>::infinity();
        return std::numeric_limits<double>::quiet_NaN();
    }
    return v.toDouble(0.0);
}

// Only the fields a statement kind uses are written, so the file reads like the IR.
QJsonObject stmtJson(const Stmt& st)
{
    QJsonObject o;
    o[QStringLiteral("kind")] = QString::fromLatin1(kStmtKindNames[static_cast<int>(st.kind)]);
    if (!st.fn.empty())
        o[QStringLiteral("fn")] = qs(st.fn);
    if (!st.args.empty())
        o[QStringLiteral("args")] = intArray(st.args);
    if (st.load >= 0)
        o[QStringLiteral("load")] = st.load;
    if (st.value != 0.0)
        o[QStringLiteral("value")] = numberJson(st.value);
    if (st.value2 != 0.0)
        o[QStringLiteral("value2")] = numberJson(st.value2);
    if (st.var >= 0)
        o[QStringLiteral("var")] = st.var;
    if (st.bound != 0)
        o[QStringLiteral("bound")] = static_cast<double>(st.bound);
    if (st.kind == StmtKind::Mask) {
        o[QStringLiteral("cond")] = affineJson(st.cond);
        o[QStringLiteral("lower")] = static_cast<double>(st.lower);
    }
    return o;
}

QJsonObject loopBodyJson(const KernelLoopBody& b)
{
    QJsonObject o;
    o[QStringLiteral("ranges")] = intArray(b.ranges);
    o[QStringLiteral("reduction_ranges")] = intArray(b.reductionRanges);
    QJsonArray loads, stmts;
    for (const KernelAccess& a : b.loads)
        loads.append(accessJson(a));
    for (const Stmt& st : b.stmts)
        stmts.append(stmtJson(st));
    o[QStringLiteral("loads")] = loads;
    o[QStringLiteral("store")] = accessJson(b.store);
    o[QStringLiteral("stmts")] = stmts;
    return o;
}

QJsonObject kernelJson(const Kernel& k)
{
    QJsonObject o;
    o[QStringLiteral("format")] = QStringLiteral("spyglass-spyre-kernel");
    o[QStringLiteral("index")] = k.index;
    o[QStringLiteral("name")] = qs(k.name);
    o[QStringLiteral("op")] = qs(k.op);
    o[QStringLiteral("origins")] = stringArray(k.origins);
    QJsonArray vars;
    for (const KernelVar& v : k.vars) {
        QJsonObject vo;
        vo[QStringLiteral("name")] = qs(v.name);
        vo[QStringLiteral("range")] = static_cast<double>(v.range);
        vo[QStringLiteral("reduction")] = v.reduction;
        vo[QStringLiteral("ways")] = v.ways;
        vars.append(vo);
    }
    QJsonObject space;
    space[QStringLiteral("vars")] = vars;
    space[QStringLiteral("stick_var")] = k.stickVar;
    o[QStringLiteral("iteration_space")] = space;
    QJsonObject split;
    split[QStringLiteral("cores")] = k.cores;
    split[QStringLiteral("estimated_us")] = k.estimatedUs;
    split[QStringLiteral("reason")] = qs(k.splitReason);
    o[QStringLiteral("core_split")] = split;
    QJsonArray slices;
    for (const KernelSlice& s : k.slices) {
        QJsonObject so;
        so[QStringLiteral("core")] = s.core;
        so[QStringLiteral("start")] = intArray(s.start);
        so[QStringLiteral("extent")] = intArray(s.extent);
        slices.append(so);
    }
    o[QStringLiteral("per_core_slices")] = slices;
    QJsonArray tiles;
    for (const TileLoop& t : k.tiles) {
        QJsonObject to;
        to[QStringLiteral("var")] = t.var;
        to[QStringLiteral("count")] = static_cast<double>(t.count);
        to[QStringLiteral("extent")] = static_cast<double>(t.extent);
        tiles.append(to);
    }
    o[QStringLiteral("tile_loops")] = tiles;
    QJsonArray tensors, lx, dma;
    for (const KernelTensorArg& a : k.tensors) {
        QJsonObject ao;
        ao[QStringLiteral("tensor")] = qs(a.tensor);
        ao[QStringLiteral("role")] = qs(a.role);
        ao[QStringLiteral("index")] = qs(a.index);
        ao[QStringLiteral("in_lx")] = a.inLx;
        ao[QStringLiteral("lx_offset")] = static_cast<double>(a.lxOffset);
        ao[QStringLiteral("lx_bytes")] = static_cast<double>(a.lxBytes);
        ao[QStringLiteral("dma_sticks")] = static_cast<double>(a.dmaSticks);
        ao[QStringLiteral("dma_sticks_per_core")] = static_cast<double>(a.dmaSticksPerCore);
        ao[QStringLiteral("lx_live")] = QJsonArray{a.lxFirstUse, a.lxLastUse};
        tensors.append(ao);
        if (a.inLx) {
            QJsonObject lo;
            lo[QStringLiteral("tensor")] = qs(a.tensor);
            lo[QStringLiteral("offset")] = static_cast<double>(a.lxOffset);
            lo[QStringLiteral("bytes")] = static_cast<double>(a.lxBytes);
            lx.append(lo);
        }
        if (a.dmaSticks > 0) {
            QJsonObject d;
            d[QStringLiteral("tensor")] = qs(a.tensor);
            d[QStringLiteral("direction")] = a.role == QStringLiteral("store").toStdString() ? QStringLiteral("lx_to_device")
                                                                                              : QStringLiteral("device_to_lx");
            d[QStringLiteral("sticks")] = static_cast<double>(a.dmaSticks);
            d[QStringLiteral("sticks_per_core")] = static_cast<double>(a.dmaSticksPerCore);
            dma.append(d);
        }
    }
    o[QStringLiteral("tensors")] = tensors;
    o[QStringLiteral("lx_allocations")] = lx;
    o[QStringLiteral("dma_transfers")] = dma;
    if (k.restickify.present) {
        QJsonObject r;
        r[QStringLiteral("from_tensor")] = qs(k.restickify.fromTensor);
        r[QStringLiteral("to_tensor")] = qs(k.restickify.toTensor);
        r[QStringLiteral("from_stick_dim")] = k.restickify.fromStickDim;
        r[QStringLiteral("to_stick_dim")] = k.restickify.toStickDim;
        r[QStringLiteral("elements")] = static_cast<double>(k.restickify.elements);
        o[QStringLiteral("restickify")] = r;
    } else {
        o[QStringLiteral("restickify")] = QJsonValue::Null;
    }
    o[QStringLiteral("body")] = qs(k.body);
    o[QStringLiteral("loop_body")] = loopBodyJson(k.loop);
    return o;
}

std::string kernelFileName(const Kernel& k)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "kernels/%03d-%s.json", k.index, k.name.c_str());
    return buf;
}

void writeFile(const std::string& path, const QByteArray& data)
{
    QFile f(qs(path));
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(data) != data.size())
        throw InputError(SourceLocation{path, 0, 0}, "cannot write file");
}

// JSON numbers are doubles: converting one outside int64's range is undefined behaviour, so check first.
bool exactInt64(double d, int64_t& out)
{
    if (!(d >= -0x1p63 && d < 0x1p63) || d != std::trunc(d))
        return false;
    out = static_cast<int64_t>(d);
    return true;
}

// Field-by-field reading with errors that name the file and the field.
class Reader {
public:
    Reader(std::string file) : file_(std::move(file)) {}

    [[noreturn]] void fail(const std::string& field, const std::string& what) const
    {
        throw InputError(SourceLocation{file_, 0, 0}, "field '" + field + "': " + what);
    }
    QJsonValue need(const QJsonObject& o, const char* key) const
    {
        if (!o.contains(QString::fromLatin1(key)))
            fail(key, "missing");
        return o.value(QString::fromLatin1(key));
    }
    std::string str(const QJsonObject& o, const char* key) const
    {
        const QJsonValue v = need(o, key);
        if (!v.isString())
            fail(key, "must be a string");
        return v.toString().toStdString();
    }
    int64_t integer(const QJsonObject& o, const char* key) const
    {
        const QJsonValue v = need(o, key);
        int64_t i = 0;
        if (!v.isDouble() || !exactInt64(v.toDouble(), i))
            fail(key, "must be an integer");
        return i;
    }
    double number(const QJsonObject& o, const char* key) const
    {
        const QJsonValue v = need(o, key);
        if (!v.isDouble())
            fail(key, "must be a number");
        return v.toDouble();
    }
    bool boolean(const QJsonObject& o, const char* key) const
    {
        const QJsonValue v = need(o, key);
        if (!v.isBool())
            fail(key, "must be true or false");
        return v.toBool();
    }
    QJsonArray array(const QJsonObject& o, const char* key) const
    {
        const QJsonValue v = need(o, key);
        if (!v.isArray())
            fail(key, "must be an array");
        return v.toArray();
    }
    QJsonObject object(const QJsonObject& o, const char* key) const
    {
        const QJsonValue v = need(o, key);
        if (!v.isObject())
            fail(key, "must be an object");
        return v.toObject();
    }
    template <typename T>
    std::vector<T> ints(const QJsonObject& o, const char* key) const
    {
        std::vector<T> out;
        for (const QJsonValue& v : array(o, key)) {
            int64_t i = 0;
            if (!v.isDouble() || !exactInt64(v.toDouble(), i) || i < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
                i > static_cast<int64_t>(std::numeric_limits<T>::max()))
                fail(key, "must hold integers");
            out.push_back(static_cast<T>(i));
        }
        return out;
    }
    std::vector<std::string> strings(const QJsonObject& o, const char* key) const
    {
        std::vector<std::string> out;
        for (const QJsonValue& v : array(o, key))
            out.push_back(v.toString().toStdString());
        return out;
    }

private:
    std::string file_;
};

QJsonObject readJson(const std::string& path)
{
    QFile f(qs(path));
    if (!f.open(QIODevice::ReadOnly))
        throw InputError(SourceLocation{path, 0, 0}, "cannot open file");
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        throw InputError(SourceLocation{path, 0, 0}, "not a JSON object: " + err.errorString().toStdString());
    return doc.object();
}

BundleTensor readTensor(const Reader& r, const QJsonObject& o)
{
    BundleTensor t;
    t.name = r.str(o, "name");
    t.origin = r.str(o, "origin");
    t.kind = r.str(o, "kind");
    t.dtype = r.str(o, "dtype");
    t.hostShape = r.ints<int64_t>(o, "host_shape");
    t.stickDim = static_cast<int>(r.integer(o, "stick_dim"));
    t.deviceOrder = r.str(o, "device_order");
    const QJsonObject l = r.object(o, "device_layout");
    t.layout.deviceSize = r.ints<int64_t>(l, "device_size");
    t.layout.dimMap = r.ints<int>(l, "dim_map");
    t.layout.strideMap = r.ints<int64_t>(l, "stride_map");
    t.layout.deviceDtype = r.str(l, "device_dtype");
    if (t.layout.deviceSize.size() != t.layout.dimMap.size() || t.layout.dimMap.size() != t.layout.strideMap.size())
        r.fail("device_layout", "device_size, dim_map and stride_map differ in length");
    return t;
}

AffineExpr readAffine(const Reader& r, const QJsonObject& o, const char* field)
{
    AffineExpr e;
    for (const QJsonValue& t : r.array(o, "terms")) {
        const QJsonArray pair = t.toArray();
        if (pair.size() != 2 || !pair[0].isDouble() || !pair[1].isDouble())
            r.fail(field, "each term must be [var, coefficient]");
        const int var = pair[0].toInt(-1);
        if (var < 0 || var > kIndirectVar + 64)
            r.fail(field, "term names no variable of the kernel");
        int64_t coeff = 0;
        if (!exactInt64(pair[1].toDouble(), coeff))
            r.fail(field, "a coefficient must be an integer");
        e.add(var, coeff);
    }
    e.constant = r.integer(o, "constant");
    return e;
}

KernelAccess readAccess(const Reader& r, const QJsonObject& o, const char* field)
{
    return KernelAccess{r.str(o, "tensor"), readAffine(r, o, field)};
}

Stmt readStmt(const Reader& r, const QJsonObject& o, size_t position, size_t loads)
{
    Stmt st;
    const std::string kind = r.str(o, "kind");
    int k = 0;
    while (k < 8 && kind != kStmtKindNames[k])
        ++k;
    if (k == 8)
        r.fail("stmts", "unknown statement kind '" + kind + "'");
    st.kind = static_cast<StmtKind>(k);
    auto opt = [&](const char* key) { return o.value(QString::fromLatin1(key)); };
    st.fn = opt("fn").toString().toStdString();
    for (const QJsonValue& a : opt("args").toArray()) {
        const int arg = a.toInt(-1);
        // SSA: a statement may only use the ones before it; this also keeps the simulator's evaluation in bounds.
        if (arg < 0 || static_cast<size_t>(arg) >= position)
            r.fail("stmts", "statement " + std::to_string(position) + " uses an argument that is not an earlier statement");
        st.args.push_back(arg);
    }
    st.load = opt("load").toInt(-1);
    if (st.kind == StmtKind::Load && (st.load < 0 || static_cast<size_t>(st.load) >= loads))
        r.fail("stmts", "statement " + std::to_string(position) + " loads through an access that does not exist");
    st.value = readNumber(opt("value"));
    st.value2 = readNumber(opt("value2"));
    st.var = opt("var").toInt(-1);
    if (!exactInt64(opt("bound").toDouble(0.0), st.bound))
        r.fail("stmts", "statement " + std::to_string(position) + ": bound must be an integer");
    if (st.kind == StmtKind::Mask) {
        st.cond = readAffine(r, r.object(o, "cond"), "cond");
        st.lower = r.integer(o, "lower");
    }
    const size_t needArgs = st.kind == StmtKind::Compute ? 1 : st.kind == StmtKind::Select ? 2
                            : (st.kind == StmtKind::Mask || st.kind == StmtKind::Reduction || st.kind == StmtKind::Store ||
                               st.kind == StmtKind::IndirectIndex) ? 1 : 0;
    if (st.args.size() < needArgs)
        r.fail("stmts", "statement " + std::to_string(position) + " (" + kind + ") has too few arguments");
    return st;
}

KernelLoopBody readLoopBody(const Reader& r, const QJsonObject& o)
{
    KernelLoopBody b;
    b.ranges = r.ints<int64_t>(o, "ranges");
    b.reductionRanges = r.ints<int64_t>(o, "reduction_ranges");
    for (int64_t n : b.ranges)
        if (n < 1) r.fail("ranges", "every range must be at least 1");
    for (int64_t n : b.reductionRanges)
        if (n < 1) r.fail("reduction_ranges", "every range must be at least 1");
    for (const QJsonValue& v : r.array(o, "loads"))
        b.loads.push_back(readAccess(r, v.toObject(), "loads"));
    b.store = readAccess(r, r.object(o, "store"), "store");
    const QJsonArray stmts = r.array(o, "stmts");
    for (int i = 0; i < stmts.size(); ++i)
        b.stmts.push_back(readStmt(r, stmts[i].toObject(), static_cast<size_t>(i), b.loads.size()));
    return b;
}

Kernel readKernel(const std::string& path)
{
    const QJsonObject o = readJson(path);
    Reader r(path);
    Kernel k;
    if (r.str(o, "format") != "spyglass-spyre-kernel")
        r.fail("format", "is not spyglass-spyre-kernel");
    k.index = static_cast<int>(r.integer(o, "index"));
    k.name = r.str(o, "name");
    k.op = r.str(o, "op");
    k.origins = r.strings(o, "origins");
    const QJsonObject space = r.object(o, "iteration_space");
    for (const QJsonValue& v : r.array(space, "vars")) {
        const QJsonObject vo = v.toObject();
        KernelVar kv;
        kv.name = r.str(vo, "name");
        kv.range = r.integer(vo, "range");
        kv.reduction = r.boolean(vo, "reduction");
        kv.ways = static_cast<int>(r.integer(vo, "ways"));
        k.vars.push_back(kv);
    }
    k.stickVar = static_cast<int>(r.integer(space, "stick_var"));
    const QJsonObject split = r.object(o, "core_split");
    k.cores = static_cast<int>(r.integer(split, "cores"));
    k.estimatedUs = r.number(split, "estimated_us");
    k.splitReason = r.str(split, "reason");
    for (const QJsonValue& v : r.array(o, "per_core_slices")) {
        const QJsonObject so = v.toObject();
        KernelSlice s;
        s.core = static_cast<int>(r.integer(so, "core"));
        s.start = r.ints<int64_t>(so, "start");
        s.extent = r.ints<int64_t>(so, "extent");
        if (s.start.size() != k.vars.size() || s.extent.size() != k.vars.size())
            r.fail("per_core_slices", "start/extent must have one entry per var");
        k.slices.push_back(s);
    }
    for (const QJsonValue& v : r.array(o, "tile_loops")) {
        const QJsonObject to = v.toObject();
        TileLoop t;
        t.var = static_cast<int>(r.integer(to, "var"));
        t.count = r.integer(to, "count");
        t.extent = r.integer(to, "extent");
        k.tiles.push_back(t);
    }
    for (const QJsonValue& v : r.array(o, "tensors")) {
        const QJsonObject ao = v.toObject();
        KernelTensorArg a;
        a.tensor = r.str(ao, "tensor");
        a.role = r.str(ao, "role");
        a.index = r.str(ao, "index");
        a.inLx = r.boolean(ao, "in_lx");
        a.lxOffset = r.integer(ao, "lx_offset");
        a.lxBytes = r.integer(ao, "lx_bytes");
        a.dmaSticks = r.integer(ao, "dma_sticks");
        a.dmaSticksPerCore = r.integer(ao, "dma_sticks_per_core");
        const std::vector<int> live = r.ints<int>(ao, "lx_live");
        if (live.size() != 2)
            r.fail("lx_live", "must be [first, last]");
        a.lxFirstUse = live[0];
        a.lxLastUse = live[1];
        k.tensors.push_back(a);
    }
    const QJsonValue rv = r.need(o, "restickify");
    if (rv.isObject()) {
        const QJsonObject ro = rv.toObject();
        k.restickify.present = true;
        k.restickify.fromTensor = r.str(ro, "from_tensor");
        k.restickify.toTensor = r.str(ro, "to_tensor");
        k.restickify.fromStickDim = static_cast<int>(r.integer(ro, "from_stick_dim"));
        k.restickify.toStickDim = static_cast<int>(r.integer(ro, "to_stick_dim"));
        k.restickify.elements = r.integer(ro, "elements");
    } else if (!rv.isNull()) {
        r.fail("restickify", "must be an object or null");
    }
    k.body = r.str(o, "body");
    k.loop = readLoopBody(r, r.object(o, "loop_body"));
    const size_t vars = k.loop.ranges.size() + k.loop.reductionRanges.size();
    if (vars != k.vars.size())
        r.fail("loop_body", "ranges do not match the iteration space");
    return k;
}

}  // namespace

const BundleTensor* KernelBundle::tensor(const std::string& name) const
{
    for (const BundleTensor& t : tensors)
        if (t.name == name)
            return &t;
    return nullptr;
}

void exportKernelBundle(const KernelBundle& b, const std::string& dir)
{
    if (!QDir().mkpath(qs(dir + "/kernels")))
        throw InputError(SourceLocation{dir, 0, 0}, "cannot create the bundle directory");
    QJsonObject m;
    m[QStringLiteral("format")] = QStringLiteral("spyglass-spyre-kernel-bundle");
    m[QStringLiteral("version")] = 1;
    m[QStringLiteral("model")] = qs(b.model);
    QJsonObject target;
    target[QStringLiteral("name")] = qs(b.targetName);
    target[QStringLiteral("cores")] = b.cores;
    target[QStringLiteral("stick_bytes")] = b.stickBytes;
    target[QStringLiteral("usable_lx_bytes")] = static_cast<double>(b.usableLxBytes);
    target[QStringLiteral("device_dtype")] = qs(b.deviceDtype);
    m[QStringLiteral("target")] = target;
    QJsonObject summary;
    summary[QStringLiteral("restickify_count")] = static_cast<double>(b.restickifyCount);
    summary[QStringLiteral("restickify_elements")] = static_cast<double>(b.restickifyElements);
    summary[QStringLiteral("layout_optimal")] = b.layoutOptimal;
    summary[QStringLiteral("lx_peak_bytes")] = static_cast<double>(b.lxPeakBytes);
    m[QStringLiteral("summary")] = summary;
    QJsonArray tensors;
    for (const BundleTensor& t : b.tensors)
        tensors.append(tensorJson(t));
    m[QStringLiteral("tensors")] = tensors;
    m[QStringLiteral("inputs")] = stringArray(b.inputs);
    m[QStringLiteral("outputs")] = stringArray(b.outputs);
    QJsonArray kernels;
    for (const Kernel& k : b.kernels) {
        QJsonObject ko;
        ko[QStringLiteral("index")] = k.index;
        ko[QStringLiteral("name")] = qs(k.name);
        ko[QStringLiteral("op")] = qs(k.op);
        ko[QStringLiteral("file")] = qs(kernelFileName(k));
        kernels.append(ko);
        writeFile(dir + "/" + kernelFileName(k), QJsonDocument(kernelJson(k)).toJson(QJsonDocument::Indented));
    }
    m[QStringLiteral("kernels")] = kernels;
    QJsonArray constants;
    if (!b.constants.empty() && !QDir().mkpath(qs(dir + "/constants")))
        throw InputError(SourceLocation{dir, 0, 0}, "cannot create the constants directory");
    for (const auto& [name, c] : b.constants) {
        const BundleTensor* t = b.tensor(name);
        if (!t)
            continue;
        model::HostTensor h;
        h.shape = t->hostShape;
        if (c.f) {
            h.dtype = model::DType::Float32;
            h.f = *c.f;
        } else if (c.i) {
            h.dtype = model::DType::Int64;
            h.i = *c.i;
        }
        const std::string file = "constants/" + name + ".pb";
        model::writeTensorFile(dir + "/" + file, h, t->origin);
        QJsonObject co;
        co[QStringLiteral("tensor")] = qs(name);
        co[QStringLiteral("file")] = qs(file);
        constants.append(co);
    }
    m[QStringLiteral("constants")] = constants;
    writeFile(dir + "/manifest.json", QJsonDocument(m).toJson(QJsonDocument::Indented));
    writeFile(dir + "/listing.txt", QByteArray::fromStdString(b.listing));
}

KernelBundle loadKernelBundle(const std::string& dir)
{
    const std::string manifest = dir + "/manifest.json";
    const QJsonObject m = readJson(manifest);
    Reader r(manifest);
    if (r.str(m, "format") != "spyglass-spyre-kernel-bundle")
        r.fail("format", "is not spyglass-spyre-kernel-bundle");
    if (r.integer(m, "version") != 1)
        r.fail("version", "only version 1 is understood");
    KernelBundle b;
    b.model = r.str(m, "model");
    const QJsonObject target = r.object(m, "target");
    b.targetName = r.str(target, "name");
    b.cores = static_cast<int>(r.integer(target, "cores"));
    b.stickBytes = static_cast<int>(r.integer(target, "stick_bytes"));
    b.usableLxBytes = r.integer(target, "usable_lx_bytes");
    b.deviceDtype = r.str(target, "device_dtype");
    const QJsonObject summary = r.object(m, "summary");
    b.restickifyCount = r.integer(summary, "restickify_count");
    b.restickifyElements = r.integer(summary, "restickify_elements");
    b.layoutOptimal = r.boolean(summary, "layout_optimal");
    b.lxPeakBytes = r.integer(summary, "lx_peak_bytes");
    for (const QJsonValue& v : r.array(m, "tensors"))
        b.tensors.push_back(readTensor(r, v.toObject()));
    b.inputs = r.strings(m, "inputs");
    b.outputs = r.strings(m, "outputs");
    for (const std::string& n : b.inputs)
        if (!b.tensor(n))
            r.fail("inputs", "names unknown tensor '" + n + "'");
    for (const std::string& n : b.outputs)
        if (!b.tensor(n))
            r.fail("outputs", "names unknown tensor '" + n + "'");
    for (const QJsonValue& v : r.array(m, "kernels")) {
        const QJsonObject ko = v.toObject();
        const std::string file = r.str(ko, "file");
        if (file.find("..") != std::string::npos || (!file.empty() && file[0] == '/'))
            r.fail("kernels", "kernel file '" + file + "' leaves the bundle directory");
        Kernel k = readKernel(dir + "/" + file);
        for (const KernelTensorArg& a : k.tensors)
            if (!b.tensor(a.tensor))
                throw InputError(SourceLocation{dir + "/" + file, 0, 0}, "kernel names unknown tensor '" + a.tensor + "'");
        b.kernels.push_back(std::move(k));
    }
    for (const QJsonValue& v : r.array(m, "constants")) {
        const QJsonObject co = v.toObject();
        const std::string name = r.str(co, "tensor");
        const std::string file = r.str(co, "file");
        if (file.find("..") != std::string::npos || (!file.empty() && file[0] == '/'))
            r.fail("constants", "constant file '" + file + "' leaves the bundle directory");
        const BundleTensor* t = b.tensor(name);
        if (!t || t->kind != "constant")
            r.fail("constants", "names '" + name + "', which is not a constant tensor of the bundle");
        model::HostTensor h = model::readTensorFile(dir + "/" + file);
        if (h.shape != t->hostShape)
            throw InputError(SourceLocation{dir + "/" + file, 0, 0}, "constant '" + name + "' has shape " +
                                                                        shapeText(h.shape) + ", the manifest says " +
                                                                        shapeText(t->hostShape));
        BundleConstant c;
        if (h.isFloating())
            c.f = std::make_shared<const std::vector<float>>(std::move(h.f));
        else
            c.i = std::make_shared<const std::vector<int64_t>>(std::move(h.i));
        b.constants[name] = std::move(c);
    }
    QFile listing(qs(dir + "/listing.txt"));
    if (listing.open(QIODevice::ReadOnly))
        b.listing = listing.readAll().toStdString();
    return b;
}

}  // namespace spyglass::spyre
