#include "core/spyre/split_alternatives.h"

#include "core/spyre/lx_neighbourhood.h"
#include "core/spyre/pass_work_division.h"
#include "core/spyre/spyre_target.h"

#include <numeric>

namespace spyglass::spyre {

std::string splitText(const Op& op, const std::vector<int>& ways)
{
    std::string s;
    for (size_t v = 0; v < ways.size(); ++v)
        if (ways[v] > 1)
            s += (s.empty() ? "" : " × ") + op.varName(static_cast<int>(v)) + "÷" + std::to_string(ways[v]);
    return s.empty() ? "not split" : s;
}

namespace {

SplitAlternative alternative(const Program& p, const Op& op, const std::vector<int>& ways, const SpyreTarget& t,
                             const LxNeighbourhood& lx)
{
    SplitAlternative a;
    a.ways = ways;
    a.cores = std::accumulate(ways.begin(), ways.end(), 1, std::multiplies<int>());
    a.modelUs = matmulSplitCostUs(p, op, ways, t, &lx);
    a.text = splitText(op, ways);
    return a;
}

}  // namespace

std::vector<SplitAlternative> splitAlternatives(const Program& p, const Op& op, const SpyreTarget& t)
{
    std::vector<SplitAlternative> out;
    if (op.split.ways.empty())
        return out;
    const LxNeighbourhood lx(p, op, t, p.scratchpad.planned);
    out.push_back(alternative(p, op, op.split.ways, t, lx));
    out.back().chosen = true;
    for (int n = 1; n <= t.cores; n *= 2) {
        const std::vector<int> ways = defaultDivision(p, op, n);
        bool seen = false;
        for (const SplitAlternative& a : out)
            seen = seen || a.ways == ways;
        if (!seen)
            out.push_back(alternative(p, op, ways, t, lx));
    }
    return out;
}

}  // namespace spyglass::spyre
