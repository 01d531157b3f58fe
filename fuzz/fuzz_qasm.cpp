// OpenQASM 2.0 parser. Includes resolve in an empty scratch folder, so include handling (path checks, missing
// files) is exercised without reading anything outside it.
#include "fuzz/fuzz_util.h"

#include "core/quantum/qasm_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const auto r = spyglass::quantum::parseQasmString(text, "fuzz.qasm", (spyglass::fuzz::scratchDir() / "include").string());
        (void)r;
    } catch (const spyglass::InputError& e) {
        spyglass::fuzz::checkRejection(e);
    }
    return 0;
}
