#include "core/common/text_diff.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

namespace spyglass {

std::vector<std::string> splitLines(std::string_view text)
{
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        lines.emplace_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

std::vector<DiffLine> diffLines(const std::vector<std::string>& a, const std::vector<std::string>& b)
{
    // Compare interned ids, not strings, in the inner loop.
    std::unordered_map<std::string_view, int> ids;
    auto intern = [&ids](const std::vector<std::string>& lines) {
        std::vector<int> out;
        out.reserve(lines.size());
        for (const std::string& l : lines)
            out.push_back(ids.emplace(l, static_cast<int>(ids.size())).first->second);
        return out;
    };
    const std::vector<int> x = intern(a), y = intern(b);
    const int n = static_cast<int>(x.size()), m = static_cast<int>(y.size());
    const int max = n + m;
    const int offset = max + 1;
    std::vector<int> v(static_cast<size_t>(2 * max + 3), 0);
    std::vector<std::vector<int>> trace;   // v after each d, for backtracking

    int finalD = 0;
    for (int d = 0; d <= max; ++d) {
        trace.push_back(v);
        bool done = false;
        for (int k = -d; k <= d; k += 2) {
            int px;
            if (k == -d || (k != d && v[static_cast<size_t>(offset + k - 1)] < v[static_cast<size_t>(offset + k + 1)]))
                px = v[static_cast<size_t>(offset + k + 1)];   // down: insertion
            else
                px = v[static_cast<size_t>(offset + k - 1)] + 1;   // right: deletion
            int py = px - k;
            while (px < n && py < m && x[static_cast<size_t>(px)] == y[static_cast<size_t>(py)]) {
                ++px;
                ++py;
            }
            v[static_cast<size_t>(offset + k)] = px;
            if (px >= n && py >= m) {
                done = true;
                break;
            }
        }
        if (done) {
            finalD = d;
            break;
        }
    }

    // Backtrack from (n, m) to (0, 0) through the saved frontiers.
    std::vector<DiffLine> out;
    int px = n, py = m;
    for (int d = finalD; d > 0; --d) {
        const std::vector<int>& vd = trace[static_cast<size_t>(d)];
        const int k = px - py;
        int prevK;
        if (k == -d || (k != d && vd[static_cast<size_t>(offset + k - 1)] < vd[static_cast<size_t>(offset + k + 1)]))
            prevK = k + 1;
        else
            prevK = k - 1;
        const int prevX = vd[static_cast<size_t>(offset + prevK)];
        const int prevY = prevX - prevK;
        while (px > prevX && py > prevY) {
            --px;
            --py;
            out.push_back({DiffLine::Kind::Same, a[static_cast<size_t>(px)], px, py});
        }
        if (px == prevX) {
            --py;
            out.push_back({DiffLine::Kind::Added, b[static_cast<size_t>(py)], -1, py});
        } else {
            --px;
            out.push_back({DiffLine::Kind::Removed, a[static_cast<size_t>(px)], px, -1});
        }
        px = prevX;
        py = prevY;
    }
    while (px > 0 && py > 0) {
        --px;
        --py;
        out.push_back({DiffLine::Kind::Same, a[static_cast<size_t>(px)], px, py});
    }
    std::reverse(out.begin(), out.end());
    return out;
}

std::vector<DiffLine> diffTexts(std::string_view before, std::string_view after)
{
    return diffLines(splitLines(before), splitLines(after));
}

DiffStats diffStats(const std::vector<DiffLine>& diff)
{
    DiffStats s;
    for (const DiffLine& l : diff) {
        if (l.kind == DiffLine::Kind::Added)
            ++s.added;
        else if (l.kind == DiffLine::Kind::Removed)
            ++s.removed;
    }
    return s;
}

std::string formatDiff(const std::vector<DiffLine>& diff, int context)
{
    std::vector<bool> keep(diff.size(), false);
    for (size_t i = 0; i < diff.size(); ++i)
        if (diff[i].kind != DiffLine::Kind::Same)
            for (long j = std::max<long>(0, static_cast<long>(i) - context);
                 j <= std::min<long>(static_cast<long>(diff.size()) - 1, static_cast<long>(i) + context); ++j)
                keep[static_cast<size_t>(j)] = true;
    std::string out;
    bool skipped = false;
    for (size_t i = 0; i < diff.size(); ++i) {
        if (!keep[i]) {
            skipped = true;
            continue;
        }
        if (skipped) {
            out += "  ...\n";
            skipped = false;
        }
        const char mark = diff[i].kind == DiffLine::Kind::Added ? '+' : diff[i].kind == DiffLine::Kind::Removed ? '-' : ' ';
        out += mark;
        out += ' ';
        out += diff[i].text;
        out += '\n';
    }
    return out;
}

}  // namespace spyglass
