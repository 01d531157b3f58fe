#include "views/mainwindow.h"

#include "core/common/version.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("spyglass"));
    QApplication::setApplicationDisplayName(QStringLiteral("Spyglass"));
    QApplication::setOrganizationName(QStringLiteral("spyglass"));
    QApplication::setApplicationVersion(QStringLiteral(SPYGLASS_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/spyglass.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Step through the Spyre and quantum compilers, pass by pass."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("A model (.onnx, .onnxtxt), circuit (.qasm) or kernel bundle to open."));
    parser.process(app);

    spyglass::MainWindow window;
    window.show();
    const QStringList files = parser.positionalArguments();
    if (!files.isEmpty())
        window.openFile(files.first());
    return app.exec();
}
