#pragma once
// Helpers for passes that restructure LoopLevelIR: dropping dead ops and buffers, renumbering, per-dim indexing.

#include "core/spyre/loop_ir.h"

#include <optional>

namespace spyglass::spyre {

// Removes ops whose `name` is empty and buffers nothing reads or writes (inputs and outputs stay), renumbers
// buffer references and recomputes producers. Op names are not renumbered: a name is the op's identity from
// lower to codegen, so a pin or a selection made at one pass (or one compile) finds the same op at another.
void compactProgram(Program& p);

// Splits a flat index into a contiguous buffer into one affine expression per dimension, when every term falls
// cleanly into one dimension and stays inside it for the op's var ranges. nullopt otherwise.
std::optional<std::vector<AffineExpr>> perDimIndex(const Op& op, const AffineExpr& flat, const Shape& shape);

// Substitutes var v -> exprs[v] (for v < exprs.size()) in `e`.
AffineExpr substitute(const AffineExpr& e, const std::vector<AffineExpr>& exprs);

}  // namespace spyglass::spyre
