#include "views/timelinepanel.h"

#include "core/common/units.h"

#include "views/document.h"
#include "views/spyregraph.h"

#include "core/spyre/loop_ir.h"

#include "core/spyresim/spyre_simulator.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

namespace spyglass {

namespace {

constexpr float kGutter = 96.0f;     // lane names
constexpr float kRulerHeight = 24.0f;
constexpr float kLaneHeight = 20.0f;
constexpr float kLaneGap = 3.0f;
constexpr float kStatsHeight = 120.0f;   // with a selection: its per-lane table
constexpr float kScrollbarWidth = 14.0f;

ImU32 colourFor(const std::string& name)
{
    if (name == "compute") return IM_COL32(76, 154, 255, 255);
    if (name == "dma_in") return IM_COL32(76, 200, 120, 255);
    if (name == "dma_out") return IM_COL32(240, 170, 60, 255);
    if (name == "restickify") return IM_COL32(230, 80, 70, 255);
    if (name == "kernel") return IM_COL32(170, 140, 230, 255);
    if (name == "partial_sum") return IM_COL32(90, 200, 210, 255);
    // Anything else: a stable colour from the name.
    const unsigned h = static_cast<unsigned>(std::hash<std::string>{}(name));
    return IM_COL32(100 + h % 120, 100 + (h / 7) % 120, 100 + (h / 49) % 120, 255);
}

}  // namespace

void TimelinePanel::setTrace(std::shared_ptr<const Trace> trace)
{
    trace_ = std::move(trace);
    laneRanges_.clear();
    if (trace_)
        for (int l = 0; l < static_cast<int>(trace_->lanes.size()); ++l)
            laneRanges_.push_back(trace_->laneRange(l));
    traceEndNs_ = trace_ ? trace_->endNs() : 0;
    selStart_ = selEnd_ = 0;
    statsFor0_ = statsFor1_ = -1;
    firstLane_ = 0;
    fit();
}

QString TimelinePanel::placeholderText() const
{
    return QStringLiteral("The Timeline draws the simulator trace with OpenGL.");
}

void TimelinePanel::setView(double start, double end)
{
    if (end - start < 1.0)
        end = start + 1.0;   // never zoom below a nanosecond across the whole width
    viewStart_ = start;
    viewEnd_ = end;
}

void TimelinePanel::fit()
{
    const double end = static_cast<double>(std::max<int64_t>(traceEndNs_, 1));
    setView(0, end * 1.02);
}

void TimelinePanel::setSelection(int64_t t0, int64_t t1)
{
    selStart_ = std::min(t0, t1);
    selEnd_ = std::max(t0, t1);
}

const std::vector<LaneStats>& TimelinePanel::selectionStats()
{
    if (trace_ && (statsFor0_ != selStart_ || statsFor1_ != selEnd_)) {
        selStats_ = rangeStats(*trace_, selStart_, selEnd_);
        statsFor0_ = selStart_;
        statsFor1_ = selEnd_;
    }
    return selStats_;
}

void TimelinePanel::handleInput(float x0, float x1)
{
    const ImGuiIO& io = ImGui::GetIO();
    const double width = std::max(1.0f, x1 - x0);
    const double nsPerPx = (viewEnd_ - viewStart_) / width;
    const double mouseNs = viewStart_ + (io.MousePos.x - x0) * nsPerPx;

    if (ImGui::IsItemHovered() && io.MouseWheel != 0.0f && !io.KeyCtrl) {   // Ctrl+wheel scrolls the lanes
        const double factor = std::pow(0.8, io.MouseWheel);
        setView(mouseNs - (mouseNs - viewStart_) * factor, mouseNs + (viewEnd_ - mouseNs) * factor);
    }
    if (ImGui::IsItemHovered() && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left))
        fit();

    const bool selectGesture = (ImGui::IsItemActive() && io.KeyShift) || ImGui::IsMouseDown(ImGuiMouseButton_Right);
    if (ImGui::IsItemHovered() && (ImGui::IsMouseClicked(ImGuiMouseButton_Right) || (ImGui::IsMouseClicked(ImGuiMouseButton_Left) && io.KeyShift))) {
        selecting_ = true;
        selAnchor_ = static_cast<int64_t>(mouseNs);
    }
    if (selecting_) {
        if (selectGesture)
            setSelection(selAnchor_, static_cast<int64_t>(mouseNs));
        else
            selecting_ = false;
    } else if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0.0f)) {
        const double shift = -io.MouseDelta.x * nsPerPx;
        setView(viewStart_ + shift, viewEnd_ + shift);
    }
}

