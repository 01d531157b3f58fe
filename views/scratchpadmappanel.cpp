#include "views/scratchpadmappanel.h"

#include "core/common/units.h"

#include "views/document.h"

#include "core/spyre/spyre_target.h"

#include "core/spyre/loop_ir.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace spyglass {

namespace {

ImU32 colourOf(int buffer)
{
    static const ImU32 palette[] = {IM_COL32(76, 154, 255, 255), IM_COL32(76, 200, 120, 255), IM_COL32(240, 170, 60, 255),
                                    IM_COL32(170, 120, 230, 255), IM_COL32(60, 190, 200, 255), IM_COL32(220, 120, 170, 255)};
    return palette[static_cast<size_t>(buffer) % (sizeof(palette) / sizeof(palette[0]))];
}

const std::vector<ScratchpadMapPanel::Block> kNoBlocks;

}  // namespace

void ScratchpadMapPanel::setProgram(std::shared_ptr<const spyre::Program> program, int64_t lxBytes, int64_t usableBytes, int cores)
{
    program_ = std::move(program);
    lxBytes_ = lxBytes;
    usableBytes_ = usableBytes;
    perCore_.assign(static_cast<size_t>(std::max(1, cores)), {});
    peaks_.assign(perCore_.size(), 0);
    timelineLength_ = 1;
    if (!program_)
        return;
    timelineLength_ = std::max<int>(1, static_cast<int>(program_->ops.size()));
    const auto consumers = program_->consumersOfBuffers();
    for (size_t b = 0; b < program_->buffers.size(); ++b) {
        const spyre::Buffer& buf = program_->buffers[b];
        if (!buf.lx.inLx)
            continue;
        // A buffer lives on the cores that write it (for inputs: the cores of the ops that read it).
        int onCores = 1;
        if (buf.producer >= 0)
            onCores = program_->ops[static_cast<size_t>(buf.producer)].split.cores;
        else
            for (int o : consumers[b])
                onCores = std::max(onCores, program_->ops[static_cast<size_t>(o)].split.cores);
        Block block{static_cast<int>(b), buf.name, buf.lx.offset, buf.lx.bytes, std::max(0, buf.lx.firstUse), std::max(buf.lx.firstUse, buf.lx.lastUse), buf.lx.how,
                    buf.lx.offset + buf.lx.bytes > usableBytes_};
        for (int c = 0; c < std::min<int>(onCores, static_cast<int>(perCore_.size())); ++c) {
            perCore_[static_cast<size_t>(c)].push_back(block);
            peaks_[static_cast<size_t>(c)] = std::max(peaks_[static_cast<size_t>(c)], block.offset + block.bytes);
        }
    }
    core_ = std::clamp(core_, 0, static_cast<int>(perCore_.size()) - 1);
}

const std::vector<ScratchpadMapPanel::Block>& ScratchpadMapPanel::blocks(int core) const
{
    return core >= 0 && core < static_cast<int>(perCore_.size()) ? perCore_[static_cast<size_t>(core)] : kNoBlocks;
}

int64_t ScratchpadMapPanel::peak(int core) const
{
    return core >= 0 && core < static_cast<int>(peaks_.size()) ? peaks_[static_cast<size_t>(core)] : 0;
}

QString ScratchpadMapPanel::placeholderText() const { return QStringLiteral("The Scratchpad map draws with OpenGL."); }

int64_t ScratchpadMapPanel::axisBytes() const
{
    if (!fitToPeak_)
        return lxBytes_;
    int64_t top = 0;
    for (int64_t p : peaks_)
        top = std::max(top, p);
    return std::clamp<int64_t>(top + top / 4, 4096, lxBytes_);
}

std::string ScratchpadMapPanel::opName(int t) const
{
    return program_ && t >= 0 && t < static_cast<int>(program_->ops.size()) ? program_->ops[static_cast<size_t>(t)].name : std::to_string(t);
}

std::vector<const ScratchpadMapPanel::Block*> ScratchpadMapPanel::liveAt(int core, int t) const
{
    std::vector<const Block*> out;
    for (const Block& b : blocks(core))
        if (b.firstUse <= t && t <= b.lastUse)
            out.push_back(&b);
    std::sort(out.begin(), out.end(), [](const Block* a, const Block* b) { return a->offset < b->offset; });
    return out;
}

