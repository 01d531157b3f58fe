// The IR view: shows the selected pass's text, diffs it against the pass before, finds text.
#include "common/testutil.h"

#include "views/document.h"
#include "views/irview.h"

#include <QCheckBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QtTest>

using namespace spyglass;

namespace {
CompiledDocument threePasses()
{
    CompiledDocument doc;
    doc.path = QStringLiteral("/tmp/example.qasm");
    doc.kind = DocumentKind::Circuit;
    doc.passes.push_back({"source", "", true, "", 0.1, "h q0\ncx q0, q1\ncx q0, q1\nmeasure q0\n"});
    doc.passes.push_back({"cancel_inverses", "", true, "removed 2 gates", 0.1, "h q0\nmeasure q0\n"});
    doc.passes.push_back({"remove_identities", "", false, "nothing to do", 0.1, "h q0\nmeasure q0\n"});
    return doc;
}
}  // namespace

class TestIrView : public QObject {
    Q_OBJECT
private slots:
    void showsSelectedPassText()
    {
        Document d;
        IrView v(&d);
        d.setCompiled(threePasses());
        QCOMPARE(v.editor()->toPlainText(), QStringLiteral("h q0\nmeasure q0\n"));
        d.selectPass(0);
        QVERIFY(v.editor()->toPlainText().contains(QStringLiteral("cx q0, q1")));
    }
    void diffMarksRemovedLines()
    {
        Document d;
        IrView v(&d);
        d.setCompiled(threePasses());
        d.selectPass(1);
        v.setDiffMode(true);
        QCOMPARE(v.removedLines(), 2);
        QCOMPARE(v.addedLines(), 0);
        // The inline diff lists the removed lines too, shaded.
        QCOMPARE(v.editor()->toPlainText().count(QStringLiteral("cx q0, q1")), 2);
        QCOMPARE(v.editor()->extraSelections().size(), 2);
        d.selectPass(2);   // an unchanged pass has an empty diff
        QCOMPARE(v.removedLines() + v.addedLines(), 0);
    }
    void findAndReveal()
    {
        Document d;
        IrView v(&d);
        v.show();
        d.setCompiled(threePasses());
        d.selectPass(0);
        QVERIFY(v.revealText(QStringLiteral("measure")));
        QCOMPARE(v.editor()->textCursor().selectedText(), QStringLiteral("measure"));
        v.showFind();
        auto* find = v.findChild<QLineEdit*>(QStringLiteral("irFind"));
        QVERIFY(find && find->isVisible());
        find->setText(QStringLiteral("cx"));
        QVERIFY(v.findNext());
        const int first = v.editor()->textCursor().blockNumber();
        QVERIFY(v.findNext());
        QCOMPARE(v.editor()->textCursor().blockNumber(), first + 1);
        QVERIFY(!v.revealText(QStringLiteral("no such text")));
    }
};

QTEST_MAIN(TestIrView)
#include "tst_irview.moc"
