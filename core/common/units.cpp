#include "core/common/units.h"

#include <cmath>
#include <cstdio>

namespace spyglass {

std::string formatDuration(double ns)
{
    char buf[48];
    const double a = std::fabs(ns);
    if (a >= 1e9)
        std::snprintf(buf, sizeof buf, "%.3f s", ns / 1e9);
    else if (a >= 1e6)
        std::snprintf(buf, sizeof buf, "%.3f ms", ns / 1e6);
    else if (a >= 1e3)
        std::snprintf(buf, sizeof buf, "%.3f \u00b5s", ns / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.0f ns", ns);
    return buf;
}

std::string formatBytes(double b)
{
    char buf[48];
    const double a = std::fabs(b);
    if (a >= double(1ull << 30))
        std::snprintf(buf, sizeof buf, "%.2f GiB", b / double(1ull << 30));
    else if (a >= double(1 << 20))
        std::snprintf(buf, sizeof buf, "%.2f MiB", b / double(1 << 20));
    else if (a >= double(1 << 10))
        std::snprintf(buf, sizeof buf, "%.1f KiB", b / double(1 << 10));
    else
        std::snprintf(buf, sizeof buf, "%.0f B", b);
    return buf;
}

std::string shapeText(const std::vector<int64_t>& shape)
{
    std::string out = "[";
    for (size_t i = 0; i < shape.size(); ++i)
        out += (i ? ", " : "") + std::to_string(shape[i]);
    return out + "]";
}

std::string groupDigits(int64_t n)
{
    const uint64_t magnitude = n < 0 ? uint64_t(0) - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
    const std::string digits = std::to_string(magnitude);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ' ';
        out += digits[i];
    }
    return n < 0 ? "-" + out : out;
}

}  // namespace spyglass
