#pragma once
// The simulator's timing model lives with the compiler (core/spyre/kernel_timing.h), so that work division ranks
// matmul splits with the very model the simulator reports; the simulator's names for it.
#include "core/spyre/kernel_timing.h"

namespace spyglass::spyresim {

using spyre::CoreTime;
using spyre::KernelTime;
using spyre::timeKernel;

}  // namespace spyglass::spyresim
