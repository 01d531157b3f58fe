// Portable build of the gate kernels (SSE2 on x86-64).
#include "core/quantum/kernels.h"

#include <cstdint>
#include <omp.h>

namespace spyglass::quantum::kernels::generic {
#include "core/quantum/kernels_impl.inc"
}