void TimelinePanel::drawRuler(float x0, float x1, float y)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const double span = viewEnd_ - viewStart_;
    // A tick step of 1, 2 or 5 times a power of ten giving about 100 px between labels.
    const double target = span * 100.0 / std::max(1.0f, x1 - x0);
    double step = std::pow(10.0, std::floor(std::log10(target)));
    if (target / step > 5) step *= 5;
    else if (target / step > 2) step *= 2;
    dl->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y + kRulerHeight), IM_COL32(40, 42, 48, 255));
    for (double t = std::ceil(viewStart_ / step) * step; t <= viewEnd_; t += step) {
        const float x = x0 + static_cast<float>((t - viewStart_) / span) * (x1 - x0);
        dl->AddLine(ImVec2(x, y + kRulerHeight - 6), ImVec2(x, y + kRulerHeight), IM_COL32(200, 200, 200, 255));
        dl->AddText(ImVec2(x + 2, y + 3), IM_COL32(210, 210, 210, 255), formatDuration(t).c_str());
    }
}

void TimelinePanel::draw()
{
    const auto t0 = std::chrono::steady_clock::now();
    struct RecordTime {
        std::chrono::steady_clock::time_point t0;
        double& out;
        ~RecordTime() { out = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); }
    } recordTime{t0, drawMs_};
    drawnEvents_ = mergedSpans_ = 0;
    if (!ImGuiHost::beginFullWindow("timeline")) {
        ImGui::End();
        return;
    }
    if (!trace_ || trace_->events.empty()) {
        ImGui::TextDisabled("No trace yet: open a model; its kernel bundle runs on the Spyre simulator after the compile.");
        ImGui::End();
        return;
    }
    if (!header_.empty())
        ImGui::TextUnformatted(header_.c_str());
    // The colour legend, in the colours the lanes use.
    for (const char* name : {"kernel", "compute", "dma_in", "dma_out", "restickify", "partial_sum"}) {
        const ImVec2 at = ImGui::GetCursorScreenPos();
        const float h = ImGui::GetTextLineHeight();
        ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(at.x, at.y + 2), ImVec2(at.x + h, at.y + h - 2), colourFor(name));
        ImGui::Dummy(ImVec2(h + 2, h));
        ImGui::SameLine();
        ImGui::TextUnformatted(name);
        ImGui::SameLine(0, 14);
    }
    if (selectedKernel_.empty())
        ImGui::TextDisabled("click a kernel to select its op");
    else
        ImGui::TextDisabled("selected: %s (outlined)", selectedKernel_.c_str());
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    // Docked, the panel may be a few hundred pixels tall: the statistics table takes room only when there is a
    // selection to report, otherwise three lines of hints.
    const float statsHeight = hasSelection() ? kStatsHeight : 3 * ImGui::GetTextLineHeightWithSpacing() + 8;
    const float lanesHeight = std::max(kLaneHeight + kLaneGap, avail.y - kRulerHeight - statsHeight);
    // A model on every core has 60+ lanes: the wheel over the lane names (or Ctrl+wheel anywhere) scrolls them, and
    // a scroll bar at the right says where the shown ones are and can be dragged.
    const int visibleLanes = std::max(1, static_cast<int>((lanesHeight + kLaneGap) / (kLaneHeight + kLaneGap)));
    const bool scrolls = static_cast<int>(laneRanges_.size()) > visibleLanes;
    const float x0 = origin.x + kGutter, x1 = origin.x + avail.x - (scrolls ? kScrollbarWidth : 0.0f);

    // One invisible item covers ruler and lanes so ImGui tracks hover/drag for the whole area.
    ImGui::SetCursorScreenPos(ImVec2(x0, origin.y));
    ImGui::InvisibleButton("##timeline-area", ImVec2(std::max(1.0f, x1 - x0), kRulerHeight + lanesHeight),
                           ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
    handleInput(x0, x1);
    drawRuler(x0, x1, origin.y);

    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImGuiIO& io = ImGui::GetIO();
    const bool overLanes = io.MousePos.y >= origin.y + kRulerHeight && io.MousePos.y < origin.y + kRulerHeight + lanesHeight;
    if (io.MouseWheel != 0.0f && ImGui::IsWindowHovered() && overLanes && (io.KeyCtrl || io.MousePos.x < x0))
        firstLane_ -= static_cast<int>(std::lround(io.MouseWheel * 3));
    firstLane_ = std::clamp(firstLane_, 0, std::max(0, static_cast<int>(laneRanges_.size()) - visibleLanes));
    const double span = viewEnd_ - viewStart_;
    const double pxPerNs = (x1 - x0) / span;
    const float top = origin.y + kRulerHeight;
    dl->PushClipRect(ImVec2(origin.x, top), ImVec2(x1, top + lanesHeight), true);

    const TraceEvent* hovered = nullptr;
    int hoveredMerged = 0;
    const auto& events = trace_->events;
    for (size_t lane = static_cast<size_t>(firstLane_); lane < laneRanges_.size(); ++lane) {
        const float ly = top + static_cast<float>(lane - static_cast<size_t>(firstLane_)) * (kLaneHeight + kLaneGap);
        if (ly > top + lanesHeight)
            break;
        dl->AddText(ImVec2(origin.x + 4, ly + 3), IM_COL32(220, 220, 220, 255), trace_->lanes[lane].name.c_str());
        dl->AddRectFilled(ImVec2(x0, ly), ImVec2(x1, ly + kLaneHeight), IM_COL32(32, 34, 38, 255));
        auto [lo, hi] = laneRanges_[lane];
        // First event that may be visible: the last one starting at or before the view start.
        size_t i = static_cast<size_t>(std::upper_bound(events.begin() + static_cast<long>(lo), events.begin() + static_cast<long>(hi),
                                                        viewStart_, [](double t, const TraceEvent& e) { return t < static_cast<double>(e.startNs); })
                                       - events.begin());
        if (i > lo)
            --i;
        float pendingX0 = -1, pendingX1 = -1;
        auto flushPending = [&] {
            if (pendingX1 >= 0)
                dl->AddRectFilled(ImVec2(pendingX0, ly + 1), ImVec2(pendingX1, ly + kLaneHeight - 1), IM_COL32(150, 150, 160, 255));
            pendingX0 = pendingX1 = -1;
        };
        while (i < hi && static_cast<double>(events[i].startNs) < viewEnd_) {
            const TraceEvent& e = events[i];
            const float ex0 = x0 + static_cast<float>((static_cast<double>(e.startNs) - viewStart_) * pxPerNs);
            float ex1 = x0 + static_cast<float>((static_cast<double>(e.endNs) - viewStart_) * pxPerNs);
            if (ex1 < x0) {
                ++i;
                continue;
            }
            if (ex1 - ex0 >= 1.5f) {
                flushPending();
                ex1 = std::max(ex1, ex0 + 1.0f);
                dl->AddRectFilled(ImVec2(ex0, ly + 1), ImVec2(ex1, ly + kLaneHeight - 1), colourFor(e.name));
                if (ex1 - ex0 > 4.0f)   // adjacent events of one colour (kernel after kernel) stay apart
                    dl->AddRect(ImVec2(ex0, ly + 1), ImVec2(ex1, ly + kLaneHeight - 1), IM_COL32(20, 20, 24, 200));
                if (!selectedKernel_.empty() && e.kernel == selectedKernel_)
                    dl->AddRect(ImVec2(ex0, ly), ImVec2(ex1, ly + kLaneHeight), IM_COL32(255, 240, 60, 255), 0.0f, 0, 2.5f);
                if (ex1 - ex0 > 40.0f) {
                    dl->PushClipRect(ImVec2(std::max(ex0, x0), ly), ImVec2(std::min(ex1, x1), ly + kLaneHeight), true);
                    const std::string label = e.name == "kernel" ? e.kernel + " " + e.op : e.op.empty() ? e.name : e.op;
                    dl->AddText(ImVec2(std::max(ex0, x0) + 3, ly + 3), IM_COL32(10, 10, 10, 255), label.c_str());
                    dl->PopClipRect();
                }
                if (io.MousePos.y >= ly && io.MousePos.y < ly + kLaneHeight && io.MousePos.x >= ex0 && io.MousePos.x < ex1) {
                    hovered = &e;
                    hoveredMerged = 0;
                }
                ++drawnEvents_;
                ++i;
                continue;
            }
            // Level of detail: everything that starts within the next two pixels becomes one span.
            const double limitNs = viewStart_ + (ex0 + 2.0f - x0) / pxPerNs;
            const size_t j = static_cast<size_t>(std::upper_bound(events.begin() + static_cast<long>(i), events.begin() + static_cast<long>(hi), limitNs,
                                                                  [](double t, const TraceEvent& ev) { return t < static_cast<double>(ev.startNs); })
                                                 - events.begin());
            const size_t last = std::max(j, i + 1) - 1;
            const float sx1 = std::max(ex0 + 1.0f, x0 + static_cast<float>((static_cast<double>(events[last].endNs) - viewStart_) * pxPerNs));
            // Touching merged spans become one rectangle: a dense lane is a few bars, not a bar per pixel.
            if (pendingX1 >= 0 && ex0 <= pendingX1 + 1.0f) {
                pendingX1 = std::max(pendingX1, sx1);
            } else {
                flushPending();
                pendingX0 = ex0;
                pendingX1 = sx1;
            }
            if (io.MousePos.y >= ly && io.MousePos.y < ly + kLaneHeight && io.MousePos.x >= ex0 && io.MousePos.x < sx1) {
                hovered = &e;
                hoveredMerged = static_cast<int>(last - i + 1);
            }
            ++mergedSpans_;
            i = last + 1;
        }
        flushPending();
    }
    if (hasSelection()) {
        const float sx0 = x0 + static_cast<float>((static_cast<double>(selStart_) - viewStart_) * pxPerNs);
        const float sx1 = x0 + static_cast<float>((static_cast<double>(selEnd_) - viewStart_) * pxPerNs);
        dl->AddRectFilled(ImVec2(sx0, top), ImVec2(sx1, top + lanesHeight), IM_COL32(255, 255, 255, 40));
        dl->AddLine(ImVec2(sx0, top), ImVec2(sx0, top + lanesHeight), IM_COL32(255, 255, 255, 160));
        dl->AddLine(ImVec2(sx1, top), ImVec2(sx1, top + lanesHeight), IM_COL32(255, 255, 255, 160));
    }
    dl->PopClipRect();

    // A click (press and release without dragging) on one event selects its kernel's op.
    if (hovered && hoveredMerged <= 1 && ImGui::IsItemHovered() && ImGui::IsMouseReleased(ImGuiMouseButton_Left) && !io.KeyShift &&
        io.MouseDragMaxDistanceSqr[ImGuiMouseButton_Left] < 16.0f && !hovered->kernel.empty()) {
        selectedKernel_ = hovered->kernel;
        if (kernelClicked_)
            kernelClicked_(hovered->kernel);
    }
    if (hovered && ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        if (hoveredMerged > 1) {
            ImGui::Text("%d events merged at this zoom", hoveredMerged);
            ImGui::TextDisabled("zoom in (mouse wheel) to see them one by one");
        } else {
            ImGui::Text("%s  %s", hovered->name.c_str(), hovered->op.c_str());
            ImGui::Text("kernel %s%s", hovered->kernel.c_str(), hovered->tile >= 0 ? (", tile " + std::to_string(hovered->tile)).c_str() : "");
            ImGui::Text("start %s, duration %s", formatDuration(static_cast<double>(hovered->startNs)).c_str(),
                        formatDuration(static_cast<double>(hovered->durationNs())).c_str());
            if (hovered->bytes > 0)
                ImGui::Text("%s moved", formatBytes(static_cast<double>(hovered->bytes)).c_str());
        }
        ImGui::EndTooltip();
    }

    visibleLanes_ = visibleLanes;
    lanesTop_ = top;
    lanesBottom_ = top + lanesHeight;
    scrollbarLeft_ = scrolls ? x1 : -1.0f;
    if (scrolls) {
        // Pressing or dragging on the bar centres the shown lanes on the pointer.
        const float n = static_cast<float>(laneRanges_.size());
        ImGui::SetCursorScreenPos(ImVec2(x1, top));
        ImGui::InvisibleButton("##lane-scroll", ImVec2(kScrollbarWidth, lanesHeight));
        if (ImGui::IsItemActive()) {
            const float at = (io.MousePos.y - top) / lanesHeight * n;
            firstLane_ = std::clamp(static_cast<int>(std::lround(at - static_cast<float>(visibleLanes) / 2)), 0,
                                    static_cast<int>(laneRanges_.size()) - visibleLanes);
        }
        const float t0 = top + lanesHeight * static_cast<float>(firstLane_) / n;
        const float t1 = top + lanesHeight * static_cast<float>(std::min<int>(firstLane_ + visibleLanes, static_cast<int>(n))) / n;
        dl->AddRectFilled(ImVec2(x1 + 2, top), ImVec2(x1 + kScrollbarWidth, top + lanesHeight), IM_COL32(45, 47, 52, 255));
        dl->AddRectFilled(ImVec2(x1 + 4, t0), ImVec2(x1 + kScrollbarWidth - 2, std::max(t1, t0 + 8)),
                          ImGui::IsItemActive() || ImGui::IsItemHovered() ? IM_COL32(170, 175, 185, 255) : IM_COL32(120, 125, 135, 255), 3.0f);
    }

    // Range statistics.
    ImGui::SetCursorScreenPos(ImVec2(origin.x, top + lanesHeight + 4));
    ImGui::BeginChild("##stats", ImVec2(avail.x, statsHeight - 8), false);
    if (hasSelection()) {
        const auto& stats = selectionStats();
        const double len = static_cast<double>(selEnd_ - selStart_);
        ImGui::Text("Selection %s .. %s (%s)", formatDuration(static_cast<double>(selStart_)).c_str(),
                    formatDuration(static_cast<double>(selEnd_)).c_str(), formatDuration(len).c_str());
        if (ImGui::BeginTable("##laneStats", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV)) {
            ImGui::TableSetupColumn("lane");
            ImGui::TableSetupColumn("busy");
            ImGui::TableSetupColumn("events");
            ImGui::TableSetupColumn("bytes");
            ImGui::TableHeadersRow();
            for (size_t l = 0; l < stats.size(); ++l) {
                if (stats[l].events == 0)
                    continue;
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(trace_->lanes[l].name.c_str());
                ImGui::TableNextColumn();
                ImGui::Text("%.1f %%", 100.0 * static_cast<double>(stats[l].busyNs) / len);
                ImGui::TableNextColumn();
                ImGui::Text("%d", stats[l].events);
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(formatBytes(static_cast<double>(stats[l].bytes)).c_str());
            }
            ImGui::EndTable();
        }
    } else {
        ImGui::TextDisabled("Wheel: zoom   drag: pan   Shift+drag or right-drag: select a range   double-click: fit");
        ImGui::Text("%zu events on %zu lanes, %s in all", trace_->events.size(), trace_->lanes.size(),
                    formatDuration(static_cast<double>(traceEndNs_)).c_str());
        if (static_cast<int>(laneRanges_.size()) > visibleLanes)
            ImGui::TextDisabled("lanes %d-%d of %zu shown; the bar at the right, the wheel over the lane names or Ctrl+wheel scrolls them", firstLane_ + 1,
                                std::min(firstLane_ + visibleLanes, static_cast<int>(laneRanges_.size())), laneRanges_.size());
    }
    ImGui::EndChild();
    ImGui::End();
}

