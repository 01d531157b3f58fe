#include "core/quantum/pauli.h"

#include "core/common/diagnostics.h"
#include "core/common/input_file.h"

#include <bit>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <cerrno>
#include <cstdlib>
#include <cmath>
#include <sstream>

namespace spyglass::quantum {

std::string PauliTerm::text() const
{
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, coeff);
    std::string s(buf, r.ptr);
    for (int q = 0; q < 64; ++q) {
        const bool x = xMask >> q & 1, z = zMask >> q & 1;
        if (x || z)
            s += std::string(" ") + (x && z ? 'Y' : x ? 'X' : 'Z') + std::to_string(q);
    }
    return s;
}

int PauliSum::minQubits() const
{
    int n = 0;
    for (const PauliTerm& t : terms) {
        const uint64_t m = t.xMask | t.zMask;
        if (m)
            n = std::max(n, 64 - std::countl_zero(m));
    }
    return n;
}

std::string PauliSum::text() const
{
    std::string s;
    for (size_t i = 0; i < terms.size(); ++i)
        s += (i ? " + " : "") + terms[i].text();
    return s;
}

PauliSum parsePauliSum(const std::string& text, const std::string& file)
{
    PauliSum sum;
    int highest = 0;
    std::istringstream in(text);
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (auto h = line.find('#'); h != std::string::npos)
            line.erase(h);
        auto fail = [&](size_t col, const std::string& msg) {
            Diagnostic d;
            d.location = SourceLocation{file, lineNo, static_cast<int>(col) + 1};
            d.message = msg;
            d.sourceLine = line;
            throw InputError(std::move(d));
        };
        size_t i = 0;
        auto skip = [&] {
            while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
                ++i;
        };
        skip();
        if (i >= line.size())
            continue;
        for (;;) {
            skip();
            PauliTerm t;
            double sign = 1;
            const size_t termStart = i;
            if (i < line.size() && (line[i] == '-' || line[i] == '+') &&
                !(i + 1 < line.size() && (std::isdigit(static_cast<unsigned char>(line[i + 1])) || line[i + 1] == '.'))) {
                sign = line[i] == '-' ? -1 : 1;
                ++i;
                skip();
            }
            if (i < line.size() && (std::isdigit(static_cast<unsigned char>(line[i])) || line[i] == '-' || line[i] == '+' || line[i] == '.')) {
                // strtod on the line in place: std::stod(line.substr(i)) copied the rest of the line for every
                // term, quadratic in a long one-line sum.
                errno = 0;
                char* end = nullptr;
                t.coeff = std::strtod(line.c_str() + i, &end);
                if (end == line.c_str() + i)
                    fail(i, "expected a coefficient");
                if (errno == ERANGE || !std::isfinite(t.coeff))
                    fail(i, "coefficient " + line.substr(i, static_cast<size_t>(end - (line.c_str() + i))) + " is out of range");
                i = static_cast<size_t>(end - line.c_str());
            }
            t.coeff *= sign;
            bool any = false;
            for (;;) {
                skip();
                if (i >= line.size() || line[i] == '+')
                    break;
                const char p = static_cast<char>(std::toupper(static_cast<unsigned char>(line[i])));
                if (p != 'X' && p != 'Y' && p != 'Z' && p != 'I')
                    fail(i, std::string("expected a Pauli X, Y, Z or I with a qubit index, found '") + line[i] + "'");
                const size_t at = i;
                ++i;
                size_t j = i;
                while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j])))
                    ++j;
                if (j == i)
                    fail(at, "Pauli operator needs a qubit index, e.g. Z0");
                // std::stoi would throw out_of_range (not an InputError) on an index longer than an int.
                const std::string digits = line.substr(i, j - i);
                const int q = digits.size() > 3 ? 1000 : std::stoi(digits);
                if (q >= 63)
                    fail(at, "qubit index " + digits + " is too large (at most 62)");
                i = j;
                if (q + 1 > highest) {
                    highest = q + 1;
                    sum.highestQubitAt = SourceLocation{file, lineNo, static_cast<int>(at) + 1};
                }
                const uint64_t bit = uint64_t(1) << q;
                if ((t.xMask | t.zMask) & bit)
                    fail(at, "qubit " + std::to_string(q) + " appears twice in one term");
                if (p == 'X' || p == 'Y')
                    t.xMask |= bit;
                if (p == 'Z' || p == 'Y')
                    t.zMask |= bit;
                t.numY += p == 'Y';
                any = true;
            }
            if (!any && i == termStart)
                fail(i, "empty term");
            sum.terms.push_back(t);
            if (i >= line.size())
                break;
            ++i;   // '+'
            skip();
            if (i >= line.size())
                fail(i, "expected a term after '+'");
        }
    }
    if (sum.terms.empty())
        throw InputError(SourceLocation{file, 0, 0}, "the Hamiltonian has no terms");
    return sum;
}

PauliSum readPauliSumFile(const std::string& path)
{
    // A Hamiltonian is a list of terms; anything this large is not one and would only fill memory.
    constexpr uintmax_t kMaxFileBytes = 64ull << 20;
    return parsePauliSum(readInputFile(path, "a Hamiltonian file", kMaxFileBytes), path);
}

PauliSum tfimHamiltonian(int n, double J, double h)
{
    PauliSum s;
    const int bonds = n > 2 ? n : n - 1;
    for (int i = 0; i < bonds; ++i) {
        PauliTerm t;
        t.coeff = -J;
        t.zMask = (uint64_t(1) << i) | (uint64_t(1) << ((i + 1) % n));
        s.terms.push_back(t);
    }
    for (int i = 0; i < n; ++i) {
        PauliTerm t;
        t.coeff = -h;
        t.xMask = uint64_t(1) << i;
        s.terms.push_back(t);
    }
    return s;
}

}  // namespace spyglass::quantum
