// Plugins the loader must refuse, one per build flag (see CMakeLists.txt), each with a clear message, never a crash.
#include <spyglass/pass_plugin.h>

namespace {

using namespace spyglass;

class Noop final : public spyre::Pass {
public:
    std::string name() const override { return "noop"; }
    std::string description() const override { return "does nothing"; }
    PassResult run(spyre::Program&, spyre::PassContext&) override { return {false, "nothing"}; }
};

[[maybe_unused]] void registerPasses(PassRegistry& registry)
{
#ifdef BAD_PLUGIN_UNKNOWN_POINT
    registry.addSpyrePass("after:no_such_pass", [] { return std::make_unique<Noop>(); });
#else
    registry.addSpyrePass("end", [] { return std::make_unique<Noop>(); });
#endif
}

}  // namespace

#if defined(BAD_PLUGIN_OTHER_VERSION)
// What a plugin built against another release looks like to the loader.
extern "C" const SpyglassPassPluginInfo* spyglass_pass_plugin_v1()
{
    static const SpyglassPassPluginInfo info{1, "0.0.0-other", __GXX_ABI_VERSION, _GLIBCXX_USE_CXX11_ABI, "other-version", registerPasses};
    return &info;
}
#elif defined(BAD_PLUGIN_OTHER_API)
// A plugin for a later plugin API: its entry point has another name.
extern "C" const SpyglassPassPluginInfo* spyglass_pass_plugin_v2()
{
    static const SpyglassPassPluginInfo info{2, SPYGLASS_VERSION, __GXX_ABI_VERSION, _GLIBCXX_USE_CXX11_ABI, "other-api", registerPasses};
    return &info;
}
#elif defined(BAD_PLUGIN_NO_ENTRY)
// An ordinary shared library: no entry point at all.
extern "C" int not_a_plugin() { return 42; }
#else
SPYGLASS_PASS_PLUGIN("unknown-point", registerPasses)
#endif
