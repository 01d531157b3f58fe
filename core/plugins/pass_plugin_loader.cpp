#include "core/plugins/pass_plugin_loader.h"

#include "spyglass/pass_plugin.h"

#include <dlfcn.h>

#include <cstring>
#include <filesystem>
#include <list>
#include <mutex>

namespace spyglass::plugins {

namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& why)
{
    throw InputError(SourceLocation{path, 0, 0}, "pass plugin refused: " + why);
}

class Registry final : public PassRegistry {
public:
    explicit Registry(LoadedPlugin& p) : plugin_(p) {}
    void addSpyrePass(const char* point, SpyreFactory make) override
    {
        plugin_.spyrePasses.push_back({parsePoint(point), std::move(make), plugin_.path});
    }
    void addQuantumPass(const char* point, QuantumFactory make) override
    {
        plugin_.quantumPasses.push_back({parsePoint(point), std::move(make), plugin_.path});
    }

private:
    InsertionPoint parsePoint(const char* point) const
    {
        try {
            return InsertionPoint::parse(point ? point : "");
        } catch (const InputError& e) {
            refuse(plugin_.path, e.what());
        }
    }
    LoadedPlugin& plugin_;
};

std::mutex& loadMutex()
{
    static std::mutex m;
    return m;
}

std::list<LoadedPlugin>& loaded()   // a list: references handed out stay valid
{
    static std::list<LoadedPlugin> l;
    return l;
}

}  // namespace

const LoadedPlugin& loadPassPlugin(const std::string& path)
{
    std::lock_guard lock(loadMutex());
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st))
        refuse(path, "no such file");
    if (!fs::is_regular_file(st))
        refuse(path, "not a regular file");
    const std::string canonical = fs::canonical(path, ec).string();
    for (const LoadedPlugin& p : loaded())
        if (fs::canonical(p.path, ec).string() == canonical)
            return p;

    // dlopen needs a path with a slash to not search the library path.
    const std::string openPath = path.find('/') == std::string::npos ? "./" + path : path;
    void* handle = dlopen(openPath.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* err = dlerror();
        refuse(path, std::string("cannot load it as a shared library: ") + (err ? err : "unknown error"));
    }
    using Entry = const SpyglassPassPluginInfo* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(handle, SPYGLASS_PASS_PLUGIN_ENTRY_SYMBOL));
    if (!entry) {
        dlclose(handle);
        refuse(path, "it has no entry point " SPYGLASS_PASS_PLUGIN_ENTRY_SYMBOL
                     " (not a Spyglass pass plugin, or built for another plugin API: this Spyglass " SPYGLASS_VERSION
                     " loads plugin API " SPYGLASS_PASS_PLUGIN_STR(SPYGLASS_PASS_PLUGIN_API_VERSION) ")");
    }
    const SpyglassPassPluginInfo* info = entry();
    auto mismatch = [&](const std::string& what) {
        dlclose(handle);
        refuse(path, what + "; rebuild it against this Spyglass's headers (pkg-config --cflags spyglass-plugin)");
    };
    if (!info)
        mismatch("its entry point returned no description");
    if (info->apiVersion != SPYGLASS_PASS_PLUGIN_API_VERSION)
        mismatch("built for plugin API " + std::to_string(info->apiVersion) + ", this Spyglass loads API " +
                 std::to_string(SPYGLASS_PASS_PLUGIN_API_VERSION));
    if (!info->spyglassVersion || std::strcmp(info->spyglassVersion, SPYGLASS_VERSION) != 0)
        mismatch(std::string("built against Spyglass ") + (info->spyglassVersion ? info->spyglassVersion : "(none)") +
                 ", this is Spyglass " SPYGLASS_VERSION);
    if (info->cxxAbiVersion != __GXX_ABI_VERSION || info->cxx11StringAbi != _GLIBCXX_USE_CXX11_ABI)
        mismatch("built with another C++ ABI (GXX ABI " + std::to_string(info->cxxAbiVersion) + ", CXX11 ABI " +
                 std::to_string(info->cxx11StringAbi) + "; this program: " + std::to_string(__GXX_ABI_VERSION) + ", " +
                 std::to_string(_GLIBCXX_USE_CXX11_ABI) + ")");
    if (!info->registerPasses)
        mismatch("its description has no register function");

    LoadedPlugin plugin;
    plugin.path = path;
    plugin.name = info->name ? info->name : fs::path(path).stem().string();
    Registry registry(plugin);
    try {
        info->registerPasses(registry);
    } catch (const InputError&) {
        throw;
    } catch (const std::exception& e) {
        refuse(path, std::string("its register function failed: ") + e.what());
    }
    if (plugin.spyrePasses.empty() && plugin.quantumPasses.empty())
        refuse(path, "it registered no pass");
    // Never dlclose: the passes' vtables and factories live in the library for the rest of the process.
    loaded().push_back(std::move(plugin));
    return loaded().back();
}

std::vector<spyre::PassInsertion> spyreInsertions(const std::vector<const LoadedPlugin*>& plugins)
{
    std::vector<spyre::PassInsertion> out;
    for (const LoadedPlugin* p : plugins)
        out.insert(out.end(), p->spyrePasses.begin(), p->spyrePasses.end());
    return out;
}

std::vector<quantum::PassInsertion> quantumInsertions(const std::vector<const LoadedPlugin*>& plugins)
{
    std::vector<quantum::PassInsertion> out;
    for (const LoadedPlugin* p : plugins)
        out.insert(out.end(), p->quantumPasses.begin(), p->quantumPasses.end());
    return out;
}

}  // namespace spyglass::plugins
