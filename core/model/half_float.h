#pragma once
// IEEE 754 binary16 <-> binary32 conversion (round to nearest even), for fp16 tensors in ONNX files
// and for Cast to float16 in the reference interpreter.

#include <cstdint>

namespace spyglass::model {

float halfBitsToFloat(uint16_t h);
uint16_t floatToHalfBits(float f);
// The float nearest to f that fp16 can represent (what a round trip through fp16 gives).
inline float roundToHalf(float f) { return halfBitsToFloat(floatToHalfBits(f)); }

}  // namespace spyglass::model
