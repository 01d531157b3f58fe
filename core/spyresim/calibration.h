#pragma once
// The calibration suite of published torch-spyre kernel times (tests/data/spyre_calibration/cases.json): each case's
// set-up (shape, layout, split, cores, scratchpad policy) compiled with Spyglass's own builders and pipeline and
// simulated with timing only, against the published time. Used by tst_spyre_calibration and bench_spyre_sim
// --calibration, so both report the same numbers.
#include "core/spyre/spyre_target.h"

#include <string>
#include <vector>

namespace spyglass::spyresim {

struct CalibrationCase {
    std::string id, group, pair, source, set, kind;   // kind: matmul, matmul_speedup, softmax, rmsnorm
    double published = 0;    // microseconds, or the speedup for matmul_speedup
    double simulated = 0;    // same unit
    std::string plan;        // the simulated plan, e.g. "p0:2 p1:16, batch_outermost"
    double error() const { return simulated / published; }   // > 1: the model is slower than the chip
};

// Simulated time of a @ w (w a constant) under the baseline plan (torch-spyre's default order and division) or
// Spyglass's optimized plan, greedy scratchpad planning, timing only.
double simulatedMatmulUs(const std::vector<int64_t>& a, const std::vector<int64_t>& w, const spyre::SpyreTarget& target, bool baseline);

// Reads the suite and simulates every case on `target` (its core count replaced by each case's). Throws InputError
// naming the file and case on a malformed entry.
std::vector<CalibrationCase> runCalibration(const std::string& path, const spyre::SpyreTarget& target);

}  // namespace spyglass::spyresim
