#include "core/spyresim/device_memory.h"

#include "core/common/diagnostics.h"

#include <stdexcept>

namespace spyglass::spyresim {

namespace {

// Calls fn(hostOffset, deviceOffset) for every host element in host order, one table lookup per element: the
// outer dims' contribution is summed once per row of the innermost dim.
template <typename Fn>
void forEachElement(const spyre::Shape& shape, const std::vector<std::vector<int64_t>>& tables, Fn&& fn)
{
    const int rank = static_cast<int>(shape.size());
    if (rank == 0) {
        fn(int64_t{0}, int64_t{0});
        return;
    }
    for (int64_t d : shape)
        if (d == 0)
            return;
    const int64_t inner = shape.back();
    const std::vector<int64_t>& last = tables.back();
    std::vector<int64_t> coord(rank, 0);
    int64_t host = 0;
    for (;;) {
        int64_t base = 0;
        for (int d = 0; d + 1 < rank; ++d)
            base += tables[d][coord[d]];
        for (int64_t j = 0; j < inner; ++j)
            fn(host + j, base + last[j]);
        host += inner;
        int d = rank - 2;
        while (d >= 0 && ++coord[d] == shape[d])
            coord[d--] = 0;
        if (d < 0)
            return;
    }
}

}  // namespace


bool isIntegerDtype(const std::string& d) { return model::isIntegerDtypeName(d); }

model::DType hostDtypeOf(const std::string& d) { return model::dtypeFromName(d); }

DeviceTensor::DeviceTensor(const spyre::BundleTensor& meta, DeviceFormat format)
    : meta_(&meta), format_(format), integer_(isIntegerDtype(meta.dtype)), shape_(meta.hostShape)
{
    strides_ = spyre::contiguousStrides(shape_);
    hostElements_ = spyre::shapeProduct(shape_);
    const spyre::SpyreTensorLayout& l = meta.layout;
    deviceElements_ = l.deviceElements();
    // Device strides (row-major over device_size), then each device dim's contribution folded into its host dim.
    std::vector<int64_t> devStride(l.deviceSize.size(), 1);
    for (int i = static_cast<int>(l.deviceSize.size()) - 2; i >= 0; --i)
        devStride[i] = devStride[i + 1] * l.deviceSize[i + 1];
    dimOffset_.assign(shape_.size(), {});
    for (size_t d = 0; d < shape_.size(); ++d)
        dimOffset_[d].assign(static_cast<size_t>(shape_[d]), 0);
    for (size_t i = 0; i < l.deviceSize.size(); ++i) {
        const int h = l.dimMap[i];
        if (h < 0 || h >= rank() || l.strideMap[i] < 0)
            continue;
        const int64_t hostStride = strides_[h];
        const int64_t steps = hostStride != 0 ? l.strideMap[i] / hostStride : 0;
        if (steps <= 0)
            continue;
        for (int64_t c = 0; c < shape_[h]; ++c)
            dimOffset_[h][c] += ((c / steps) % l.deviceSize[i]) * devStride[i];
    }
    if (integer_) {
        ints_.assign(static_cast<size_t>(hostElements_), 0);
        return;
    }
    words_.assign(static_cast<size_t>(deviceElements_), 0);
    // Padding words: every device word no host element maps to.
    paddingMask_.assign(static_cast<size_t>(deviceElements_), 1);
    forEachElement(shape_, dimOffset_, [&](int64_t, int64_t o) {
        if (o < 0 || o >= deviceElements_)
            throw std::logic_error("device layout of '" + meta.name + "' maps a host element outside the device size");
        paddingMask_[o] = 0;
    });
}

int DeviceTensor::dimWithStride(int64_t coeff) const
{
    for (int d = rank() - 1; d >= 0; --d)
        if (strides_[d] == coeff && shape_[d] > 1)
            return d;
    return -1;
}

void DeviceTensor::writeHost(const float* data)
{
    if (integer_) {
        for (int64_t h = 0; h < hostElements_; ++h)
            ints_[h] = static_cast<int64_t>(data[h]);
        return;
    }
    forEachElement(shape_, dimOffset_, [&](int64_t h, int64_t o) { words_[o] = encode(format_, data[h]); });
}

void DeviceTensor::writeHostInts(const int64_t* data)
{
    if (integer_) {
        std::copy(data, data + hostElements_, ints_.begin());
        return;
    }
    forEachElement(shape_, dimOffset_, [&](int64_t h, int64_t o) { words_[o] = encode(format_, static_cast<float>(data[h])); });
}

model::HostTensor DeviceTensor::readHost(model::DType dtype) const
{
    model::HostTensor t;
    t.dtype = dtype;
    t.shape = shape_;
    const float* table = decodeTable(format_);
    if (t.isFloating()) {
        t.f.resize(static_cast<size_t>(hostElements_));
        if (integer_)
            for (int64_t h = 0; h < hostElements_; ++h)
                t.f[h] = static_cast<float>(ints_[h]);
        else
            forEachElement(shape_, dimOffset_, [&](int64_t h, int64_t o) { t.f[h] = table[words_[o]]; });
    } else {
        t.i.resize(static_cast<size_t>(hostElements_));
        for (int64_t h = 0; h < hostElements_; ++h) {
            const double x = integer_ ? static_cast<double>(ints_[h]) : table[words_[deviceOffset(h)]];
            t.i[h] = dtype == model::DType::Bool ? (x != 0 ? 1 : 0) : static_cast<int64_t>(x);
        }
    }
    return t;
}

}  // namespace spyglass::spyresim
