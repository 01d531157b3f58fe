#pragma once
// Spyglass pass plugins: a shared library that adds passes to the Spyre pipeline, the quantum pipeline, or both,
// at a named point ("after:optimize_layouts", "before:codegen", "after:cancel_inverses", "begin", "end").
// Loaded with `spyglass-cli compile|run|qcompile --pass-plugin FILE` or File > Load Pass Plugin in the GUI; a plugin's
// pass gets the same snapshot, diff, summary and timing as a built-in one.
//
// Writing one (see examples/plugins/ in the source tree, or the installed copies under
// /usr/share/doc/spyglass/examples/plugins):
//
//   #include <spyglass/pass_plugin.h>
//   class PinWeights : public spyglass::spyre::Pass { ... name(), description(), run(Program&, PassContext&) ... };
//   static void registerPasses(spyglass::PassRegistry& r)
//   {
//       r.addSpyrePass("after:propagate_layouts", [] { return std::unique_ptr<spyglass::spyre::Pass>(new PinWeights); });
//   }
//   SPYGLASS_PASS_PLUGIN("pin-weights", registerPasses)
//
// and build it with `g++ -std=c++20 -fPIC -shared $(pkg-config --cflags spyglass-plugin) plugin.cpp -o plugin.so`.
//
// The ABI rule. A plugin is C++ compiled against these headers: it shares the IR's class layouts and the C++ ABI with
// the program that loads it. So the loader accepts a plugin only when all of these match the program's own:
//   - the entry point's name, spyglass_pass_plugin_v<SPYGLASS_PASS_PLUGIN_API_VERSION> (bumped when this header changes);
//   - the Spyglass version the plugin was built against (the IR headers may change in any release);
//   - the compiler's C++ ABI version (__GXX_ABI_VERSION) and libstdc++'s dual-ABI choice (_GLIBCXX_USE_CXX11_ABI).
// Anything else is refused with a message naming the file and what differs, before any code of the plugin runs beyond
// the entry point, which only returns a static description. Rebuild the plugin against the installed Spyglass to fix it.
// A plugin may call functions of the Spyglass core (the programs export them); it must not keep pointers into the IR
// after run() returns, and must throw spyglass::InputError (core/common/diagnostics.h) for input it refuses.

#include "core/common/version.h"
#include "core/quantum/pass.h"
#include "core/spyre/pass.h"

#include <cstdint>
#include <functional>
#include <memory>

#define SPYGLASS_PASS_PLUGIN_API_VERSION 1

namespace spyglass {

// What a plugin's register function is handed. Virtual, so a plugin needs no symbol of the loader to call it.
class PassRegistry {
public:
    using SpyreFactory = std::function<std::unique_ptr<spyre::Pass>()>;
    using QuantumFactory = std::function<std::unique_ptr<quantum::Pass>()>;
    virtual ~PassRegistry() = default;
    // `point`: "after:PASS", "before:PASS", "begin" or "end"; checked when a pipeline is built (an unknown pass is
    // refused then, naming the plugin).
    virtual void addSpyrePass(const char* point, SpyreFactory make) = 0;
    virtual void addQuantumPass(const char* point, QuantumFactory make) = 0;
};

}  // namespace spyglass

extern "C" {

// Returned by the entry point: plain C data, read before anything else of the plugin is trusted.
struct SpyglassPassPluginInfo {
    uint32_t apiVersion;               // SPYGLASS_PASS_PLUGIN_API_VERSION
    const char* spyglassVersion;       // SPYGLASS_VERSION when the plugin was built
    uint32_t cxxAbiVersion;            // __GXX_ABI_VERSION
    uint32_t cxx11StringAbi;           // _GLIBCXX_USE_CXX11_ABI
    const char* name;                  // shown in messages and the GUI
    void (*registerPasses)(spyglass::PassRegistry& registry);
};
}

#define SPYGLASS_PASS_PLUGIN_ENTRY_NAME_(v) spyglass_pass_plugin_v##v
#define SPYGLASS_PASS_PLUGIN_ENTRY_NAME(v) SPYGLASS_PASS_PLUGIN_ENTRY_NAME_(v)
#define SPYGLASS_PASS_PLUGIN_STR_(x) #x
#define SPYGLASS_PASS_PLUGIN_STR(x) SPYGLASS_PASS_PLUGIN_STR_(x)
// The entry point's symbol name for this header's API version: "spyglass_pass_plugin_v1".
#define SPYGLASS_PASS_PLUGIN_ENTRY_SYMBOL SPYGLASS_PASS_PLUGIN_STR(SPYGLASS_PASS_PLUGIN_ENTRY_NAME(SPYGLASS_PASS_PLUGIN_API_VERSION))

// Defines the versioned entry point of a plugin named NAME whose passes REGISTER_FN adds.
#define SPYGLASS_PASS_PLUGIN(NAME, REGISTER_FN)                                                                  \
    extern "C" __attribute__((visibility("default"))) const SpyglassPassPluginInfo*                             \
    SPYGLASS_PASS_PLUGIN_ENTRY_NAME(SPYGLASS_PASS_PLUGIN_API_VERSION)()                                           \
    {                                                                                                            \
        static const SpyglassPassPluginInfo info{SPYGLASS_PASS_PLUGIN_API_VERSION, SPYGLASS_VERSION,             \
                                                 __GXX_ABI_VERSION, _GLIBCXX_USE_CXX11_ABI, NAME, REGISTER_FN};  \
        return &info;                                                                                            \
    }
