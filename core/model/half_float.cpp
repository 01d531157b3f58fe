#include "core/model/half_float.h"

#include <cmath>
#include <cstring>

namespace spyglass::model {

float halfBitsToFloat(uint16_t h)
{
    const uint32_t sign = (h >> 15) & 1u;
    const uint32_t exp = (h >> 10) & 0x1fu;
    const uint32_t mant = h & 0x3ffu;
    float value;
    if (exp == 0)
        value = std::ldexp(static_cast<float>(mant), -24);   // zero and subnormals
    else if (exp == 31)
        value = mant ? NAN : INFINITY;
    else
        value = std::ldexp(static_cast<float>(mant | 0x400u), static_cast<int>(exp) - 25);
    return sign ? -value : value;
}

uint16_t floatToHalfBits(float f)
{
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
    const uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u)   // inf or nan
        return static_cast<uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u));
    if (absx >= 0x477ff000u)   // rounds to >= 65520: overflow to inf
        return static_cast<uint16_t>(sign | 0x7c00u);
    if (absx < 0x38800000u) {  // below the smallest normal half: subnormal or zero
        // value = absx as float; half subnormal unit is 2^-24.
        float a;
        std::memcpy(&a, &absx, 4);
        const float scaled = a * 16777216.0f;   // a / 2^-24, exact (power of two)
        const float r = std::nearbyint(scaled);  // default rounding mode: nearest even
        return static_cast<uint16_t>(sign | static_cast<uint16_t>(r));
    }
    // Normal: rebias exponent and round the 23-bit mantissa to 10 bits, nearest even.
    uint32_t e = ((absx >> 23) - 127 + 15);
    uint32_t m = absx & 0x7fffffu;
    uint32_t half = (e << 10) | (m >> 13);
    const uint32_t rest = m & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
        ++half;   // may carry into the exponent, which is the right result
    return static_cast<uint16_t>(sign | half);
}

}  // namespace spyglass::model
