#pragma once
// Functional execution of one kernel of a bundle on the simulated cores: each core walks its slice of the
// iteration space (per tile), loads device words through the tensors' device layouts, computes in fp32 lanes of
// one stick (64 elements along the innermost iteration var), accumulates reductions in fp32 and rounds to the
// device format at the store. Matmul kernels take a blocked path: per core, the A and B slices are unpacked from
// device words into fp32 panels and multiplied by gemmF32; the epilogue (bias, activation) then runs per lane.
// Cores run on a pool of host threads; a reduction split over cores is combined in core order (deterministic).
#include "core/spyre/kernel_bundle.h"
#include "core/spyresim/device_memory.h"

#include <functional>
#include <cstdint>
#include <map>
#include <vector>
#include <string>

namespace spyglass::spyresim {

// Which sticks of each LX-resident tensor every core's LX holds. LX is per core: a core can only read from LX the
// sticks it stored there itself or loaded by DMA (a cloned graph input). Tensors not in the map live in device
// memory only.
struct LxResidency {
    int64_t sticks = 0;                        // device sticks of the tensor
    std::vector<std::vector<uint8_t>> held;    // [core][stick]
};
using LxState = std::map<std::string, LxResidency>;

struct ExecutionStats {
    bool usedMatmulPath = false;
    int64_t points = 0;   // iteration points computed (all cores)
};

// `tensors` holds every tensor of the bundle by name. Throws InputError naming the kernel (and the core) when the
// kernel reads or writes outside a tensor or names a function no body may use.
// With `lx`, every load of a tensor the kernel keeps in LX without a DMA must hit a stick the reading core holds,
// else InputError naming the kernel, core, tensor and stick; stores (and DMA loads) into LX record what each core
// holds.
ExecutionStats executeKernel(const spyre::Kernel& kernel, std::map<std::string, DeviceTensor>& tensors, DeviceFormat format,
                             int stickElements, int hostThreads, LxState* lx = nullptr);

// Runs fn(0..count-1) on up to `threads` host threads (work is handed out one index at a time).
void parallelFor(int count, int threads, const std::function<void(int)>& fn);

}  // namespace spyglass::spyresim
