#include "core/model/model_graph.h"

namespace spyglass::model {

const char* dtypeName(DType t)
{
    switch (t) {
    case DType::Float32: return "float32";
    case DType::Float16: return "float16";
    case DType::Float64: return "float64";
    case DType::Int64: return "int64";
    case DType::Int32: return "int32";
    case DType::Int8: return "int8";
    case DType::UInt8: return "uint8";
    case DType::Bool: return "bool";
    }
    return "unknown";
}

DType dtypeFromName(const std::string& name)
{
    for (DType t : {DType::Float16, DType::Float64, DType::Int64, DType::Int32, DType::Int8, DType::UInt8, DType::Bool})
        if (name == dtypeName(t))
            return t;
    return DType::Float32;
}

int dtypeBytes(DType t)
{
    switch (t) {
    case DType::Float32: return 4;
    case DType::Float16: return 2;
    case DType::Float64: return 8;
    case DType::Int64: return 8;
    case DType::Int32: return 4;
    case DType::Int8: return 1;
    case DType::UInt8: return 1;
    case DType::Bool: return 1;
    }
    return 0;
}

int64_t elementCount(const Shape& s)
{
    int64_t n = 1;
    for (int64_t d : s)
        n *= d;
    return n;
}

int ModelGraph::findValue(const std::string& name) const
{
    for (size_t k = 0; k < values.size(); ++k)
        if (values[k].name == name)
            return static_cast<int>(k);
    return -1;
}

}  // namespace spyglass::model
