#include "core/model/conv_transpose.h"

namespace spyglass::model {

ConvTransposeGeometry convTransposeGeometry(const Shape& inSpatial, const std::vector<int64_t>& kernel, std::vector<int64_t> strides,
                                            std::vector<int64_t> dilations, std::vector<int64_t> outputPadding, std::vector<int64_t> pads,
                                            const std::string& autoPad, const std::vector<int64_t>& outputShape)
{
    const size_t n = inSpatial.size();
    ConvTransposeGeometry t;
    t.strides = strides.empty() ? std::vector<int64_t>(n, 1) : std::move(strides);
    t.dilations = dilations.empty() ? std::vector<int64_t>(n, 1) : std::move(dilations);
    t.outputPadding = outputPadding.empty() ? std::vector<int64_t>(n, 0) : std::move(outputPadding);
    if (pads.empty())
        pads.assign(2 * n, 0);
    if (t.strides.size() != n || t.dilations.size() != n || t.outputPadding.size() != n || pads.size() != 2 * n || kernel.size() != n ||
        (!outputShape.empty() && outputShape.size() < n)) {
        t.error = "strides, dilations, output_padding, pads, output_shape or the kernel do not match the " + std::to_string(n) +
                  " spatial dimensions";
        return t;
    }
    t.padBegin.assign(n, 0);
    t.padEnd.assign(n, 0);
    t.outSpatial.assign(n, 0);
    const bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
    for (size_t d = 0; d < n; ++d) {
        const int64_t full = t.strides[d] * (inSpatial[d] - 1) + t.outputPadding[d] + (kernel[d] - 1) * t.dilations[d] + 1;
        if (!outputShape.empty() || same) {
            const int64_t out = !outputShape.empty() ? outputShape[outputShape.size() - n + d] : inSpatial[d] * t.strides[d];
            const int64_t total = full - out;
            // A larger output than the full one grows at the end, as output_padding does (ONNX's
            // test_convtranspose_output_shape expects its extra row there).
            t.padBegin[d] = total < 0 ? 0 : autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
            t.padEnd[d] = total - t.padBegin[d];
        } else if (autoPad != "VALID") {
            t.padBegin[d] = pads[d];
            t.padEnd[d] = pads[d + n];
        }
        t.outSpatial[d] = full - t.padBegin[d] - t.padEnd[d];
        if (t.outSpatial[d] < 0) {
            t.error = "the output would have a negative size along spatial dimension " + std::to_string(d);
            return t;
        }
    }
    return t;
}

}  // namespace spyglass::model
