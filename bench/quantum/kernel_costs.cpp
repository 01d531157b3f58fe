// The time of one kernel application per amplitude of a cache-resident state, one thread, for the kernel shapes
// the fuse pass chooses between (kernels::kernelProbes), in both precisions, next to kernels::relativeCost: the
// check of whether the cost table in use (built in, or `spyglass-cli qcalibrate`'s file) holds on this CPU.
#include "bench/quantum/kernel_costs.h"

#include "core/quantum/kernel_calibration.h"

#include <cstdio>

namespace spyglass::quantum::bench {

int kernelCosts(int n)
{
    std::printf("# kernel costs: %d-qubit state, one thread, %s kernels, best of 7 (ns per amplitude); relativeCost from %s\n", n,
                kernels::isaName(kernels::activeIsa()), kernels::activeCostSource().c_str());
    std::printf("| kernel | relativeCost | complex128 ns | complex64 ns | complex128 / relativeCost |\n|---|---|---|---|---|\n");
    kernels::timeKernels(n, true, [](const kernels::KernelTiming& t) {
        const double estimate = kernels::relativeCost(t.gate);
        std::printf("| %s | %.2f | %.3f | %.3f | %.2f |\n", t.probe.name.c_str(), estimate, t.complex128Ns, t.complex64Ns,
                    t.complex128Ns / estimate);
        std::fflush(stdout);
    });
    return 0;
}

}  // namespace spyglass::quantum::bench
