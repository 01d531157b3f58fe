#include "views/inspectorview.h"

#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace spyglass {

InspectorView::InspectorView(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("inspectorView"));
    heading_ = new QLabel(tr("Nothing selected"), this);
    heading_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont f = heading_->font();
    f.setBold(true);
    heading_->setFont(f);
    tree_ = new QTreeWidget(this);
    tree_->setColumnCount(2);
    tree_->setHeaderLabels({tr("Property"), tr("Value")});
    tree_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    tree_->setAlternatingRowColors(true);
    tree_->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(heading_);
    layout->addWidget(tree_, 1);
}

void InspectorView::show(const QString& heading, const std::vector<InspectorSection>& sections)
{
    heading_->setText(heading);
    tree_->clear();
    for (const auto& section : sections) {
        auto* top = new QTreeWidgetItem(tree_, {section.title});
        QFont f = top->font(0);
        f.setBold(true);
        top->setFont(0, f);
        top->setFirstColumnSpanned(true);
        for (const auto& [k, v] : section.rows) {
            auto* row = new QTreeWidgetItem(top, {k, v});
            row->setToolTip(1, v);
        }
        top->setExpanded(true);
    }
}

void InspectorView::clear()
{
    heading_->setText(tr("Nothing selected"));
    tree_->clear();
}

QString InspectorView::heading() const { return heading_->text(); }

QString InspectorView::value(const QString& key) const
{
    for (int i = 0; i < tree_->topLevelItemCount(); ++i) {
        QTreeWidgetItem* top = tree_->topLevelItem(i);
        for (int j = 0; j < top->childCount(); ++j)
            if (top->child(j)->text(0) == key)
                return top->child(j)->text(1);
    }
    return {};
}

}  // namespace spyglass
