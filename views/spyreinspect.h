#pragma once
// What the Inspector shows for a Spyre op or buffer (or, before lowering, a graph op or tensor), selected by
// the node ids spyregraph.h gives. All numbers come from the Program and the target; nothing is recomputed
// beyond formatting.

#include "views/inspectorview.h"

#include <string>
#include <vector>

namespace spyglass::spyre {
struct Program;
struct SpyreTarget;
}

namespace spyglass {

struct InspectorContent {
    QString heading;
    std::vector<InspectorSection> sections;
    bool found = false;
};

InspectorContent inspectSpyreNode(const spyre::Program& program, const spyre::SpyreTarget* target, const std::string& nodeId);

}  // namespace spyglass
