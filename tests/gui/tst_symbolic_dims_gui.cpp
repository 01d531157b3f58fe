// Opening a model with dynamic input dimensions (issue 14, item 3): the window asks for each symbolic dim's size
// in a dialog, compiles with those sizes (the same LoadOptions::dimValues as `--dim NAME=SIZE`), remembers them per
// model for the next open and for recompiles, and a cancelled dialog compiles nothing.
#include "common/guitestutil.h"
#include "common/testutil.h"

#include "views/document.h"
#include "views/jobrunner.h"
#include "views/mainwindow.h"
#include "views/symbolicdimsdialog.h"

#include "core/spyre/kernel_bundle.h"
#include "core/spyre/loop_ir.h"

#include <QApplication>
#include <QFile>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <functional>

using namespace spyglass;
using namespace spyglass::test;

namespace {

// x [batch, seq, 64] @ w [64, 32] + x's row sums: the dims reach a MatMul and a reduction.
const char* kModel = R"(<
  ir_version: 8,
  opset_import: ["" : 13]
>
g (float[batch, seq, 64] x, float[64, 32] w) => (float[batch, seq, 32] y, float[batch, seq, 1] s)
{
  y = MatMul(x, w)
  s = ReduceSum<keepdims = 1>(x, axes)
}
)";

// The model's text with `axes` as a constant (the textual syntax has no initializer list before the body).
QString writeModel(const QTemporaryDir& dir)
{
    QString text = QString::fromLatin1(kModel);
    text.replace(QStringLiteral("{\n  y ="), QStringLiteral("{\n  axes = Constant<value = int64[1] {2}>()\n  y ="));
    const QString path = dir.filePath(QStringLiteral("dynamic.onnxtxt"));
    QFile f(path);
    if (f.open(QIODevice::WriteOnly))
        f.write(text.toUtf8());
    return path;
}

// When the dialog comes up (modal, inside openFile), `fill` gets it; it then accepts or rejects.
void whenDialogOpens(const std::function<void(SymbolicDimsDialog&)>& fill)
{
    // A timer owned by the application (not a self-referencing callback, which would never be freed).
    auto* poll = new QTimer(qApp);
    QObject::connect(poll, &QTimer::timeout, poll, [poll, fill] {
        if (auto* d = qobject_cast<SymbolicDimsDialog*>(QApplication::activeModalWidget())) {
            poll->stop();
            poll->deleteLater();
            fill(*d);
        }
    });
    poll->start(10);
}

const spyre::GraphTensor* tensorNamed(const spyre::Program& p, const std::string& name)
{
    for (const spyre::GraphTensor& t : p.tensors)
        if (t.name == name)
            return &t;
    return nullptr;
}

}  // namespace

class TestSymbolicDimsGui : public QObject {
    Q_OBJECT
    QTemporaryDir dataHome_;
    QTemporaryDir files_;
private slots:
    void initTestCase() { isolateAppData(dataHome_); }

    void dialogSizesCompileTheModel()
    {
        const QString path = writeModel(files_);
        QCOMPARE(model::symbolicInputDims(path.toStdString()), (std::vector<std::string>{"batch", "seq"}));
        MainWindow w;
        w.show();
        QStringList offered;
        whenDialogOpens([&](SymbolicDimsDialog& d) {
            for (const char* dim : {"batch", "seq"})
                if (QSpinBox* box = d.field(QLatin1String(dim)))
                    offered << QStringLiteral("%1=%2").arg(QLatin1String(dim)).arg(box->value());
            d.field(QStringLiteral("batch"))->setValue(2);
            d.field(QStringLiteral("seq"))->setValue(48);
            d.accept();
        });
        QVERIFY(openAndWait(w, path));
        // Never given before: every field starts at 1.
        QCOMPARE(offered, (QStringList{QStringLiteral("batch=1"), QStringLiteral("seq=1")}));
        const auto& programs = w.document()->compiled().programs;
        QVERIFY(!programs.empty());
        const spyre::GraphTensor* x = tensorNamed(*programs.front(), "x");
        const spyre::GraphTensor* y = tensorNamed(*programs.front(), "y");
        const spyre::GraphTensor* s = tensorNamed(*programs.front(), "s");
        QVERIFY(x && y && s);
        QCOMPARE(x->shape, (spyre::Shape{2, 48, 64}));
        QCOMPARE(y->shape, (spyre::Shape{2, 48, 32}));
        QCOMPARE(s->shape, (spyre::Shape{2, 48, 1}));
        QVERIFY(programs.back()->bundle && !programs.back()->bundle->kernels.empty());
        // A recompile (pins, a plugin) of the same file takes the sizes without asking.
        QCOMPARE(SymbolicDimsDialog::remembered(path), (std::map<std::string, int64_t>{{"batch", 2}, {"seq", 48}}));
    }

    void nextOpenOffersTheLastSizesAndCancelCompilesNothing()
    {
        const QString path = writeModel(files_);
        MainWindow w;
        w.show();
        int batch = -1, seq = -1;
        whenDialogOpens([&](SymbolicDimsDialog& d) {
            batch = d.field(QStringLiteral("batch"))->value();
            seq = d.field(QStringLiteral("seq"))->value();
            d.reject();
        });
        QSignalSpy opened(&w, &MainWindow::documentOpened);
        QSignalSpy failed(&w, &MainWindow::documentFailed);
        w.openFile(path);
        QCOMPARE(batch, 2);
        QCOMPARE(seq, 48);
        // openFile returns after the dialog: a compile would be running now.
        QVERIFY(!w.jobs()->isRunning());
        QVERIFY(w.document()->compiled().programs.empty());
        QCOMPARE(opened.size(), 0);
        QCOMPARE(failed.size(), 0);
    }

    void corpusModelThatTheCliRefusesOpensWithASize()
    {
        // tests/data/bad/symbolic_dim.onnxtxt: `compile` without --dim refuses it naming 'batch'; here the dialog
        // asks for 'batch' and the model compiles.
        const QString path = sourcePath(QStringLiteral("tests/data/bad/symbolic_dim.onnxtxt"));
        MainWindow w;
        w.show();
        QStringList fields;
        whenDialogOpens([&](SymbolicDimsDialog& d) {
            for (const auto& [name, size] : d.values())
                fields << QString::fromStdString(name);
            d.field(QStringLiteral("batch"))->setValue(3);
            d.accept();
        });
        QVERIFY(openAndWait(w, path));
        QCOMPARE(fields, QStringList{QStringLiteral("batch")});
        const spyre::GraphTensor* y = tensorNamed(*w.document()->compiled().programs.front(), "y");
        QVERIFY(y);
        QCOMPARE(y->shape, (spyre::Shape{3, 8}));
    }

    void modelWithoutSymbolicDimsOpensWithoutDialog()
    {
        // A static model: no dialog comes up (the test would wait for one forever otherwise), it just compiles.
        const QString path = sourcePath(QStringLiteral("resources/examples/mlp.onnxtxt"));
        QVERIFY(model::symbolicInputDims(path.toStdString()).empty());
        MainWindow w;
        QVERIFY(openAndWait(w, path));
        QVERIFY(!w.document()->compiled().programs.empty());
    }
};

QTEST_MAIN(TestSymbolicDimsGui)
#include "tst_symbolic_dims_gui.moc"
