#pragma once
// The Timeline (a Dear ImGui panel): the simulator trace with a lane per core and per DMA lane.
// Mouse wheel zooms around the pointer (over the lane names, or with Ctrl, it scrolls the lanes), left-drag pans, Shift+drag or right-drag selects a range whose
// statistics (busy %, bytes moved per lane) appear below, double-click fits. Events narrower than a
// pixel are merged into one drawn span (level of detail, as Tracy does), so a million events stay
// interactive: each lane costs O(pixels · log events) per frame, not O(events).

#include "views/imguihost.h"

#include "core/common/trace.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace spyglass {

class TimelinePanel : public ImGuiPanel {
public:
    void setTrace(std::shared_ptr<const Trace> trace);
    const Trace* trace() const { return trace_.get(); }
    int64_t traceEndNs() const { return traceEndNs_; }
    // One line drawn above the ruler (the simulated kernel time and roofline bound of the shown trace).
    void setHeader(std::string header) { header_ = std::move(header); }
    const std::string& header() const { return header_; }

    // Selection shared with the other views: the selected op's kernel is outlined; a click on a kernel's event
    // (without dragging) reports its kernel name, which is its op's name.
    void setSelectedKernel(std::string kernel) { selectedKernel_ = std::move(kernel); }
    const std::string& selectedKernel() const { return selectedKernel_; }
    void setKernelClicked(std::function<void(const std::string&)> f) { kernelClicked_ = std::move(f); }

    void draw() override;
    QString placeholderText() const override;

    // View state, in nanoseconds (exposed for tests and for "zoom to kernel" from other views).
    double viewStart() const { return viewStart_; }
    double viewEnd() const { return viewEnd_; }
    void setView(double start, double end);
    void fit();
    void setSelection(int64_t t0, int64_t t1);
    int firstLane() const { return firstLane_; }   // vertical scroll position
    // What the last frame showed: how many lanes fit, where they were drawn (y, in the host's pixels) and the
    // lane scroll bar's left edge (-1 when every lane fits).
    int visibleLanes() const { return visibleLanes_; }
    int laneCount() const { return static_cast<int>(laneRanges_.size()); }
    float lanesTop() const { return lanesTop_; }
    float lanesBottom() const { return lanesBottom_; }
    float scrollbarLeft() const { return scrollbarLeft_; }
    bool hasSelection() const { return selEnd_ > selStart_; }
    const std::vector<LaneStats>& selectionStats();

    // What the last frame drew: events drawn individually and merged spans (for tests of the LOD).
    int lastDrawnEvents() const { return drawnEvents_; }
    int lastMergedSpans() const { return mergedSpans_; }
    // CPU time of the last draw() (building the draw lists, not GL rasterisation).
    double lastDrawMs() const { return drawMs_; }

private:
    void drawRuler(float x0, float x1, float y);
    void handleInput(float x0, float x1);

    std::shared_ptr<const Trace> trace_;
    std::string header_;
    std::string selectedKernel_;
    std::function<void(const std::string&)> kernelClicked_;
    std::vector<std::pair<size_t, size_t>> laneRanges_;
    int64_t traceEndNs_ = 0;   // cached: Trace::endNs() walks every event
    double viewStart_ = 0, viewEnd_ = 1;
    int64_t selStart_ = 0, selEnd_ = 0;
    bool selecting_ = false;
    int64_t selAnchor_ = 0;
    std::vector<LaneStats> selStats_;
    int64_t statsFor0_ = -1, statsFor1_ = -1;
    int firstLane_ = 0;   // vertical scroll: the first lane drawn
    int visibleLanes_ = 0;
    float lanesTop_ = 0, lanesBottom_ = 0, scrollbarLeft_ = -1;
    int drawnEvents_ = 0;
    int mergedSpans_ = 0;
    double drawMs_ = 0;
};

class Document;
// The panel (hosted by `host`) shows the document's simulator trace, with kernel time and roofline in its header,
// outlines the kernel of the document's selected op, and selects an op in the document when its kernel is clicked.
void followDocument(TimelinePanel* panel, ImGuiHost* host, Document* document);

}  // namespace spyglass
