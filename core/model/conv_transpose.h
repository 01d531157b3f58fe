#pragma once
// The one definition of ConvTranspose's geometry (ONNX's formulas): output size and the pads, explicit or derived
// from output_shape / auto_pad. Used by the reference interpreter and by the Spyre compiler's decomposition.

#include "core/model/model_graph.h"

#include <string>
#include <vector>

namespace spyglass::model {

struct ConvTransposeGeometry {
    std::vector<int64_t> strides, dilations, outputPadding, padBegin, padEnd;
    Shape outSpatial;
    std::string error;   // non-empty: the attributes do not fit the input
};

// Empty vectors take ONNX's defaults (strides and dilations 1, output_padding and pads 0). With output_shape (its last
// spatial entries) or SAME_* auto_pad the total padding is full size - output size, split as the spec says: SAME_UPPER
// puts the smaller half first, anything else the larger half; an output larger than the full size grows at the end.
ConvTransposeGeometry convTransposeGeometry(const Shape& inSpatial, const std::vector<int64_t>& kernel, std::vector<int64_t> strides,
                                            std::vector<int64_t> dilations, std::vector<int64_t> outputPadding, std::vector<int64_t> pads,
                                            const std::string& autoPad, const std::vector<int64_t>& outputShape);

}  // namespace spyglass::model
