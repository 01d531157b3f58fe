#pragma once
// The kernel bundle codegen produces: per kernel the op, its iteration space, core splits and per-core slices,
// tile loops, LX allocations, DMA transfers in sticks and restickify moves; a manifest with the model's inputs and
// outputs (host shape, dtype, device layout). Exported as a directory (manifest.json, kernels/*.json, listing.txt)
// validated by resources/schemas/spyre-kernel-bundle.schema.json; the simulator reloads it with loadKernelBundle.

#include "core/spyre/loop_ir.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace spyglass::spyre {

// Every device number format (fp16, DL16) is a 16-bit word.
constexpr int kDeviceWordBytes = 2;

struct BundleTensor {
    std::string name;     // buffer name
    std::string origin;   // ONNX value name
    BufferKind kind = BufferKind::Intermediate;
    std::string dtype;    // host dtype
    Shape hostShape;
    int stickDim = -1;
    DeviceOrder deviceOrder = DeviceOrder::Default;
    SpyreTensorLayout layout;
    bool operator==(const BundleTensor&) const = default;
};

struct KernelVar {
    std::string name;   // "p0", "r0"
    int64_t range = 1;
    bool reduction = false;
    int ways = 1;       // core split
    bool operator==(const KernelVar&) const = default;
};

struct KernelSlice {
    int core = 0;
    std::vector<int64_t> start;    // per var, elements, relative to the tile
    std::vector<int64_t> extent;
    bool operator==(const KernelSlice&) const = default;
};

enum class AccessRole { Load, Store };

struct KernelTensorArg {
    std::string tensor;   // BundleTensor::name
    AccessRole role = AccessRole::Load;
    std::string index;    // affine index text
    bool inLx = false;
    int64_t lxOffset = 0;
    int64_t lxBytes = 0;
    int64_t dmaSticks = 0;          // sticks moved between device memory and LX by this kernel
    int64_t dmaSticksPerCore = 0;   // what one core moves
    // The kernel-timeline interval the LX allocation is live (first and last kernel index); -1 when not in LX.
    int lxFirstUse = -1;
    int lxLastUse = -1;
    bool operator==(const KernelTensorArg&) const = default;
};

struct KernelRestickify {
    bool present = false;
    std::string fromTensor, toTensor;
    int fromStickDim = -1, toStickDim = -1;
    int64_t elements = 0;
    bool operator==(const KernelRestickify&) const = default;
};

// One ops.load / ops.store of the loop body, by tensor name (host element offset as an affine index).
struct KernelAccess {
    std::string tensor;
    AffineExpr index;
    bool operator==(const KernelAccess&) const = default;
};

// The loop body in structured form, so that the simulator can execute an exported bundle without the compiler.
struct KernelLoopBody {
    Shape ranges;            // p0..
    Shape reductionRanges;   // r0..
    std::vector<KernelAccess> loads;
    KernelAccess store;
    std::vector<Stmt> stmts;
};

struct Kernel {
    int index = 0;
    std::string name;   // "op3"
    OpKind op = OpKind::Pointwise;
    MatmulRoles matmul;   // op == MatMul only; a and b index loop.loads
    std::vector<std::string> origins;
    std::vector<KernelVar> vars;
    int stickVar = -1;
    int cores = 1;
    double estimatedUs = 0;
    std::string splitReason;
    std::vector<KernelSlice> slices;
    std::vector<TileLoop> tiles;
    std::vector<KernelTensorArg> tensors;
    KernelRestickify restickify;
    std::string body;   // the op in the IR's text form
    KernelLoopBody loop;
};

// Weights the bundle carries (host layout, host dtype); exported as constants/<name>.pb (ONNX TensorProto).
struct BundleConstant {
    std::shared_ptr<const std::vector<float>> f;
    std::shared_ptr<const std::vector<int64_t>> i;
};

struct KernelBundle {
    std::string model;
    std::string targetName;
    int cores = 0;
    int stickBytes = 0;
    int64_t usableLxBytes = 0;
    std::string deviceDtype;
    int64_t restickifyCount = 0;
    int64_t restickifyElements = 0;
    bool layoutOptimal = false;
    int64_t lxPeakBytes = 0;
    std::vector<BundleTensor> tensors;   // every tensor a kernel names
    std::vector<std::string> inputs, outputs;
    std::vector<Kernel> kernels;
    std::map<std::string, BundleConstant> constants;   // by tensor name
    std::string listing;

    const BundleTensor* tensor(const std::string& name) const;
    int stickElements() const { return stickBytes / kDeviceWordBytes; }
};

// The names the bundle's JSON uses for the IR's enums ("input", "batch_outermost", "load").
const char* bundleName(BufferKind k);
const char* bundleName(DeviceOrder o);
const char* bundleName(AccessRole r);

// Writes DIR/manifest.json, DIR/kernels/NNN-opK.json, DIR/constants/<tensor>.pb, DIR/listing.txt (creates DIR). Throws InputError on I/O errors.
void exportKernelBundle(const KernelBundle& bundle, const std::string& dir);
// Reads a bundle back as untrusted input: each file against the schema, then every field against the others
// (nothing reaches the simulator that the compiler could not have written), each part a regular file inside DIR
// after resolving symlinks. Throws InputError naming the file and the field that is missing or wrong.
KernelBundle loadKernelBundle(const std::string& dir);

}  // namespace spyglass::spyre
