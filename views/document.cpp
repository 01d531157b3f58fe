#include "views/document.h"

#include <algorithm>

namespace spyglass {

Document::Document(QObject* parent) : QObject(parent) {}

const PassRecord* Document::selectedRecord() const
{
    if (selected_ < 0 || selected_ >= static_cast<int>(doc_.passes.size()))
        return nullptr;
    return &doc_.passes[static_cast<size_t>(selected_)];
}

const PassRecord* Document::previousRecord() const
{
    if (selected_ <= 0 || selected_ > static_cast<int>(doc_.passes.size()))
        return nullptr;
    return &doc_.passes[static_cast<size_t>(selected_ - 1)];
}

std::shared_ptr<const quantum::Circuit> Document::selectedCircuit() const
{
    if (selected_ < 0 || selected_ >= static_cast<int>(doc_.circuits.size()))
        return nullptr;
    return doc_.circuits[static_cast<size_t>(selected_)];
}

std::shared_ptr<const spyre::Program> Document::selectedProgram() const
{
    if (selected_ < 0 || selected_ >= static_cast<int>(doc_.programs.size()))
        return nullptr;
    return doc_.programs[static_cast<size_t>(selected_)];
}

void Document::setCompiled(CompiledDocument doc)
{
    // A recompile of the same file (other pins, a plugin) keeps the selection: its ops keep their names.
    if (doc.path != doc_.path)
        selectNode({});
    doc_ = std::move(doc);
    selected_ = doc_.passes.empty() ? -1 : static_cast<int>(doc_.passes.size()) - 1;
    emit documentChanged();
    emit selectedPassChanged(selected_);
}

void Document::clear()
{
    doc_ = CompiledDocument{};
    selected_ = -1;
    selectNode({});
    emit documentChanged();
    emit selectedPassChanged(selected_);
}

void Document::selectPass(int index)
{
    if (doc_.passes.empty())
        return;
    index = std::clamp(index, 0, static_cast<int>(doc_.passes.size()) - 1);
    if (index == selected_)
        return;
    selected_ = index;
    emit selectedPassChanged(selected_);
}

void Document::selectNode(const std::string& id)
{
    if (id == selectedNode_)
        return;
    selectedNode_ = id;
    emit selectedNodeChanged();
}

void Document::stepForward() { selectPass(selected_ + 1); }
void Document::stepBack() { selectPass(selected_ - 1); }
void Document::selectFirst() { selectPass(0); }
void Document::selectLast() { selectPass(static_cast<int>(doc_.passes.size()) - 1); }

}  // namespace spyglass
