#pragma once
// Runs the Spyre compiler pass by pass (the common PassManager over makeSpyrePasses(), plus any plugin passes
// the options insert) and keeps a snapshot of the IR after every pass. This is the API the GUI and the CLI call.

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

using SpyreSnapshot = Snapshot<Program>;   // record + the Program after the pass (shared, never modified)
using SpyrePassManager = spyglass::PassManager<Program, PassContext>;

// The built-in passes with options.extraPasses inserted. Throws InputError for an insertion point naming no pass.
SpyrePassManager makeSpyrePassManager(const CompileOptions& options);

// ModelGraph -> graph-level Program (no pass: the starting point every snapshot list begins with).
Program importModel(const model::ModelGraph& graph, const SpyreTarget& target);

class SpyrePipeline {
public:
    // Throws InputError for unsupported ops / bad pins, Cancelled when the job is cancelled.
    static std::vector<SpyreSnapshot> run(const model::ModelGraph& graph, const SpyreTarget& target,
                                          const CompileOptions& options, JobControl& job);
    static std::vector<SpyreSnapshot> run(Program program, const SpyreTarget& target, const CompileOptions& options,
                                          JobControl& job);
    // The same with instrumentations watching every pass (e.g. --print-after).
    static std::vector<SpyreSnapshot> run(Program program, const SpyreTarget& target, const CompileOptions& options,
                                          JobControl& job, const std::vector<std::shared_ptr<PassInstrumentation<Program>>>& watchers);
};

}  // namespace spyglass::spyre
