#pragma once
// The simulator's timing model: how long a kernel of a bundle takes on the target, per core, with every constant
// read from the target file (resources/targets/spyre.json). It follows the structure of torch-spyre's analytical
// cost model (_inductor/cost_model.py, work_division.py):
//   - matmul on the PT array at a calibrated MAC rate: 2-D sustained, batched in the default device order, or
//     batched with batch outermost; a PT-array efficiency penalty for few rows of M per core; half rate (one
//     corelet) when K is split, plus the partial-sum exchange;
//   - vector work (pointwise, reductions) on the SFU;
//   - DMA between LPDDR5 and LX in whole sticks, the bandwidth shared by all cores: (R + W) / effective one-way
//     bandwidth plus the read/write turnaround on min(R, W); tensors resident in LX move nothing; an operand read
//     by many cores pays the fan-out penalty; restickify moves at the restickify rate;
//   - per core, DMA and compute overlap where the plan double-buffers (per tile, or in dma_stream_chunks pieces
//     for an untiled kernel): a small event schedule per core, so fill and drain are not hidden;
//   - a fixed per-kernel overhead.
// The roofline bound of a kernel is max(MACs (or vector ops) at peak on every core, bytes at peak bandwidth).
#include "core/common/trace.h"
#include "core/spyre/kernel_bundle.h"
#include "core/spyre/spyre_target.h"

#include <string>
#include <vector>

namespace spyglass::spyresim {

struct CoreTime {
    int core = 0;
    double computeNs = 0;   // busy on the PT array or SFU
    double dmaNs = 0;       // busy moving data
    double endNs = 0;       // relative to the kernel start
    int64_t bytesIn = 0, bytesOut = 0;
};

struct KernelTime {
    std::string name;       // "op3"
    std::string op;         // "MatMul", ...
    int index = 0;
    int cores = 1;
    double startNs = 0;
    double timeNs = 0;
    double computeNs = 0;   // the busiest core's compute time
    double memoryNs = 0;    // the kernel's aggregate DMA time
    double rooflineNs = 0;
    double macRatePerCore = 0;   // MAC/ns per core the model used (matmul), 0 otherwise
    std::string rateReason;      // "2-D matmul, sustained", "batched matmul, default device order", ...
    int64_t macs = 0;
    int64_t vectorOps = 0;
    int64_t bytesRead = 0, bytesWritten = 0;
    double utilisation = 0;      // mean over the kernel's cores of compute busy / kernel time
    std::vector<CoreTime> perCore;
};

// Times one kernel starting at `startNs`; appends its events to `trace` when given (lanes "core N" and
// "core N DMA", created on first use).
KernelTime timeKernel(const spyre::Kernel& kernel, const spyre::KernelBundle& bundle, const spyre::SpyreTarget& target,
                      double startNs, Trace* trace);

}  // namespace spyglass::spyresim
