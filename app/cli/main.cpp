#include "app/cli/cli.h"

#include "core/quantum/distributed_statevector.h"

#include <QCoreApplication>

#include <iostream>
#include <string>

int main(int argc, char** argv)
{
    namespace dist = spyglass::quantum::distributed;
    // Under mpirun every rank runs this; qsim and vqe spread the state vector over them, rank 0 prints.
    if (const auto error = dist::init(&argc, &argv)) {
        std::cerr << "spyglass-cli: " << *error << '\n';
        dist::finalize();
        return spyglass::cli::ExitBadInput;
    }
    // Only qsim and vqe are distributed; any other command runs once, on rank 0 (two ranks writing the same output
    // files would race).
    const std::string command = argc > 1 ? argv[1] : "";
    if (dist::ranks() > 1 && !dist::isRoot() && command != "qsim" && command != "vqe") {
        dist::finalize();
        return 0;
    }
    int code = 0;
    {
        // QCoreApplication gives core code a Qt event loop and QThreadPool; no display is touched.
        QCoreApplication app(argc, argv);
        QCoreApplication::setApplicationName(QStringLiteral("spyglass"));
        QCoreApplication::setOrganizationName(QStringLiteral("spyglass"));
        code = spyglass::cli::runMain(argc, argv);
    }
    dist::finalize();
    return code;
}
