// `spyglass-cli qgen qft|dj|ghz|bv|grover N`: print a generated workload as OpenQASM 2.0.
#include "app/cli/cli.h"

#include "core/common/diagnostics.h"
#include "core/quantum/export.h"
#include "core/quantum/generators.h"

#include <QJsonObject>

#include <iostream>

namespace spyglass::cli {
namespace {

using namespace spyglass::quantum;

uint64_t parseBits(const std::string& s, int n, const char* what)
{
    // A bitstring, most significant first (Qiskit order), of exactly n characters.
    if (static_cast<int>(s.size()) != n || s.find_first_not_of("01") != std::string::npos)
        throw UsageError(std::string(what) + " must be " + std::to_string(n) + " characters of 0/1, got '" + s + "'");
    uint64_t v = 0;
    for (char c : s)
        v = (v << 1) | uint64_t(c == '1');
    return v;
}

int runQgen(Args& args)
{
    const std::string kind = args.positional("KIND");
    const std::string nText = args.positional("N");
    const auto input = args.value("--input");
    const auto secret = args.value("--secret");
    const auto marked = args.value("--marked");
    const bool balanced = args.flag("--balanced");
    const bool constant = args.flag("--constant");
    const bool noMeasure = args.flag("--no-measure");
    args.finish();
    int n = 0;
    try {
        size_t pos = 0;
        n = std::stoi(nText, &pos);
        if (pos != nText.size())
            throw std::invalid_argument("");
    } catch (const std::exception&) {
        throw UsageError("N must be a whole number, got '" + nText + "'");
    }
    if (n < 1 || n > 63)
        throw UsageError("N must be between 1 and 63");
    if (balanced && constant)
        throw UsageError("--balanced and --constant exclude each other");
    Circuit c;
    if (kind == "qft") {
        c = makeQft(n, input ? parseBits(*input, n, "--input") : 0, !noMeasure);
    } else if (kind == "dj") {
        c = makeDeutschJozsa(n, !constant, 0);
    } else if (kind == "ghz") {
        c = makeGhz(n);
    } else if (kind == "bv") {
        c = makeBernsteinVazirani(n, secret ? parseBits(*secret, n, "--secret") : (n >= 64 ? ~0ull : (1ull << n) - 1));
    } else if (kind == "grover") {
        if (n > 3)
            throw UsageError("grover supports 1 to 3 qubits");
        c = makeGrover(n, marked ? parseBits(*marked, n, "--marked") : (1ull << n) - 1);
    } else {
        throw UsageError("KIND must be qft, dj, ghz, bv or grover, got '" + kind + "'");
    }
    const std::string text = exportQasm(c);
    if (args.json()) {
        QJsonObject o;
        o[QStringLiteral("name")] = QString::fromStdString(c.name);
        o[QStringLiteral("qubits")] = c.numQubits;
        o[QStringLiteral("gates")] = c.gateCount();
        o[QStringLiteral("qasm")] = QString::fromStdString(text);
        printJson(o);
    } else {
        std::cout << text;
    }
    return ExitOk;
}

const RegisterCommand reg{{"qgen", "print a generated circuit (QFT, Deutsch-Jozsa, GHZ, Bernstein-Vazirani, Grover) as OpenQASM 2.0",
                           "qgen qft|dj|ghz|bv|grover N [--input BITS] [--no-measure] [--constant|--balanced] [--secret BITS] "
                           "[--marked BITS] [--json]",
                           runQgen,
                           "qft N: textbook QFT on |input> (default 0), measured.\n"
                           "dj N: N input qubits + 1 ancilla; --balanced (default, f(x) = parity of x) or --constant (f = 0).\n"
                           "ghz N: H and a CX chain.\n"
                           "bv N: N input qubits + 1 ancilla, --secret BITS (default all ones); measures the secret.\n"
                           "grover N: N <= 3 qubits, --marked BITS (default all ones), floor(pi/4 sqrt(2^N)) iterations.\n"
                           "BITS are written most significant first, as Qiskit prints counts."}};

}  // namespace
}  // namespace spyglass::cli
