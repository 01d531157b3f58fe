#pragma once
// Loads pass plugins (include/spyglass/pass_plugin.h) and hands their passes to the pipelines as insertions.
// A plugin stays loaded until the process exits: its passes' code lives in it, and snapshots outlive a compile.

#include "core/quantum/pass.h"
#include "core/spyre/pass.h"

#include <string>
#include <vector>

namespace spyglass::plugins {

struct LoadedPlugin {
    std::string path;   // as given
    std::string name;   // the plugin's own name
    std::vector<spyre::PassInsertion> spyrePasses;
    std::vector<quantum::PassInsertion> quantumPasses;
};

// Throws InputError naming the file: not a regular file, not a shared library, no entry point
// spyglass_pass_plugin_v<API> (not a plugin, or built for another plugin API), built against another Spyglass
// version or C++ ABI, a register function that throws. Loading the same file twice returns the first load.
const LoadedPlugin& loadPassPlugin(const std::string& path);

// Every pass of the plugins, in load order.
std::vector<spyre::PassInsertion> spyreInsertions(const std::vector<const LoadedPlugin*>& plugins);
std::vector<quantum::PassInsertion> quantumInsertions(const std::vector<const LoadedPlugin*>& plugins);

}  // namespace spyglass::plugins
