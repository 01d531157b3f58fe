#include "views/mainwindow.h"

#include "core/common/version.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QTimer>

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
    parser.addPositionalArgument(QStringLiteral("file"),
                                 QStringLiteral("A model (.onnx, .onnxtxt), circuit (.qasm) or kernel bundle to open."));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Open FILE, save a PNG of the window once it is compiled, and quit."),
                                        QStringLiteral("png"));
    parser.addOption(screenshot);
    parser.process(app);

    spyglass::MainWindow window;
    window.show();
    const QStringList files = parser.positionalArguments();
    if (parser.isSet(screenshot)) {
        // Used by the README screenshots and to check that the run command really opens a window.
        const QString out = parser.value(screenshot);
        auto grabAndQuit = [&window, out](int code) {
            QTimer::singleShot(300, &window, [&window, out, code] {
                const bool ok = window.grab().save(out);
                QApplication::exit(ok ? code : 1);
            });
        };
        QObject::connect(&window, &spyglass::MainWindow::documentOpened, &window, [=] { grabAndQuit(0); });
        QObject::connect(&window, &spyglass::MainWindow::documentFailed, &window, [=] { grabAndQuit(2); });
        if (files.isEmpty())
            grabAndQuit(0);
    }
    if (!files.isEmpty())
        window.openFile(files.first());
    return app.exec();
}
