#pragma once
// The options every pipeline command shares (compile, run, qcompile): --pass-plugin FILE (repeatable) loads user
// passes, --print-after PASS|all (repeatable) prints the IR after those passes to stderr, --stop-after PASS.

#include "app/cli/cli.h"
#include "core/plugins/pass_plugin_loader.h"

#include <set>
#include <string>
#include <vector>

namespace spyglass::cli {

struct PipelineCliOptions {
    std::vector<const plugins::LoadedPlugin*> plugins;
    std::set<std::string> printAfter;
    std::string stopAfter;
};

// Loads the plugins as it reads them (a refused plugin is bad input: exit 2 naming the file).
PipelineCliOptions readPipelineOptions(Args& args);
// --pass-plugin alone, for commands that take no other pipeline option (run).
std::vector<const plugins::LoadedPlugin*> readPassPlugins(Args& args);

// --scratchpad's value (one parser for compile and run); UsageError naming the accepted values.
spyre::ScratchpadPolicy parseScratchpadPolicyOption(const std::string& value);

// "Passes: a, b, c." wrapped for --help, from the pipeline's own list.
std::string passListHelp(const std::vector<std::string>& names);

}  // namespace spyglass::cli
