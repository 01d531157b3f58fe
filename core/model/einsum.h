#pragma once
// The one reading of an Einsum equation, for the reference interpreter and the Spyre compiler: each operand's
// labels and the output's, with "..." expanded into digit labels ('0', '1', ... right-aligned, so that ellipsis dims
// broadcast as numpy does) and an implicit output (no "->": the ellipsis, then the letters used once, sorted).

#include <cstdint>
#include <string>
#include <vector>

namespace spyglass::model {

struct EinsumSpec {
    std::vector<std::string> inputs;   // one label per dimension of each operand
    std::string output;
    std::string error;                 // non-empty: the equation does not fit the operands
};

EinsumSpec parseEinsum(const std::string& equation, const std::vector<int64_t>& ranks);

}  // namespace spyglass::model
