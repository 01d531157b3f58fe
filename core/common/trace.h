#pragma once
// A simulator trace: named lanes (one per core and per DMA lane) holding timed events. The Spyre
// simulator fills it; the Timeline panel draws it; writeChromeTrace() exports it for Perfetto.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace spyglass {

struct TraceLane {
    enum class Kind { Core, Dma, Other };
    std::string name;   // "core 0", "dma 3"
    Kind kind = Kind::Core;
};

struct TraceEvent {
    int lane = 0;
    std::string name;       // "compute", "dma_in", "dma_out", "restickify"
    std::string kernel;     // kernel name
    std::string op;         // op (buffer) name inside the kernel
    int tile = -1;          // tile index, -1 when the op is not tiled
    int64_t startNs = 0;
    int64_t endNs = 0;      // exclusive
    int64_t bytes = 0;      // bytes moved (DMA events), 0 otherwise
    int64_t durationNs() const { return endNs - startNs; }
};

struct Trace {
    std::vector<TraceLane> lanes;
    std::vector<TraceEvent> events;

    int addLane(std::string name, TraceLane::Kind kind);
    // Sorts events by (lane, start) — the order the Timeline's binary searches rely on.
    void sort();
    int64_t endNs() const;
    // Index range [first, last) of lane `lane`'s events after sort().
    std::pair<size_t, size_t> laneRange(int lane) const;
};

// Busy time and bytes per lane inside [t0, t1), events clipped to the range.
struct LaneStats {
    int64_t busyNs = 0;
    int64_t bytes = 0;   // bytes of events overlapping the range, pro rata to the overlap
    int events = 0;
};
std::vector<LaneStats> rangeStats(const Trace& trace, int64_t t0, int64_t t1);

// Chrome Trace Event JSON ("X" complete events in microseconds, one tid per lane, lane names as
// thread_name metadata) — opens in Perfetto and chrome://tracing.
void writeChromeTrace(const Trace& trace, std::ostream& out, const std::string& processName = "Spyre simulator");

}  // namespace spyglass
