#pragma once
// Spyglass's Spyre IR, modelled on Inductor's loop-level IR as torch-spyre uses it.
//
// A Program starts as a graph of tensor ops (imported from a ModelGraph, rewritten by `decompose`) and is lowered
// into LoopLevelIR: buffers plus ComputedBuffer ops whose bodies are Pointwise / Reduction / MatMul loops over index
// variables (p0.. for iteration, r0.. for reduction), with ops.load / ops.store on affine index expressions.
// Later passes annotate the same structures (stick layouts, restickify ops, tile loops, core splits, LX offsets).
// A Program is a plain value: the pass manager copies it after every pass to keep a snapshot.

#include "core/common/units.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace spyglass::spyre {

using Shape = std::vector<int64_t>;

int64_t shapeProduct(const Shape& s);
Shape contiguousStrides(const Shape& s);
using spyglass::shapeText;   // core/common/units.h: "[128, 768]"
int64_t ceilDiv(int64_t a, int64_t b);

// ---------------------------------------------------------------------------------------------------------------
// Graph level (before `lower`)

struct GraphTensor {
    std::string name;
    std::string dtype = "float32";   // host dtype name, as ONNX calls it
    Shape shape;
    bool isInput = false;
    bool isOutput = false;
    bool isConstant = false;
    // Constant data, shared between snapshots (weights can be large). Floating data in f, integer data in i.
    std::shared_ptr<const std::vector<float>> f;
    std::shared_ptr<const std::vector<int64_t>> i;
    int producer = -1;   // graph op index
};

struct GraphOp {
    std::string name;     // ONNX node name
    std::string opType;   // ONNX op type, or a core op made by `decompose`
    std::vector<int> inputs;    // tensor indices, -1 for an omitted optional input
    std::vector<int> outputs;   // tensor indices
    std::map<std::string, std::vector<int64_t>> ints;
    std::map<std::string, double> floats;
    std::map<std::string, std::string> strings;
    std::string origin;   // "LayerNormalization 'ln0'" when made by decompose

    std::string label() const { return opType + " '" + name + "'"; }
    int64_t intAttr(const std::string& key, int64_t fallback) const;
    double floatAttr(const std::string& key, double fallback) const;
};

// ---------------------------------------------------------------------------------------------------------------
// Loop level

// Variable ids inside one op: 0..n-1 iteration vars (p0..), n.. reduction vars (r0..), kIndirectVar+k the k-th
// indirect index (a value loaded from an index tensor, as in Inductor's ops.indirect_indexing).
constexpr int kIndirectVar = 1000;

struct AffineExpr {
    std::vector<std::pair<int, int64_t>> terms;   // (var id, coefficient), coefficient != 0, sorted by var
    int64_t constant = 0;

    int64_t coeffOf(int var) const;
    void add(int var, int64_t coeff);
    bool operator==(const AffineExpr& o) const { return terms == o.terms && constant == o.constant; }
};

struct Access {
    int buffer = -1;
    AffineExpr index;   // host element offset into the buffer's storage
};

enum class StmtKind { Load, IndirectIndex, Constant, Compute, Select, Mask, Reduction, Store };

// What a Compute statement computes (Inductor's ops.<fn>); body_fn.h gives each its semantics and its name.
enum class BodyFn {
    Add, Sub, Mul, TrueDiv, TruncDiv, Mod, FMod, Pow, Maximum, Minimum, Eq, Lt, Gt, Le, Ge, LogicalAnd, LogicalOr, LogicalNot,
    Where, Sqrt, Reciprocal, Neg, Abs, Exp, Log, Erf, Relu, Sigmoid, Tanh, Floor, Ceil, Round, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, Sign, ToDtype,
    LeakyRelu, Unknown
};

// How a Reduction statement combines its values.
enum class ReduceFn { Sum, Max, Min, Prod };

