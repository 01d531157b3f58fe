#pragma once
// Where a test finds the checkout and the build tree. These are the only path-specific facts of the test suites,
// compiled into one small library (test_paths.cpp), so every suite's object is the same for any checkout path and
// ccache serves a clone at a new path from the cache.

#include <QString>

namespace spyglass::test {

QString testDataDir();    // tests/data in the checkout
QString sourceDir();      // the checkout
QString binaryDir();      // the build tree
QString cliPath();        // the spyglass-cli binary of this build
QString guiPath();        // the spyglass binary of this build

}  // namespace spyglass::test
