#pragma once
// quantum_bench --kernel-costs: each kernel shape the fuse pass weighs, timed on this machine, beside
// kernels::relativeCost's estimate (what the constants of relativeCost are fitted to).
namespace spyglass::quantum::bench {
int kernelCosts(int qubits);
// quantum_bench --kernel-placement: the kernels whose time depends on where their targets lie (BENCHMARKS.md, run
// 13): tensor products, CNOT chains and dense blocks on low, middle and high qubits, one thread.
int kernelPlacement(int qubits);
}
