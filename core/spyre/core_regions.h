#pragma once
// What each core of an op touches of a buffer under the op's split, and whether the ops around a buffer slice it
// alike: scratchpad planning keeps a buffer in LX only then, and work division ranks a matmul split with the LX
// residency that split allows.

#include "core/spyre/loop_ir.h"

#include <optional>
#include <utility>
#include <vector>

namespace spyglass::spyre {

// Per core, per host dim of the buffer, the coordinate ranges the core touches (one per tile, merged).
using Ranges = std::vector<std::pair<int64_t, int64_t>>;
using CoreRegions = std::vector<std::vector<Ranges>>;

// What each core touches of a buffer through one access of `op` (under op.split). Empty when the access is not a
// plain walk (a var steps no single dim, or two vars step one dim).
std::optional<CoreRegions> coreRegions(const Program& p, const Op& op, const Access& a);
// The accesses of `op` to `buffer`: its loads, then its store.
std::vector<const Access*> accessesOf(const Op& op, int buffer);
// A buffer may live in LX only when every op that touches it has each core touch exactly what that core touches
// in the writer: LX is per core, so a reader whose cores slice the buffer differently would need the data of
// other cores (torch-spyre inserts an LX relayout copy there; Spyglass keeps such buffers in device memory).
bool sameCoreSlices(const Program& p, int buffer, const std::vector<const Op*>& ops);
bool sameCoreSlices(const Program& p, int buffer, const std::vector<int>& ops);

}  // namespace spyglass::spyre
