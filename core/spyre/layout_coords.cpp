#include "core/spyre/layout_coords.h"

namespace spyglass::spyre {

HostCoordinate hostCoordinateOf(const SpyreTensorLayout& layout, const Shape& hostShape, const Shape& hostStrides,
                                const std::vector<int64_t>& deviceIndex)
{
    HostCoordinate out;
    out.coord.assign(hostShape.size(), 0);
    for (size_t i = 0; i < layout.deviceSize.size() && i < deviceIndex.size(); ++i) {
        const int h = layout.dimMap[i];
        if (h < 0 || h >= static_cast<int>(hostShape.size()) || layout.strideMap[i] < 0) {
            if (deviceIndex[i] != 0)
                out.padding = true;   // a synthetic dimension: only index 0 holds data
            continue;
        }
        // stride_map is the host stride of the device dim; dividing by the host dim's own stride gives how many
        // host steps one device step is (64 for the stick index, 1 inside the stick).
        const int64_t hostStride = hostStrides[static_cast<size_t>(h)];
        const int64_t steps = hostStride != 0 ? layout.strideMap[i] / hostStride : 0;
        out.coord[static_cast<size_t>(h)] += deviceIndex[i] * steps;
    }
    for (size_t h = 0; h < hostShape.size(); ++h)
        if (out.coord[h] >= hostShape[h])
            out.padding = true;
    return out;
}

std::vector<int64_t> deviceIndexOf(const SpyreTensorLayout& layout, const Shape& hostStrides, const std::vector<int64_t>& coord)
{
    std::vector<int64_t> index(layout.deviceSize.size(), 0);
    for (size_t i = 0; i < layout.deviceSize.size(); ++i) {
        const int h = layout.dimMap[i];
        if (h < 0 || h >= static_cast<int>(coord.size()) || layout.strideMap[i] < 0)
            continue;
        const int64_t hostStride = hostStrides[static_cast<size_t>(h)];
        const int64_t steps = hostStride != 0 ? layout.strideMap[i] / hostStride : 0;
        if (steps > 0)
            index[i] = (coord[static_cast<size_t>(h)] / steps) % layout.deviceSize[i];
    }
    return index;
}

int64_t paddingInStick(const SpyreTensorLayout& layout, const Shape& hostShape, const Shape& hostStrides,
                       const std::vector<int64_t>& stickIndex)
{
    if (layout.deviceSize.empty())
        return 0;
    std::vector<int64_t> index = stickIndex;
    index.resize(layout.deviceSize.size(), 0);
    const int64_t elements = layout.deviceSize.back();
    int64_t padding = 0;
    for (int64_t e = 0; e < elements; ++e) {
        index.back() = e;
        if (hostCoordinateOf(layout, hostShape, hostStrides, index).padding)
            ++padding;
    }
    return padding;
}

}  // namespace spyglass::spyre
