#include "core/spyre/kernel_bundle.h"

#include "core/common/diagnostics.h"
#include "core/common/input_file.h"
#include "core/common/resource_paths.h"
#include "core/model/model_graph.h"
#include "core/spyre/body_fn.h"
#include "core/spyre/json_schema.h"
#include "core/model/tensor_file.h"
#include "core/spyre/spyre_target.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>

namespace spyglass::spyre {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

template <typename E>
struct Named {
    const char* name;
    E value;
};
constexpr Named<BufferKind> kBufferKinds[] = {
    {"input", BufferKind::Input}, {"output", BufferKind::Output}, {"constant", BufferKind::Constant}, {"intermediate", BufferKind::Intermediate}};
constexpr Named<DeviceOrder> kDeviceOrders[] = {{"default", DeviceOrder::Default}, {"batch_outermost", DeviceOrder::BatchOutermost}};
constexpr Named<AccessRole> kAccessRoles[] = {{"load", AccessRole::Load}, {"store", AccessRole::Store}};
constexpr Named<OpKind> kOpKinds[] = {
    {"Pointwise", OpKind::Pointwise}, {"Reduction", OpKind::Reduction}, {"MatMul", OpKind::MatMul}, {"Restickify", OpKind::Restickify}};

template <typename E, size_t N>
const char* nameIn(const Named<E> (&table)[N], E value)
{
    for (const Named<E>& n : table)
        if (n.value == value)
            return n.name;
    return "?";
}

template <typename E, size_t N>
std::string namesOf(const Named<E> (&table)[N])
{
    std::string out;
    for (size_t i = 0; i < N; ++i)
        out += (i == 0 ? "" : i + 1 == N ? " or " : ", ") + std::string(table[i].name);
    return out;
}

QString qs(OpKind k) { return QString::fromLatin1(opKindName(k)); }

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
    o[QStringLiteral("kind")] = QString::fromLatin1(bundleName(t.kind));
    o[QStringLiteral("dtype")] = qs(t.dtype);
    o[QStringLiteral("host_shape")] = intArray(t.hostShape);
    o[QStringLiteral("stick_dim")] = t.stickDim;
    o[QStringLiteral("device_order")] = QString::fromLatin1(bundleName(t.deviceOrder));
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

// An absent value is 0 (numberJson leaves zeros out); nullopt for anything numberJson does not write.
std::optional<double> readNumber(const QJsonValue& v)
{
    if (v.isUndefined())
        return 0.0;
    if (v.isDouble())
        return v.toDouble();
    const QString s = v.toString();
    if (s == QStringLiteral("inf")) return std::numeric_limits<double>::infinity();
    if (s == QStringLiteral("-inf")) return -std::numeric_limits<double>::infinity();
    if (s == QStringLiteral("nan")) return std::numeric_limits<double>::quiet_NaN();
    return std::nullopt;
}

// Only the fields a statement kind uses are written, so the file reads like the IR.
QJsonObject stmtJson(const Stmt& st)
{
    QJsonObject o;
    o[QStringLiteral("kind")] = QString::fromLatin1(kStmtKindNames[static_cast<int>(st.kind)]);
    if (st.kind == StmtKind::Compute)
        o[QStringLiteral("fn")] = QString::fromLatin1(bodyFnName(st.fn));
    if (st.kind == StmtKind::Reduction)
        o[QStringLiteral("fn")] = QString::fromLatin1(reduceFnName(st.reduce));
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
    if (k.op == OpKind::MatMul)
        o[QStringLiteral("matmul")] = QJsonObject{{QStringLiteral("a"), k.matmul.a}, {QStringLiteral("b"), k.matmul.b},
                                                  {QStringLiteral("m"), k.matmul.m}, {QStringLiteral("n"), k.matmul.n},
                                                  {QStringLiteral("k"), k.matmul.k}};
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
        ao[QStringLiteral("role")] = QString::fromLatin1(bundleName(a.role));
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
            d[QStringLiteral("direction")] = a.role == AccessRole::Store ? QStringLiteral("lx_to_device")
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
    // A string naming one value of an enum.
    template <typename E, size_t N>
    E oneOf(const QJsonObject& o, const char* key, const Named<E> (&table)[N]) const
    {
        const std::string v = str(o, key);
        for (const Named<E>& n : table)
            if (v == n.name)
                return n.value;
        fail(key, "'" + v + "' is not " + namesOf(table));
    }
    // An integer that must fit in an int (cores, indices, stick dims): checked before it is narrowed.
    int int32(const QJsonObject& o, const char* key) const
    {
        const int64_t i = integer(o, key);
        if (i < std::numeric_limits<int>::min() || i > std::numeric_limits<int>::max())
            fail(key, std::to_string(i) + " is out of range");
        return static_cast<int>(i);
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
        for (const QJsonValue& v : array(o, key)) {
            if (!v.isString())
                fail(key, "must hold strings");
            out.push_back(v.toString().toStdString());
        }
        return out;
    }

private:
    std::string file_;
};

// The manifest and a kernel are a few kB to a few MB of JSON; past this a file is not one the compiler wrote.
constexpr uint64_t kMaxJsonBytes = 64ull << 20;

// resources/schemas/spyre-kernel-bundle.schema.json, read once: the published format is what a bundle is checked
// against first (types, required and unexpected fields, enums, minimums); the cross-field checks follow.
const QJsonObject& bundleSchema()
{
    static const QJsonObject schema = [] {
        const std::string dir = findResourceDir("schemas");
        const std::string path = dir + "/spyre-kernel-bundle.schema.json";
        if (dir.empty())
            throw InputError(SourceLocation{"spyre-kernel-bundle.schema.json", 0, 0},
                             "cannot find the kernel-bundle schema (resources/schemas; set SPYGLASS_RESOURCE_DIR)");
        return QJsonDocument::fromJson(QByteArray::fromStdString(readInputFile(path, "a JSON schema", kMaxJsonBytes))).object();
    }();
    return schema;
}

// The violations (the first five), as "field 'target.cores': 0 is below the minimum 1; field ...".
void checkSchema(const std::string& file, const QJsonObject& o, const char* def)
{
    const std::vector<std::string> errors = def ? validateJsonSchemaDef(o, bundleSchema(), def) : validateJsonSchema(o, bundleSchema());
    std::string message;
    for (size_t i = 0; i < errors.size() && i < 5; ++i) {
        const std::string& e = errors[i];
        const size_t colon = e.find(": ");
        std::string field = colon == std::string::npos ? std::string() : e.substr(0, colon);
        field = field.rfind("$.", 0) == 0 ? field.substr(2) : field == "$" ? std::string() : field;
        const std::string what = colon == std::string::npos ? e : e.substr(colon + 2);
        message += (i ? "; " : "") + (field.empty() ? std::string() : "field '" + field + "': ") + what;
    }
    if (errors.size() > 5)
        message += "; and " + std::to_string(errors.size() - 5) + " more";
    if (!message.empty())
        throw InputError(SourceLocation{file, 0, 0}, message);
}

QJsonObject readJson(const std::string& path)
{
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(readInputFile(path, "a JSON file", kMaxJsonBytes)), &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        throw InputError(SourceLocation{path, 0, 0}, "not a JSON object: " + err.errorString().toStdString());
    return doc.object();
}

BundleTensor readTensor(const Reader& r, const QJsonObject& o)
{
    BundleTensor t;
    t.name = r.str(o, "name");
    t.origin = r.str(o, "origin");
    t.kind = r.oneOf(o, "kind", kBufferKinds);
    t.dtype = r.str(o, "dtype");
    t.hostShape = r.ints<int64_t>(o, "host_shape");
    t.stickDim = r.int32(o, "stick_dim");
    t.deviceOrder = r.oneOf(o, "device_order", kDeviceOrders);
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
    const std::string fn = opt("fn").toString().toStdString();
    if (st.kind == StmtKind::Compute && (st.fn = bodyFnOf(fn)) == BodyFn::Unknown)
        r.fail("loop_body.stmts", "statement " + std::to_string(position) + " computes '" + fn + "', which is not an op of the IR");
    if (st.kind == StmtKind::Reduction && !reduceFnOf(fn, st.reduce))
        r.fail("loop_body.stmts", "statement " + std::to_string(position) + " reduces with '" + fn + "' (sum, max, min or prod)");
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
    const std::optional<double> value = readNumber(opt("value")), value2 = readNumber(opt("value2"));
    if (!value || !value2)
        r.fail("stmts", "statement " + std::to_string(position) + ": value must be a number, \"inf\", \"-inf\" or \"nan\"");
    st.value = *value;
    st.value2 = *value2;
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
    checkSchema(path, o, "kernel");
    Reader r(path);
    Kernel k;
    if (r.str(o, "format") != "spyglass-spyre-kernel")
        r.fail("format", "is not spyglass-spyre-kernel");
    k.index = r.int32(o, "index");
    k.name = r.str(o, "name");
    k.op = r.oneOf(o, "op", kOpKinds);
    if (o.contains(QStringLiteral("matmul"))) {
        const QJsonObject mo = r.object(o, "matmul");
        k.matmul = MatmulRoles{r.int32(mo, "a"), r.int32(mo, "b"), r.int32(mo, "m"), r.int32(mo, "n"), r.int32(mo, "k")};
    }
    k.origins = r.strings(o, "origins");
    const QJsonObject space = r.object(o, "iteration_space");
    for (const QJsonValue& v : r.array(space, "vars")) {
        const QJsonObject vo = v.toObject();
        KernelVar kv;
        kv.name = r.str(vo, "name");
        kv.range = r.integer(vo, "range");
        kv.reduction = r.boolean(vo, "reduction");
        kv.ways = r.int32(vo, "ways");
        k.vars.push_back(kv);
    }
    k.stickVar = r.int32(space, "stick_var");
    const QJsonObject split = r.object(o, "core_split");
    k.cores = r.int32(split, "cores");
    k.estimatedUs = r.number(split, "estimated_us");
    k.splitReason = r.str(split, "reason");
    for (const QJsonValue& v : r.array(o, "per_core_slices")) {
        const QJsonObject so = v.toObject();
        KernelSlice s;
        s.core = r.int32(so, "core");
        s.start = r.ints<int64_t>(so, "start");
        s.extent = r.ints<int64_t>(so, "extent");
        if (s.start.size() != k.vars.size() || s.extent.size() != k.vars.size())
            r.fail("per_core_slices", "start/extent must have one entry per var");
        k.slices.push_back(s);
    }
    for (const QJsonValue& v : r.array(o, "tile_loops")) {
        const QJsonObject to = v.toObject();
        TileLoop t;
        t.var = r.int32(to, "var");
        t.count = r.integer(to, "count");
        t.extent = r.integer(to, "extent");
        k.tiles.push_back(t);
    }
    for (const QJsonValue& v : r.array(o, "tensors")) {
        const QJsonObject ao = v.toObject();
        KernelTensorArg a;
        a.tensor = r.str(ao, "tensor");
        a.role = r.oneOf(ao, "role", kAccessRoles);
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
        k.restickify.fromStickDim = r.int32(ro, "from_stick_dim");
        k.restickify.toStickDim = r.int32(ro, "to_stick_dim");
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

// ---------------------------------------------------------------- cross-field checks
// A bundle is untrusted input: every value the simulator computes with is checked here against the others, so
// that nothing reaches it the compiler could not have written (a zero device size divides, a core index past the
// split indexes per-core state, an access past its tensor reads other memory).

std::string at(const std::string& list, size_t i) { return list + "[" + std::to_string(i) + "]"; }

// a * b, or false on int64 overflow.
bool mulChecked(int64_t a, int64_t b, int64_t& out) { return !__builtin_mul_overflow(a, b, &out); }

// Elements of one tensor: past 2^50 (2 PiB of fp16) no device holds it, and products stay far from overflow.
constexpr int64_t kMaxElements = int64_t(1) << 50;

bool knownDtype(const std::string& d)
{
    for (model::DType t : {model::DType::Float32, model::DType::Float16, model::DType::Float64, model::DType::Int64, model::DType::Int32,
                           model::DType::Int8, model::DType::UInt8, model::DType::Bool})
        if (d == model::dtypeName(t))
            return true;
    return false;
}

void checkTensor(const Reader& r, const KernelBundle& b, const BundleTensor& t, size_t i)
{
    const std::string f = at("tensors", i);
    if (t.name.empty())
        r.fail(f + ".name", "is empty");
    if (!knownDtype(t.dtype))
        r.fail(f + ".dtype", "unknown dtype '" + t.dtype + "'");
    int64_t elements = 1;
    for (int64_t d : t.hostShape)
        if (d < 1 || !mulChecked(elements, d, elements) || elements > kMaxElements)
            r.fail(f + ".host_shape", shapeText(t.hostShape) + ": every dimension must be at least 1 and the tensor at most 2^50 elements");
    const int rank = static_cast<int>(t.hostShape.size());
    if (t.stickDim < -1 || t.stickDim >= std::max(rank, 1))
        r.fail(f + ".stick_dim", std::to_string(t.stickDim) + " is not a dimension of the rank-" + std::to_string(rank) + " tensor");
    if (t.layout.deviceDtype != b.deviceDtype)
        r.fail(f + ".device_layout.device_dtype", "'" + t.layout.deviceDtype + "', the target's is '" + b.deviceDtype + "'");
    for (size_t d = 0; d < t.layout.deviceSize.size(); ++d) {
        if (t.layout.deviceSize[d] < 1)
            r.fail(f + ".device_layout.device_size", "entry " + std::to_string(d) + " is " + std::to_string(t.layout.deviceSize[d]) +
                                                         "; every device dimension must be at least 1");
        if (t.layout.dimMap[d] < -1 || t.layout.dimMap[d] >= rank)
            r.fail(f + ".device_layout.dim_map", "entry " + std::to_string(d) + " is " + std::to_string(t.layout.dimMap[d]) +
                                                     ", not a dimension of the rank-" + std::to_string(rank) + " tensor");
        if (t.layout.strideMap[d] < 0 && !(t.layout.strideMap[d] == -1 && t.layout.dimMap[d] == -1))
            r.fail(f + ".device_layout.stride_map", "entry " + std::to_string(d) + " is negative");
    }
    // The layout is a function of the shape, the stick dim and the order: anything else is not a layout the
    // compiler writes (and the device image would not hold every element exactly once).
    const Shape strides = contiguousStrides(t.hostShape);
    const SpyreTensorLayout want = deviceLayout(t.hostShape, strides, t.stickDim,
                                                t.deviceOrder,
                                                b.stickElements(), b.deviceDtype);
    if (t.layout != want)
        r.fail(f + ".device_layout", t.layout.text() + " is not the layout of " + shapeText(t.hostShape) + " with stick dim " +
                                         std::to_string(t.stickDim) + " (" + bundleName(t.deviceOrder) + " order); expected " + want.text());
}

struct Bounds {
    int64_t lo = 0, hi = 0;
    bool ok = true;
};

// The smallest and largest value of an affine index over the iteration space (every var in [0, range)); indirect
// terms (gather indices) are left out: the simulator checks those per element.
Bounds affineBounds(const AffineExpr& e, const std::vector<KernelVar>& vars)
{
    Bounds b{e.constant, e.constant, true};
    for (const auto& [v, c] : e.terms) {
        if (v >= kIndirectVar)
            continue;
        int64_t span = 0;
        if (!mulChecked(c, vars[static_cast<size_t>(v)].range - 1, span)) {
            b.ok = false;
            return b;
        }
        if (__builtin_add_overflow(span > 0 ? b.hi : b.lo, span, span > 0 ? &b.hi : &b.lo)) {
            b.ok = false;
            return b;
        }
    }
    return b;
}

void checkAffine(const Reader& r, const std::string& field, const AffineExpr& e, size_t nVars, int indirect)
{
    for (const auto& [v, c] : e.terms)
        if ((v < kIndirectVar && static_cast<size_t>(v) >= nVars) || (v >= kIndirectVar && v - kIndirectVar >= indirect))
            r.fail(field, "a term names variable " + std::to_string(v) + ", which the kernel does not have");
}

void checkKernel(const std::string& file, const KernelBundle& b, const Kernel& k, size_t position, const QJsonObject& entry)
{
    const Reader r(file);
    if (k.index != static_cast<int>(position))
        r.fail("index", std::to_string(k.index) + ", but it is kernel " + std::to_string(position) + " of the manifest");
    if (entry.value(QStringLiteral("name")).toString().toStdString() != k.name ||
        entry.value(QStringLiteral("op")).toString().toStdString() != opKindName(k.op))
        r.fail("name", "'" + k.name + "' (" + opKindName(k.op) + ") differs from the manifest's entry for this file");
    if (k.cores < 1 || k.cores > b.cores)
        r.fail("core_split.cores", std::to_string(k.cores) + "; the bundle's target has " + std::to_string(b.cores) + " core(s)");
    if (!std::isfinite(k.estimatedUs) || k.estimatedUs < 0)
        r.fail("core_split.estimated_us", "must be a non-negative number");
    const size_t nVars = k.vars.size();
    const size_t nIter = k.loop.ranges.size();
    int64_t points = 1, ways = 1;
    for (size_t v = 0; v < nVars; ++v) {
        const KernelVar& kv = k.vars[v];
        const std::string f = at("iteration_space.vars", v);
        const int64_t loopRange = v < nIter ? k.loop.ranges[v] : k.loop.reductionRanges[v - nIter];
        if (kv.range < 1 || kv.range != loopRange)
            r.fail(f + ".range", std::to_string(kv.range) + ", the loop body's range is " + std::to_string(loopRange));
        if (kv.reduction != (v >= nIter))
            r.fail(f + ".reduction", "does not match the loop body (iteration vars first, then reduction vars)");
        if (!mulChecked(points, kv.range, points))
            r.fail("iteration_space.vars", "the iteration space has more than 2^63 points");
        if (kv.ways < 1 || kv.ways > k.cores || !mulChecked(ways, kv.ways, ways) || ways > k.cores)
            r.fail(f + ".ways", std::to_string(kv.ways) + "; the vars' ways must multiply to at most the kernel's " +
                                    std::to_string(k.cores) + " core(s)");
    }
    if (k.stickVar < -1 || k.stickVar >= static_cast<int>(nVars))
        r.fail("iteration_space.stick_var", std::to_string(k.stickVar) + " is not a var of the kernel");
    std::vector<int64_t> tileExtent(nVars);
    for (size_t v = 0; v < nVars; ++v)
        tileExtent[v] = k.vars[v].range;
    std::vector<bool> tiled(nVars, false);
    for (size_t i = 0; i < k.tiles.size(); ++i) {
        const TileLoop& t = k.tiles[i];
        const std::string f = at("tile_loops", i);
        if (t.var < 0 || static_cast<size_t>(t.var) >= nVars || tiled[static_cast<size_t>(t.var)])
            r.fail(f + ".var", std::to_string(t.var) + " is not a var of the kernel, or is tiled twice");
        const int64_t range = k.vars[static_cast<size_t>(t.var)].range;
        int64_t covered = 0;
        if (t.extent < 1 || t.extent > range || t.count < 1 || !mulChecked(t.count, t.extent, covered) || covered < range ||
            (t.count - 1) * t.extent >= range)
            r.fail(f, std::to_string(t.count) + " tiles of " + std::to_string(t.extent) + " do not cover the range " +
                          std::to_string(range) + " exactly once");
        tiled[static_cast<size_t>(t.var)] = true;
        tileExtent[static_cast<size_t>(t.var)] = t.extent;
    }
    std::vector<bool> coreSeen(static_cast<size_t>(k.cores), false);
    for (size_t i = 0; i < k.slices.size(); ++i) {
        const KernelSlice& sl = k.slices[i];
        const std::string f = at("per_core_slices", i);
        if (sl.core < 0 || sl.core >= k.cores || coreSeen[static_cast<size_t>(sl.core)])
            r.fail(f + ".core", std::to_string(sl.core) + ": the kernel runs on cores 0-" + std::to_string(k.cores - 1) +
                                    " and each core has one slice");
        coreSeen[static_cast<size_t>(sl.core)] = true;
        for (size_t v = 0; v < nVars; ++v)
            if (sl.start[v] < 0 || sl.extent[v] < 0 || sl.start[v] > tileExtent[v] || sl.extent[v] > tileExtent[v] - sl.start[v])
                r.fail(f, "var " + std::to_string(v) + ": [" + std::to_string(sl.start[v]) + ", +" + std::to_string(sl.extent[v]) +
                              ") lies outside its tile of " + std::to_string(tileExtent[v]));
    }
    for (size_t i = 0; i < k.tensors.size(); ++i) {
        const KernelTensorArg& a = k.tensors[i];
        const std::string f = at("tensors", i);
        if (a.lxOffset < 0 || a.lxBytes < 0 || a.dmaSticks < 0 || a.dmaSticksPerCore < 0)
            r.fail(f, "LX offset, LX bytes and DMA sticks must not be negative");
        if (a.inLx && (a.lxOffset > b.usableLxBytes || a.lxBytes > b.usableLxBytes - a.lxOffset))
            r.fail(f, "LX [" + std::to_string(a.lxOffset) + ", +" + std::to_string(a.lxBytes) + ") lies beyond the usable LX of " +
                          std::to_string(b.usableLxBytes) + " B");
        if (a.lxFirstUse < -1 || a.lxLastUse < -1 || a.lxLastUse < a.lxFirstUse)
            r.fail(f + ".lx_live", "[" + std::to_string(a.lxFirstUse) + ", " + std::to_string(a.lxLastUse) + "] is not an interval");
    }
    if (k.restickify.present) {
        const BundleTensor* from = b.tensor(k.restickify.fromTensor);
        const BundleTensor* to = b.tensor(k.restickify.toTensor);
        if (!from || !to)
            r.fail("restickify", "names a tensor the manifest does not have");
        auto dimOk = [](int d, const BundleTensor* t) { return d >= -1 && d < std::max(1, static_cast<int>(t->hostShape.size())); };
        if (!dimOk(k.restickify.fromStickDim, from) || !dimOk(k.restickify.toStickDim, to))
            r.fail("restickify", "a stick dim is not a dimension of its tensor");
        if (k.restickify.elements < 0)
            r.fail("restickify.elements", "must not be negative");
    }
    // The loop body: every access names a tensor of the bundle and stays inside it.
    const KernelLoopBody& body = k.loop;
    int indirect = 0, reductions = 0;
    bool masked = false, stores = false;
    for (size_t i = 0; i < body.stmts.size(); ++i) {
        const Stmt& st = body.stmts[i];
        if (st.kind == StmtKind::IndirectIndex) {
            if (st.load < 0 || st.load >= 64)
                r.fail("loop_body.stmts", "statement " + std::to_string(i) + ": gather slot " + std::to_string(st.load) + " out of range");
            indirect = std::max(indirect, st.load + 1);
        }
        if (st.kind == StmtKind::Select && (st.var < 0 || static_cast<size_t>(st.var) >= nVars))
            r.fail("loop_body.stmts", "statement " + std::to_string(i) + " selects on var " + std::to_string(st.var) + ", which the kernel does not have");
        if (st.kind == StmtKind::Mask)
            checkAffine(r, "loop_body.stmts", st.cond, nVars, indirect);
        if (st.kind == StmtKind::Reduction) {
            if (reductions++ > 0)
                r.fail("loop_body.stmts", "statement " + std::to_string(i) + " is a second reduction; a kernel has at most one");
        }
        masked = masked || st.kind == StmtKind::Mask || st.kind == StmtKind::Select;
        stores = stores || st.kind == StmtKind::Store;
    }
    if (!stores)
        r.fail("loop_body.stmts", "the kernel stores nothing (an empty kernel)");
    auto checkAccess = [&](const KernelAccess& a, const std::string& f, bool isStore) {
        const BundleTensor* t = b.tensor(a.tensor);
        if (!t)
            r.fail(f, "names tensor '" + a.tensor + "', which the manifest does not have");
        checkAffine(r, f, a.index, nVars, indirect);
        if (isStore && (t->kind == BufferKind::Input || t->kind == BufferKind::Constant))
            r.fail(f, "stores into " + std::string(bundleName(t->kind)) + " '" + a.tensor + "'");
        // A load may reach outside its tensor only where a mask (padding) or a select (concatenation) discards the
        // value; a store never may.
        if (!isStore && masked)
            return;
        const Bounds bd = affineBounds(a.index, k.vars);
        const int64_t size = shapeProduct(t->hostShape);
        if (!bd.ok || bd.lo < 0 || bd.hi >= size)
            r.fail(f, std::string(isStore ? "stores" : "loads") + " host elements [" + std::to_string(bd.lo) + ", " + std::to_string(bd.hi) +
                          "] of " + bundleName(t->kind) + " '" + a.tensor + "', which has " + std::to_string(size));
    };
    for (size_t i = 0; i < body.loads.size(); ++i)
        checkAccess(body.loads[i], at("loop_body.loads", i), false);
    checkAccess(body.store, "loop_body.store", true);
    // The roles the simulator and the timing model take as given: each must be what the loop body does.
    const MatmulRoles& mm = k.matmul;
    const bool hasRoles = mm.a >= 0;   // readKernel sets them only from a "matmul" object (the schema keeps them >= 0)
    if (hasRoles != (k.op == OpKind::MatMul))
        r.fail("matmul", k.op == OpKind::MatMul ? "missing: a MatMul kernel names its operands and vars" : "only a MatMul kernel has operand roles");
    if (hasRoles) {
        const int loads = static_cast<int>(body.loads.size()), iter = static_cast<int>(nIter), vars = static_cast<int>(nVars);
        if (mm.a >= loads || mm.b >= loads || mm.a == mm.b)
            r.fail("matmul", "a and b must be two different loads of loop_body (it has " + std::to_string(loads) + ")");
        if (mm.m >= iter || mm.n >= iter || mm.m == mm.n)
            r.fail("matmul", "m and n must be two different iteration vars (the kernel has " + std::to_string(iter) + ")");
        if (mm.k < iter || mm.k >= vars)
            r.fail("matmul", "k must be a reduction var");
        const AffineExpr& ea = body.loads[mm.a].index;
        const AffineExpr& eb = body.loads[mm.b].index;
        if (ea.coeffOf(mm.n) != 0 || eb.coeffOf(mm.m) != 0 || body.store.index.coeffOf(mm.k) != 0)
            r.fail("matmul", "the loop body does not multiply A (m x k) by B (k x n) into an m x n output");
    }
}

void checkBundle(const Reader& r, const KernelBundle& b)
{
    if (b.usableLxBytes < 0)
        r.fail("target.usable_lx_bytes", "must not be negative");
    if (b.lxPeakBytes < 0 || b.lxPeakBytes > b.usableLxBytes)
        r.fail("summary.lx_peak_bytes", std::to_string(b.lxPeakBytes) + " is outside the usable LX of " + std::to_string(b.usableLxBytes) + " B");
    if (b.restickifyCount < 0 || b.restickifyElements < 0)
        r.fail("summary", "restickify counts must not be negative");
    std::set<std::string> names;
    for (size_t i = 0; i < b.tensors.size(); ++i) {
        checkTensor(r, b, b.tensors[i], i);
        if (!names.insert(b.tensors[i].name).second)
            r.fail(at("tensors", i) + ".name", "tensor '" + b.tensors[i].name + "' is listed twice");
    }
    auto checkNames = [&](const std::vector<std::string>& list, const char* field, BufferKind kind) {
        std::set<std::string> seen;
        for (const std::string& n : list) {
            const BundleTensor* t = b.tensor(n);
            if (!t)
                r.fail(field, "names unknown tensor '" + n + "'");
            if (t->kind != kind)
                r.fail(field, "'" + n + "' is a tensor of kind " + bundleName(t->kind) + ", not " + bundleName(kind));
            if (!seen.insert(n).second)
                r.fail(field, "'" + n + "' is listed twice");
        }
    };
    checkNames(b.inputs, "inputs", BufferKind::Input);
    checkNames(b.outputs, "outputs", BufferKind::Output);
}

}  // namespace

const char* bundleName(BufferKind k) { return nameIn(kBufferKinds, k); }
const char* bundleName(DeviceOrder o) { return nameIn(kDeviceOrders, o); }
const char* bundleName(AccessRole r) { return nameIn(kAccessRoles, r); }

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

namespace {

// DIR/file after checking that it stays inside DIR once symlinks are resolved (a kernel linked to a file
// elsewhere is refused, not run) and that it is a regular file.
std::string bundlePart(const Reader& r, const std::string& dir, const std::string& file, const std::string& field)
{
    if (file.empty() || std::filesystem::path(file).is_absolute() || !resolvesInside(dir, file))
        r.fail(field, "file '" + file + "' leaves the bundle folder");
    const std::string path = dir + "/" + file;
    checkInputFile(path, "a file", std::numeric_limits<uint64_t>::max());
    return path;
}

}  // namespace

KernelBundle loadKernelBundle(const std::string& dir)
{
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        throw InputError(SourceLocation{dir, 0, 0}, "not a kernel bundle folder (a folder with manifest.json, kernels/ and constants/)");
    const std::string manifest = dir + "/manifest.json";
    const QJsonObject m = readJson(manifest);
    checkSchema(manifest, m, nullptr);
    Reader r(manifest);
    if (r.str(m, "format") != "spyglass-spyre-kernel-bundle")
        r.fail("format", "is not spyglass-spyre-kernel-bundle");
    if (r.integer(m, "version") != 1)
        r.fail("version", "only version 1 is understood");
    KernelBundle b;
    b.model = r.str(m, "model");
    const QJsonObject target = r.object(m, "target");
    b.targetName = r.str(target, "name");
    // Range-checked here, before they are narrowed to int; checkBundle checks them against each other.
    const int64_t cores = r.integer(target, "cores");
    if (cores < 1 || cores > kMaxTargetCores)
        r.fail("target.cores", std::to_string(cores) + "; a target has 1 to " + std::to_string(kMaxTargetCores) + " cores");
    b.cores = static_cast<int>(cores);
    const int64_t stickBytes = r.integer(target, "stick_bytes");
    if (stickBytes < kDeviceWordBytes || stickBytes % kDeviceWordBytes != 0 || stickBytes > (1 << 20))
        r.fail("target.stick_bytes", std::to_string(stickBytes) + " is not a whole number of 2-byte device elements");
    b.stickBytes = static_cast<int>(stickBytes);
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
    checkBundle(r, b);
    const QJsonArray kernels = r.array(m, "kernels");
    if (kernels.isEmpty())
        r.fail("kernels", "the bundle has no kernels");
    for (qsizetype i = 0; i < kernels.size(); ++i) {
        const QJsonObject ko = kernels[i].toObject();
        const std::string file = r.str(ko, "file");
        const std::string path = bundlePart(r, dir, file, at("kernels", static_cast<size_t>(i)) + ".file");
        Kernel k = readKernel(path);
        for (const KernelTensorArg& a : k.tensors)
            if (!b.tensor(a.tensor))
                throw InputError(SourceLocation{path, 0, 0}, "kernel names unknown tensor '" + a.tensor + "'");
        checkKernel(path, b, k, static_cast<size_t>(i), ko);
        b.kernels.push_back(std::move(k));
    }
    for (const QJsonValue& v : r.array(m, "constants")) {
        const QJsonObject co = v.toObject();
        const std::string name = r.str(co, "tensor");
        const std::string file = r.str(co, "file");
        const BundleTensor* t = b.tensor(name);
        if (!t || t->kind != BufferKind::Constant)
            r.fail("constants", "names '" + name + "', which is not a constant tensor of the bundle");
        if (b.constants.count(name))
            r.fail("constants", "constant '" + name + "' is listed twice");
        bundlePart(r, dir, file, "constants");
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
    // The listing is optional (only shown), but when present it obeys the same rules as every other part.
    if (std::filesystem::symlink_status(dir + "/listing.txt", ec).type() != std::filesystem::file_type::not_found)
        b.listing = readInputFile(bundlePart(r, dir, "listing.txt", "listing.txt"), "a text file", kMaxJsonBytes);
    return b;
}

}  // namespace spyglass::spyre
