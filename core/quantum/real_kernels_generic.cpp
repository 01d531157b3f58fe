// Portable build of the real-amplitude VQE loops (SSE2 on x86-64).
#include "core/quantum/real_kernels.h"

#include <cstdint>

namespace spyglass::quantum::realk::generic {
#include "core/quantum/real_kernels_impl.inc"
}
