#include "tests/paths/test_paths.h"

namespace spyglass::test {

QString testDataDir() { return QStringLiteral(SPYGLASS_TEST_DATA_DIR); }
QString sourceDir() { return QStringLiteral(SPYGLASS_SOURCE_DIR); }
QString binaryDir() { return QStringLiteral(SPYGLASS_BINARY_DIR); }
QString cliPath() { return QStringLiteral(SPYGLASS_CLI_PATH); }
QString guiPath() { return QStringLiteral(SPYGLASS_GUI_PATH); }

}  // namespace spyglass::test
