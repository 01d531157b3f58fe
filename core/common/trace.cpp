#include "core/common/trace.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace spyglass {

int Trace::addLane(std::string name, TraceLane::Kind kind)
{
    lanes.push_back({std::move(name), kind});
    return static_cast<int>(lanes.size()) - 1;
}

void Trace::sort()
{
    std::stable_sort(events.begin(), events.end(), [](const TraceEvent& a, const TraceEvent& b) {
        return a.lane != b.lane ? a.lane < b.lane : a.startNs < b.startNs;
    });
}

int64_t Trace::endNs() const
{
    int64_t end = 0;
    for (const TraceEvent& e : events)
        end = std::max(end, e.endNs);
    return end;
}

std::pair<size_t, size_t> Trace::laneRange(int lane) const
{
    const auto lo = std::lower_bound(events.begin(), events.end(), lane, [](const TraceEvent& e, int l) { return e.lane < l; });
    const auto hi = std::upper_bound(lo, events.end(), lane, [](int l, const TraceEvent& e) { return l < e.lane; });
    return {static_cast<size_t>(lo - events.begin()), static_cast<size_t>(hi - events.begin())};
}

std::vector<LaneStats> rangeStats(const Trace& trace, int64_t t0, int64_t t1)
{
    std::vector<LaneStats> stats(trace.lanes.size());
    if (t1 <= t0)
        return stats;
    for (const TraceEvent& e : trace.events) {
        if (e.lane < 0 || e.lane >= static_cast<int>(stats.size()))
            continue;
        const int64_t a = std::max(e.startNs, t0), b = std::min(e.endNs, t1);
        if (b <= a)
            continue;
        LaneStats& s = stats[static_cast<size_t>(e.lane)];
        s.busyNs += b - a;
        ++s.events;
        if (e.bytes > 0)
            s.bytes += e.durationNs() > 0 ? static_cast<int64_t>(static_cast<double>(e.bytes) * static_cast<double>(b - a) / static_cast<double>(e.durationNs())) : e.bytes;
    }
    return stats;
}

namespace {

void writeJsonString(std::ostream& out, const std::string& s)
{
    out << '"';
    for (const char c : s) {
        switch (c) {
        case '"': out << "\\\""; break;
        case '\\': out << "\\\\"; break;
        case '\n': out << "\\n"; break;
        case '\t': out << "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out << buf;
            } else {
                out << c;
            }
        }
    }
    out << '"';
}

void writeMicros(std::ostream& out, int64_t ns)
{
    // Chrome traces are in microseconds; keep nanosecond precision with three decimals.
    char buf[40];
    std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000), static_cast<long long>(ns % 1000));
    out << buf;
}

}  // namespace

void writeChromeTrace(const Trace& trace, std::ostream& out, const std::string& processName)
{
    out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    out << "{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":";
    writeJsonString(out, processName);
    out << "}}";
    for (size_t i = 0; i < trace.lanes.size(); ++i) {
        out << ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":" << i << ",\"name\":\"thread_name\",\"args\":{\"name\":";
        writeJsonString(out, trace.lanes[i].name);
        out << "}},\n{\"ph\":\"M\",\"pid\":1,\"tid\":" << i << ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":" << i << "}}";
    }
    for (const TraceEvent& e : trace.events) {
        out << ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":" << e.lane << ",\"name\":";
        writeJsonString(out, e.name);
        out << ",\"cat\":";
        writeJsonString(out, e.kernel);
        out << ",\"ts\":";
        writeMicros(out, e.startNs);
        out << ",\"dur\":";
        writeMicros(out, e.durationNs());
        out << ",\"args\":{\"kernel\":";
        writeJsonString(out, e.kernel);
        out << ",\"op\":";
        writeJsonString(out, e.op);
        out << ",\"tile\":" << e.tile << ",\"start_ns\":" << e.startNs << ",\"end_ns\":" << e.endNs;
        if (e.bytes > 0)
            out << ",\"bytes\":" << e.bytes;
        out << "}}";
    }
    out << "\n]}\n";
}

}  // namespace spyglass
