// The Spyre pipeline, in torch-spyre's order.
#include "core/spyre/pass.h"
#include "core/spyre/pass_codegen.h"
#include "core/spyre/pass_coarse_tiling.h"
#include "core/spyre/pass_decompose.h"
#include "core/spyre/pass_fuse.h"
#include "core/spyre/pass_insert_restickify.h"
#include "core/spyre/pass_lower.h"
#include "core/spyre/pass_optimize_layouts.h"
#include "core/spyre/pass_propagate_layouts.h"
#include "core/spyre/pass_scratchpad_planning.h"
#include "core/spyre/pass_work_division.h"

namespace spyglass::spyre {

std::vector<std::unique_ptr<Pass>> makeSpyrePasses()
{
    std::vector<std::unique_ptr<Pass>> p;
    p.push_back(std::make_unique<DecomposePass>());
    p.push_back(std::make_unique<LowerPass>());
    p.push_back(std::make_unique<FusePass>());
    p.push_back(std::make_unique<PropagateLayoutsPass>());
    p.push_back(std::make_unique<OptimizeLayoutsPass>());
    p.push_back(std::make_unique<InsertRestickifyPass>());
    p.push_back(std::make_unique<CoarseTilingPass>());
    p.push_back(std::make_unique<WorkDivisionPass>());
    p.push_back(std::make_unique<ScratchpadPlanningPass>());
    p.push_back(std::make_unique<CodegenPass>());
    return p;
}

std::vector<std::string> spyrePassNames()
{
    std::vector<std::string> names;
    for (const auto& p : makeSpyrePasses())
        names.push_back(p->name());
    return names;
}

}  // namespace spyglass::spyre
