#pragma once
// The Spyre compiler's instance of the common pass infrastructure (core/common/pass_manager.h): a pass runs on a
// Program with a PassContext (target, options, job).

#include "core/common/pass_manager.h"
#include "core/common/units.h"
#include "core/spyre/loop_ir.h"
#include "core/spyre/spyre_target.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace spyglass::spyre {

struct PassContext;
using Pass = spyglass::Pass<Program, PassContext>;
using PassResult = spyglass::PassResult;

using PassInsertion = spyglass::PassInsertion<Program, PassContext>;

// None: no scratchpad planning, every buffer stays in device memory (the torch-spyre baseline before planning).
enum class ScratchpadPolicy { Greedy, FirstFit, BestFit, None };
const char* scratchpadPolicyName(ScratchpadPolicy p);
// The inverse of scratchpadPolicyName; nullopt for anything else.
std::optional<ScratchpadPolicy> parseScratchpadPolicy(const std::string& name);
constexpr const char* kScratchpadPolicyNames = "greedy, first-fit, best-fit or none";

struct CompileOptions {
    std::string stopAfter;              // run passes up to and including this one; empty: all
    std::map<std::string, int> pins;    // tensor (ONNX value or buffer name) -> forced stick dimension
    // op (name as printed by work_division, "op3", or the ONNX node it computes) -> var ("p0", "r0") -> ways.
    // work_division takes the split as given (after checking it is legal) instead of choosing one.
    std::map<std::string, std::map<std::string, int>> splitPins;
    // buffer (or the ONNX value it holds) -> device order, instead of the plan's (the tuner's per-kernel search).
    std::map<std::string, DeviceOrder> orderPins;
    // torch-spyre's defaults: default device order, default work division. The simulator's baseline.
    bool baseline = false;
    ScratchpadPolicy scratchpad = ScratchpadPolicy::Greedy;
    int beamWidth = 200;
    int64_t exactStateLimit = 200000;   // branch-and-bound expansions before falling back to beam search
    bool fuse = true;
    bool keepIrText = true;             // print the IR after every pass (the GUI and --dump-dir need it)
    std::vector<PassInsertion> extraPasses;   // plugins' passes, inserted in order
};

struct PassContext {
    const SpyreTarget& target;
    const CompileOptions& options;
    const JobControl* job = nullptr;
};

// Every built-in pass of the pipeline, in order (spyre_passes.cpp: adding a pass is one line there).
std::vector<std::unique_ptr<Pass>> makeSpyrePasses();
std::vector<std::string> spyrePassNames();

using spyglass::groupDigits;   // core/common/units.h

}  // namespace spyglass::spyre
