#pragma once
#include "core/spyre/pass.h"

namespace spyglass::spyre {

// Rewrites composite ONNX ops into the core ops `lower` knows (Spyre decompositions in torch-spyre's terms):
// Gemm -> [Transpose] MatMul [Mul] [Add]; LayerNormalization -> mean/variance/normalise/scale/shift;
// Softmax / LogSoftmax -> max-subtract-exp-sum-divide; ReduceMean -> ReduceSum and a divide; Gelu -> Erf form;
// HardSigmoid/HardSwish -> multiply-add and clamps; PRelu -> relu + slope * min(x, 0); variadic Max/Min/Sum/Mean
// -> chains of binary ops; BatchNormalization -> one multiply-add with folded constants;
// Flatten/Squeeze/Unsqueeze/Identity/Dropout/Split -> views; grouped Conv and ConvTranspose -> (batched) im2col
// MatMuls; Resize -> one constant-matrix MatMul per axis; Einsum -> transposes and a batched MatMul; RNN/GRU/LSTM ->
// unrolled steps; ArgMax/TopK/Hardmax -> reductions over an iota; Pad/Tile -> masked copies, slices, expands.
// The table in rewrites() lists every op it rewrites.
class DecomposePass : public Pass {
public:
    std::string name() const override { return "decompose"; }
    std::string description() const override
    {
        return "rewrite composite ops (Gemm, LayerNorm, Softmax, GELU, ReduceMean, BatchNorm) into core ops";
    }
    PassResult run(Program& program, PassContext& ctx) override;
};

}  // namespace spyglass::spyre
