#pragma once
// The timing model the simulator reports and the compiler's work division ranks matmul splits with: how long a kernel of a bundle takes on the target, per core, with every constant
// read from the target file (resources/targets/spyre.json, which says which constants are fitted and on which
// published cases: tests/data/spyre_calibration/cases.json). Time comes from what the bundle moves:
//   - matmul on the PT array at the sustained rate, a PT-array efficiency penalty for few rows of M per core,
//     half rate (one corelet) when K is split, plus the partial-sum exchange; vector work on the SFU;
//   - per core and operand, the DMA transfers of its piece: requests of one contiguous run each (the run the
//     device order gives the core's slice), a fixed cost per request, the core's own bandwidth ceiling;
//   - a matmul runs in three phases: every core loads its own copy of its activation piece (a burst on the shared
//     bandwidth), the weight streams under the PT array's compute (cores that read the same weight piece fetch a
//     share each and receive the rest from the others at the replica rate), the results leave in a second burst;
//     the bursts move one stick column at a time (batch just inside the stick: B sticks per request; batch
//     outermost: a core's rows of a column) and wait on each request (its cost is latency there, occupancy the
//     shared bandwidth can hide for streamed operands);
//   - each request of a matmul's streamed weight after a core's first also holds the shared memory side for a fixed
//     time, so a weight cut into shorter runs (K split) streams slower for the same bytes;
//   - the shared device-memory bandwidth over all cores: (R + W) / effective bandwidth plus the read/write
//     turnaround (per phase for a matmul); a matmul or a standalone reduction realises only its core count's
//     share; tensors resident in LX move nothing; restickify at its own rate; the busiest core is stretched to it;
//   - vector kernels stream against the SFU (vector_stream_chunks pieces, or per tile);
//   - a fixed per-kernel overhead.
// The roofline bound of a kernel is max(MACs (or vector ops) at peak on every core, bytes at peak bandwidth).
#include "core/common/trace.h"
#include "core/spyre/kernel_bundle.h"
#include "core/spyre/spyre_target.h"

#include <string>
#include <vector>

namespace spyglass::spyre {

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
    std::string rateReason;      // "sustained PT rate", "sustained PT rate, K split: one corelet"
    int64_t macs = 0;
    int64_t vectorOps = 0;
    int64_t bytesRead = 0, bytesWritten = 0;
    double utilisation = 0;      // mean over the kernel's cores of compute busy / kernel time
    std::vector<CoreTime> perCore;
};

// Times one kernel starting at `startNs`; appends its events to `trace` when given (lanes "core N" and
// "core N DMA", created on first use).
KernelTime timeKernel(const Kernel& kernel, const KernelBundle& bundle, const SpyreTarget& target,
                      double startNs, Trace* trace);

}  // namespace spyglass::spyre
