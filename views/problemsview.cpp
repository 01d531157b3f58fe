#include "views/problemsview.h"

#include <QDateTime>
#include <QHeaderView>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QStyle>
#include <QTabWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

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
    log_ = new QPlainTextEdit(tabs_);
    log_->setObjectName(QStringLiteral("logText"));
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(5000);
    tabs_->addTab(problems_, tr("Problems"));
    tabs_->addTab(log_, tr("Log"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(tabs_);

    connect(problems_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
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
    item->setData(ColLocation, RoleFile, QString::fromStdString(d.location.file));
    item->setData(ColLocation, RoleLine, d.location.line);
    item->setData(ColLocation, RoleColumn, d.location.column);
    QString message = QString::fromStdString(d.message);
    if (!d.node.empty())
        message = QString::fromStdString(d.node) + QStringLiteral(": ") + message;
    item->setText(ColMessage, message);
    item->setToolTip(ColMessage, QString::fromStdString(d.format()));
    tabs_->setCurrentWidget(problems_);
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

int ProblemsView::problemCount() const { return problems_->topLevelItemCount(); }

QString ProblemsView::problemText(int row) const
{
    const QTreeWidgetItem* item = problems_->topLevelItem(row);
    return item ? item->text(ColLocation) + QStringLiteral(": ") + item->text(ColMessage) : QString();
}

}  // namespace spyglass
