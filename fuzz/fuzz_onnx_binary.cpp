// ONNX binary protobuf through the whole loader (parse, external data, checker, shape inference, constant
// folding, support check), as `spyglass-cli compile model.onnx` reads it. The input is written to a file in a
// scratch folder, so external-data locations resolve there.
#include "fuzz/fuzz_util.h"

#include "core/model/model_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const auto path = spyglass::fuzz::scratchDir() / "model.onnx";
    spyglass::fuzz::writeFile(path, reinterpret_cast<const char*>(data), size);
    try {
        const auto graph = spyglass::model::loadModel(path.string());
        (void)graph;
    } catch (const spyglass::InputError& e) {
        spyglass::fuzz::checkRejection(e);
    }
    return 0;
}
