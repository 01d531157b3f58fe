#pragma once
// The Problems dock: errors and warnings with their file:line:column (double-click jumps to the source),
// and a Log tab with what the application did (jobs started, finished, cancelled).

#include "core/common/diagnostics.h"

#include <QWidget>

class QPlainTextEdit;
class QTabWidget;
class QTreeWidget;

namespace spyglass {

class ProblemsView : public QWidget {
    Q_OBJECT
public:
    explicit ProblemsView(QWidget* parent = nullptr);

    void clearProblems();
    void addProblem(const Diagnostic& d);
    // An error message that may start with "file:line:column: error: ..." (as InputError formats it).
    void addErrorText(const QString& text);
    void log(const QString& line);

    int problemCount() const;
    QString problemText(int row) const;   // "file:line:col: message", for tests and copy
    QTreeWidget* problemsTree() const { return problems_; }

signals:
    void locationActivated(const QString& file, int line, int column);
    void problemAdded();   // so the window can bring the dock forward

private:
    QTabWidget* tabs_;
    QTreeWidget* problems_;
    QPlainTextEdit* log_;
};

}  // namespace spyglass
