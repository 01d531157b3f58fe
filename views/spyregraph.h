#pragma once
// The Graph view's picture of a Spyre program: at graph level, ONNX/core ops and their tensors (ops that
// `decompose` made from one ONNX node share a cluster); at loop level, ComputedBuffer ops and buffers, edges
// labelled with shape and stick dimension, restickify ops as red hexagons with the elements they move,
// fused ops in a cluster with what they absorbed. Node ids are "op:<name>" ("op:op3") and "buf:<name>" at loop level (names
// are identities, so a selection survives stepping to another pass) and "gop:<index>"/"tensor:<index>" at
// graph level; resolveSpyreNode turns one back into an index of the program shown.

#include "views/graphlayout.h"

namespace spyglass::spyre {
struct Program;
}

namespace spyglass {

class Document;

struct SpyreNodeRef {
    enum class Kind { None, Op, Buffer, GraphOp, Tensor };
    Kind kind = Kind::None;
    int index = -1;   // into ops, buffers, graphOps or tensors of the program
};
SpyreNodeRef resolveSpyreNode(const spyre::Program& program, const std::string& nodeId);
class GraphView;

// With `before` (the pass before's program), ops are marked new or changed and the ones it dropped are listed; ops
// are matched by name, which is their identity across passes.
GraphSpec graphSpecFor(const spyre::Program& program, const spyre::Program* before = nullptr);

// The Graph view shows the document's selected program from now on (laid out again only when it changes; cleared
// for documents without one), and shares the document's selected node: a click sets it, and a selection made
// elsewhere (the Timeline) or kept across a pass step is selected again once the graph is laid out.
void followDocument(GraphView* view, Document* document);

}  // namespace spyglass
