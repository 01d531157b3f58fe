#pragma once
// The model as loaded from ONNX, after shape inference and constant folding of shape arithmetic:
// a DAG of named values (tensors with static shapes) and nodes (ONNX ops), in topological order.
// This is the input of both the Spyre compiler (core/spyre) and the reference interpreter.

#include "core/common/units.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace spyglass::model {

enum class DType { Float32, Float16, Float64, Int64, Int32, Int8, UInt8, Bool };

const char* dtypeName(DType t);   // "float32", "float16", ...
// The inverse of dtypeName; names it does not produce (e.g. "bfloat16") read as Float32.
DType dtypeFromName(const std::string& name);
// Integer and bool types (everything but the floating ones).
inline bool isIntegerDtypeName(const std::string& name) { return name != "float32" && name != "float16" && name != "float64" && name != "bfloat16"; }
int dtypeBytes(DType t);

using Shape = std::vector<int64_t>;
int64_t elementCount(const Shape& s);
inline std::string shapeString(const Shape& s) { return shapeText(s); }   // core/common/units.h: "[256, 512]"

// A host tensor with its data. Floating types are held as float (fp16 widened), integer and bool
// types as int64: simple for an interpreter whose job is to be obviously right, not small.
struct HostTensor {
    DType dtype = DType::Float32;
    Shape shape;
    std::vector<float> f;     // used when dtype is a floating type
    std::vector<int64_t> i;   // used for integer and bool types

    bool isFloating() const { return dtype == DType::Float32 || dtype == DType::Float16 || dtype == DType::Float64; }
    int64_t size() const { return elementCount(shape); }
};

using AttributeValue = std::variant<int64_t, float, std::string, std::vector<int64_t>, std::vector<float>,
                                    std::vector<std::string>, HostTensor>;

struct Value {
    std::string name;
    DType dtype = DType::Float32;
    Shape shape;
    int producer = -1;                  // node index, -1 for graph inputs and constants
    std::vector<int> consumers;         // node indices
    std::optional<HostTensor> constant; // initializers and folded constants
    bool isGraphInput = false;
    bool isGraphOutput = false;
};

struct Node {
    std::string name;     // ONNX node name; the loader invents "<OpType>_<index>" when empty
    std::string opType;   // ONNX op type, e.g. "MatMul"
    std::vector<int> inputs;    // value indices; -1 for an omitted optional input
    std::vector<int> outputs;   // value indices
    std::map<std::string, AttributeValue> attributes;

    // "MatMul 'layer0/mm'" — how errors and the GUI name a node.
    std::string label() const { return opType + " '" + name + "'"; }
};

struct ModelGraph {
    std::string name;
    std::string sourcePath;
    int64_t opsetVersion = 0;
    std::vector<Value> values;
    std::vector<Node> nodes;     // topological order
    std::vector<int> inputs;     // graph inputs that are not constants
    std::vector<int> outputs;
    // Every graph input the file declares, in order, including those bound to constants at load time
    // (LoadOptions::bindInputs); ONNX test data files input_N.pb follow this order.
    std::vector<std::string> declaredInputs;

    int findValue(const std::string& name) const;   // -1 when absent
};

}  // namespace spyglass::model
