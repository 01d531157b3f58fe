#pragma once
// The layout what-if of the open model: the stick and core-split pins the user asked for, and what a pinned
// recompile is compared with (the plan before it, the pass the user was on, its simulated time). No widget:
// MainWindow shows the banner text this makes and asks for splits with the dialog below.

#include "core/workbench/workbench.h"

#include <QString>

#include <map>
#include <memory>
#include <optional>
#include <string>

class QWidget;

namespace spyglass::spyre {
struct Op;
struct PlanSummary;
struct Program;
}

namespace spyglass {

// A core split as the what-if shows and reads it: "p0:4, p1:8" (var -> ways). parseWays checks only the form;
// whether the split is legal for the op is work_division's to say.
QString formatWays(const std::map<std::string, int>& ways);
std::optional<std::map<std::string, int>> parseWays(const QString& text, QString* error);

// The op of the final program that `op` of the program `shown` becomes: the op's name is its identity from lower to
// codegen (fuse keeps one of the merged names and lists the others), so this is a lookup, not a guess. Null
// before lower (graph ops have no final op of their own) or when the op was dropped.
const spyre::Op* finalOpOf(const spyre::Program& shown, int op, const spyre::Program& last);

using StickPins = std::map<std::string, int>;                          // tensor -> stick dimension
using SplitPins = std::map<std::string, std::map<std::string, int>>;   // op -> var -> ways

class WhatIf {
public:
    // The request that recompiles `current` with these pins, remembering its plan, simulated time and the pass on
    // show (`pass`) to compare the result with.
    CompileRequest recompile(const CompiledDocument& current, const std::string& pass, const StickPins& pins, const SplitPins& splitPins);
    // After the compile: the banner's text (HTML; empty when there are no pins and nothing to compare), and the
    // pass to return to. The comparison is made once: the baseline is used up.
    struct Outcome {
        QString bannerHtml;
        bool shown = false;
        std::string pass;
    };
    Outcome compiled(const CompiledDocument& now);
    // A new file: nothing to compare with.
    void reset() { baseline_ = {}; }

    // The split dialog of the Graph's "Pin core split…": the split of `opName` of the final program, prefilled with
    // the current one; nullopt when cancelled or malformed (which a message box says).
    static std::optional<std::map<std::string, int>> askCoreSplit(QWidget* parent, const spyre::Program& last, const QString& opName, int cores);

private:
    struct Baseline {
        std::shared_ptr<spyre::PlanSummary> plan;
        std::string pass;
        std::optional<double> simulatedNs;
    };
    Baseline baseline_;
};

}  // namespace spyglass
