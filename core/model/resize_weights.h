#pragma once
// The one definition of Resize/Upsample's sampling (ONNX's interpolate_1d_with_x): for each output position of one
// axis, which input positions it reads and with what weight. The reference interpreter applies it axis by axis;
// the Spyre compiler turns it into a constant matrix (one MatMul per resized axis). Both are exact: nearest and
// linear resizing is separable.

#include <cstdint>
#include <string>
#include <vector>

namespace spyglass::model {

struct ResizeAxis {
    int64_t inSize = 1, outSize = 1;
    double scale = 1.0;                               // the given scale, or outSize / inSize when sizes are given
    std::string mode = "nearest";                     // nearest, linear
    std::string coordinateMode = "half_pixel";        // half_pixel, pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn
    std::string nearestMode = "round_prefer_floor";   // round_prefer_floor, round_prefer_ceil, floor, ceil
};

// The sampling of a node: before opset 11 (Upsample, Resize-10) asymmetric coordinates and nearest by floor; from 11
// the node's attributes (with ONNX's defaults when empty).
ResizeAxis resizeSampling(int64_t opset, const std::string& mode, const std::string& coordinateMode, const std::string& nearestMode);

// Row-major [outSize, inSize]: output o = sum_i w[o * inSize + i] * input i. Empty when a mode is unknown (the
// op table refuses those first).
std::vector<double> resizeWeights(const ResizeAxis& axis);

}  // namespace spyglass::model
