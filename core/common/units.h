#pragma once
// How Spyglass writes quantities people read: durations, byte sizes, counts. One place, so the Timeline, the
// Scratchpad map, the what-if banner, the status bar and the CLI's messages say the same thing the same way.

#include <cstdint>
#include <string>
#include <vector>

namespace spyglass {

// "812 ns", "23.931 µs", "4.604 ms", "1.250 s" (three decimals above a nanosecond).
std::string formatDuration(double ns);
// "96 B", "12.5 KiB", "1.50 MiB", "7.25 GiB" (binary units, as the scratchpad and the chip's documents use).
std::string formatBytes(double bytes);
// "[128, 768]": a tensor shape, as ONNX, torch and our IR dumps write it.
std::string shapeText(const std::vector<int64_t>& shape);
// "131 072": digits grouped in threes by spaces, for counts in summaries.
std::string groupDigits(int64_t n);

}  // namespace spyglass
