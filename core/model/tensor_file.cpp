#include "core/model/tensor_file.h"

#include "core/common/diagnostics.h"
#include "core/common/host_memory.h"
#include "core/common/input_file.h"
#include "core/model/half_float.h"
#include "core/model/onnx_tensor.h"

#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

namespace spyglass::model {

namespace {

using onnx::TensorProto;

template <typename T>
std::vector<T> rawValues(const std::string& raw, int64_t count, const std::string& what)
{
    if (static_cast<int64_t>(raw.size()) != count * static_cast<int64_t>(sizeof(T)))
        throw InputError(SourceLocation{}, what + ": raw data has " + std::to_string(raw.size()) + " bytes but the shape needs " +
                                               std::to_string(count * static_cast<int64_t>(sizeof(T))));
    std::vector<T> v(static_cast<size_t>(count));
    if (count)
        std::memcpy(v.data(), raw.data(), raw.size());   // ONNX raw data is little-endian, as is x86-64
    return v;
}

void checkCount(int64_t have, int64_t need, const std::string& what)
{
    if (have != need)
        throw InputError(SourceLocation{}, what + ": has " + std::to_string(have) + " values but its shape needs " + std::to_string(need));
}

}  // namespace

std::optional<DType> dtypeFromOnnx(int32_t elemType)
{
    switch (elemType) {
    case TensorProto::FLOAT: return DType::Float32;
    case TensorProto::FLOAT16: return DType::Float16;
    case TensorProto::DOUBLE: return DType::Float64;
    case TensorProto::INT64: return DType::Int64;
    case TensorProto::INT32: return DType::Int32;
    case TensorProto::INT8: return DType::Int8;
    case TensorProto::UINT8: return DType::UInt8;
    case TensorProto::BOOL: return DType::Bool;
    default: return std::nullopt;
    }
}

int32_t onnxFromDtype(DType t)
{
    switch (t) {
    case DType::Float32: return TensorProto::FLOAT;
    case DType::Float16: return TensorProto::FLOAT16;
    case DType::Float64: return TensorProto::DOUBLE;
    case DType::Int64: return TensorProto::INT64;
    case DType::Int32: return TensorProto::INT32;
    case DType::Int8: return TensorProto::INT8;
    case DType::UInt8: return TensorProto::UINT8;
    case DType::Bool: return TensorProto::BOOL;
    }
    return TensorProto::UNDEFINED;
}

std::string onnxTypeName(int32_t elemType)
{
    if (onnx::TensorProto_DataType_IsValid(elemType))
        return onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(elemType));
    return "type " + std::to_string(elemType);
}

HostTensor makeTensor(DType dtype, const Shape& shape)
{
    HostTensor t;
    t.dtype = dtype;
    t.shape = shape;
    // Refused before allocating: a tensor larger than the memory left would end in "out of memory" (or the OOM
    // killer) after minutes of swapping, not in a message about the model. Checked against what is available
    // now, so a second large input is refused when the first has taken the room.
    const uint64_t bytes = static_cast<uint64_t>(elementCount(shape)) * (t.isFloating() ? sizeof(float) : sizeof(int64_t));
    const uint64_t memory = availableMemoryBytes();
    if (elementCount(shape) < 0 || (memory > 0 && bytes > memory))
        throw InputError(SourceLocation{}, std::string("a ") + dtypeName(dtype) + " tensor " + shapeString(shape) + " needs " + byteSizeText(bytes) +
                                               " of host memory, more than the " + byteSizeText(memory) + " available");
    if (t.isFloating())
        t.f.assign(static_cast<size_t>(elementCount(shape)), 0.0f);
    else
        t.i.assign(static_cast<size_t>(elementCount(shape)), 0);
    return t;
}

