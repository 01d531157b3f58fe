// The line diff behind the IR view: minimal, and it reconstructs both texts.
#include "core/common/text_diff.h"

#include <QtTest>

#include <random>

using namespace spyglass;

namespace {

std::string rebuild(const std::vector<DiffLine>& diff, bool after)
{
    std::string out;
    for (const DiffLine& l : diff) {
        if (l.kind == DiffLine::Kind::Same || (after ? l.kind == DiffLine::Kind::Added : l.kind == DiffLine::Kind::Removed)) {
            out += l.text;
            out += '\n';
        }
    }
    return out;
}

// Classic LCS length by dynamic programming: the reference for minimality.
int lcs(const std::vector<std::string>& a, const std::vector<std::string>& b)
{
    std::vector<std::vector<int>> t(a.size() + 1, std::vector<int>(b.size() + 1, 0));
    for (size_t i = 1; i <= a.size(); ++i)
        for (size_t j = 1; j <= b.size(); ++j)
            t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
    return t[a.size()][b.size()];
}

}  // namespace

class TestTextDiff : public QObject {
    Q_OBJECT
private slots:
    void insertedLineIsTheOnlyChange()
    {
        const auto d = diffTexts("a\nb\nc\n", "a\nb\nX\nc\n");
        const DiffStats s = diffStats(d);
        QCOMPARE(s.added, 1);
        QCOMPARE(s.removed, 0);
        QCOMPARE(d[2].kind, DiffLine::Kind::Added);
        QCOMPARE(QString::fromStdString(d[2].text), QStringLiteral("X"));
        QCOMPARE(d[2].newLine, 2);
    }
    void identicalTextsHaveNoChanges()
    {
        const auto d = diffTexts("x\ny\n", "x\ny\n");
        QCOMPARE(diffStats(d).added + diffStats(d).removed, 0);
        QCOMPARE(d.size(), size_t(2));
    }
    void emptySides()
    {
        QCOMPARE(diffStats(diffTexts("", "a\nb\n")).added, 2);
        QCOMPARE(diffStats(diffTexts("a\nb\n", "")).removed, 2);
        QVERIFY(diffTexts("", "").empty());
    }
    void randomEditsAreMinimalAndReconstruct()
    {
        std::mt19937 rng(7);
        for (int round = 0; round < 200; ++round) {
            std::vector<std::string> a, b;
            const int na = static_cast<int>(rng() % 30), nb = static_cast<int>(rng() % 30);
            for (int i = 0; i < na; ++i) a.push_back(std::string(1, static_cast<char>('a' + rng() % 4)));
            for (int i = 0; i < nb; ++i) b.push_back(std::string(1, static_cast<char>('a' + rng() % 4)));
            const auto d = diffLines(a, b);
            std::string ta, tb;
            for (auto& l : a) ta += l + '\n';
            for (auto& l : b) tb += l + '\n';
            QCOMPARE(rebuild(d, false), ta);
            QCOMPARE(rebuild(d, true), tb);
            const DiffStats s = diffStats(d);
            const int common = lcs(a, b);
            QCOMPARE(s.removed, na - common);
            QCOMPARE(s.added, nb - common);
        }
    }
    void formatShowsContext()
    {
        const std::string f = formatDiff(diffTexts("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nX\n6\n7\n8\n9\n"), 1);
        QVERIFY(f.find("- 5") != std::string::npos);
        QVERIFY(f.find("+ X") != std::string::npos);
        QVERIFY(f.find("  ...") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestTextDiff)
#include "tst_text_diff.moc"