void followDocument(TimelinePanel* panel, ImGuiHost* host, Document* document)
{
    panel->setKernelClicked([document](const std::string& kernel) { document->selectNode("op:" + kernel); });
    QObject::connect(document, &Document::selectedNodeChanged, host, [panel, host, document] {
        // The trace is of the final bundle: find the selected node there (a buffer selects its producer's kernel).
        const auto& programs = document->compiled().programs;
        std::string kernel;
        if (!programs.empty() && programs.back()) {
            const spyre::Program& last = *programs.back();
            const SpyreNodeRef ref = resolveSpyreNode(last, document->selectedNode());
            const int op = ref.kind == SpyreNodeRef::Kind::Op ? ref.index
                           : ref.kind == SpyreNodeRef::Kind::Buffer ? last.buffers[static_cast<size_t>(ref.index)].producer
                                                                     : -1;
            if (op >= 0)
                kernel = last.ops[static_cast<size_t>(op)].name;
        }
        panel->setSelectedKernel(kernel);
        host->refresh();
    });
    QObject::connect(document, &Document::documentChanged, host, [panel, host, document] {
        const auto& sim = document->compiled().simulation;
        panel->setTrace(sim ? sim->trace : nullptr);
        std::string header;
        if (sim) {
            const double pct = sim->kernelTimeNs > 0 ? 100.0 * sim->rooflineNs / sim->kernelTimeNs : 0.0;
            char runs[32];
            std::snprintf(runs, sizeof runs, "%.0f %%", pct);
            header = "Spyre simulator, final kernel bundle: " + std::to_string(sim->kernels.size()) + " kernel(s), kernel time " +
                     formatDuration(sim->kernelTimeNs) + ", roofline bound " + formatDuration(sim->rooflineNs) + " (runs at " + runs +
                     " of the roofline), " + std::to_string(sim->bytesMoved) + " B moved";
        }
        panel->setHeader(header);
        host->refresh();
    });
}

}  // namespace spyglass
