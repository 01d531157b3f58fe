#include "core/model/einsum.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace spyglass::model {

namespace {

std::string withoutSpaces(const std::string& s)
{
    std::string out;
    for (char c : s)
        if (!std::isspace(static_cast<unsigned char>(c)))
            out += c;
    return out;
}

std::vector<std::string> splitAt(const std::string& s, char sep)
{
    std::vector<std::string> parts(1);
    for (char c : s) {
        if (c == sep)
            parts.emplace_back();
        else
            parts.back() += c;
    }
    return parts;
}

}  // namespace

EinsumSpec parseEinsum(const std::string& equation, const std::vector<int64_t>& ranks)
{
    EinsumSpec spec;
    const std::string eq = withoutSpaces(equation);
    const auto arrow = eq.find("->");
    const std::string lhs = eq.substr(0, arrow);
    const std::vector<std::string> terms = splitAt(lhs, ',');
    if (terms.size() != ranks.size()) {
        spec.error = "the equation has " + std::to_string(terms.size()) + " operand(s), the node " + std::to_string(ranks.size());
        return spec;
    }
    // Expand "..." in each term: letters outside it, the rest of the rank is the ellipsis.
    int64_t ellipsis = 0;
    std::vector<int64_t> ellipsisOf(terms.size(), 0);
    for (size_t k = 0; k < terms.size(); ++k) {
        const std::string& t = terms[k];
        const auto dots = t.find("...");
        int64_t letters = 0;
        for (char c : t)
            if (std::isalpha(static_cast<unsigned char>(c)))
                ++letters;
            else if (c != '.') {
                spec.error = std::string("character '") + c + "' is not an index label";
                return spec;
            }
        const int64_t e = ranks[k] - letters;
        if (dots == std::string::npos ? e != 0 : e < 0) {
            spec.error = "term '" + t + "' does not match an operand of rank " + std::to_string(ranks[k]);
            return spec;
        }
        if (e > 10) {
            spec.error = "an ellipsis of more than 10 dimensions is not supported";
            return spec;
        }
        ellipsisOf[k] = e;
        ellipsis = std::max(ellipsis, e);
    }
    auto ellipsisLabels = [&](int64_t count) {
        std::string s;
        for (int64_t d = ellipsis - count; d < ellipsis; ++d)
            s += static_cast<char>('0' + d);
        return s;
    };
    auto expand = [&](const std::string& t, int64_t count) {
        const auto dots = t.find("...");
        if (dots == std::string::npos)
            return t;
        return t.substr(0, dots) + ellipsisLabels(count) + t.substr(dots + 3);
    };
    for (size_t k = 0; k < terms.size(); ++k)
        spec.inputs.push_back(expand(terms[k], ellipsisOf[k]));
    if (arrow != std::string::npos) {
        const std::string rhs = eq.substr(arrow + 2);
        if (rhs.find("...") == std::string::npos && ellipsis > 0) {
            spec.error = "the output drops the ellipsis dimensions";
            return spec;
        }
        spec.output = expand(rhs, ellipsis);
        for (char c : spec.output)
            if (std::count(spec.output.begin(), spec.output.end(), c) > 1 ||
                std::none_of(spec.inputs.begin(), spec.inputs.end(), [c](const std::string& s) { return s.find(c) != std::string::npos; })) {
                spec.error = std::string("output label '") + c + "' is repeated or appears in no operand";
                return spec;
            }
    } else {
        std::map<char, int> uses;
        for (const std::string& s : spec.inputs)
            for (char c : s)
                if (std::isalpha(static_cast<unsigned char>(c)))
                    ++uses[c];
        spec.output = ellipsisLabels(ellipsis);
        for (const auto& [c, n] : uses)
            if (n == 1)
                spec.output += c;
    }
    return spec;
}

}  // namespace spyglass::model
