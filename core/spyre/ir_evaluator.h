#pragma once
// Evaluates LoopLevelIR on the host, in double precision, straight from the op bodies (loads, computes,
// reductions, masks, indirect indexing, stores). It checks that the passes preserve what the model computes:
// the IR after any pass, fed the model's inputs, must give the model's outputs. Not a performance model.

#include "core/model/model_graph.h"
#include "core/spyre/loop_ir.h"

#include <map>
#include <string>

namespace spyglass::spyre {

// `inputs` by ONNX input name. Returns the graph outputs by ONNX output name, converted to each output's host
// dtype. Throws InputError when an input is missing or mis-shaped, or a constant has no data.
std::map<std::string, model::HostTensor> evaluateProgram(const Program& program,
                                                         const std::map<std::string, model::HostTensor>& inputs);

}  // namespace spyglass::spyre
