// The time of one kernel application per amplitude of a cache-resident state, one thread, for the kernel shapes
// the fuse pass chooses between (kernels::kernelProbes), in both precisions, next to kernels::relativeCost: the
// check of whether the cost table in use (built in, or `spyglass-cli qcalibrate`'s file) holds on this CPU.
#include "bench/quantum/kernel_costs.h"

#include "core/quantum/kernel_calibration.h"

#include <cstdio>
#include <string>
#include <vector>

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

int kernelPlacement(int n)
{
    using kernels::KernelProbe;
    std::vector<KernelProbe> probes;
    auto add = [&](const char* what, KernelProbe::Kind kind, std::vector<int> targets) {
        std::string name = what;
        for (size_t j = 0; j < targets.size(); ++j)
            name += (j ? "," : " on ") + std::to_string(targets[j]);
        probes.push_back({name, kind, {}, std::move(targets), false});
    };
    // Qubits 9 and up (8 and up in complex128) lie 4 KiB or more apart: vectors differing only in them share an
    // L1 set.
    for (std::vector<int> q : {std::vector<int>{4, 5}, {4, 5, 6, 7}, {8, 9, 10, 11}, {9, 10, 11, 12}, {11, 12, 13, 14}, {5, 10, 11, 12}})
        add("tensor of real 1q", KernelProbe::TensorReal, q);
    for (std::vector<int> q : {std::vector<int>{4, 5, 6, 7}, {9, 10, 11, 12}, {11, 12, 13, 14}})
        add("permutation (every row moves)", KernelProbe::Permutation, q);
    // Qubits 0-2 (0-1 in complex128) are lanes of one AVX-512 vector: the lane kernels shuffle inside it.
    for (std::vector<int> q : {std::vector<int>{0}, {5}, {0, 1}, {2, 5}, {5, 6}, {0, 1, 2}, {3, 4, 5}, {10, 11, 12}, {3, 4, 5, 6},
                               {7, 8, 9, 10}, {11, 12, 13, 14}})
        add("dense complex", KernelProbe::Dense, q);
    add("dense real 1q", KernelProbe::Real, {5});
    std::printf("# kernel placement: %d-qubit state, one thread, %s kernels, best of 7 (ns per amplitude)\n", n,
                kernels::isaName(kernels::activeIsa()));
    std::printf("| kernel | complex128 ns | complex64 ns |\n|---|---|---|\n");
    kernels::timeKernels(
        n, true,
        [](const kernels::KernelTiming& t) {
            std::printf("| %s | %.3f | %.3f |\n", t.probe.name.c_str(), t.complex128Ns, t.complex64Ns);
            std::fflush(stdout);
        },
        {}, probes);
    return 0;
}

}  // namespace spyglass::quantum::bench
