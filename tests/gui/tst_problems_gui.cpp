// Problems you can act on (issue 16 item 8): the full file:line:column is visible in the list; double-clicking a
// problem opens its file in a read-only source pane with the error underlined at that line and column; a failed
// numbers check (a deliberately miscompiling pass plugin, tests/plugins/miscompile.cpp, on the softmax example) is
// an error in Problems and a banner over the views, and a model whose numbers agree has neither.
#include "common/guitestutil.h"
#include "common/testutil.h"

#include "views/document.h"
#include "views/mainwindow.h"
#include "views/problemsview.h"

#include "core/spyre/loop_ir.h"

#include <QDockWidget>
#include <QHeaderView>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

using namespace spyglass;
using namespace spyglass::test;

namespace {

QString plugin(const char* name) { return binaryDir() + QStringLiteral("/tests/plugins/") + QLatin1String(name) + QStringLiteral(".so"); }

}  // namespace

class TestProblemsGui : public QObject {
    Q_OBJECT
    QTemporaryDir dataHome_;
    QTemporaryDir files_;
private slots:
    void initTestCase()
    {
        isolateAppData(dataHome_);
    }

    void doubleClickOpensTheSourceWithTheErrorUnderlined()
    {
        // A long path, so that a narrow Location column would cut it.
        const QString dir = files_.filePath(QStringLiteral("a/rather/deeply/nested/folder/of/circuits"));
        QVERIFY(QDir().mkpath(dir));
        const QString path = dir + QStringLiteral("/out_of_range.qasm");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\nh q[0];\ncx q[0], q[7];\n");
        f.close();

        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(!openAndWait(w, path));
        ProblemsView* problems = w.views().problems();
        QCOMPARE(problems->problemCount(), 1);
        const QString where = path + QStringLiteral(":5:12");
        QVERIFY2(problems->problemText(0).startsWith(where + QStringLiteral(": ")), qPrintable(problems->problemText(0)));
        QVERIFY(w.dock(QStringLiteral("problemsDock"))->isVisible());
        // Shown in full: the Location column is as wide as its text.
        QTreeWidget* tree = problems->problemsTree();
        QTreeWidgetItem* item = tree->topLevelItem(0);
        QCOMPARE(item->text(1), where);
        QVERIFY2(tree->header()->sectionSize(1) >= tree->fontMetrics().horizontalAdvance(where),
                 qPrintable(QStringLiteral("%1 px for %2 px of text").arg(tree->header()->sectionSize(1)).arg(tree->fontMetrics().horizontalAdvance(where))));

        // Double-click: the file in the source pane, read-only, the error's token ("7" of q[7]) underlined.
        const QRect r = tree->visualItemRect(item);
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, Qt::NoModifier, r.center());
        QVERIFY(!problems->sourcePane()->isVisible());   // one click selects, it does not open
        QTest::mouseDClick(tree->viewport(), Qt::LeftButton, Qt::NoModifier, r.center());
        QVERIFY(QTest::qWaitFor([&] { return problems->sourcePane()->isVisible(); }, 2000));
        QVERIFY(problems->sourcePane()->isReadOnly());
        QVERIFY(problems->sourcePane()->toPlainText().contains(QStringLiteral("cx q[0], q[7];")));
        QVERIFY(problems->sourceHeading().contains(where));
        const ProblemsView::Underline u = problems->underline();
        QCOMPARE(u.line, 5);
        QCOMPARE(u.firstColumn, 12);
        QCOMPARE(u.endColumn, 13);
        QCOMPARE(problems->sourcePane()->textCursor().blockNumber(), 4);
        const auto marks = problems->sourcePane()->extraSelections();
        QCOMPARE(marks.size(), 2);
        QCOMPARE(marks[1].cursor.selectedText(), QStringLiteral("7"));
        QCOMPARE(marks[1].format.underlineStyle(), QTextCharFormat::WaveUnderline);
        QTest::qWait(50);
        QVERIFY(w.dock(QStringLiteral("problemsDock"))->grab().save(outputDir() + QStringLiteral("/view-problems-source.png")));

