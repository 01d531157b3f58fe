#pragma once
// How much memory this process may still take: what a job checks before allocating a state vector or a host
// tensor, so that too large an input is a message, not minutes of swapping and "out of memory".

#include <cstdint>

namespace spyglass {

// MemAvailable from /proc/meminfo (free memory plus what the kernel can reclaim), else free pages; 0 when unknown.
uint64_t availableMemoryBytes();

}  // namespace spyglass
