#pragma once
// The Graph view's picture of a Spyre program: at graph level, ONNX/core ops and their tensors (ops that
// `decompose` made from one ONNX node share a cluster); at loop level, ComputedBuffer ops and buffers, edges
// labelled with shape and stick dimension, restickify ops as red hexagons with the elements they move,
// fused ops in a cluster with what they absorbed. Node ids are "op:<index>" and "buf:<index>" (or
// "gop:"/"tensor:" at graph level) so the Inspector can find what was clicked.

#include "views/graphlayout.h"

namespace spyglass::spyre {
struct Program;
}

namespace spyglass {

class Document;
class GraphView;

GraphSpec graphSpecFor(const spyre::Program& program);

// The Graph view shows the document's selected program from now on (laid out again only when it changes; cleared
// for documents without one).
void followDocument(GraphView* view, const Document* document);

}  // namespace spyglass
