#include "views/mainwindow.h"
namespace spyglass {
MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {}
void MainWindow::openFile(const QString&) {}
}
