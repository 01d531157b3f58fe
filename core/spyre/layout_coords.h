#pragma once
// Where a device element of a SpyreTensorLayout comes from on the host: the inverse of deviceLayout(),
// used by the Stick layout view's hover and by tests of the layout itself.

#include "core/spyre/loop_ir.h"

#include <vector>

namespace spyglass::spyre {

struct HostCoordinate {
    std::vector<int64_t> coord;   // one per host dimension
    bool padding = false;         // the element lies beyond the host extent of some dimension (or is synthetic)
};

// `deviceIndex` has one entry per layout.deviceSize dimension.
HostCoordinate hostCoordinateOf(const SpyreTensorLayout& layout, const Shape& hostShape, const Shape& hostStrides,
                                const std::vector<int64_t>& deviceIndex);

// The device index holding host element `coord` (the inverse of hostCoordinateOf for non-padding elements).
std::vector<int64_t> deviceIndexOf(const SpyreTensorLayout& layout, const Shape& hostStrides, const std::vector<int64_t>& coord);

// How many of a stick's elements are padding, for the stick whose outer device index is `stickIndex`
// (all device dims but the last).
int64_t paddingInStick(const SpyreTensorLayout& layout, const Shape& hostShape, const Shape& hostStrides,
                       const std::vector<int64_t>& stickIndex);

}  // namespace spyglass::spyre
