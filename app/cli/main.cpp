#include "app/cli/cli.h"

#include <QCoreApplication>

int main(int argc, char** argv)
{
    // QCoreApplication gives core code a Qt event loop and QThreadPool; no display is touched.
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("spyglass"));
    QCoreApplication::setOrganizationName(QStringLiteral("spyglass"));
    return spyglass::cli::runMain(argc, argv);
}
