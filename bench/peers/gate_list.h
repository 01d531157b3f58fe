#pragma once
// The circuit format every simulator of the peer harness reads (ours through quantum_bench --peer-run, qsim,
// qulacs and QuEST through their drivers here), so all run exactly the same gates:
//
//   qubits N
//   NAME Q0 [Q1] [ANGLE]       one gate a line; NAME in h x rx ry rz cx cz cp swap; ANGLE in radians (%.17g)
//
// Qiskit conventions: qubit 0 is the least significant bit of an amplitude index, rx(t) = exp(-i t X / 2) (also
// ry, rz), cp(t) = diag(1, 1, 1, e^{it}). Only the standard library: the peers' drivers include it too.
// Every driver prints `time_s T` (state allocation, initialisation, its own fusion and the gates; no parsing, no
// output), `sim_s S` (the same without the state's allocation and initialisation: fusion and gates) and, with --dump FILE, the amplitudes at sampleIndices(n) as complex128 (re, im) pairs.

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace peers {

struct Gate {
    std::string name;
    int q[2] = {-1, -1};
    int arity = 1;
    double angle = 0;
};

struct GateList {
    int qubits = 0;
    std::vector<Gate> gates;
};

inline bool hasAngle(const std::string& n) { return n == "rx" || n == "ry" || n == "rz" || n == "cp"; }
inline int arityOf(const std::string& n) { return n == "cx" || n == "cz" || n == "cp" || n == "swap" ? 2 : 1; }

inline GateList readGateList(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error(path + ": cannot open");
    GateList c;
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream s(line);
        std::string name;
        s >> name;
        if (name == "qubits") {
            s >> c.qubits;
            continue;
        }
        if (name != "h" && name != "x" && arityOf(name) == 1 && !hasAngle(name))
            throw std::runtime_error(path + ":" + std::to_string(lineNo) + ": unknown gate '" + name + "'");
        Gate g;
        g.name = name;
        g.arity = arityOf(name);
        for (int i = 0; i < g.arity; ++i)
            s >> g.q[i];
        if (hasAngle(name))
            s >> g.angle;
        for (int i = 0; i < g.arity; ++i)
            if (!s || g.q[i] < 0 || g.q[i] >= c.qubits)
                throw std::runtime_error(path + ":" + std::to_string(lineNo) + ": bad gate line '" + line + "'");
        c.gates.push_back(g);
    }
    if (c.qubits < 1 || c.qubits > 40)
        throw std::runtime_error(path + ": no 'qubits N' line (1..40)");
    return c;
}

// The amplitudes a dump holds: all of them up to 20 qubits (16 MiB), else 2^16 spread over the state by a
// multiplicative hash, always with the first and the last (a GHZ state lives there) and those one bit away from them.
inline std::vector<uint64_t> sampleIndices(int n)
{
    const uint64_t size = uint64_t(1) << n;
    std::vector<uint64_t> idx;
    if (n <= 20) {
        for (uint64_t i = 0; i < size; ++i)
            idx.push_back(i);
        return idx;
    }
    // A sparse state lives on few indices, which a spread sample misses: there the fidelity would compare rounding
    // noise (a W state's 27 amplitudes, each 2^-11 likely in a sample of 2^16 of 2^27, gave 0.96-0.999 for states
    // that agree to 1e-16). So every index with one bit set or one bit clear (a W state and its complement) is in.
    idx.push_back(0);
    idx.push_back(size - 1);
    for (int b = 0; b < n; ++b) {
        idx.push_back(uint64_t(1) << b);
        idx.push_back((size - 1) ^ (uint64_t(1) << b));
    }
    for (uint64_t i = 1; idx.size() < (uint64_t(1) << 16); ++i)
        idx.push_back((i * 0x9E3779B97F4A7C15ull) >> (64 - n));
    return idx;
}

// amp(i) returns the amplitude at index i as (re, im).
template <class Amp>
void writeDump(const std::string& path, int n, Amp amp)
{
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        throw std::runtime_error(path + ": cannot write");
    for (uint64_t i : sampleIndices(n)) {
        double v[2];
        amp(i, v[0], v[1]);
        std::fwrite(v, sizeof v, 1, f);
    }
    std::fclose(f);
}

// Command line of every driver: FILE [--dump OUT] [--fuse K] (threads: OMP_NUM_THREADS)
struct DriverArgs {
    std::string file, dump;
    int fuse = 4;
};

inline DriverArgs parseArgs(int argc, char** argv)
{
    DriverArgs a;
    for (int i = 1; i < argc; ++i) {
        const std::string s = argv[i];
        if (s == "--dump" && i + 1 < argc)
            a.dump = argv[++i];
        else if (s == "--fuse" && i + 1 < argc)
            a.fuse = std::stoi(argv[++i]);
        else
            a.file = s;
    }
    if (a.file.empty())
        throw std::runtime_error("usage: driver GATE_LIST [--dump OUT] [--fuse K]");
    return a;
}

}  // namespace peers
