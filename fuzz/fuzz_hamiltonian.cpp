// Hamiltonian (Pauli sum) parser, the --hamiltonian file of `spyglass-cli vqe`.
#include "fuzz/fuzz_util.h"

#include "core/quantum/pauli.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const auto sum = spyglass::quantum::parsePauliSum(text, "fuzz.ham");
        (void)sum.text();
        (void)sum.minQubits();
    } catch (const spyglass::InputError& e) {
        spyglass::fuzz::checkRejection(e);
    }
    return 0;
}
