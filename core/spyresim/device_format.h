#pragma once
// The 16-bit formats a Spyre core computes on. Host fp32/fp16 data is converted to the device format when it is
// written to device memory and back when it is read; compute happens in fp32 registers (fp32 accumulation).
//
// fp16: IEEE 754 binary16 (what torch-spyre hands the card for torch.float16 in this model).
// DL16: IBM DLFloat16 (1 sign, 6 exponent, 9 fraction bits, bias 31; no subnormals, no infinities: values beyond
//       the largest finite saturate, and one encoding is NaN), per Agrawal et al., "DLFloat: A 16-b Floating Point
//       format designed for Deep Learning Training and Inference", ARITH 2019.
#include <cstdint>
#include <string>

namespace spyglass::spyresim {

enum class DeviceFormat { Fp16, Dl16 };

const char* deviceFormatName(DeviceFormat f);
// "fp16" or "dl16" (case-insensitive); throws UsageError-free std::invalid_argument on anything else.
DeviceFormat parseDeviceFormat(const std::string& name);

uint16_t encodeDl16(float x);
float decodeDl16(uint16_t bits);

// Table-driven decode (65 536 entries per format, built once): the simulator's inner loops call this.
const float* decodeTable(DeviceFormat f);
uint16_t encode(DeviceFormat f, float x);
inline float decode(const float* table, uint16_t bits) { return table[bits]; }
// n consecutive device words, exactly as the table decodes them. fp16 normal numbers and zeros are rebiased into
// fp32 bits in registers (the compiler vectorises it; a 256 KB table lookup per element misses L1 and was most of
// unpacking a matmul operand); subnormals, infinities and NaNs, and every DL16 word, go through the table.
void decodeRun(DeviceFormat f, const uint16_t* words, int64_t n, float* out);
// n consecutive values into device words, exactly as `encode` writes them: fp16 normal numbers are rebiased and
// rounded in registers (vectorised), zeros, subnormals, overflows and NaNs go through `encode`'s own conversion.
void encodeRun(DeviceFormat f, const float* values, int64_t n, uint16_t* words);

}  // namespace spyglass::spyresim
