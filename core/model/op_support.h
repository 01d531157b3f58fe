#pragma once
// The ONE table of ONNX ops Spyglass supports, with the attributes each accepts and the checks on
// attribute values. The loader rejects anything outside it; the Spyre compiler and the GUI query it.
//
// Role::Compute ops may appear in a loaded ModelGraph. Role::FoldOnly ops (Shape, ConstantOfShape, ...)
// are accepted only when the loader can fold them to constants; a loaded ModelGraph never contains them.

#include "core/common/diagnostics.h"
#include "core/model/model_graph.h"

#include <string>
#include <vector>

namespace spyglass::model {

// An op, attribute, dtype or input form that Spyglass does not implement. It is an InputError (the
// user's model asks for it), with the op type, node name and attribute kept apart for tools.
class UnsupportedError : public InputError {
public:
    UnsupportedError(std::string opType, std::string nodeName, std::string attribute, std::string message,
                     SourceLocation location = {});
    const std::string& opType() const { return opType_; }
    const std::string& nodeName() const { return nodeName_; }
    const std::string& attribute() const { return attribute_; }   // empty when it is not about an attribute

private:
    std::string opType_, nodeName_, attribute_;
};

struct OpSupport {
    enum class Role { Compute, FoldOnly };
    const char* opType;
    Role role;
    std::vector<std::string> attributes;   // every attribute name the op may carry
    const char* notes;                     // what is and is not covered, for humans
    // Throws UnsupportedError when an attribute value (or input/output form) is outside what is implemented.
    void (*checkNode)(const Node& node, int64_t opset);
};

const std::vector<OpSupport>& supportedOps();
const OpSupport* findOpSupport(const std::string& opType);   // nullptr when unsupported
bool isComputeOp(const std::string& opType);                 // supported and may remain after loading

// Full check of one node against the table: op type, attribute names, attribute values.
void checkNodeSupported(const Node& node, int64_t opset);

}  // namespace spyglass::model
