#pragma once
// Helpers for the GUI suites (tests/gui): opening a document in a real MainWindow and checking pictures.

#include "views/mainwindow.h"

#include <QImage>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QSignalSpy>
#include <QtTest>

#include <set>

namespace spyglass::test {

// The app's settings and session history in `home` and Qt's test locations, never the user's or another suite's.
inline void isolateAppData(const QTemporaryDir& home)
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    qputenv("XDG_DATA_HOME", home.path().toLocal8Bit());
}

// Opens `path` and waits until it compiled (true) or failed (false).
inline bool openAndWait(MainWindow& w, const QString& path, int timeoutMs = 60000)
{
    QSignalSpy opened(&w, &MainWindow::documentOpened);
    QSignalSpy failed(&w, &MainWindow::documentFailed);
    w.openFile(path);
    return QTest::qWaitFor([&] { return !opened.isEmpty() || !failed.isEmpty(); }, timeoutMs) && !opened.isEmpty();
}

// Distinct colours in an image (sampled every third pixel): a blank or single-colour grab has very few.
inline int distinctColours(const QImage& img)
{
    std::set<QRgb> colours;
    for (int y = 0; y < img.height(); y += 3)
        for (int x = 0; x < img.width(); x += 3)
            colours.insert(img.pixel(x, y));
    return static_cast<int>(colours.size());
}

}  // namespace spyglass::test