HostTensor tensorFromProto(const TensorProto& p, const std::string& what)
{
    const auto dt = dtypeFromOnnx(p.data_type());
    if (!dt)
        throw InputError(SourceLocation{}, what + ": element type " + onnxTypeName(p.data_type()) + " is not supported");
    if (p.data_location() == TensorProto::EXTERNAL)
        throw InputError(SourceLocation{}, what + ": external data was not resolved");
    if (p.has_segment())
        throw InputError(SourceLocation{}, what + ": segmented tensors are not supported");
    Shape shape;
    for (int64_t d : p.dims()) {
        if (d < 0)
            throw InputError(SourceLocation{}, what + ": negative dimension " + std::to_string(d));
        shape.push_back(d);
    }
    // Validate the element count against the data present before allocating anything: a corrupt or
    // non-tensor file can claim absurd dimensions.
    int64_t n = 1;
    for (int64_t d : shape) {
        if (d > 0 && n > std::numeric_limits<int64_t>::max() / d)
            throw InputError(SourceLocation{}, what + ": dimensions " + shapeString(shape) + " overflow");
        n *= d;
    }
    const bool raw = p.has_raw_data();
    const std::string& r = p.raw_data();
    int64_t available = 0;
    if (raw) {
        if (r.size() % static_cast<size_t>(dtypeBytes(*dt)) != 0)
            throw InputError(SourceLocation{}, what + ": raw data size " + std::to_string(r.size()) + " is not a multiple of the element size");
        available = static_cast<int64_t>(r.size()) / dtypeBytes(*dt);
    } else {
        switch (*dt) {
        case DType::Float32: available = p.float_data_size(); break;
        case DType::Float64: available = p.double_data_size(); break;
        case DType::Int64: available = p.int64_data_size(); break;
        default: available = p.int32_data_size(); break;
        }
    }
    checkCount(available, n, what);
    HostTensor t = makeTensor(*dt, shape);
    switch (*dt) {
    case DType::Float32:
        if (raw) t.f = rawValues<float>(r, n, what);
        else { checkCount(p.float_data_size(), n, what); t.f.assign(p.float_data().begin(), p.float_data().end()); }
        break;
    case DType::Float64:
        if (raw) { auto v = rawValues<double>(r, n, what); t.f.assign(v.begin(), v.end()); }
        else { checkCount(p.double_data_size(), n, what); t.f.assign(p.double_data().begin(), p.double_data().end()); }
        break;
    case DType::Float16: {
        std::vector<uint16_t> bits;
        if (raw) bits = rawValues<uint16_t>(r, n, what);
        else { checkCount(p.int32_data_size(), n, what); for (int32_t b : p.int32_data()) bits.push_back(static_cast<uint16_t>(b)); }
        for (size_t k = 0; k < bits.size(); ++k) t.f[k] = halfBitsToFloat(bits[k]);
        break;
    }
    case DType::Int64:
        if (raw) t.i = rawValues<int64_t>(r, n, what);
        else { checkCount(p.int64_data_size(), n, what); t.i.assign(p.int64_data().begin(), p.int64_data().end()); }
        break;
    case DType::Int32:
        if (raw) { auto v = rawValues<int32_t>(r, n, what); t.i.assign(v.begin(), v.end()); }
        else { checkCount(p.int32_data_size(), n, what); t.i.assign(p.int32_data().begin(), p.int32_data().end()); }
        break;
    case DType::Int8:
        if (raw) { auto v = rawValues<int8_t>(r, n, what); t.i.assign(v.begin(), v.end()); }
        else { checkCount(p.int32_data_size(), n, what); for (int k = 0; k < p.int32_data_size(); ++k) t.i[k] = static_cast<int8_t>(p.int32_data(k)); }
        break;
    case DType::UInt8:
    case DType::Bool:
        if (raw) { auto v = rawValues<uint8_t>(r, n, what); t.i.assign(v.begin(), v.end()); }
        else { checkCount(p.int32_data_size(), n, what); t.i.assign(p.int32_data().begin(), p.int32_data().end()); }
        if (*dt == DType::Bool)
            for (auto& x : t.i) x = x != 0;
        break;
    }
    return t;
}

TensorProto tensorToProto(const HostTensor& t, const std::string& name)
{
    TensorProto p;
    p.set_name(name);
    p.set_data_type(onnxFromDtype(t.dtype));
    for (int64_t d : t.shape)
        p.add_dims(d);
    const size_t n = static_cast<size_t>(t.size());
    std::string raw;
    auto put = [&raw](const void* data, size_t bytes) { raw.append(static_cast<const char*>(data), bytes); };
    for (size_t k = 0; k < n; ++k) {
        switch (t.dtype) {
        case DType::Float32: { float v = t.f[k]; put(&v, 4); break; }
        case DType::Float64: { double v = t.f[k]; put(&v, 8); break; }
        case DType::Float16: { uint16_t v = floatToHalfBits(t.f[k]); put(&v, 2); break; }
        case DType::Int64: { int64_t v = t.i[k]; put(&v, 8); break; }
        case DType::Int32: { int32_t v = static_cast<int32_t>(t.i[k]); put(&v, 4); break; }
        case DType::Int8: { int8_t v = static_cast<int8_t>(t.i[k]); put(&v, 1); break; }
        case DType::UInt8: { uint8_t v = static_cast<uint8_t>(t.i[k]); put(&v, 1); break; }
        case DType::Bool: { uint8_t v = t.i[k] != 0; put(&v, 1); break; }
        }
    }
    p.set_raw_data(raw);
    return p;
}

HostTensor readTensorFile(const std::string& path, std::string* name)
{
    // A protobuf message cannot be larger than 2 GiB.
    const std::string bytes = readInputFile(path, "a tensor file (.pb)", (uint64_t(2) << 30) - 1);
    TensorProto p;
    if (bytes.empty() || !p.ParseFromString(bytes))
        throw InputError(SourceLocation{path, 0, 0}, "not a valid ONNX TensorProto file (truncated or not protobuf)");
    if (name)
        *name = p.name();
    try {
        return tensorFromProto(p, "tensor '" + p.name() + "'");
    } catch (const InputError& e) {
        Diagnostic d = e.diagnostic();
        d.location = SourceLocation{path, 0, 0};
        throw InputError(d);
    }
}

void writeTensorFile(const std::string& path, const HostTensor& t, const std::string& name)
{
    const std::string bytes = tensorToProto(t, name).SerializeAsString();
    std::ofstream out(path, std::ios::binary);
    if (!out || !out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())))
        throw InputError(SourceLocation{path, 0, 0}, "cannot write tensor file");
}

}  // namespace spyglass::model
