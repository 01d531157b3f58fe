#pragma once
// The Problems dock: errors and warnings with their full file:line:column; double-click opens the file in a
// read-only source pane beside the list, scrolled to the line, with the error's line shaded and its text from the
// column on underlined; and a Log tab with what the application did (jobs started, finished, cancelled).

#include "core/common/diagnostics.h"

#include <QWidget>

#include <functional>

class QLabel;
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

    // Opens `file` in the source pane at line:column (1-based; 0 = unknown) and underlines from there. A file that
    // cannot be read or is not text says so in the pane; `message` is shown above the text. Returns whether the
    // file's text is shown.
    bool showSource(const QString& file, int line, int column, const QString& message = {});
    QPlainTextEdit* sourcePane() const { return source_; }
    QString sourceHeading() const;
    // The underlined range of the source pane: the 1-based line and the [first, last) columns.
    struct Underline {
        int line = 0;
        int firstColumn = 0;
        int endColumn = 0;
    };
    Underline underline() const { return underline_; }

    // Under a problem: a button that runs `action` (e.g. "Bisect numbers"), and lines of what came of it.
    void addAction(int row, const QString& label, std::function<void()> action);
    void addNote(int row, const QString& text);
    QStringList notes(int row) const;   // the lines under the problem, button labels included
    int findProblem(const QString& messageContains) const;   // -1 when none

signals:
    void locationActivated(const QString& file, int line, int column);
    void problemAdded();   // so the window can bring the dock forward

private:
    QTabWidget* tabs_;
    QTreeWidget* problems_;
    QPlainTextEdit* log_;
    QWidget* sourceBox_;
    QLabel* sourceHeading_;
    QPlainTextEdit* source_;
    Underline underline_;
};

class Document;
class JobRunner;
// A failed numbers check's problem offers "Bisect numbers": the bisect (bisectDocumentNumbers) runs as a job, its
// verdict is noted under the problem, its table goes to the Log, and the op it names is selected (Graph, Inspector).
void offerNumbersBisect(ProblemsView* view, Document* document, JobRunner* jobs);

}  // namespace spyglass
