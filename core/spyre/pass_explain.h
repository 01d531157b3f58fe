#pragma once
// What a pass did, in sentences with numbers, for the Pipeline view's expanded rows: worked out from the programs
// before and after the pass (ops matched by name, their identity), so it needs nothing the pass did not leave in
// the IR. One line per thing done: a restickify inserted and why, an op fused into another, a split chosen.

#include "core/spyre/loop_ir.h"

#include <map>
#include <string>
#include <vector>

namespace spyglass::spyre {

// `kernelNs`: simulated time per kernel name (= op name) of the final bundle, when there is one; lines about an op
// that survives to codegen quote it.
std::vector<std::string> explainPass(const std::string& pass, const Program& before, const Program& after,
                                     const std::map<std::string, double>& kernelNs = {});

}  // namespace spyglass::spyre
