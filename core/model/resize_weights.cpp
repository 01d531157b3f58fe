#include "core/model/resize_weights.h"

#include <algorithm>
#include <cmath>

namespace spyglass::model {

ResizeAxis resizeSampling(int64_t opset, const std::string& mode, const std::string& coordinateMode, const std::string& nearestMode)
{
    ResizeAxis a;
    a.mode = mode.empty() ? "nearest" : mode;
    if (opset < 11) {
        a.coordinateMode = "asymmetric";
        a.nearestMode = "floor";
    } else {
        a.coordinateMode = coordinateMode.empty() ? "half_pixel" : coordinateMode;
        a.nearestMode = nearestMode.empty() ? "round_prefer_floor" : nearestMode;
    }
    return a;
}

std::vector<double> resizeWeights(const ResizeAxis& a)
{
    const int64_t in = a.inSize, out = a.outSize;
    std::vector<double> w(static_cast<size_t>(std::max<int64_t>(0, in * out)), 0.0);
    if (in <= 0 || out <= 0)
        return w;
    // ONNX's reference uses the scaled width, not the rounded output size, in the coordinate transforms.
    const double outWidth = a.scale * static_cast<double>(in);
    for (int64_t o = 0; o < out; ++o) {
        const double x = static_cast<double>(o);
        double orig;
        if (a.coordinateMode == "align_corners")
            orig = outWidth == 1 ? 0.0 : x * static_cast<double>(in - 1) / (outWidth - 1);
        else if (a.coordinateMode == "asymmetric")
            orig = x / a.scale;
        else if (a.coordinateMode == "pytorch_half_pixel")
            orig = outWidth == 1 ? -0.5 : (x + 0.5) / a.scale - 0.5;
        else if (a.coordinateMode == "half_pixel")
            orig = (x + 0.5) / a.scale - 0.5;
        else if (a.coordinateMode == "tf_half_pixel_for_nn")
            orig = (x + 0.5) / a.scale;
        else
            return {};
        // The two neighbours floor(orig) and floor(orig) + 1 with weights (1 - r, r); an integral orig is exact.
        const double base = std::floor(orig);
        const bool integral = orig == base;
        const double r = integral ? 1.0 : orig - base;
        int64_t left = static_cast<int64_t>(base) - (integral ? 1 : 0);
        double wl, wr;
        if (a.mode == "linear") {
            wl = 1 - r;
            wr = r;
        } else if (a.mode == "nearest") {
            bool right;
            if (integral || a.nearestMode == "ceil")
                right = true;
            else if (a.nearestMode == "round_prefer_floor")
                right = r > 0.5;
            else if (a.nearestMode == "round_prefer_ceil")
                right = r >= 0.5;
            else if (a.nearestMode == "floor")
                right = false;
            else
                return {};
            wl = right ? 0.0 : 1.0;
            wr = right ? 1.0 : 0.0;
        } else {
            return {};
        }
        // Positions outside the input take the edge value (ONNX pads with 'edge').
        const int64_t l = std::clamp<int64_t>(left, 0, in - 1), rr = std::clamp<int64_t>(left + 1, 0, in - 1);
        w[o * in + l] += wl;
        w[o * in + rr] += wr;
    }
    return w;
}

}  // namespace spyglass::model
