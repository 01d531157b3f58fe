// The kernel-bundle reader (loadKernelBundle), what the Spyre simulator loads. The input is a bundle folder in one
// file: manifest.json, then a line "@@kernel@@", then the JSON of kernels/k0.json (the seeds' manifests name it).
#include "fuzz/fuzz_util.h"

#include "core/spyre/kernel_bundle.h"

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    namespace fs = std::filesystem;
    const std::string_view in(reinterpret_cast<const char*>(data), size);
    const fs::path dir = spyglass::fuzz::scratchDir() / "bundle";
    std::error_code ec;
    fs::remove_all(dir, ec);
    constexpr std::string_view sep = "\n@@kernel@@\n";
    const size_t cut = in.find(sep);
    const std::string_view manifest = in.substr(0, cut);
    spyglass::fuzz::writeFile(dir / "manifest.json", manifest.data(), manifest.size());
    if (cut != std::string_view::npos) {
        const std::string_view kernel = in.substr(cut + sep.size());
        spyglass::fuzz::writeFile(dir / "kernels" / "k0.json", kernel.data(), kernel.size());
    }
    try {
        const auto bundle = spyglass::spyre::loadKernelBundle(dir.string());
        (void)bundle;
    } catch (const spyglass::InputError& e) {
        spyglass::fuzz::checkRejection(e);
    }
    return 0;
}
