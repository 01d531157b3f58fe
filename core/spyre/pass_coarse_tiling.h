#pragma once
#include "core/spyre/pass.h"

namespace spyglass::spyre {

// Wraps ops in counted tile loops so that each core's share of one tile's working set fits usable LX and no
// tile's region of a tensor exceeds the per-core 256 MiB span. Outer iteration vars are tiled first (even,
// divisor-sized tiles), the stick var last and only in whole sticks; reduction vars are never tiled.
class CoarseTilingPass : public Pass {
public:
    std::string name() const override { return "coarse_tiling"; }
    std::string description() const override
    {
        return "wrap ops in counted tile loops so each core's tile fits usable LX and the 256 MiB span";
    }
    PassResult run(Program& program, PassContext& ctx) override;
};

}  // namespace spyglass::spyre
