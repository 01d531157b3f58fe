#pragma once
// The Spyre simulator: runs a kernel bundle (fresh from the compiler or loaded from an exported directory) for
// numbers and for time. It is a model of the chip and says so: the functional part holds every tensor in device
// memory in its stick layout and device number format, checks each core's LX plan, and computes kernel by kernel
// on host threads; the timing part (timing_model.h) prices each kernel from the target file and writes a trace.
#include "core/common/trace.h"
#include "core/model/model_graph.h"
#include "core/spyre/kernel_bundle.h"
#include "core/spyre/spyre_target.h"
#include "core/spyresim/device_format.h"
#include "core/spyresim/device_memory.h"
#include "core/spyresim/timing_model.h"

#include <limits>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace spyglass {
class JobControl;
}

namespace spyglass::spyresim {

// The host cost of one vector op of the functional simulation (lanes, device words, LX tracking) in multiply-adds
// of its GEMM path. Measured with `run --backend spyre --json` (wall_ms) on the 2-core development machine,
// 2026-12-01, load average 10: a 2048^3 MatMul (8.6e9 MACs) 2.84 s, 0.33 ns a MAC; an Exp, Tanh, Sigmoid chain on
// [2048, 4096] (2.5e7 vector ops) 2.22 s, 88 ns an op: 270 MACs.
constexpr double kVectorOpCostInMacs = 256;
// The most numbers work (numericsWork) `run --backend spyre` and `run-bundle` start unasked (without --force):
// about a minute at those rates.
constexpr double kMaxUnaskedNumericsWork = 2e11;

struct SimOptions {
    bool numerics = true;                        // false: timing only (large models)
    DeviceFormat format = DeviceFormat::Fp16;    // number format of device memory
    int hostThreads = 0;                         // 0: every hardware thread
    bool trace = true;
    // Refuse a numbers simulation whose numericsWork exceeds this (InputError, before any tensor is allocated).
    double maxNumericsWork = std::numeric_limits<double>::infinity();
    // Called after each kernel has run (with numerics), with every tensor of the bundle: the numerics bisect reads
    // the values the device computed here.
    std::function<void(const spyre::Kernel&, const std::map<std::string, DeviceTensor>&)> afterKernel;
};

struct SimResult {
    std::map<std::string, model::HostTensor> outputs;   // by ONNX output name (empty without numerics)
    std::vector<KernelTime> kernels;
    double kernelTimeNs = 0;    // sum over kernels (they run one after another)
    double rooflineNs = 0;      // sum of the kernels' roofline bounds
    int64_t bytesMoved = 0;     // between device memory and LX
    int64_t macs = 0;
    std::shared_ptr<Trace> trace;
    double wallMs = 0;          // host time the simulation took
    double kernelWallMs = 0;    // of which executing kernels (without loading tensors into device memory)
    std::vector<double> kernelWallMsEach;   // the same per kernel, parallel to kernels (empty without numerics)
    std::vector<std::string> notes;
};

// torch-spyre's tolerances for device results: |y - ref| <= atol + rtol * |ref| with rtol 2e-2 and
// atol 2e-3 * max(1, max|ref|) over the finite reference values given.
constexpr double kDeviceRtol = 2e-2;
double deviceAtol(const std::vector<model::HostTensor>& reference);
inline double deviceAtol(const model::HostTensor& reference) { return deviceAtol(std::vector<model::HostTensor>{reference}); }

// Checks the scratchpad plan of every kernel: each allocation inside usable LX, each core's slice of a tensor
// within its allocation, and no two allocations live at the same kernel overlapping (an in-place hand-over at the
// kernel where one dies and the other is born is allowed). Throws InputError naming the kernel, core and buffer.
void checkScratchpadPlan(const spyre::KernelBundle& bundle);

// `inputs` by ONNX input name (the bundle tensors' origin). Throws InputError on a missing or mis-shaped input, a
// broken LX plan, or a kernel that accesses outside a tensor; Cancelled when `job` is cancelled.
SimResult simulate(const spyre::KernelBundle& bundle, const spyre::SpyreTarget& target,
                   const std::map<std::string, model::HostTensor>& inputs, const SimOptions& options, JobControl* job = nullptr);

// The host work of simulating a bundle's numbers, in multiply-adds: the MACs plus kVectorOpCostInMacs per vector op,
// over every kernel as the timing model counts them (no tensor is touched, so it is cheap to know before starting).
double numericsWork(const spyre::KernelBundle& bundle, const spyre::SpyreTarget& target);
// Throws InputError when options ask for numbers beyond options.maxNumericsWork. simulate() checks it first; a
// caller that must prepare inputs (which can be as large as the work) checks before preparing them.
// `source` is the file the error names (the model, or the bundle's manifest).
void checkNumericsWork(const spyre::KernelBundle& bundle, const spyre::SpyreTarget& target, const SimOptions& options,
                       const std::string& source = {});

}  // namespace spyglass::spyresim