        // A problem without a file says so instead of showing a stale file.
        QVERIFY(!problems->showSource(QString(), 0, 0));
        QVERIFY(problems->sourcePane()->toPlainText().isEmpty());
        // A binary file (an ONNX protobuf) is not dumped as text.
        QVERIFY(!problems->showSource(sourcePath(QStringLiteral("resources/examples/transformer_encoder_layer.onnx")), 0, 0));
        QVERIFY(problems->sourceHeading().contains(QStringLiteral("binary")));
    }

    void failedNumbersCheckIsAnErrorWithABannerAndABisect()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.loadPassPlugin(plugin("miscompile")));
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/softmax.onnxtxt"))));
        bool ran = false;
        for (const PassRecord& p : w.document()->passes())
            ran = ran || (p.name == "swap_division" && p.changed);
        QVERIFY(ran);
        const QString failure = w.document()->compiled().numbersFailure;
        QVERIFY2(!failure.isEmpty(), qPrintable(w.document()->compiled().simulationNote));
        int errors = 0;
        for (const Diagnostic& d : w.document()->diagnostics())
            errors += d.severity == Severity::Error && d.message.find("differ from the reference interpreter") != std::string::npos;
        QCOMPARE(errors, 1);
        bool listed = false;
        for (int i = 0; i < w.views().problems()->problemCount(); ++i)
            listed = listed || (w.views().problems()->problemsTree()->topLevelItem(i)->text(0) == QLatin1String("error") &&
                                w.views().problems()->problemText(i).contains(QStringLiteral("differ from the reference interpreter")));
        QVERIFY(listed);
        // In front of the other bottom docks (not behind Timeline or Charts).
        QVERIFY(!w.dock(QStringLiteral("problemsDock"))->visibleRegion().isEmpty());
        QVERIFY(w.dock(QStringLiteral("timelineDock"))->visibleRegion().isEmpty());
        QVERIFY2(w.numbersBannerText().contains(QStringLiteral("Numbers check failed")), qPrintable(w.numbersBannerText()));
        QVERIFY(w.numbersBannerText().contains(failure.toHtmlEscaped()));
        QTest::qWait(50);
        QVERIFY(w.grab().save(outputDir() + QStringLiteral("/mainwindow-numbers-failed.png")));

        // "Bisect numbers" under the error runs the numbers bisect as a job and names the op the difference comes
        // from, which is the op the pass broke.
        std::string broken;
        for (const PassRecord& p : w.document()->passes())
            if (p.name == "swap_division" && p.changed)
                broken = p.summary.substr(p.summary.rfind(' ') + 1);   // "swapped the division in op3"
        QVERIFY(!broken.empty());
        ProblemsView* problems = w.views().problems();
        const int row = problems->findProblem(QStringLiteral("differ from the reference interpreter"));
        QVERIFY(row >= 0);
        QCOMPARE(problems->notes(row), QStringList{QStringLiteral("Bisect numbers")});
        auto* button = problems->problemsTree()->findChild<QPushButton*>(QStringLiteral("problemAction"));
        QVERIFY(button && button->text() == QStringLiteral("Bisect numbers"));
        QTest::mouseClick(button, Qt::LeftButton);
        QVERIFY2(QTest::qWaitFor([&] { return problems->notes(row).size() >= 3; }, 60000), qPrintable(problems->notes(row).join(QLatin1Char('\n'))));
        const QStringList notes = problems->notes(row);
        QVERIFY2(notes[1].startsWith(QStringLiteral("Bisect: first op beyond rounding: ")), qPrintable(notes.join(QLatin1Char('\n'))));
        // The op named writes the value compared: the one the pass broke, now selected.
        QVERIFY2(notes[2].contains(QStringLiteral(" is written by %1").arg(QString::fromStdString(broken))) &&
                     notes[2].endsWith(QStringLiteral(": selected in the Graph")),
                 qPrintable(notes.join(QLatin1Char('\n'))));
        QCOMPARE(w.document()->selectedNode(), "op:" + broken);
        qInfo("%s", qPrintable(notes.join(QStringLiteral(" | "))));
        QTest::qWait(50);
        QVERIFY(problems->grab().save(outputDir() + QStringLiteral("/view-problems-bisect.png")));
        const QString node = notes[2].section(QStringLiteral(" (output '"), 0, 0);
        QVERIFY2(notes[1].contains(QStringLiteral("first op beyond rounding: %1 ").arg(node)), qPrintable(notes[1]));
    }

    void agreeingNumbersHaveNoBanner()
    {
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/softmax.onnxtxt"))));
        QVERIFY(w.document()->compiled().simulationNote.contains(QStringLiteral("within tolerance")));
        QVERIFY(w.document()->compiled().numbersFailure.isEmpty());
        QVERIFY(w.numbersBannerText().isEmpty());
        QCOMPARE(w.views().problems()->problemCount(), 0);
    }
};

QTEST_MAIN(TestProblemsGui)
#include "tst_problems_gui.moc"
