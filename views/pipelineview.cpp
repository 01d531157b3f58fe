#include "views/pipelineview.h"

#include "views/document.h"

#include "core/spyre/pass_explain.h"
#include "core/spyresim/spyre_simulator.h"

#include <QCheckBox>
#include <QHeaderView>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <map>

namespace spyglass {

namespace {
enum Column { ColIndex, ColPass, ColSummary, ColTime, ColCount };
}

PipelineView::PipelineView(Document* document, QWidget* parent) : QWidget(parent), document_(document)
{
    tree_ = new QTreeWidget(this);
    tree_->setObjectName(QStringLiteral("pipelineTree"));
    tree_->setColumnCount(ColCount);
    tree_->setHeaderLabels({QStringLiteral("#"), QStringLiteral("Pass"), QStringLiteral("What it did"), QStringLiteral("ms")});
    tree_->setRootIsDecorated(true);
    tree_->setUniformRowHeights(true);
    tree_->setAlternatingRowColors(true);
    tree_->header()->setSectionResizeMode(ColSummary, QHeaderView::Stretch);
    tree_->header()->setStretchLastSection(false);
    hideUnchanged_ = new QCheckBox(tr("Hide unchanged passes"), this);
    hideUnchanged_->setObjectName(QStringLiteral("hideUnchanged"));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(tree_);
    layout->addWidget(hideUnchanged_);

    connect(document_, &Document::documentChanged, this, &PipelineView::rebuild);
    connect(document_, &Document::selectedPassChanged, this, &PipelineView::syncSelection);
    connect(hideUnchanged_, &QCheckBox::toggled, this, &PipelineView::applyFilter);
    connect(tree_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (!syncing_ && item)
            document_->selectPass(item->data(ColIndex, Qt::UserRole).toInt());
    });
    rebuild();
}

void PipelineView::setHideUnchanged(bool hide) { hideUnchanged_->setChecked(hide); }

void PipelineView::rebuild()
{
    syncing_ = true;
    tree_->clear();
    const auto& passes = document_->passes();
    // Model documents: each pass expands into what it did, in sentences (core/spyre/pass_explain.h).
    const auto& programs = document_->compiled().programs;
    std::map<std::string, double> kernelNs;
    if (const auto& sim = document_->compiled().simulation)
        for (const auto& k : sim->kernels)
            kernelNs[k.name] = k.timeNs;
    for (size_t i = 0; i < passes.size(); ++i) {
        const PassRecord& p = passes[i];
        auto* item = new QTreeWidgetItem(tree_);
        if (i > 0 && i < programs.size() && programs[i - 1] && programs[i])
            for (const std::string& line : spyre::explainPass(p.name, *programs[i - 1], *programs[i], kernelNs)) {
                auto* child = new QTreeWidgetItem(item);
                child->setData(ColIndex, Qt::UserRole, static_cast<int>(i));   // selecting a line selects its pass
                child->setText(ColIndex, QString::fromStdString(line));
                child->setToolTip(ColIndex, QString::fromStdString(line));
                child->setFirstColumnSpanned(true);
            }
        item->setData(ColIndex, Qt::UserRole, static_cast<int>(i));
        item->setText(ColIndex, QString::number(i));
        item->setText(ColPass, (p.changed ? QStringLiteral("● ") : QStringLiteral("○ ")) + QString::fromStdString(p.name));
        item->setToolTip(ColPass, QString::fromStdString(p.description));
        item->setText(ColSummary, QString::fromStdString(p.summary));
        item->setToolTip(ColSummary, QString::fromStdString(p.summary));
        item->setText(ColTime, QString::number(p.wallMs, 'f', 2));
        item->setTextAlignment(ColTime, Qt::AlignRight | Qt::AlignVCenter);
        if (!p.changed)
            for (int c = 0; c < ColCount; ++c)
                item->setForeground(c, tree_->palette().brush(QPalette::Disabled, QPalette::Text));
    }
    for (int c : {ColIndex, ColPass, ColTime})
        tree_->resizeColumnToContents(c);
    syncing_ = false;
    applyFilter();
    syncSelection(document_->selectedPass());
}

void PipelineView::applyFilter()
{
    const auto& passes = document_->passes();
    for (int row = 0; row < tree_->topLevelItemCount(); ++row) {
        QTreeWidgetItem* item = tree_->topLevelItem(row);
        const int index = item->data(ColIndex, Qt::UserRole).toInt();
        // The first record (the input) always shows, so there is something to compare against.
        const bool hide = hideUnchanged_->isChecked() && index > 0 && !passes[static_cast<size_t>(index)].changed;
        item->setHidden(hide);
    }
}

void PipelineView::syncSelection(int index)
{
    syncing_ = true;
    if (index >= 0 && index < tree_->topLevelItemCount())
        tree_->setCurrentItem(tree_->topLevelItem(index));
    syncing_ = false;
}

}  // namespace spyglass
