// qsim's side of the peer harness: the gate list as Cirq gates (qsim's gates_cirq.h), qsim's multi-qubit fuser
// (max_fused_size = --fuse), its best simulator for the compile flags (AVX-512 under -march=native here) and
// OpenMP threads, complex64 (qsim has no complex128 CPU path). Timed: state creation and zeroing, fusion, gates
// (time_s); sim_s leaves out the state's creation and zeroing.
#include "bench/peers/gate_list.h"

#include "lib/formux.h"
#include "lib/fuser_mqubit.h"
#include "lib/gate_appl.h"
#include "lib/gates_cirq.h"
#include "lib/io.h"
#include "lib/simmux.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace {

using fp = float;
using Gate = qsim::Cirq::GateCirq<fp>;

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// qsim's fuser wants every gate stamped with its moment: the earliest after the last gate on any of its qubits.
std::vector<Gate> toQsim(const peers::GateList& l)
{
    std::vector<unsigned> last(l.qubits, 0);
    std::vector<Gate> out;
    for (const peers::Gate& g : l.gates) {
        unsigned t = 0;
        for (int i = 0; i < g.arity; ++i)
            t = std::max(t, last[g.q[i]]);
        for (int i = 0; i < g.arity; ++i)
            last[g.q[i]] = t + 1;
        const unsigned a = g.q[0], b = g.q[1];
        const fp th = fp(g.angle);
        if (g.name == "h")
            out.push_back(qsim::Cirq::H<fp>::Create(t, a));
        else if (g.name == "x")
            out.push_back(qsim::Cirq::X<fp>::Create(t, a));
        else if (g.name == "rx")
            out.push_back(qsim::Cirq::rx<fp>::Create(t, a, th));
        else if (g.name == "ry")
            out.push_back(qsim::Cirq::ry<fp>::Create(t, a, th));
        else if (g.name == "rz")
            out.push_back(qsim::Cirq::rz<fp>::Create(t, a, th));
        else if (g.name == "cx")
            out.push_back(qsim::Cirq::CX<fp>::Create(t, a, b));
        else if (g.name == "cz")
            out.push_back(qsim::Cirq::CZ<fp>::Create(t, a, b));
        else if (g.name == "cp")
            out.push_back(qsim::Cirq::CZPowGate<fp>::Create(t, a, b, fp(g.angle / M_PI)));
        else if (g.name == "swap")
            out.push_back(qsim::Cirq::SWAP<fp>::Create(t, a, b));
    }
    std::stable_sort(out.begin(), out.end(), [](const Gate& x, const Gate& y) { return x.time < y.time; });
    return out;
}

}  // namespace

int main(int argc, char** argv)
{
    try {
        const peers::DriverArgs args = peers::parseArgs(argc, argv);
        const peers::GateList list = peers::readGateList(args.file);
        const std::vector<Gate> gates = toQsim(list);
        using Simulator = qsim::Simulator<qsim::For>;
        using StateSpace = Simulator::StateSpace;
        using Fuser = qsim::MultiQubitGateFuser<qsim::IO, Gate>;
        const unsigned threads = unsigned(omp_get_max_threads());
        const double t0 = now();
        StateSpace space(threads);
        auto state = space.Create(unsigned(list.qubits));
        space.SetStateZero(state);
        const double t1 = now();
        Simulator sim(threads);
        Fuser::Parameter p;
        p.max_fused_size = unsigned(std::max(2, args.fuse));
        const auto fused = Fuser::FuseGates(p, unsigned(list.qubits), gates);
        for (const auto& g : fused)
            qsim::ApplyFusedGate(sim, g, state);
        const double t2 = now();
        std::printf("time_s %.6f\nsim_s %.6f\nops %zu\n", t2 - t0, t2 - t1, fused.size());
        if (!args.dump.empty())
            peers::writeDump(args.dump, list.qubits, [&](uint64_t i, double& re, double& im) {
                const auto a = StateSpace::GetAmpl(state, i);
                re = a.real();
                im = a.imag();
            });
    } catch (const std::exception& e) {
        std::fprintf(stderr, "qsim_driver: %s\n", e.what());
        return 2;
    }
    return 0;
}
