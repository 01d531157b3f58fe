#include "core/spyre/spyre_target.h"

#include "core/common/diagnostics.h"
#include "core/common/input_file.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <filesystem>

namespace spyglass::spyre {

namespace {

class TargetReader {
public:
    TargetReader(std::string path, QJsonObject root) : path_(std::move(path)), root_(std::move(root)) {}

    QJsonValue value(const char* key) const
    {
        const QJsonValue entry = root_.value(QString::fromLatin1(key));
        if (!entry.isObject() || !entry.toObject().contains(QStringLiteral("value")))
            throw InputError(SourceLocation{path_, 0, 0},
                             std::string("target description lacks \"") + key + "\": {\"value\": ..., \"source\": ...}");
        return entry.toObject().value(QStringLiteral("value"));
    }
    double number(const char* key, double min) const
    {
        const QJsonValue v = value(key);
        if (!v.isDouble() || v.toDouble() < min)
            throw InputError(SourceLocation{path_, 0, 0},
                             std::string("target key \"") + key + "\" must be a number >= " + std::to_string(min));
        return v.toDouble();
    }
    int64_t integer(const char* key, int64_t min) const
    {
        const double d = number(key, static_cast<double>(min));
        if (d != static_cast<double>(static_cast<int64_t>(d)))
            throw InputError(SourceLocation{path_, 0, 0}, std::string("target key \"") + key + "\" must be an integer");
        return static_cast<int64_t>(d);
    }
    std::string text(const char* key) const
    {
        const QJsonValue v = value(key);
        if (!v.isString())
            throw InputError(SourceLocation{path_, 0, 0}, std::string("target key \"") + key + "\" must be a string");
        return v.toString().toStdString();
    }
    // [[cores, share], ...]: ascending cores >= 1, 0 < share <= 1.
    std::vector<std::pair<int, double>> table(const char* key) const
    {
        const QJsonValue v = value(key);
        auto bad = [&]() {
            return InputError(SourceLocation{path_, 0, 0}, std::string("target key \"") + key +
                                                               "\" must be a list of [cores, share] pairs, cores ascending from 1, 0 < share <= 1");
        };
        if (!v.isArray() || v.toArray().isEmpty())
            throw bad();
        std::vector<std::pair<int, double>> out;
        for (const QJsonValue& e : v.toArray()) {
            const QJsonArray pair = e.toArray();
            if (pair.size() != 2 || !pair[0].isDouble() || !pair[1].isDouble())
                throw bad();
            const double c = pair[0].toDouble(), share = pair[1].toDouble();
            if (c < 1 || c != static_cast<double>(static_cast<int>(c)) || share <= 0 || share > 1 ||
                (!out.empty() && static_cast<int>(c) <= out.back().first))
                throw bad();
            out.emplace_back(static_cast<int>(c), share);
        }
        return out;
    }
    bool assumption(const char* key) const
    {
        return root_.value(QString::fromLatin1(key)).toObject().value(QStringLiteral("assumption")).toBool(false);
    }

private:
    std::string path_;
    QJsonObject root_;
};

}  // namespace

int64_t SpyreTarget::usableLxBytes() const
{
    // torch-spyre's frontend share of LX (scratchpad/allocator.py): the fraction of what Deeptools' tracker can
    // allocate (2 MiB minus the program/debug reservation), truncated to bytes, rounded up to the allocation unit.
    const double usable = static_cast<double>(lxBytes - lxProgramReservationBytes) * lxBackendReserveFraction;
    const int64_t bytes = static_cast<int64_t>(usable);
    return lxAlignmentBytes > 0 ? (bytes + lxAlignmentBytes - 1) / lxAlignmentBytes * lxAlignmentBytes : bytes;
}

double SpyreTarget::reductionBwShare(int c) const
{
    if (reductionBwShareByCores.empty())
        return 1.0;
    const auto& tab = reductionBwShareByCores;
    if (c <= tab.front().first)
        return tab.front().second;
    if (c >= tab.back().first)
        return tab.back().second;
    for (size_t i = 1; i < tab.size(); ++i)
        if (c <= tab[i].first) {
            const double x0 = std::log2(tab[i - 1].first), x1 = std::log2(tab[i].first);
            const double f = (std::log2(c) - x0) / (x1 - x0);
            return tab[i - 1].second + f * (tab[i].second - tab[i - 1].second);
        }
    return tab.back().second;
}

SpyreTarget SpyreTarget::load(const std::string& path)
{
    // A target description is a page of JSON; 1 MiB is far beyond any.
    const std::string text = readInputFile(path, "a target description (JSON)", uint64_t(1) << 20);
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(text), &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        throw InputError(SourceLocation{path, 0, 0},
                         "target description is not a JSON object: " + err.errorString().toStdString() + " at byte " +
                             std::to_string(err.offset));
    const QJsonObject root = doc.object();
    TargetReader r(path, root);
    SpyreTarget t;
    t.path = path;
    t.name = root.value(QStringLiteral("name")).toString(QStringLiteral("spyre")).toStdString();
    t.cores = static_cast<int>(r.integer("cores", 1));
    if (t.cores > kMaxTargetCores)
        throw InputError(SourceLocation{path, 0, 0}, "target key \"cores\" is implausibly large");
    t.coreletsPerCore = static_cast<int>(r.integer("corelets_per_core", 1));
    t.ptArrayRows = static_cast<int>(r.integer("pt_array_rows", 1));
    t.lxBytes = r.integer("lx_bytes", 1024);
    t.lxProgramReservationBytes = r.integer("lx_program_reservation_bytes", 0);
    t.lxBackendReserveFraction = r.number("lx_backend_reserve_fraction", 0.0);
    t.lxAlignmentBytes = r.integer("lx_alignment_bytes", 1);
    t.stickBytes = static_cast<int>(r.integer("stick_bytes", 2));
    t.deviceDtype = r.text("device_dtype");
    t.deviceDtypeBytes = static_cast<int>(r.integer("device_dtype_bytes", 1));
    t.peakMacPerNsPerCore = r.number("peak_mac_per_ns_per_core", 1e-9);
    t.sustainedMacPerNsPerCore = r.number("sustained_mac_per_ns_per_core", 1e-9);
    t.ptFullEfficiencyRows = r.number("pt_full_efficiency_rows", 1);
    t.ptEfficiencyExponent = r.number("pt_efficiency_exponent", 0);
    t.partialSumUsPerOutput = r.number("partial_sum_us_per_output", 0);
    t.lpddr5PeakGBs = r.number("lpddr5_peak_gbs", 1e-9);
    t.lpddr5EffectiveGBs = r.number("lpddr5_effective_gbs", 1e-9);
    t.lpddr5BalancedGBs = r.number("lpddr5_balanced_gbs", 1e-9);
    t.restickifyGBs = r.number("restickify_gbs", 1e-9);
    t.rwTurnaroundNsPerByte = r.number("rw_turnaround_ns_per_byte", 0);
    t.dmaMinRunBytes = r.integer("dma_min_run_bytes", 1);
    t.dmaMaxRunBytes = r.integer("dma_max_run_bytes", 1);
    t.ringBytesPerCycle = r.number("ring_bytes_per_cycle", 0);
    t.spanBytes = r.integer("span_bytes", 1);
    t.deviceMemoryBytes = r.integer("device_memory_bytes", 1);
    t.sfuOpsPerNsPerCore = r.number("sfu_ops_per_ns_per_core", 1e-9);
    t.kernelOverheadNs = r.number("kernel_overhead_ns", 0);
    t.vectorStreamChunks = static_cast<int>(r.integer("vector_stream_chunks", 1));
    t.dmaRequestNs = r.number("dma_request_ns", 0);
    t.dmaDeviceRequestNs = r.number("dma_device_request_ns", 0);
    t.dmaPerCoreGBs = r.number("dma_per_core_gbs", 1e-9);
    t.replicaDeliveryGBsPerCore = r.number("replica_delivery_gbs_per_core", 1e-9);
    t.reductionBwShareByCores = r.table("reduction_bw_share_by_cores");
    t.clockGHz = r.number("clock_ghz", 1e-6);
    t.clockIsAssumption = r.assumption("clock_ghz");
    if (t.stickBytes % t.deviceDtypeBytes != 0)
        throw InputError(SourceLocation{path, 0, 0}, "stick_bytes must be a multiple of device_dtype_bytes");
    if (t.lxProgramReservationBytes >= t.lxBytes || t.lxBackendReserveFraction <= 0 || t.lxBackendReserveFraction > 1)
        throw InputError(SourceLocation{path, 0, 0},
                         "usable LX is empty: need lx_program_reservation_bytes < lx_bytes and 0 < lx_backend_reserve_fraction <= 1");
    return t;
}

std::string SpyreTarget::defaultPath()
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (const char* env = std::getenv("SPYGLASS_SPYRE_TARGET"); env && *env)
        return env;
    if (const char* dir = std::getenv("SPYGLASS_TARGETS_DIR"); dir && *dir) {
        const fs::path p = fs::path(dir) / "spyre.json";
        if (fs::exists(p, ec))
            return p.string();
    }
    std::string exeDir;
    if (QCoreApplication::instance())
        exeDir = QCoreApplication::applicationDirPath().toStdString();
    else if (fs::path self = fs::read_symlink("/proc/self/exe", ec); !ec)
        exeDir = self.parent_path().string();
    if (!exeDir.empty()) {
        const fs::path p = fs::path(exeDir) / ".." / "share" / "spyglass" / "targets" / "spyre.json";
        if (fs::exists(p, ec))
            return fs::weakly_canonical(p, ec).string();
    }
    const fs::path src = fs::path(SPYGLASS_RESOURCE_DIR) / "targets" / "spyre.json";
    if (fs::exists(src, ec))
        return src.string();
    return {};
}

SpyreTarget SpyreTarget::loadDefault()
{
    const std::string p = defaultPath();
    if (p.empty())
        throw InputError(SourceLocation{"spyre.json", 0, 0},
                         "no Spyre target description found (set SPYGLASS_SPYRE_TARGET or install share/spyglass/targets)");
    return load(p);
}

SpyreTarget SpyreTarget::loadOrDefault(const std::optional<std::string>& path) { return path ? load(*path) : loadDefault(); }

}  // namespace spyglass::spyre
