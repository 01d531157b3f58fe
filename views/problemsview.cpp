#include "views/problemsview.h"

#include "views/document.h"
#include "views/jobrunner.h"

#include "core/common/input_file.h"
#include "core/spyre/loop_ir.h"

#include <QDateTime>
#include <QFileInfo>
#include <QLabel>
#include <QSplitter>
#include <QTextBlock>
#include <QFontDatabase>
#include <QHeaderView>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QStyle>
#include <QTabWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace spyglass {

namespace {
enum Column { ColSeverity, ColLocation, ColMessage, ColCount };
enum Role { RoleFile = Qt::UserRole, RoleLine, RoleColumn };
}

ProblemsView::ProblemsView(QWidget* parent) : QWidget(parent)
{
    tabs_ = new QTabWidget(this);
    problems_ = new QTreeWidget(tabs_);
    problems_->setObjectName(QStringLiteral("problemsTree"));
    problems_->setColumnCount(ColCount);
    problems_->setHeaderLabels({tr("Severity"), tr("Location"), tr("Message")});
    problems_->setRootIsDecorated(false);
    problems_->header()->setStretchLastSection(true);
    // The location in full (a path can be long): sized to its text, and cut at the left, never the line:column.
    problems_->header()->setSectionResizeMode(ColSeverity, QHeaderView::ResizeToContents);
    problems_->header()->setSectionResizeMode(ColLocation, QHeaderView::ResizeToContents);
    problems_->setTextElideMode(Qt::ElideLeft);
    problems_->setWordWrap(true);
    log_ = new QPlainTextEdit(tabs_);
    log_->setObjectName(QStringLiteral("logText"));
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(5000);
    sourceBox_ = new QWidget(tabs_);
    sourceHeading_ = new QLabel(sourceBox_);
    sourceHeading_->setObjectName(QStringLiteral("sourceHeading"));
    sourceHeading_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    source_ = new QPlainTextEdit(sourceBox_);
    source_->setObjectName(QStringLiteral("sourcePane"));
    source_->setReadOnly(true);
    source_->setLineWrapMode(QPlainTextEdit::NoWrap);
    source_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    auto* sourceLayout = new QVBoxLayout(sourceBox_);
    sourceLayout->setContentsMargins(0, 0, 0, 0);
    sourceLayout->addWidget(sourceHeading_);
    sourceLayout->addWidget(source_, 1);
    sourceBox_->hide();   // until a problem is opened
    auto* split = new QSplitter(Qt::Horizontal, tabs_);
    split->addWidget(problems_);
    split->addWidget(sourceBox_);
    tabs_->addTab(split, tr("Problems"));
    tabs_->addTab(log_, tr("Log"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(tabs_);

    // Double-click (itemDoubleClicked, whatever the style's single-click activation) or Enter (itemActivated).
    auto open = [this](QTreeWidgetItem* item) {
        showSource(item->data(ColLocation, RoleFile).toString(), item->data(ColLocation, RoleLine).toInt(), item->data(ColLocation, RoleColumn).toInt(),
                   item->text(ColSeverity) + QStringLiteral(": ") + item->text(ColMessage));
    };
    connect(problems_, &QTreeWidget::itemDoubleClicked, this, open);
    connect(problems_, &QTreeWidget::itemActivated, this, [this, open](QTreeWidgetItem* item) {
        if (!sourceBox_->isVisible() || underline_.line != item->data(ColLocation, RoleLine).toInt())
            open(item);
        emit locationActivated(item->data(ColLocation, RoleFile).toString(), item->data(ColLocation, RoleLine).toInt(),
                               item->data(ColLocation, RoleColumn).toInt());
    });
}

void ProblemsView::clearProblems() { problems_->clear(); }

void ProblemsView::addProblem(const Diagnostic& d)
{
    auto* item = new QTreeWidgetItem(problems_);
    item->setText(ColSeverity, QString::fromLatin1(severityName(d.severity)));
    item->setIcon(ColSeverity, style()->standardIcon(d.severity == Severity::Error ? QStyle::SP_MessageBoxCritical
                                                                                   : QStyle::SP_MessageBoxWarning));
    QString loc = QString::fromStdString(d.location.file);
    if (d.location.line > 0)
        loc += QLatin1Char(':') + QString::number(d.location.line);
    if (d.location.column > 0)
        loc += QLatin1Char(':') + QString::number(d.location.column);
    item->setText(ColLocation, loc);
    item->setToolTip(ColLocation, loc);
    item->setData(ColLocation, RoleFile, QString::fromStdString(d.location.file));
    item->setData(ColLocation, RoleLine, d.location.line);
    item->setData(ColLocation, RoleColumn, d.location.column);
    QString message = QString::fromStdString(d.message);
    if (!d.node.empty())
        message = QString::fromStdString(d.node) + QStringLiteral(": ") + message;
    item->setText(ColMessage, message);
    item->setToolTip(ColMessage, QString::fromStdString(d.format()));
    tabs_->setCurrentIndex(0);
    log(QString::fromLatin1(severityName(d.severity)) + QStringLiteral(": ") + loc + QStringLiteral(": ") + message);
    emit problemAdded();
}

void ProblemsView::addErrorText(const QString& text)
{
    // "path:12:5: error: message" (the first line of InputError::what()).
    static const QRegularExpression re(QStringLiteral(R"(^(.+?):(\d+)(?::(\d+))?: (error|warning): (.*)$)"));
    Diagnostic d;
    const QString first = text.section(QLatin1Char('\n'), 0, 0);
    const auto m = re.match(first);
    if (m.hasMatch()) {
        d.location = SourceLocation{m.captured(1).toStdString(), m.captured(2).toInt(), m.captured(3).toInt()};
        d.severity = m.captured(4) == QLatin1String("warning") ? Severity::Warning : Severity::Error;
        d.message = m.captured(5).toStdString();
    } else {
        static const QRegularExpression fileOnly(QStringLiteral(R"(^(/[^:]+): (error|warning): (.*)$)"));
        const auto f = fileOnly.match(first);
        if (f.hasMatch()) {
            d.location.file = f.captured(1).toStdString();
            d.message = f.captured(3).toStdString();
        } else {
            d.message = first.toStdString();
        }
    }
    addProblem(d);
}

void ProblemsView::log(const QString& line)
{
    log_->appendPlainText(QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss.zzz  ")) + line);
}

QString ProblemsView::sourceHeading() const { return sourceHeading_->text(); }

bool ProblemsView::showSource(const QString& file, int line, int column, const QString& message)
{
    if (!sourceBox_->isVisible())
        if (auto* split = qobject_cast<QSplitter*>(sourceBox_->parentWidget()))
            split->setSizes({split->width() * 11 / 20, split->width() * 9 / 20});   // the list keeps its messages readable
    sourceBox_->show();
    underline_ = {};
    source_->setExtraSelections({});
    QString where = file;
    if (line > 0)
        where += QStringLiteral(":%1").arg(line) + (column > 0 ? QStringLiteral(":%1").arg(column) : QString());
    if (file.isEmpty()) {
        sourceHeading_->setText(tr("This problem names no file."));
        source_->clear();
        return false;
    }
    std::string bytes;
    try {
        // The explorer's own bound on documents; a source with an error in it is far smaller.
        bytes = readInputFile(file.toStdString(), "a source file", 64ull * 1024 * 1024);
    } catch (const InputError& e) {
        sourceHeading_->setText(tr("%1: cannot show it").arg(where));
        source_->setPlainText(QString::fromStdString(e.diagnostic().message));
        return false;
    }
    if (bytes.find('\0') != std::string::npos) {
        sourceHeading_->setText(tr("%1: a binary file (e.g. an ONNX protobuf); the message names the node").arg(where));
        source_->clear();
        return false;
    }
    source_->setPlainText(QString::fromUtf8(bytes));
    sourceHeading_->setText(message.isEmpty() ? tr("%1 (read-only)").arg(where) : tr("%1: %2 (read-only)").arg(where, message));
    const QTextBlock block = source_->document()->findBlockByNumber(line - 1);
    if (line <= 0 || !block.isValid())
        return true;
    QList<QTextEdit::ExtraSelection> marks;
    QTextEdit::ExtraSelection shade;
    shade.format.setBackground(QColor(0xff, 0xec, 0xec));
    shade.format.setProperty(QTextFormat::FullWidthSelection, true);
    shade.cursor = QTextCursor(block);
    marks << shade;
    // From the column to the end of the token there (a whole line when the column is unknown).
    const QString text = block.text();
    int first = column > 0 ? std::min<int>(column - 1, std::max<int>(0, text.size() - 1)) : 0;
    int end = first;
    if (column > 0) {
        while (end < text.size() && !text[end].isSpace() && (end == first || (text[end].isLetterOrNumber() || text[end] == QLatin1Char('_'))))
            ++end;
    } else {
        end = static_cast<int>(text.size());
    }
    end = std::max(end, std::min<int>(first + 1, text.size()));
    QTextEdit::ExtraSelection wave;
    wave.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
    wave.format.setUnderlineColor(Qt::red);
    wave.cursor = QTextCursor(block);
    wave.cursor.setPosition(block.position() + first);
    wave.cursor.setPosition(block.position() + end, QTextCursor::KeepAnchor);
    marks << wave;
    source_->setExtraSelections(marks);
    underline_ = {line, first + 1, end + 1};
    QTextCursor at(block);
    at.setPosition(block.position() + first);
    source_->setTextCursor(at);
    source_->centerCursor();
    return true;
}

void ProblemsView::addAction(int row, const QString& label, std::function<void()> action)
{
    QTreeWidgetItem* item = problems_->topLevelItem(row);
    if (!item)
        return;
    auto* child = new QTreeWidgetItem(item);
    child->setText(ColLocation, label);   // what notes() reports; the button covers it
    auto* button = new QPushButton(label, problems_);
    button->setObjectName(QStringLiteral("problemAction"));
    connect(button, &QPushButton::clicked, this, std::move(action));
    problems_->setItemWidget(child, ColLocation, button);
    item->setExpanded(true);
}

void ProblemsView::addNote(int row, const QString& text)
{
    QTreeWidgetItem* item = problems_->topLevelItem(row);
    if (!item)
        return;
    auto* child = new QTreeWidgetItem(item);
    child->setText(ColMessage, text);
    child->setToolTip(ColMessage, text);
    item->setExpanded(true);
}

QStringList ProblemsView::notes(int row) const
{
    QStringList out;
    if (const QTreeWidgetItem* item = problems_->topLevelItem(row))
        for (int i = 0; i < item->childCount(); ++i)
            out << (item->child(i)->text(ColMessage).isEmpty() ? item->child(i)->text(ColLocation) : item->child(i)->text(ColMessage));
    return out;
}

int ProblemsView::findProblem(const QString& messageContains) const
{
    for (int i = 0; i < problems_->topLevelItemCount(); ++i)
        if (problems_->topLevelItem(i)->text(ColMessage).contains(messageContains))
            return i;
    return -1;
}

void offerNumbersBisect(ProblemsView* view, Document* document, JobRunner* jobs)
{
    QObject::connect(document, &Document::documentChanged, view, [view, document, jobs] {
        const CompiledDocument& doc = document->compiled();
        const int row = doc.numbersFailure.isEmpty() ? -1 : view->findProblem(doc.numbersFailure);
        if (row < 0)
            return;
        view->addAction(row, ProblemsView::tr("Bisect numbers"), [view, document, jobs, row] {
            const CompiledDocument doc = document->compiled();
            const auto bisected = doc.programs.empty() ? nullptr : doc.programs.back();
            jobs->start(
                ProblemsView::tr("Bisecting the numbers of %1").arg(QFileInfo(doc.path).fileName()),
                [doc](JobControl& control) -> std::any { return bisectDocumentNumbers(doc, control); },
                [view, document, row, bisected](std::any result) {
                    if (document->compiled().programs.empty() || document->compiled().programs.back() != bisected)
                        return;   // another compile replaced the one bisected
                    const auto report = std::any_cast<spyresim::BisectReport>(std::move(result));
                    const QString text = QString::fromStdString(report.text());
                    view->log(text.trimmed());
                    view->addNote(row, QStringLiteral("Bisect: ") + text.trimmed().section(QLatin1Char('\n'), -1));
                    const int named = report.firstExceeding >= 0 ? report.firstExceeding : report.largestAmplification;
                    if (named < 0)
                        return;
                    // The Spyre ops that compute the ONNX node the bisect names (decompose's products carry its name
                    // as a prefix), and of them the one that writes the value compared.
                    const spyresim::BisectStep& step = report.steps[static_cast<size_t>(named)];
                    const size_t q = step.node.find('\'');
                    const std::string quoted = q == std::string::npos ? step.node : step.node.substr(q);   // "'Softmax_0'"
                    const std::string prefix = quoted.substr(0, quoted.size() - 1) + "/";
                    QStringList computing;
                    const spyre::Op* writer = nullptr;
                    for (const spyre::Op& op : bisected->ops) {
                        const bool computes = std::any_of(op.origins.begin(), op.origins.end(), [&](const std::string& o) {
                            return o.find(quoted) != std::string::npos || o.find(prefix) != std::string::npos;
                        });
                        if (computes)
                            computing << QString::fromStdString(op.name);
                        if (op.store.buffer >= 0 && op.store.buffer < static_cast<int>(bisected->buffers.size()) &&
                            bisected->buffers[static_cast<size_t>(op.store.buffer)].origin == step.value)
                            writer = &op;
                    }
                    if (!writer)
                        return;
                    view->addNote(row, ProblemsView::tr("%1 (output '%2') is written by %3%4: selected in the Graph")
                                           .arg(QString::fromStdString(step.node), QString::fromStdString(step.value), QString::fromStdString(writer->name),
                                                computing.size() > 1 ? ProblemsView::tr(" (%1 compute it)").arg(computing.join(QStringLiteral(", "))) : QString()));
                    document->selectNode("op:" + writer->name);
                });
        });
    });
}

int ProblemsView::problemCount() const { return problems_->topLevelItemCount(); }

QString ProblemsView::problemText(int row) const
{
    const QTreeWidgetItem* item = problems_->topLevelItem(row);
    return item ? item->text(ColLocation) + QStringLiteral(": ") + item->text(ColMessage) : QString();
}

}  // namespace spyglass