// One line of a loop body, in SSA order like Inductor's body printout.
struct Stmt {
    StmtKind kind = StmtKind::Compute;
    BodyFn fn = BodyFn::Unknown;    // Compute
    ReduceFn reduce = ReduceFn::Sum;  // Reduction
    std::vector<int> args;   // earlier statements
    int load = -1;           // Load / Store: index into Op::loads (Load) ; IndirectIndex: its number
    double value = 0.0;      // Constant value; Compute extra scalar (leaky_relu alpha, clamp bounds in value/value2)
    double value2 = 0.0;
    int var = -1;            // Select: the var compared; IndirectIndex: size of the indexed dim in `bound`
    int64_t bound = 0;       // Select: var < bound picks args[0]; Mask: upper bound (exclusive)
    // Mask (padding of convolutions and pools): args[0] where lower <= cond < bound, else `value`.
    AffineExpr cond;
    int64_t lower = 0;
};

enum class OpKind { Pointwise, Reduction, MatMul, Restickify };
const char* opKindName(OpKind k);

// One candidate device layout of an op (propagate_layouts): the var that walks the stick, the output's stick
// dimension it implies, and what each load then needs (-1: any layout is fine, the load does not vary along it).
struct LayoutCandidate {
    int stickVar = -1;
    int outputStickDim = -1;
    std::vector<int> loadStickDims;   // per Op::loads entry
};

struct TileLoop {
    int var = -1;          // the var the tile loop walks
    int64_t count = 1;     // number of tiles
    int64_t extent = 0;    // elements of the var per tile
    bool operator==(const TileLoop&) const = default;
};

struct CoreSplit {
    std::vector<int> ways;   // per var id (iteration then reduction): into how many equal parts it is cut
    int cores = 1;           // product of ways
    double estimatedUs = 0;  // cost-model estimate (matmul) or bytes/bandwidth (others)
    std::string why;         // "cost model: best of 37 splits", "default: largest dims first"
};

// A MatMul op's operands and vars: which load is A (M x K) and which is B (K x N), and the vars that play M, N
// and K (M or N may have range 1: a decode step, a [96,288] x [288,1] product). `lower` decides them; every pass
// keeps them (fuse appends an epilogue's loads after A and B) and codegen writes them into the bundle, so the work
// division, the timing model and the simulator read them instead of working them out again.
struct MatmulRoles {
    int a = -1, b = -1;           // indices into Op::loads (KernelLoopBody::loads)
    int m = -1, n = -1, k = -1;   // var ids: m and n iteration vars, k the reduction var
    bool operator==(const MatmulRoles&) const = default;
};

struct Op {
    // The op's identity: lower names op N of its timeline "opN", insert_restickify names its ops "rs_<copy>", fuse
    // keeps the surviving op's name (the others go to fusedFrom), and nothing renames one, so "op7" at lower is
    // "op7" at codegen (and in the next compile of the same model, whatever the pins).
    std::string name;
    OpKind kind = OpKind::Pointwise;
    MatmulRoles matmul;   // kind == MatMul only
    Shape ranges;            // iteration vars p0..
    Shape reductionRanges;   // reduction vars r0..
    std::vector<Access> loads;
    Access store;
    std::vector<Stmt> body;
    std::vector<std::string> origins;   // ONNX nodes (and decompose products) this op computes
    std::vector<std::string> fusedFrom; // ops that `fuse` merged into this one

    // propagate_layouts / optimize_layouts
    std::vector<LayoutCandidate> candidates;
    int chosen = -1;
    // restickify ops: the layouts they move between
    int fromStickDim = -1;
    int toStickDim = -1;
    // coarse_tiling / work_division
    std::vector<TileLoop> tiles;
    CoreSplit split;

    int numVars() const { return static_cast<int>(ranges.size() + reductionRanges.size()); }
    int64_t varRange(int var) const;
    std::string varName(int var) const;
    bool isReductionVar(int var) const { return var >= static_cast<int>(ranges.size()) && var < kIndirectVar; }
    int stickVar() const { return chosen >= 0 && chosen < static_cast<int>(candidates.size()) ? candidates[chosen].stickVar : -1; }
    int64_t iterationPoints() const;
};

enum class BufferKind { Input, Constant, Intermediate, Output };
const char* bufferKindName(BufferKind k);

// The device order of the non-stick dimensions. torch-spyre's default keeps host dim 0 (the batch) just outside
// the stick; batch-outermost keeps host order (PR #4302 of torch-spyre: much faster batched matmul).
enum class DeviceOrder { Default, BatchOutermost };

