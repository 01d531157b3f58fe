// qulacs's side of the peer harness: cppsim gates (RotX/RotY/RotZ are the exp(-i t P / 2) rotations; qulacs's RX
// has the opposite sign), the controlled phase as a two-qubit diagonal gate, complex128, OpenMP threads.
// --fuse K > 0 runs QuantumCircuitOptimizer::optimize(circuit, K), --fuse -1 optimize_light, 0 nothing.
// Timed: the state's creation (allocation and |0...0>), the optimiser and update_quantum_state (time_s); sim_s
// leaves out the state's creation.
#include "bench/peers/gate_list.h"

#include "cppsim/circuit.hpp"
#include "cppsim/circuit_optimizer.hpp"
#include "cppsim/gate_factory.hpp"
#include "cppsim/state.hpp"

#include <chrono>
#include <cstdio>

namespace {
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

int main(int argc, char** argv)
{
    try {
        const peers::DriverArgs args = peers::parseArgs(argc, argv);
        const peers::GateList list = peers::readGateList(args.file);
        QuantumCircuit circuit(UINT(list.qubits));
        for (const peers::Gate& g : list.gates) {
            const UINT a = UINT(g.q[0]), b = UINT(g.q[1]);
            if (g.name == "h")
                circuit.add_gate(gate::H(a));
            else if (g.name == "x")
                circuit.add_gate(gate::X(a));
            else if (g.name == "rx")
                circuit.add_gate(gate::RotX(a, g.angle));
            else if (g.name == "ry")
                circuit.add_gate(gate::RotY(a, g.angle));
            else if (g.name == "rz")
                circuit.add_gate(gate::RotZ(a, g.angle));
            else if (g.name == "cx")
                circuit.add_gate(gate::CNOT(a, b));
            else if (g.name == "cz")
                circuit.add_gate(gate::CZ(a, b));
            else if (g.name == "swap")
                circuit.add_gate(gate::SWAP(a, b));
            else if (g.name == "cp") {
                ComplexVector d(4);
                d << 1, 1, 1, std::polar(1.0, g.angle);
                circuit.add_gate(gate::DiagonalMatrix({a, b}, d));
            }
        }
        const double t0 = now();
        QuantumState state(UINT(list.qubits));
        state.set_zero_state();
        const double t1 = now();
        if (args.fuse > 0)
            QuantumCircuitOptimizer().optimize(&circuit, UINT(args.fuse));
        else if (args.fuse < 0)
            QuantumCircuitOptimizer().optimize_light(&circuit);
        circuit.update_quantum_state(&state);
        const double t2 = now();
        std::printf("time_s %.6f\nsim_s %.6f\nops %zu\n", t2 - t0, t2 - t1, size_t(circuit.gate_list.size()));
        if (!args.dump.empty()) {
            const CPPCTYPE* d = state.data_cpp();
            peers::writeDump(args.dump, list.qubits, [&](uint64_t i, double& re, double& im) {
                re = d[i].real();
                im = d[i].imag();
            });
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "qulacs_driver: %s\n", e.what());
        return 2;
    }
    return 0;
}
