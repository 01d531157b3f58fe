// The ONNX textual syntax (.onnxtxt) through the whole loader; external data resolves in a scratch folder.
#include "fuzz/fuzz_util.h"

#include "core/model/model_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const auto graph = spyglass::model::loadModelFromText(text, "fuzz.onnxtxt", spyglass::fuzz::scratchDir().string());
        (void)graph;
    } catch (const spyglass::InputError& e) {
        spyglass::fuzz::checkRejection(e);
    }
    return 0;
}
