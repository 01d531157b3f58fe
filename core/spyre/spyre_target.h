#pragma once
// The numbers of a Spyre-class target, read from resources/targets/spyre.json (every number with its source).
// No pass hard-codes a hardware number: they all ask the SpyreTarget they were given.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace spyglass::spyre {

// A sanity bound, not a hardware number: the largest core count a target description may give (the simulator and
// the planners keep per-core state).
constexpr int kMaxTargetCores = 1024;

struct SpyreTarget {
    // Every value is read from the target file (load() requires each key): no default here repeats one.
    std::string name;
    std::string path;   // the file it was read from
    int cores = 0;
    int coreletsPerCore = 0;
    int ptArrayRows = 0;
    int64_t lxBytes = 0;
    int64_t lxProgramReservationBytes = 0;
    double lxBackendReserveFraction = 0;
    int64_t lxAlignmentBytes = 0;
    int stickBytes = 0;
    std::string deviceDtype;
    int deviceDtypeBytes = 0;
    double peakMacPerNsPerCore = 0;
    double sustainedMacPerNsPerCore = 0;
    double ptFullEfficiencyRows = 0;
    double ptEfficiencyExponent = 0;
    double partialSumUsPerOutput = 0;
    double lpddr5PeakGBs = 0;
    double lpddr5EffectiveGBs = 0;
    double lpddr5BalancedGBs = 0;
    double restickifyGBs = 0;
    double rwTurnaroundNsPerByte = 0;
    int64_t dmaMinRunBytes = 0;
    int64_t dmaMaxRunBytes = 0;
    double ringBytesPerCycle = 0;
    int64_t spanBytes = 0;
    int64_t deviceMemoryBytes = 0;
    // Timing model (core/spyre/kernel_timing): vector (SFU) throughput, fixed cost per kernel, and how many pieces
    // an untiled vector kernel's DMA is streamed in against the SFU.
    double sfuOpsPerNsPerCore = 0;
    double kernelOverheadNs = 0;
    int vectorStreamChunks = 0;
    // DMA from mechanism: a fixed cost per request (a request moves one contiguous run, clamped to
    // [dma_min_run_bytes, dma_max_run_bytes]) and the bandwidth one core's DMA engine reaches alone.
    double dmaRequestNs = 0;
    // ... and the fixed time each request holds the shared device-memory side (summed over all cores).
    double dmaDeviceRequestNs = 0;
    double dmaPerCoreGBs = 0;
    // Rate at which one core receives the pieces of an operand its replicas (cores reading the same piece) fetched.
    double replicaDeliveryGBsPerCore = 0;
    // Share of the shared bandwidth a standalone reduction realises with this many cores: (cores, share) pairs,
    // ascending; interpolated in log2(cores).
    std::vector<std::pair<int, double>> reductionBwShareByCores;
    double clockGHz = 0;
    bool clockIsAssumption = true;

    // Elements of the device dtype in one stick (64 for DL16).
    int stickElements() const { return stickBytes / deviceDtypeBytes; }
    // (LX - program reservation) x backend fraction, aligned down to the LX alignment.
    int64_t usableLxBytes() const;
    // reductionBwShareByCores at `cores` (1 when the table is empty).
    double reductionBwShare(int cores) const;

    // Reads a target description; throws InputError naming the file and the missing/bad key.
    static SpyreTarget load(const std::string& path);
    // $SPYGLASS_SPYRE_TARGET, then $SPYGLASS_TARGETS_DIR/spyre.json, then <exe>/../share/spyglass/targets/spyre.json,
    // then the source tree's resources/targets/spyre.json. Empty when none exists.
    static std::string defaultPath();
    static SpyreTarget loadDefault();
    // `path` when given (--target), else loadDefault(): the one way every caller loads a target.
    static SpyreTarget loadOrDefault(const std::optional<std::string>& path);
};

}  // namespace spyglass::spyre