void ScratchpadMapPanel::drawMap(int core, float x, float y, float w, float h, bool detailed)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const double capacity = static_cast<double>(std::max<int64_t>(1, axisBytes()));
    auto ay = [&](int64_t addr) { return y + static_cast<float>(static_cast<double>(addr) / capacity) * h; };
    auto tx = [&](int t) { return x + static_cast<float>(t) / static_cast<float>(timelineLength_) * w; };
    dl->AddRectFilled(ImVec2(x, y), ImVec2(x + w, y + h), IM_COL32(32, 34, 38, 255));
    // The reserved part above the usable limit (program reservation and backend reserve).
    if (usableBytes_ < axisBytes())
        dl->AddRectFilled(ImVec2(x, ay(usableBytes_)), ImVec2(x + w, y + h), IM_COL32(60, 40, 40, 255));
    if (usableBytes_ <= axisBytes())
        dl->AddLine(ImVec2(x, ay(usableBytes_)), ImVec2(x + w, ay(usableBytes_)), IM_COL32(230, 80, 70, 255), 1.5f);
    const ImGuiIO& io = ImGui::GetIO();
    const Block* hovered = nullptr;
    for (const Block& b : blocks(core)) {
        const ImVec2 p0(tx(b.firstUse) + 0.5f, ay(b.offset));
        const ImVec2 p1(std::max(p0.x + 2.0f, tx(b.lastUse + 1) - 0.5f), std::max(ay(b.offset) + 1.0f, ay(b.offset + b.bytes)));
        dl->AddRectFilled(p0, p1, b.overflow ? IM_COL32(230, 60, 50, 255) : colourOf(b.buffer));
        if (detailed) {
            dl->AddRect(p0, p1, IM_COL32(20, 20, 20, 255));
            if (p1.x - p0.x > 50 && p1.y - p0.y > 14)
                dl->AddText(ImVec2(p0.x + 3, p0.y + 1), IM_COL32(10, 10, 10, 255), b.name.c_str());
        }
        if (io.MousePos.x >= p0.x && io.MousePos.x < p1.x && io.MousePos.y >= p0.y && io.MousePos.y < p1.y)
            hovered = &b;
    }
    const int64_t pk = peak(core);
    if (pk > 0)
        dl->AddLine(ImVec2(x, ay(pk)), ImVec2(x + w, ay(pk)), IM_COL32(255, 220, 90, 255), detailed ? 1.5f : 1.0f);
    if (detailed) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "peak %s", formatBytes(pk).c_str());
        dl->AddText(ImVec2(x + w - 110, ay(pk) + 2), IM_COL32(255, 220, 90, 255), buf);
        std::snprintf(buf, sizeof buf, "usable %s", formatBytes(usableBytes_).c_str());
        if (usableBytes_ <= axisBytes())
            dl->AddText(ImVec2(x + w - 130, ay(usableBytes_) + 2), IM_COL32(230, 80, 70, 255), buf);
    } else {
        char buf[32];
        std::snprintf(buf, sizeof buf, "core %d", core);
        dl->AddText(ImVec2(x + 2, y + h - 14), IM_COL32(200, 200, 200, 255), buf);
    }
    if (hovered && detailed && ImGui::IsWindowHovered()) {
        ImGui::BeginTooltip();
        ImGui::Text("%s", hovered->name.c_str());
        ImGui::Text("LX %lld .. %lld (%s per core)", static_cast<long long>(hovered->offset), static_cast<long long>(hovered->offset + hovered->bytes),
                    formatBytes(hovered->bytes).c_str());
        ImGui::Text("live from %s to %s (ops %d..%d of the timeline)", opName(hovered->firstUse).c_str(), opName(hovered->lastUse).c_str(),
                    hovered->firstUse, hovered->lastUse);
        ImGui::Text("placed: %s", hovered->how.c_str());
        if (hovered->overflow)
            ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "beyond usable LX");
        ImGui::EndTooltip();
    } else if (detailed && ImGui::IsWindowHovered() && io.MousePos.x >= x && io.MousePos.x < x + w && io.MousePos.y >= y && io.MousePos.y < y + h) {
        // Between blocks: every buffer resident while the op under the mouse runs.
        const int t = std::clamp(static_cast<int>((io.MousePos.x - x) / w * static_cast<float>(timelineLength_)), 0, timelineLength_ - 1);
        const auto live = liveAt(core, t);
        ImGui::BeginTooltip();
        ImGui::Text("while %s runs (op %d): %d buffer(s) in LX on core %d", opName(t).c_str(), t, static_cast<int>(live.size()), core);
        int64_t sum = 0;
        for (const Block* b : live) {
            ImGui::BulletText("%s  @ %lld, %s", b->name.c_str(), static_cast<long long>(b->offset), formatBytes(b->bytes).c_str());
            sum += b->bytes;
        }
        if (!live.empty())
            ImGui::Text("%s in all", formatBytes(sum).c_str());
        ImGui::EndTooltip();
    }
}

