#pragma once
// The uniform pass interface of the Spyre compiler (LLVM-style: a name, a one-line description, one entry point).

#include "core/spyre/loop_ir.h"
#include "core/spyre/spyre_target.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace spyglass {
class JobControl;
}

namespace spyglass::spyre {

// None: no scratchpad planning, every buffer stays in device memory (the torch-spyre baseline before planning).
enum class ScratchpadPolicy { Greedy, FirstFit, BestFit, None };
const char* scratchpadPolicyName(ScratchpadPolicy p);

struct CompileOptions {
    std::string stopAfter;              // run passes up to and including this one; empty: all
    std::map<std::string, int> pins;    // tensor (ONNX value or buffer name) -> forced stick dimension
    // op (name as printed by work_division, "op3", or the ONNX node it computes) -> var ("p0", "r0") -> ways.
    // work_division takes the split as given (after checking it is legal) instead of choosing one.
    std::map<std::string, std::map<std::string, int>> splitPins;
    // torch-spyre's defaults: default device order, default work division. The simulator's baseline.
    bool baseline = false;
    ScratchpadPolicy scratchpad = ScratchpadPolicy::Greedy;
    int beamWidth = 200;
    int64_t exactStateLimit = 200000;   // branch-and-bound expansions before falling back to beam search
    bool fuse = true;
    bool keepIrText = true;             // print the IR after every pass (the GUI and --dump-dir need it)
};

struct PassContext {
    const SpyreTarget& target;
    const CompileOptions& options;
    const JobControl* job = nullptr;
};

struct PassResult {
    bool changed = false;
    std::string summary;   // one line: what this run did
};

class Pass {
public:
    virtual ~Pass() = default;
    virtual const char* name() const = 0;
    virtual const char* description() const = 0;
    virtual PassResult run(Program& program, PassContext& ctx) = 0;
};

// Every pass of the pipeline, in order.
std::vector<std::unique_ptr<Pass>> makeSpyrePasses();
std::vector<std::string> spyrePassNames();

// "131 072": digits grouped by thin spaces of the plain kind, for summaries people read.
std::string groupDigits(int64_t n);

}  // namespace spyglass::spyre
