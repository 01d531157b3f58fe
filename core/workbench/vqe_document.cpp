#include "core/workbench/vqe_document.h"

#include "core/common/diagnostics.h"
#include "core/common/input_file.h"

#include <charconv>
#include <filesystem>
#include <limits>
#include <set>
#include <sstream>

namespace spyglass {

namespace {

// A recipe is a dozen lines; anything near this is not one.
constexpr uint64_t kMaxRecipeBytes = 64 * 1024;

struct Word {
    std::string text;
    int column = 0;   // 1-based
};

std::vector<Word> words(const std::string& line)
{
    std::vector<Word> out;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
            ++i;
        if (i >= line.size() || line[i] == '#')
            break;
        const size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r' && line[i] != '#')
            ++i;
        out.push_back({line.substr(start, i - start), static_cast<int>(start) + 1});
    }
    return out;
}

}  // namespace

VqeRecipe readVqeRecipe(const std::string& path)
{
    const std::string text = readInputFile(path, "a VQE recipe (.vqe)", kMaxRecipeBytes);
    VqeRecipe r;
    std::set<std::string> seen;
    std::istringstream in(text);
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        const std::vector<Word> w = words(line);
        if (w.empty())
            continue;
        auto fail = [&](const Word& at, const std::string& message) {
            Diagnostic d{Severity::Error, SourceLocation{path, lineNo, at.column}, message, line, {}};
            throw InputError(std::move(d));
        };
        const std::string& key = w[0].text;
        if (w.size() < 2)
            fail(w[0], "'" + key + "' needs a value");
        if (w.size() > 2)
            fail(w[2], "one value per line: unexpected '" + w[2].text + "'");
        if (!seen.insert(key).second)
            fail(w[0], "'" + key + "' is given twice");
        const Word& v = w[1];
        auto integer = [&](long long lo, long long hi) {
            long long n = 0;
            const auto [end, ec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), n);
            if (ec != std::errc() || end != v.text.data() + v.text.size() || n < lo || n > hi)
                fail(v, "'" + key + "' must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got '" + v.text + "'");
            return n;
        };
        if (key == "qubits")
            r.options.qubits = static_cast<int>(integer(1, 34));
        else if (key == "layers")
            r.options.layers = static_cast<int>(integer(0, 1000));
        else if (key == "iterations")
            r.options.iterations = static_cast<int>(integer(0, 10000000));
        else if (key == "seed")
            r.options.seed = static_cast<uint64_t>(integer(0, std::numeric_limits<long long>::max()));
        else if (key == "optimizer") {
            if (v.text != "nelder-mead" && v.text != "spsa")
                fail(v, "'optimizer' must be nelder-mead or spsa, got '" + v.text + "'");
            r.options.optimizer = v.text;
        } else if (key == "precision") {
            if (v.text != "double" && v.text != "single")
                fail(v, "'precision' must be double or single, got '" + v.text + "'");
            r.options.precision = v.text == "single" ? quantum::Precision::Single : quantum::Precision::Double;
        } else if (key == "exact") {
            if (v.text != "yes" && v.text != "no")
                fail(v, "'exact' must be yes or no, got '" + v.text + "'");
            r.exact = v.text == "yes";
        } else if (key == "hamiltonian") {
            const std::filesystem::path h(v.text);
            r.hamiltonianFile = h.is_absolute() ? v.text : (std::filesystem::path(path).parent_path() / h).lexically_normal().string();
        } else {
            fail(w[0], "unknown key '" + key + "' (a recipe has qubits, layers, optimizer, iterations, seed, precision, exact, hamiltonian)");
        }
    }
    if (!seen.count("qubits"))
        throw InputError(SourceLocation{path, 0, 0}, "a VQE recipe needs 'qubits N'");
    return r;
}

}  // namespace spyglass