void ScratchpadMapPanel::draw()
{
    if (!ImGuiHost::beginFullWindow("scratchpad")) {
        ImGui::End();
        return;
    }
    if (!program_ || program_->stage != spyre::Stage::Loop || !program_->scratchpad.planned) {
        ImGui::TextDisabled("No scratchpad plan at this pass: select scratchpad_planning or a later pass of a model.");
        ImGui::End();
        return;
    }
    ImGui::Checkbox("All cores", &overview_);
    ImGui::SameLine();
    ImGui::Checkbox("Fit to peak", &fitToPeak_);
    if (!overview_) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(160);
        ImGui::SliderInt("core", &core_, 0, std::max(0, cores() - 1));
    }
    ImGui::SameLine();
    ImGui::Text("   policy %s, %d buffers in LX, %d in device memory, peak %s of %s usable", program_->scratchpad.policy.c_str(),
                program_->scratchpad.inLx, program_->scratchpad.inDeviceMemory, formatBytes(program_->scratchpad.peakBytes).c_str(), formatBytes(usableBytes_).c_str());
    if (!usableBreakdown_.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("usable LX per core: %s", usableBreakdown_.c_str());
        ImGui::PopTextWrapPos();
    }
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    if (overview_) {
        const int cols = 8;
        const int rows = (cores() + cols - 1) / cols;
        const float cw = avail.x / cols, ch = std::max(30.0f, avail.y / std::max(1, rows));
        for (int c = 0; c < cores(); ++c)
            drawMap(c, origin.x + cw * (c % cols) + 2, origin.y + ch * (c / cols) + 2, cw - 4, ch - 4, false);
    } else {
        constexpr float axis = 70;
        ImDrawList* dl = ImGui::GetWindowDrawList();
        for (int i = 0; i <= 4; ++i) {
            const float y = origin.y + (avail.y - 18) * static_cast<float>(i) / 4.0f;
            dl->AddText(ImVec2(origin.x, y - 6), IM_COL32(200, 200, 200, 255), formatBytes(axisBytes() * i / 4).c_str());
        }
        const float mapW = avail.x - axis - 4, mapH = avail.y - 34;
        drawMap(core_, origin.x + axis, origin.y, mapW, mapH, true);
        // Op names under the axis, as many as fit 56 px apart, each at the start of its op's column.
        const float colW = mapW / static_cast<float>(timelineLength_);
        const int every = std::max(1, static_cast<int>(std::ceil(56.0f / std::max(1.0f, colW))));
        float labelEnd = -1e9f;   // a long name (rs_buf1_stick1) hides the next ones rather than overprinting them
        for (int t = 0; t < timelineLength_; t += every) {
            const float tx = origin.x + axis + colW * static_cast<float>(t);
            dl->AddLine(ImVec2(tx, origin.y + mapH), ImVec2(tx, origin.y + mapH + 4), IM_COL32(200, 200, 200, 255));
            const std::string name = opName(t);
            if (tx + 2 < labelEnd)
                continue;
            dl->AddText(ImVec2(tx + 2, origin.y + mapH + 2), IM_COL32(220, 220, 220, 255), name.c_str());
            labelEnd = tx + 2 + ImGui::CalcTextSize(name.c_str()).x + 6;
        }
        dl->AddText(ImVec2(origin.x + axis, origin.y + avail.y - 16), IM_COL32(200, 200, 200, 255),
                    "kernel timeline (ops in run order) ->   hover a buffer for its placement, anywhere else for what is resident");
    }
    ImGui::End();
}

void followDocument(ScratchpadMapPanel* panel, ImGuiHost* host, const Document* document)
{
    auto shown = std::make_shared<std::shared_ptr<const spyre::Program>>();
    auto show = [panel, host, document, shown] {
        const auto program = document->selectedProgram();
        if (program == *shown)
            return;
        *shown = program;
        const auto& target = document->compiled().target;
        panel->setProgram(program, target ? target->lxBytes : 0, target ? target->usableLxBytes() : 0, target ? target->cores : 1);
        if (target) {
            // The same arithmetic as SpyreTarget::usableLxBytes, spelled out with the target's numbers.
            char fraction[32];
            std::snprintf(fraction, sizeof fraction, "%g", target->lxBackendReserveFraction);
            panel->setUsableBreakdown(groupDigits(target->lxBytes) + " B LX - " + groupDigits(target->lxProgramReservationBytes) +
                                      " B program reservation = " + groupDigits(target->lxBytes - target->lxProgramReservationBytes) + " B; × " +
                                      fraction + " the backend may use (the rest is its reserve), aligned down to " +
                                      std::to_string(target->lxAlignmentBytes) + " B = " + groupDigits(target->usableLxBytes()) + " B (" +
                                      formatBytes(static_cast<double>(target->usableLxBytes())) + ")");
        }
        host->refresh();
    };
    QObject::connect(document, &Document::documentChanged, host, show);
    QObject::connect(document, &Document::selectedPassChanged, host, show);
}

}  // namespace spyglass
