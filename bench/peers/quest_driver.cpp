// QuEST's side of the peer harness: one QuEST v4 gate call per gate of the list (QuEST fuses nothing), on a
// Qureg of the precision the library was built with (FLOAT_PRECISION), OpenMP threads. Timed: createQureg,
// initZeroState and the gates (time_s; sim_s: the gates alone); the environment is set up before the clock starts.
#include "bench/peers/gate_list.h"

#include "quest.h"

#include <chrono>
#include <cstdio>

namespace {
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

int main(int argc, char** argv)
{
    peers::DriverArgs args;
    peers::GateList list;
    try {
        args = peers::parseArgs(argc, argv);
        list = peers::readGateList(args.file);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "quest_driver: %s\n", e.what());
        return 2;
    }
    initCustomQuESTEnv(0, 0, 1);
    const double t0 = now();
    Qureg q = createQureg(list.qubits);
    initZeroState(q);
    const double t1 = now();
    for (const peers::Gate& g : list.gates) {
        const int a = g.q[0], b = g.q[1];
        const qreal th = qreal(g.angle);
        if (g.name == "h")
            applyHadamard(q, a);
        else if (g.name == "x")
            applyPauliX(q, a);
        else if (g.name == "rx")
            applyRotateX(q, a, th);
        else if (g.name == "ry")
            applyRotateY(q, a, th);
        else if (g.name == "rz")
            applyRotateZ(q, a, th);
        else if (g.name == "cx")
            applyControlledPauliX(q, a, b);
        else if (g.name == "cz")
            applyControlledPauliZ(q, a, b);
        else if (g.name == "cp")
            applyTwoQubitPhaseShift(q, a, b, th);
        else if (g.name == "swap")
            applySwap(q, a, b);
    }
    const double t2 = now();
    std::printf("time_s %.6f\nsim_s %.6f\nops %zu\n", t2 - t0, t2 - t1, list.gates.size());
    if (!args.dump.empty())
        peers::writeDump(args.dump, list.qubits, [&](uint64_t i, double& re, double& im) {
            const qcomp c = getQuregAmp(q, qindex(i));
            re = double(std::real(c));
            im = double(std::imag(c));
        });
    destroyQureg(q);
    finalizeQuESTEnv();
    return 0;
}
