#include "app/cli/pass_options.h"

namespace spyglass::cli {

std::vector<const plugins::LoadedPlugin*> readPassPlugins(Args& args)
{
    std::vector<const plugins::LoadedPlugin*> loaded;
    for (const std::string& file : args.values("--pass-plugin"))
        loaded.push_back(&plugins::loadPassPlugin(file));
    return loaded;
}

PipelineCliOptions readPipelineOptions(Args& args)
{
    PipelineCliOptions o;
    o.plugins = readPassPlugins(args);
    for (const std::string& pass : args.values("--print-after"))
        o.printAfter.insert(pass);
    o.stopAfter = args.valueOr("--stop-after", "");
    return o;
}

spyre::ScratchpadPolicy parseScratchpadPolicyOption(const std::string& value)
{
    if (const auto p = spyre::parseScratchpadPolicy(value))
        return *p;
    throw UsageError(std::string("--scratchpad expects ") + spyre::kScratchpadPolicyNames + ", got '" + value + "'");
}

std::string passListHelp(const std::vector<std::string>& names)
{
    std::string out = "Passes:";
    size_t column = out.size();
    for (size_t i = 0; i < names.size(); ++i) {
        const std::string item = " " + names[i] + (i + 1 < names.size() ? "," : ".");
        if (column + item.size() > 110) {
            out += "\n       ";
            column = 7;
        }
        out += item;
        column += item.size();
    }
    return out;
}

}  // namespace spyglass::cli
