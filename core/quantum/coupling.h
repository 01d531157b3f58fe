#pragma once
// Coupling maps of quantum hardware: which physical qubit pairs a two-qubit gate may act on.

#include <string>
#include <vector>

namespace spyglass::quantum {

struct CouplingMap {
    std::string kind;                     // "linear", "grid", "heavyhex"
    int size = 0;
    std::vector<std::vector<int>> adj;    // neighbours of each physical qubit
    std::vector<std::vector<int>> dist;   // all-pairs hop distance

    bool connected(int a, int b) const;
    int edges() const;
};

// A connected map of exactly n qubits: the first n nodes (in breadth-first order from a corner) of a line,
// a near-square grid, or an IBM-style heavy-hex lattice.
CouplingMap makeCouplingMap(const std::string& kind, int n);

}  // namespace spyglass::quantum
