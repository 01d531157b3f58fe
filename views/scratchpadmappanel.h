#pragma once
// The Scratchpad map (a Dear ImGui panel): for one core, LX address (0 at the top, to the capacity, the
// usable limit marked and its make-up in the header) against the kernel timeline (ops named under the axis), every
// LX-resident buffer a rectangle over its live range; hovering a buffer shows name, bytes, live range and how the
// planner placed it, hovering anywhere else lists the buffers resident while that op runs; the peak is marked and
// anything past the usable limit is red. "All cores" shows every core's map small, side by side.

#include "views/imguihost.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace spyglass::spyre {
struct Program;
}

namespace spyglass {

class ScratchpadMapPanel : public ImGuiPanel {
public:
    struct Block {
        int buffer = -1;
        std::string name;
        int64_t offset = 0, bytes = 0;
        int firstUse = 0, lastUse = 0;
        std::string how;
        bool overflow = false;
    };

    // `lxBytes` is the whole scratchpad, `usableBytes` what the planner may use, `cores` the target's cores.
    void setProgram(std::shared_ptr<const spyre::Program> program, int64_t lxBytes, int64_t usableBytes, int cores);
    // How the usable limit comes about, shown in the header ("2 097 152 B LX - 65 536 B program reservation = …; × 0.8 …").
    void setUsableBreakdown(std::string text) { usableBreakdown_ = std::move(text); }
    const std::string& usableBreakdown() const { return usableBreakdown_; }
    // The op names under the time axis, and the buffers resident on `core` while op `t` runs (what hovering a
    // time column lists).
    std::string opName(int t) const;
    std::vector<const Block*> liveAt(int core, int t) const;

    void draw() override;
    QString placeholderText() const override;

    int cores() const { return static_cast<int>(perCore_.size()); }
    const std::vector<Block>& blocks(int core) const;
    int64_t peak(int core) const;
    int selectedCore() const { return core_; }
    void selectCore(int core) { core_ = core; }
    void setOverview(bool on) { overview_ = on; }

private:
    int64_t axisBytes() const;   // what the address axis spans
    void drawMap(int core, float x, float y, float w, float h, bool detailed);

    std::shared_ptr<const spyre::Program> program_;
    std::vector<std::vector<Block>> perCore_;
    std::vector<int64_t> peaks_;
    int64_t lxBytes_ = 0, usableBytes_ = 0;
    int timelineLength_ = 1;
    int core_ = 0;
    bool overview_ = false;
    bool fitToPeak_ = true;   // small plans are unreadable on a 2 MiB axis
    std::string usableBreakdown_;
};

class Document;
// The panel (hosted by `host`) shows the LX plan of the document's selected program, with its target's numbers.
void followDocument(ScratchpadMapPanel* panel, ImGuiHost* host, const Document* document);

}  // namespace spyglass
