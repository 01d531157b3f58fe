#pragma once
// The one text form of the Spyre IR: Inductor's debug-dump style (ir_post_fusion.txt) plus what Spyre adds —
// SpyreTensorLayouts, layout candidates, restickify ops, tile loops, core splits and LX offsets.
// Dumps (--dump-dir), the GUI's IR view and the golden tests all use this printer.

#include "core/spyre/loop_ir.h"

#include <string>
#include <vector>

namespace spyglass::spyre {

// `opTexts`, when given, receives printOp's text of every op (codegen keeps them per kernel without printing twice).
std::string printProgram(const Program& program, std::vector<std::string>* opTexts = nullptr);
std::string printOp(const Program& program, int opIndex);
std::string affineText(const Op& op, const AffineExpr& e);   // "768*p0 + r0"

}  // namespace spyglass::spyre
