#pragma once
// The one on-disk form of a pipeline's per-pass IR, for `compile --dump-dir`, `qcompile --dump-dir` and the GUI's
// File > Export: one text file per snapshot, NN-<pass>.txt (NN from 00, the input), the canonical IR text inside.
// --print-after prints the same text to a stream.

#include "core/common/pass_manager.h"

#include <ostream>
#include <set>
#include <string>

namespace spyglass {

std::string passDumpFileName(size_t index, const std::string& passName);
// Creates `dir` if needed; throws InputError naming the folder or file that cannot be written.
void writePassDumps(const std::string& dir, const PassRecords& records);

// `--print-after PASS` / `--print-after all` (MLIR's -print-ir-after): the IR after the named passes, to `out`.
template <class IR>
class PrintAfterInstrumentation : public PassInstrumentation<IR> {
public:
    PrintAfterInstrumentation(std::set<std::string> passes, std::function<std::string(const IR&)> printer, std::ostream& out)
        : passes_(std::move(passes)), printer_(std::move(printer)), out_(out)
    {
    }
    void afterPass(size_t index, const PassRecord& record, const IR& ir) override
    {
        if (!passes_.count("all") && !passes_.count(record.name))
            return;
        out_ << "// ----- IR after " << record.name << " (" << passDumpFileName(index, record.name) << ") -----\n"
             << printer_(ir);
    }

private:
    std::set<std::string> passes_;
    std::function<std::string(const IR&)> printer_;
    std::ostream& out_;
};

}  // namespace spyglass
