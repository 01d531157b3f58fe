#pragma once
// Runs the Spyre compiler pass by pass and keeps a snapshot of the IR after every pass.
// This is the API the GUI and the CLI call.

#include "core/common/pass_record.h"
#include "core/spyre/pass.h"

#include <memory>
#include <vector>

namespace spyglass {
class JobControl;
namespace model {
struct ModelGraph;
}
}  // namespace spyglass

namespace spyglass::spyre {

struct SpyreSnapshot {
    PassRecord record;                         // name, description, changed, summary, wallMs, irText
    std::shared_ptr<const Program> program;    // the IR after the pass (shared, never modified)
};

class PassManager {
public:
    void add(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }
    const std::vector<std::unique_ptr<Pass>>& passes() const { return passes_; }
    // Runs every pass (up to options.stopAfter) on `program`; the first snapshot is the program as given.
    std::vector<SpyreSnapshot> run(Program program, PassContext& ctx, JobControl* job) const;

private:
    std::vector<std::unique_ptr<Pass>> passes_;
};

// ModelGraph -> graph-level Program (no pass: the starting point every snapshot list begins with).
Program importModel(const model::ModelGraph& graph, const SpyreTarget& target);

class SpyrePipeline {
public:
    // Throws InputError for unsupported ops / bad pins, Cancelled when the job is cancelled.
    static std::vector<SpyreSnapshot> run(const model::ModelGraph& graph, const SpyreTarget& target,
                                          const CompileOptions& options, JobControl& job);
    static std::vector<SpyreSnapshot> run(Program program, const SpyreTarget& target, const CompileOptions& options,
                                          JobControl& job);
};

}  // namespace spyglass::spyre
