#pragma once
// Device memory as the simulator holds it: every tensor of a kernel bundle in its device layout
// (SpyreTensorLayout: the stick dimension split into sticks of 64 elements, padding included), one 16-bit word per
// element in the device number format. Integer tensors (gather indices) stay int64 in host order: the cores only
// use them as addresses.
//
// A device layout maps every host dimension independently (each device dim reads one host dim), so the device
// offset of a host coordinate is a sum of one table lookup per host dim; that keeps element access cheap.
#include "core/spyre/kernel_bundle.h"
#include "core/spyresim/device_format.h"

#include "core/model/model_graph.h"

#include <cstdint>
#include <vector>

namespace spyglass::spyresim {

class DeviceTensor {
public:
    DeviceTensor() = default;
    DeviceTensor(const spyre::BundleTensor& meta, DeviceFormat format);

    const spyre::BundleTensor& meta() const { return *meta_; }
    bool isInteger() const { return integer_; }
    int64_t hostElements() const { return hostElements_; }
    int64_t deviceElements() const { return deviceElements_; }
    int64_t deviceBytes() const { return deviceElements_ * 2; }
    int rank() const { return static_cast<int>(shape_.size()); }
    const spyre::Shape& shape() const { return shape_; }
    const spyre::Shape& hostStrides() const { return strides_; }

    // Device element offset of a host element given by its contiguous host offset; -1 when out of range.
    int64_t deviceOffset(int64_t hostOffset) const
    {
        if (hostOffset < 0 || hostOffset >= hostElements_)
            return -1;
        int64_t off = 0;
        for (int d = 0; d < rank(); ++d) {
            const int64_t c = hostOffset / strides_[d];
            hostOffset -= c * strides_[d];
            off += dimOffset_[d][c];
        }
        return off;
    }
    // The per-dim table: device offset contribution of coordinate c of host dim d.
    const std::vector<int64_t>& dimTable(int d) const { return dimOffset_[d]; }
    // The host dim whose stride is `coeff`, or -1: a var with that coefficient walks only that dim.
    int dimWithStride(int64_t coeff) const;

    uint16_t* words() { return words_.data(); }
    const uint16_t* words() const { return words_.data(); }
    int64_t* ints() { return ints_.data(); }
    const int64_t* ints() const { return ints_.data(); }

    // Host data in (converted and stickified; padding zero) / out (converted back to fp32).
    void writeHost(const float* data);
    void writeHostInts(const int64_t* data);
    model::HostTensor readHost(model::DType dtype) const;
    // Host coordinate -> whether the stick word at `deviceOffset` is padding (for the Stick layout view and tests).
    bool isPadding(int64_t deviceOffset) const { return paddingMask_.empty() ? false : paddingMask_[deviceOffset] != 0; }

private:
    const spyre::BundleTensor* meta_ = nullptr;
    DeviceFormat format_ = DeviceFormat::Fp16;
    bool integer_ = false;
    spyre::Shape shape_, strides_;
    int64_t hostElements_ = 0, deviceElements_ = 0;
    std::vector<std::vector<int64_t>> dimOffset_;
    std::vector<uint16_t> words_;
    std::vector<int64_t> ints_;
    std::vector<uint8_t> paddingMask_;
};

bool isIntegerDtype(const std::string& dtype);
model::DType hostDtypeOf(const std::string& dtype);

}  // namespace spyglass::spyresim
