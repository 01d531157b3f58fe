#pragma once
// What a restickify op does to one element, in words and numbers, for the Stick layout view (which only draws):
// where a host element sits in the source and the destination layout (stick number in device order and offset
// inside the stick), which core of the op's split moves it, which source sticks one destination stick gathers
// from, and why the copy exists (who produced the tensor on which stick dim, who reads it along which other one).

#include "core/spyre/loop_ir.h"

#include <string>
#include <vector>

namespace spyglass::spyre {

// A place in a device layout: the stick (all device dims but the last, as one number in device order, the order
// the Stick layout view draws them) and the element inside it.
struct StickPlace {
    int64_t stick = -1;
    int64_t offset = -1;
    bool operator==(const StickPlace&) const = default;
};

StickPlace stickPlaceOf(const Program& p, const Buffer& b, const std::vector<int64_t>& host);
// The outer device index of stick number `stick` (the inverse of the stick part of stickPlaceOf).
std::vector<int64_t> stickIndexOf(const SpyreTensorLayout& layout, int64_t stick);
int64_t stickCountOf(const SpyreTensorLayout& layout);

// The core of `op`'s split that computes iteration point `point` (one value per var; for a restickify op var d
// walks host dim d) and the tile it falls in; -1 when the point is outside the op's ranges.
struct CoreOfPoint {
    int core = -1;
    int64_t tile = 0;   // linear tile number over the op's tile loops (0 when untiled)
};
CoreOfPoint coreOfPoint(const Program& p, const Op& op, const std::vector<int64_t>& point);

struct ElementMove {
    std::vector<int64_t> host;
    StickPlace from, to;
    CoreOfPoint by;
};
// `op` must be a restickify op; `host` a coordinate inside its tensor.
ElementMove traceElement(const Program& p, const Op& op, const std::vector<int64_t>& host);

// Every element of destination stick `stick` (padding left out), in stick order, with where it comes from.
std::vector<ElementMove> movesIntoStick(const Program& p, const Op& op, int64_t stick);

// "op2 (MatMul 'MatMul_0') reads r along d1; op1 (Relu 'Relu_0') produced it sticked on d0": the consumers of the
// copy and what they need, then the producer of the source (or "r is a model input sticked on d0").
std::string restickifyReason(const Program& p, int op);

}  // namespace spyglass::spyre
