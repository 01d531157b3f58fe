#include "core/spyre/pass_explain.h"

#include "core/common/units.h"
#include "core/spyre/restickify_trace.h"
#include "core/spyre/split_alternatives.h"

#include <algorithm>

namespace spyglass::spyre {

namespace {

std::string simulated(const std::map<std::string, double>& kernelNs, const std::string& op)
{
    auto it = kernelNs.find(op);
    return it == kernelNs.end() ? std::string() : ", " + formatDuration(it->second) + " simulated";
}

}  // namespace

std::vector<std::string> explainPass(const std::string& pass, const Program& before, const Program& after,
                                     const std::map<std::string, double>& kernelNs)
{
    std::vector<std::string> lines;
    if (after.stage != Stage::Loop)
        return lines;
    const bool wasLoop = before.stage == Stage::Loop;
    for (size_t o = 0; o < after.ops.size(); ++o) {
        const Op& op = after.ops[o];
        const bool isNew = !wasLoop || before.findOp(op.name) < 0;
        if (op.kind == OpKind::Restickify && isNew && wasLoop)
            lines.push_back("inserted " + op.name + ": " + restickifyReason(after, static_cast<int>(o)) + "; " +
                            groupDigits(op.iterationPoints()) + " elements" + simulated(kernelNs, op.name));
        if (pass == "work_division" && !op.split.ways.empty())
            lines.push_back(op.name + " on " + std::to_string(op.split.cores) + (op.split.cores == 1 ? " core (" : " cores (") +
                            splitText(op, op.split.ways) + "): " + op.split.why + simulated(kernelNs, op.name));
    }
    if (wasLoop)
        for (const Op& gone : before.ops) {
            if (after.findOp(gone.name) >= 0 && std::find_if(after.ops.begin(), after.ops.end(), [&](const Op& a) { return a.name == gone.name; }) == after.ops.end()) {
                const Op& into = after.ops[static_cast<size_t>(after.findOp(gone.name))];
                lines.push_back(gone.name + (gone.origins.empty() ? "" : " (" + gone.origins.back() + ")") + " fused into " + into.name +
                                (into.origins.empty() ? "" : " (" + into.origins.back() + ")"));
            }
        }
    return lines;
}

}  // namespace spyglass::spyre
