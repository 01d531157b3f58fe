// File > Load Pass Plugin in the main window: the example plugins' passes join the open document's pipeline (a
// model gets the Spyre pass, a circuit the quantum one) with their summaries in the Pipeline, stay for the documents
// opened after, and a plugin built against another Spyglass is a Problems entry naming the file, not a crash.
#include "common/guitestutil.h"
#include "common/testutil.h"

#include "views/document.h"
#include "views/mainwindow.h"
#include "views/problemsview.h"

#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace spyglass;
using namespace spyglass::test;

namespace {

QString plugin(const char* name) { return binaryDir() + QStringLiteral("/tests/plugins/") + QLatin1String(name) + QStringLiteral(".so"); }

const PassRecord* passNamed(const MainWindow& w, const std::string& name)
{
    for (const PassRecord& r : w.document()->passes())
        if (r.name == name)
            return &r;
    return nullptr;
}

}  // namespace

class TestPassPluginGui : public QObject {
    Q_OBJECT
    QTemporaryDir dataHome_;
private slots:
    void initTestCase()
    {
        isolateAppData(dataHome_);
    }

    void loadedPluginsJoinTheOpenAndLaterDocuments()
    {
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/mlp.onnxtxt"))));
        QVERIFY(!passNamed(w, "pin_weight_sticks"));
        QSignalSpy opened(&w, &MainWindow::documentOpened);
        QVERIFY(w.loadPassPlugin(plugin("pin_weight_sticks")));
        QVERIFY(QTest::qWaitFor([&] { return !opened.isEmpty(); }, 60000));
        const PassRecord* pinned = passNamed(w, "pin_weight_sticks");
        QVERIFY(pinned);
        QCOMPARE(pinned->summary, std::string("pinned 2 weights to stick dim 0 (w1, w2)"));
        QVERIFY(pinned->irText.find("[pinned]") != std::string::npos);
        // A circuit opened afterwards gets the quantum plugin's pass once that is loaded too, and not the Spyre one.
        QVERIFY(w.loadPassPlugin(plugin("hcxh_to_cz")));
        QVERIFY(QTest::qWaitFor([&] { return opened.size() >= 2; }, 60000));
        QVERIFY(openAndWait(w, sourcePath(QStringLiteral("resources/examples/bernstein_vazirani6.qasm"))));
        QVERIFY(passNamed(w, "hcxh_to_cz"));
        QVERIFY(!passNamed(w, "pin_weight_sticks"));
    }

    void refusedPluginIsAProblem()
    {
        MainWindow w;
        w.show();
        QVERIFY(!w.loadPassPlugin(plugin("plugin_other_version")));
        QCOMPARE(w.views().problems()->problemCount(), 1);
        const QString text = w.views().problems()->problemText(0);
        QVERIFY2(text.contains(plugin("plugin_other_version")) && text.contains(QStringLiteral("built against Spyglass 0.0.0-other")), qPrintable(text));
    }
};

QTEST_MAIN(TestPassPluginGui)
#include "tst_pass_plugin_gui.moc"
