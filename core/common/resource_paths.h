#pragma once
// Where bundled resources (examples, targets, schemas) live: beside an installed binary
// (<prefix>/share/spyglass/<kind>), in the source tree for a build tree, or where SPYGLASS_RESOURCE_DIR says.

#include <string>
#include <vector>

namespace spyglass {

// The directory holding resources/<kind> (e.g. "examples", "targets"); empty when none is found.
std::string findResourceDir(const std::string& kind);

// Every regular file in resources/<kind>, sorted by name.
std::vector<std::string> listResourceFiles(const std::string& kind);

}  // namespace spyglass
