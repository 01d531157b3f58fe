#pragma once
// What else work_division could have done with one op, for the Work division view: torch-spyre's default division
// on 1, 2, 4, ... cores next to the chosen split, each timed by the same model work_division's matmul search uses
// (the simulator's timing model on the kernel codegen would emit), so "4 cores vs 32" reads as two times.

#include "core/spyre/loop_ir.h"

#include <string>
#include <vector>

namespace spyglass::spyre {

struct SpyreTarget;

struct SplitAlternative {
    std::vector<int> ways;   // per var
    int cores = 1;
    double modelUs = 0;      // timing model of that kernel, device-memory traffic for every operand
    bool chosen = false;     // the split the op has
    std::string text;        // "p0÷4 × p1÷8"
};

// "p0÷4 × p1÷8" ("not split" when every way is 1).
std::string splitText(const Op& op, const std::vector<int>& ways);

// The chosen split first, then the default division for each power-of-two core count up to the target's cores
// (duplicates of the chosen one left out). Empty before work_division has run on `op`.
std::vector<SplitAlternative> splitAlternatives(const Program& p, const Op& op, const SpyreTarget& t);

}  // namespace spyglass::spyre
