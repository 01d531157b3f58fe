// docs/screenshots/ir.png and inspector.png: the IR view and the Inspector of the attention block, which needs a restickify, at the
// default layout of a 1600x1000 window, each showing what a reader needs to make sense of it alone (the IR of the
// pass that inserted the copy, the Inspector on that copy).
#include "common/guitestutil.h"
#include "common/testutil.h"

#include "views/document.h"
#include "views/graphview.h"
#include "views/inspectorview.h"
#include "views/irview.h"
#include "views/mainwindow.h"

#include <QDockWidget>
#include <QPlainTextEdit>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace spyglass;
using namespace spyglass::test;

class TestViewScreenshots : public QObject {
    Q_OBJECT
    QTemporaryDir dataHome_;
private slots:
    void initTestCase() { isolateAppData(dataHome_); }

    void irViewAndInspectorOnARestickify()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/attention_block.onnxtxt"))));
        Document& d = *w.document();
        int pass = -1;
        for (size_t i = 0; i < d.passes().size(); ++i)
            if (d.passes()[i].name == "insert_restickify")
                pass = static_cast<int>(i);
        QVERIFY(pass >= 0);
        d.selectPass(pass);
        GraphView& g = *w.views().graph();
        QVERIFY(QTest::qWaitFor([&] { return !g.isLayingOut(); }, 60000));
        std::string copy;
        for (const GraphSpec::Node& n : g.graph().nodes)
            if (n.id.rfind("op:rs_", 0) == 0)
                copy = n.id;
        QVERIFY2(!copy.empty(), "insert_restickify adds an rs_ copy");
        QVERIFY(g.selectNode(copy));
        const QString heading = w.views().inspector()->heading();
        QVERIFY2(heading.startsWith(QString::fromStdString(copy.substr(3))), qPrintable(heading));
        QTest::qWait(20);
        const QImage inspector = w.dock(QStringLiteral("inspectorDock"))->grab().toImage();
        QVERIFY(inspector.width() >= 250 && inspector.height() >= 400);
        QVERIFY(distinctColours(inspector) > 4);
        inspector.save(outputDir() + QStringLiteral("/inspector.png"));

        w.views().centralTabs()->setCurrentWidget(w.views().ir());
        QTest::qWait(20);
        QCOMPARE(w.views().ir()->editor()->toPlainText().toStdString(), d.selectedRecord()->irText);
        QVERIFY(w.views().ir()->editor()->toPlainText().contains(QString::fromStdString(copy.substr(3))));
        const QImage ir = w.views().ir()->grab().toImage();
        QVERIFY(ir.width() >= 800 && ir.height() >= 400);
        QVERIFY(distinctColours(ir) > 8);   // highlighted: keywords, types, names and numbers in their colours
        ir.save(outputDir() + QStringLiteral("/ir.png"));
    }
};

QTEST_MAIN(TestViewScreenshots)
#include "tst_view_screenshots.moc"
