#pragma once
// What the Inspector shows for a gate, measurement, reset or barrier of a circuit at one pass. Plain data for the
// Inspector; the Circuit view supplies where it drew the op.

#include "views/spyreinspect.h"

#include <string>

namespace spyglass::quantum {
struct Circuit;
}

namespace spyglass {

InspectorContent inspectCircuitOpContent(const quantum::Circuit& c, int index, const std::string& pass, int column, int columns);

}  // namespace spyglass
