#include "app/cli/cli.h"

#include "core/quantum/distributed_statevector.h"

#include <QCoreApplication>

#include <iostream>

int main(int argc, char** argv)
{
    // Under mpirun every rank runs this; qsim and vqe spread the state vector over them, rank 0 prints.
    if (const auto error = spyglass::quantum::distributed::init(&argc, &argv)) {
        std::cerr << "spyglass-cli: " << *error << '\n';
        spyglass::quantum::distributed::finalize();
        return spyglass::cli::ExitBadInput;
    }
    int code = 0;
    {
        // QCoreApplication gives core code a Qt event loop and QThreadPool; no display is touched.
        QCoreApplication app(argc, argv);
        QCoreApplication::setApplicationName(QStringLiteral("spyglass"));
        QCoreApplication::setOrganizationName(QStringLiteral("spyglass"));
        code = spyglass::cli::runMain(argc, argv);
    }
    spyglass::quantum::distributed::finalize();
    return code;
}
