#pragma once
// quantum_bench --kernel-costs: each kernel shape the fuse pass weighs, timed on this machine, beside
// kernels::relativeCost's estimate (what the constants of relativeCost are fitted to).
namespace spyglass::quantum::bench {
int kernelCosts(int qubits);
}
