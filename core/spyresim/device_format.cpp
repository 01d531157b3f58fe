#include "core/spyresim/device_format.h"

#include "core/model/half_float.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

namespace spyglass::spyresim {

namespace {

constexpr int kDl16Bias = 31;
constexpr int kDl16FractionBits = 9;
constexpr uint16_t kDl16NaN = 0x7FFF;              // exponent 63, fraction 511: the one NaN encoding
constexpr uint16_t kDl16MaxFinite = 0x7FFE;        // exponent 63, fraction 510

uint32_t floatBits(float x)
{
    uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}

}  // namespace

const char* deviceFormatName(DeviceFormat f) { return f == DeviceFormat::Dl16 ? "dl16" : "fp16"; }

DeviceFormat parseDeviceFormat(const std::string& name)
{
    std::string n;
    for (char c : name)
        n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (n == "fp16" || n == "float16")
        return DeviceFormat::Fp16;
    if (n == "dl16" || n == "dlfloat16")
        return DeviceFormat::Dl16;
    throw std::invalid_argument("unknown device number format '" + name + "' (fp16 or dl16)");
}

uint16_t encodeDl16(float x)
{
    if (std::isnan(x))
        return kDl16NaN;
    const uint32_t u = floatBits(x);
    const uint16_t sign = static_cast<uint16_t>((u >> 31) << 15);
    const int exp32 = static_cast<int>((u >> 23) & 0xFF);
    if (exp32 == 0xFF)   // infinity saturates: DL16 has no infinity
        return sign | kDl16MaxFinite;
    if (exp32 == 0)      // fp32 zero or subnormal: far below DL16's smallest normal
        return sign;
    // Round the 23-bit fraction to 9 bits, nearest even; a carry into the exponent is handled by the addition.
    uint32_t mant = (u & 0x7FFFFF) | 0x800000;   // with the hidden bit
    const int shift = 23 - kDl16FractionBits;
    const uint32_t half = 1u << (shift - 1);
    const uint32_t rest = mant & ((1u << shift) - 1);
    mant >>= shift;
    if (rest > half || (rest == half && (mant & 1)))
        ++mant;
    int exp = exp32 - 127 + kDl16Bias;
    if (mant >> (kDl16FractionBits + 1)) {   // rounding overflowed into a new bit
        mant >>= 1;
        ++exp;
    }
    if (exp < 0)   // below the smallest normal (no subnormals): flush to zero
        return sign;
    const uint16_t bits = static_cast<uint16_t>((exp << kDl16FractionBits) | (mant & 0x1FF));
    if (exp > 63 || bits >= kDl16NaN)
        return sign | kDl16MaxFinite;
    return sign | bits;
}

float decodeDl16(uint16_t bits)
{
    if ((bits & 0x7FFF) == kDl16NaN)
        return std::numeric_limits<float>::quiet_NaN();
    const int exp = (bits >> kDl16FractionBits) & 0x3F;
    const int frac = bits & 0x1FF;
    if (exp == 0 && frac == 0)
        return (bits & 0x8000) ? -0.0f : 0.0f;
    const float v = std::ldexp(1.0f + static_cast<float>(frac) / 512.0f, exp - kDl16Bias);
    return (bits & 0x8000) ? -v : v;
}

const float* decodeTable(DeviceFormat f)
{
    static const std::vector<float> fp16 = [] {
        std::vector<float> t(65536);
        for (uint32_t b = 0; b < 65536; ++b)
            t[b] = model::halfBitsToFloat(static_cast<uint16_t>(b));
        return t;
    }();
    static const std::vector<float> dl16 = [] {
        std::vector<float> t(65536);
        for (uint32_t b = 0; b < 65536; ++b)
            t[b] = decodeDl16(static_cast<uint16_t>(b));
        return t;
    }();
    return f == DeviceFormat::Dl16 ? dl16.data() : fp16.data();
}

void decodeRun(DeviceFormat f, const uint16_t* words, int64_t n, float* out)
{
    const float* table = decodeTable(f);
    if (f != DeviceFormat::Fp16) {
        for (int64_t e = 0; e < n; ++e)
            out[e] = table[words[e]];
        return;
    }
    uint32_t rare = 0;   // an integer, not a bool: GCC vectorises an OR reduction of integers only
    for (int64_t e = 0; e < n; ++e) {
        const uint32_t h = words[e];
        const uint32_t magnitude = h & 0x7fffu, exponent = h & 0x7c00u;
        rare |= static_cast<uint32_t>((exponent == 0) & (magnitude != 0)) | static_cast<uint32_t>(exponent == 0x7c00u);
        // Exponent bias 15 -> 127: (127 - 15) << 23 = 0x38000000; the 10 fraction bits move to the top of 23.
        const uint32_t bits = ((h & 0x8000u) << 16) | (magnitude ? (magnitude << 13) + 0x38000000u : 0u);
        std::memcpy(out + e, &bits, sizeof bits);
    }
    if (rare)
        for (int64_t e = 0; e < n; ++e)
            if ((words[e] & 0x7c00u) == 0 || (words[e] & 0x7c00u) == 0x7c00u)
                out[e] = table[words[e]];
}

uint16_t encode(DeviceFormat f, float x) { return f == DeviceFormat::Dl16 ? encodeDl16(x) : model::floatToHalfBits(x); }

namespace {
// fp16 normal numbers are fp32 magnitudes in [2^-14, 65520): below, subnormal or zero; above, inf or NaN.
inline uint32_t outsideFp16Normals(uint32_t magnitude)
{
    return static_cast<uint32_t>(magnitude < 0x38800000u) | static_cast<uint32_t>(magnitude >= 0x477ff000u);
}
}  // namespace

void encodeRun(DeviceFormat f, const float* values, int64_t n, uint16_t* words)
{
    if (f != DeviceFormat::Fp16) {
        for (int64_t e = 0; e < n; ++e)
            words[e] = encodeDl16(values[e]);
        return;
    }
    uint32_t rare = 0;   // integers and bitwise operators throughout, so that GCC vectorises the loop
    for (int64_t e = 0; e < n; ++e) {
        uint32_t x;
        std::memcpy(&x, values + e, sizeof x);
        const uint32_t magnitude = x & 0x7fffffffu;
        rare |= outsideFp16Normals(magnitude);
        // Exponent bias 127 -> 15, fraction 23 -> 10 bits, rounded to nearest even (a carry into the exponent is
        // the right result).
        const uint32_t truncated = (magnitude - 0x38000000u) >> 13, rest = magnitude & 0x1fffu;
        const uint32_t roundUp = static_cast<uint32_t>(rest > 0x1000u) | (static_cast<uint32_t>(rest == 0x1000u) & truncated);
        words[e] = static_cast<uint16_t>(((x >> 16) & 0x8000u) | (truncated + (roundUp & 1u)));
    }
    if (rare)
        for (int64_t e = 0; e < n; ++e) {
            uint32_t x;
            std::memcpy(&x, values + e, sizeof x);
            if (outsideFp16Normals(x & 0x7fffffffu))
                words[e] = model::floatToHalfBits(values[e]);
        }
}

}  // namespace spyglass::spyresim