struct LxAllocation {
    bool inLx = false;
    int64_t offset = 0;    // bytes from the start of usable LX, per core
    int64_t bytes = 0;     // per core, aligned
    int firstUse = -1;     // op index of the kernel timeline
    int lastUse = -1;
    std::string how;       // "in place of buf3", "address 0", "above high-water", "gap", "does not fit"
    int inPlaceOf = -1;    // buffer whose dying block this one took over at firstUse
};

struct Buffer {
    std::string name;     // "buf3", "arg0_1", "const2", "buf3_stick1" (a restickified copy); never renamed, like Op::name
    std::string origin;   // the ONNX value it holds
    BufferKind kind = BufferKind::Intermediate;
    std::string dtype = "float32";
    Shape shape;
    Shape strides;
    int producer = -1;   // op index
    std::shared_ptr<const std::vector<float>> f;        // constant data
    std::shared_ptr<const std::vector<int64_t>> i;      // constant integer data (gather indices)
    // layout
    int stickDim = -1;
    DeviceOrder order = DeviceOrder::Default;
    bool pinned = false;
    // scratchpad planning
    LxAllocation lx;
};

struct SpyreTensorLayout {
    Shape deviceSize;
    std::vector<int> dimMap;
    std::vector<int64_t> strideMap;
    std::string deviceDtype;
    int64_t deviceElements() const { return shapeProduct(deviceSize); }
    std::string text() const;
    bool operator==(const SpyreTensorLayout&) const = default;   // SpyreTensorLayout(device_size=[...], dim_map=[...], stride_map=[...], device_dtype=DL16)
};

SpyreTensorLayout deviceLayout(const Shape& shape, const Shape& strides, int stickDim, DeviceOrder order,
                               int stickElements, const std::string& deviceDtype);

struct LayoutResult {
    bool solved = false;
    std::string method;        // "exact branch and bound", "beam search (width 200)"
    int64_t cost = 0;          // elements moved by restickify (edge model)
    int64_t lowerBound = 0;
    bool provenOptimal = false;
    int64_t statesExplored = 0;
    int pinsApplied = 0;
};

struct ScratchpadResult {
    bool planned = false;
    std::string policy;           // "greedy", "first-fit", "best-fit"
    int64_t capacityBytes = 0;    // usable LX per core
    int64_t peakBytes = 0;        // highest end offset of any allocation
    int inLx = 0;
    int inDeviceMemory = 0;
};

enum class Stage { Graph, Loop };

struct KernelBundle;

struct Program {
    std::string modelName;
    std::string sourcePath;
    Stage stage = Stage::Graph;
    // From the target (importModel copies them), so the IR prints and sizes itself without one.
    int stickElements = 0;
    int deviceDtypeBytes = 0;
    std::string deviceDtype;
    // The model's default-domain opset: some ops' meaning depends on it (Softmax before 13 flattens to 2-D).
    int64_t opsetVersion = 17;

    // graph level
    std::vector<GraphTensor> tensors;
    std::vector<GraphOp> graphOps;

    // loop level
    std::vector<Buffer> buffers;
    std::vector<Op> ops;   // kernel timeline order

    LayoutResult layout;
    ScratchpadResult scratchpad;
    std::shared_ptr<const KernelBundle> bundle;   // set by codegen

    SpyreTensorLayout layoutOf(const Buffer& b) const
    {
        return deviceLayout(b.shape, b.strides, b.stickDim, b.order, stickElements, deviceDtype);
    }
    int64_t deviceBytes(const Buffer& b) const { return layoutOf(b).deviceElements() * deviceDtypeBytes; }
    int findBuffer(const std::string& nameOrOrigin) const;   // by buffer name, then by ONNX value name
    // The op that is (or, after fuse, contains) the op named `name` at any pass; -1 when none.
    int findOp(const std::string& name) const;
    std::vector<std::vector<int>> consumersOfBuffers() const; // per buffer: op indices that load it
};

// Which host dimension of `b` the var with coefficient `coeff` walks, and whether it walks it with unit step.
struct WalkedDim {
    int dim = -1;        // -1: the access does not vary along the var
    bool unit = false;   // the var steps one element of that dim: stick-contiguous when that dim is the stick
    bool aligned = true; // the var's run does not straddle stick boundaries badly (see layout_model.cpp)
};
WalkedDim walkedDim(const Buffer& b, int64_t coeff, int64_t varRange, int stickElements);

}  // namespace spyglass::spyre
