#pragma once
// Line diff between two texts (Myers' O(ND) algorithm), for the IR view's "what did this pass change"
// and for golden-dump tests that want a readable difference.

#include <string>
#include <string_view>
#include <vector>

namespace spyglass {

struct DiffLine {
    enum class Kind { Same, Added, Removed };
    Kind kind = Kind::Same;
    std::string text;
    int oldLine = -1;   // 0-based line in the old text; -1 for added lines
    int newLine = -1;   // 0-based line in the new text; -1 for removed lines
};

std::vector<std::string> splitLines(std::string_view text);

// The shortest edit script from `before` to `after`, as an interleaved listing.
std::vector<DiffLine> diffLines(const std::vector<std::string>& before, const std::vector<std::string>& after);
std::vector<DiffLine> diffTexts(std::string_view before, std::string_view after);

struct DiffStats {
    int added = 0;
    int removed = 0;
};
DiffStats diffStats(const std::vector<DiffLine>& diff);

// A unified-diff style rendering ("+ line", "- line", "  line") for messages in tests.
std::string formatDiff(const std::vector<DiffLine>& diff, int context = 3);

}  // namespace spyglass
