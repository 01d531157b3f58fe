#include "core/model/op_support.h"

#include "core/model/node_attributes.h"
#include "core/model/onnx_tensor.h"

#include <algorithm>
#include <cctype>

namespace spyglass::model {

UnsupportedError::UnsupportedError(std::string opType, std::string nodeName, std::string attribute, std::string message,
                                   SourceLocation location)
    : InputError(Diagnostic{Severity::Error, std::move(location), std::move(message), {}, opType + " '" + nodeName + "'"}),
      opType_(std::move(opType)), nodeName_(std::move(nodeName)), attribute_(std::move(attribute))
{
}

namespace {

using Role = OpSupport::Role;

[[noreturn]] void unsupportedAttr(const Node& n, const std::string& attr, const std::string& why)
{
    throw UnsupportedError(n.opType, n.name, attr, "attribute '" + attr + "' " + why);
}

void checkOneOf(const Node& n, const std::string& attr, const std::vector<std::string>& allowed, const std::string& fallback)
{
    const std::string v = attrString(n, attr, fallback);
    if (std::find(allowed.begin(), allowed.end(), v) == allowed.end())
        unsupportedAttr(n, attr, "= \"" + v + "\" is not supported");
}

// Only the first `count` outputs of an op are implemented (e.g. MaxPool's Indices are not).
void checkOutputs(const Node& n, size_t count, const char* what)
{
    if (n.outputs.size() > count)
        throw UnsupportedError(n.opType, n.name, {}, std::string("output ") + what + " is not supported");
}

void checkCast(const Node& n, int64_t)
{
    const int64_t to = attrInt(n, "to", 0);
    if (!dtypeFromOnnx(static_cast<int32_t>(to)))
        unsupportedAttr(n, "to", "= " + onnxTypeName(static_cast<int32_t>(to)) + " is not a supported element type");
}

// Convolution and pooling windows. ONNX's own shape inference divides by strides (and dilations) without checking
// them, so a zero stride kills the process with SIGFPE (found by fuzz/fuzz_onnx_text); such a model is invalid and
// refused here, before shape inference runs.
void checkWindow(const Node& n)
{
    for (const char* a : {"strides", "dilations", "kernel_shape"})
        if (hasAttribute(n, a))
            for (int64_t v : attrInts(n, a))
                if (v < 1)
                    nodeError(n, std::string("attribute '") + a + "' contains " + std::to_string(v) + "; every value must be at least 1");
    if (hasAttribute(n, "pads"))
        for (int64_t v : attrInts(n, "pads"))
            if (v < 0)
                nodeError(n, "attribute 'pads' contains " + std::to_string(v) + "; pads cannot be negative");
    if (hasAttribute(n, "group") && attrInt(n, "group", 1) < 1)
        nodeError(n, "attribute 'group' is " + std::to_string(attrInt(n, "group", 1)) + "; it must be at least 1");
}

void checkConv(const Node& n, int64_t)
{
    checkOneOf(n, "auto_pad", {"NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"}, "NOTSET");
    checkWindow(n);
}

void checkMaxPool(const Node& n, int64_t)
{
    checkOneOf(n, "auto_pad", {"NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"}, "NOTSET");
    checkWindow(n);
    checkOutputs(n, 1, "'Indices' (second output of MaxPool)");
}

void checkAveragePool(const Node& n, int64_t)
{
    checkOneOf(n, "auto_pad", {"NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"}, "NOTSET");
    checkWindow(n);
    if (hasAttribute(n, "dilations"))
        for (int64_t d : attrInts(n, "dilations"))
            if (d != 1)
                unsupportedAttr(n, "dilations", "other than 1 is not supported");
}

void checkBatchNorm(const Node& n, int64_t)
{
    if (attrInt(n, "training_mode", 0) != 0)
        unsupportedAttr(n, "training_mode", "= 1 is not supported (inference only)");
    if (attrInt(n, "spatial", 1) != 1)
        unsupportedAttr(n, "spatial", "= 0 is not supported");
    checkOutputs(n, 1, "running mean/var (training outputs of BatchNormalization)");
}

void checkDropout(const Node& n, int64_t opset)
{
    // Up to opset 6, is_test = 0 (the default) means training mode, an identity only when nothing is dropped.
    if (opset < 7 && attrInt(n, "is_test", 0) == 0 && attrFloat(n, "ratio", 0.5f) != 0.0f)
        unsupportedAttr(n, "is_test", "= 0 (training mode) is not supported; Spyglass runs inference only");
}

void checkPad(const Node& n, int64_t)
{
    checkOneOf(n, "mode", {"constant", "reflect", "edge"}, "constant");
}

void checkResize(const Node& n, int64_t)
{
    checkOneOf(n, "mode", {"nearest", "linear"}, "nearest");
    checkOneOf(n, "coordinate_transformation_mode", {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn"},
               "half_pixel");
    checkOneOf(n, "nearest_mode", {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}, "round_prefer_floor");
}

void checkEinsum(const Node& n, int64_t)
{
    const std::string eq = attrString(n, "equation", "");
    const std::string lhs = eq.substr(0, eq.find("->"));
    std::string term;
    for (size_t k = 0; k <= lhs.size(); ++k) {
        if (k == lhs.size() || lhs[k] == ',') {
            for (char c : term)
                if (std::isalpha(static_cast<unsigned char>(c)) && std::count(term.begin(), term.end(), c) > 1)
                    unsupportedAttr(n, "equation", "'" + eq + "' repeats label '" + std::string(1, c) + "' within one operand (a diagonal); that is not supported");
            term.clear();
        } else {
            term += lhs[k];
        }
    }
    if (n.inputs.size() > 2)
        unsupportedAttr(n, "equation", "with " + std::to_string(n.inputs.size()) + " operands is not supported (one or two)");
}

void checkRecurrent(const Node& n, int64_t)
{
    for (const std::string& a : attrStrings(n, "activations"))
        if (a != "Sigmoid" && a != "Tanh" && a != "Relu")
            unsupportedAttr(n, "activations", "contains '" + a + "' (Sigmoid, Tanh and Relu are supported)");
    if (hasAttribute(n, "activation_alpha") || hasAttribute(n, "activation_beta"))
        unsupportedAttr(n, hasAttribute(n, "activation_alpha") ? "activation_alpha" : "activation_beta", "is not supported");
    if (attrInt(n, "input_forget", 0) != 0)
        unsupportedAttr(n, "input_forget", "= 1 is not supported");
    checkOneOf(n, "direction", {"forward", "reverse", "bidirectional"}, "forward");
}

void checkGatherND(const Node& n, int64_t)
{
    if (attrInt(n, "batch_dims", 0) != 0)
        unsupportedAttr(n, "batch_dims", "other than 0 is not supported");
}

void checkConstant(const Node& n, int64_t)
{
    for (const char* a : {"sparse_value", "value_string", "value_strings"})
        if (hasAttribute(n, a))
            unsupportedAttr(n, a, "is not supported");
}

const std::vector<OpSupport>& table()
{
    static const std::vector<OpSupport> ops = {
        // Matrix products
        {"MatMul", Role::Compute, {}, "batched, numpy broadcasting of batch dimensions, 1-D operands", nullptr},
        {"Einsum", Role::Compute, {"equation"}, "one or two operands, ellipsis; no repeated label within an operand (diagonals)", checkEinsum},
        {"Gemm", Role::Compute, {"alpha", "beta", "transA", "transB"}, "C optional, unidirectional broadcast of C", nullptr},
        // Binary elementwise (numpy broadcasting)
        {"Add", Role::Compute, {}, "", nullptr},
        {"Sub", Role::Compute, {}, "", nullptr},
        {"Mul", Role::Compute, {}, "", nullptr},
        {"Div", Role::Compute, {}, "integer division truncates", nullptr},
        {"Pow", Role::Compute, {}, "", nullptr},
        {"Where", Role::Compute, {}, "", nullptr},
        {"PRelu", Role::Compute, {}, "slope broadcasts to X", nullptr},
        // Comparisons and logic (bool results, typically feeding Where)
        {"Equal", Role::Compute, {}, "", nullptr},
        {"Greater", Role::Compute, {}, "", nullptr},
        {"Less", Role::Compute, {}, "", nullptr},
        {"GreaterOrEqual", Role::Compute, {}, "", nullptr},
        {"LessOrEqual", Role::Compute, {}, "", nullptr},
        {"And", Role::Compute, {}, "", nullptr},
        {"Or", Role::Compute, {}, "", nullptr},
        {"Not", Role::Compute, {}, "", nullptr},
        {"Xor", Role::Compute, {}, "", nullptr},
        // Variadic elementwise (numpy broadcasting)
        {"Max", Role::Compute, {}, "any number of inputs", nullptr},
        {"Min", Role::Compute, {}, "any number of inputs", nullptr},
        {"Sum", Role::Compute, {}, "any number of inputs", nullptr},
        {"Mean", Role::Compute, {}, "any number of inputs", nullptr},
        // Unary elementwise
        {"Sqrt", Role::Compute, {}, "", nullptr},
        {"Reciprocal", Role::Compute, {}, "", nullptr},
        {"Neg", Role::Compute, {}, "", nullptr},
        {"Abs", Role::Compute, {}, "", nullptr},
        {"Exp", Role::Compute, {}, "", nullptr},
        {"Log", Role::Compute, {}, "", nullptr},
        {"Erf", Role::Compute, {}, "", nullptr},
        {"Relu", Role::Compute, {}, "", nullptr},
        {"LeakyRelu", Role::Compute, {"alpha"}, "", nullptr},
        {"Sigmoid", Role::Compute, {}, "", nullptr},
        {"Tanh", Role::Compute, {}, "", nullptr},
        {"HardSigmoid", Role::Compute, {"alpha", "beta"}, "", nullptr},
        {"HardSwish", Role::Compute, {}, "", nullptr},
        {"Shrink", Role::Compute, {"lambd", "bias"}, "", nullptr},
        {"Hardmax", Role::Compute, {"axis"}, "opset < 13: coerced to 2-D at axis, as Softmax", nullptr},
        {"MeanVarianceNormalization", Role::Compute, {"axes"}, "", nullptr},
        {"OneHot", Role::Compute, {"axis"}, "depth from the output shape", nullptr},
        {"EyeLike", Role::Compute, {"dtype", "k"}, "a constant of the input's shape", nullptr},
        {"Elu", Role::Compute, {"alpha"}, "", nullptr},
        {"Celu", Role::Compute, {"alpha"}, "", nullptr},
        {"Selu", Role::Compute, {"alpha", "gamma"}, "", nullptr},
        {"Softplus", Role::Compute, {}, "", nullptr},
        {"Softsign", Role::Compute, {}, "", nullptr},
        {"ThresholdedRelu", Role::Compute, {"alpha"}, "", nullptr},
        {"Sin", Role::Compute, {}, "", nullptr},
        {"Cos", Role::Compute, {}, "", nullptr},
        {"Tan", Role::Compute, {}, "", nullptr},
        {"Asin", Role::Compute, {}, "", nullptr},
        {"Acos", Role::Compute, {}, "", nullptr},
        {"Atan", Role::Compute, {}, "", nullptr},
        {"Sinh", Role::Compute, {}, "", nullptr},
        {"Cosh", Role::Compute, {}, "", nullptr},
        {"Asinh", Role::Compute, {}, "", nullptr},
        {"Acosh", Role::Compute, {}, "", nullptr},
        {"Atanh", Role::Compute, {}, "", nullptr},
        {"Floor", Role::Compute, {}, "", nullptr},
        {"Ceil", Role::Compute, {}, "", nullptr},
        {"Round", Role::Compute, {}, "halves to even", nullptr},
        {"Sign", Role::Compute, {}, "", nullptr},
        {"Clip", Role::Compute, {"min", "max"}, "min/max as attributes (opset < 11) or optional inputs", nullptr},
        {"Cast", Role::Compute, {"to"}, "to float32/16/64, int64/32/8, uint8, bool", checkCast},
        {"CastLike", Role::Compute, {}, "to the second input's type", nullptr},
        {"QuantizeLinear", Role::Compute, {"axis"}, "uint8 and int8, per tensor or per axis", nullptr},
        {"DequantizeLinear", Role::Compute, {"axis"}, "uint8, int8 and int32, per tensor or per axis", nullptr},
        {"Mod", Role::Compute, {"fmod"}, "integer mod with the divisor's sign; fmod = 1 for floats", nullptr},
        {"Trilu", Role::Compute, {"upper"}, "k constant", nullptr},
        // Normalisation and softmax
        {"Softmax", Role::Compute, {"axis"}, "opset < 13: coerced to 2-D at axis; opset >= 13: along one axis", nullptr},
        {"LogSoftmax", Role::Compute, {"axis"}, "as Softmax", nullptr},
        {"LayerNormalization", Role::Compute, {"axis", "epsilon", "stash_type"}, "optional Mean and InvStdDev outputs", nullptr},
        {"InstanceNormalization", Role::Compute, {"epsilon"}, "", nullptr},
        {"BatchNormalization", Role::Compute, {"epsilon", "momentum", "training_mode", "spatial"}, "inference only", checkBatchNorm},
        // Reductions
        {"ReduceSum", Role::Compute, {"axes", "keepdims", "noop_with_empty_axes"}, "axes as input (opset >= 13)", nullptr},
        {"ReduceMean", Role::Compute, {"axes", "keepdims", "noop_with_empty_axes"}, "axes as attribute (opset < 18)", nullptr},
        {"ReduceMax", Role::Compute, {"axes", "keepdims", "noop_with_empty_axes"}, "axes as attribute (opset < 18)", nullptr},
        {"ReduceMin", Role::Compute, {"axes", "keepdims", "noop_with_empty_axes"}, "axes as attribute (opset < 18)", nullptr},
        {"ReduceProd", Role::Compute, {"axes", "keepdims", "noop_with_empty_axes"}, "axes as attribute (opset < 18)", nullptr},
        {"ReduceL1", Role::Compute, {"axes", "keepdims", "noop_with_empty_axes"}, "axes as attribute (opset < 18)", nullptr},
        {"ReduceL2", Role::Compute, {"axes", "keepdims", "noop_with_empty_axes"}, "axes as attribute (opset < 18)", nullptr},
        {"ReduceSumSquare", Role::Compute, {"axes", "keepdims", "noop_with_empty_axes"}, "axes as attribute (opset < 18)", nullptr},
        {"ReduceLogSum", Role::Compute, {"axes", "keepdims", "noop_with_empty_axes"}, "axes as attribute (opset < 18)", nullptr},
        {"ReduceLogSumExp", Role::Compute, {"axes", "keepdims", "noop_with_empty_axes"}, "axes as attribute (opset < 18)", nullptr},
        {"ArgMax", Role::Compute, {"axis", "keepdims", "select_last_index"}, "", nullptr},
        {"TopK", Role::Compute, {"axis", "k", "largest", "sorted"}, "K constant; equal values by lower index", nullptr},
        {"ArgMin", Role::Compute, {"axis", "keepdims", "select_last_index"}, "", nullptr},
        // Data movement
        {"Transpose", Role::Compute, {"perm"}, "", nullptr},
        {"Reshape", Role::Compute, {"allowzero"}, "shape input must fold to a constant", nullptr},
        {"Flatten", Role::Compute, {"axis"}, "", nullptr},
        {"Squeeze", Role::Compute, {"axes"}, "axes as attribute (opset < 13) or constant input", nullptr},
        {"Unsqueeze", Role::Compute, {"axes"}, "axes as attribute (opset < 13) or constant input", nullptr},
        {"Concat", Role::Compute, {"axis"}, "", nullptr},
        {"Slice", Role::Compute, {"starts", "ends", "axes"}, "starts/ends/axes/steps as constant inputs (opset >= 10) or attributes", nullptr},
        {"Gather", Role::Compute, {"axis"}, "negative indices allowed", nullptr},
        {"Split", Role::Compute, {"axis", "split", "num_outputs"}, "sizes as attribute (opset < 13) or constant input, else equal parts", nullptr},
        {"Tile", Role::Compute, {}, "repeats must fold to a constant", nullptr},
        {"Pad", Role::Compute, {"mode", "pads", "value"}, "constant, reflect, edge; pads (and the value) constant", checkPad},
        {"Resize", Role::Compute, {"mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a", "exclude_outside", "extrapolation_value",
                                   "antialias", "axes", "keep_aspect_ratio_policy"},
         "nearest and linear, every coordinate mode but tf_crop_and_resize; scales or sizes constant", checkResize},
        {"Upsample", Role::Compute, {"mode", "scales"}, "nearest and linear; scales constant", checkResize},
        {"CumSum", Role::Compute, {"exclusive", "reverse"}, "axis must be a constant", nullptr},
        {"GatherElements", Role::Compute, {"axis"}, "negative indices allowed", nullptr},
        {"GatherND", Role::Compute, {"batch_dims"}, "batch_dims 0", checkGatherND},
        {"ScatterND", Role::Compute, {"reduction"}, "none, add, mul; indices constant on Spyre (slice writes such as a KV cache)", nullptr},
        {"DepthToSpace", Role::Compute, {"blocksize", "mode"}, "DCR and CRD", nullptr},
        {"SpaceToDepth", Role::Compute, {"blocksize"}, "", nullptr},
        {"Expand", Role::Compute, {}, "shape input must fold to a constant", nullptr},
        {"Identity", Role::Compute, {}, "", nullptr},
        {"Dropout", Role::Compute, {"ratio", "seed", "is_test"}, "inference only: rewritten to Identity by the loader (training_mode must be constant false)", checkDropout},
        // Recurrent nets (unrolled by the Spyre compiler)
        {"RNN", Role::Compute, {"activations", "clip", "direction", "hidden_size", "layout", "activation_alpha", "activation_beta"},
         "static sequence length; sequence_lens, if given, all full", checkRecurrent},
        {"GRU", Role::Compute, {"activations", "clip", "direction", "hidden_size", "layout", "linear_before_reset", "activation_alpha", "activation_beta"},
         "as RNN", checkRecurrent},
        {"LSTM", Role::Compute, {"activations", "clip", "direction", "hidden_size", "input_forget", "layout", "activation_alpha", "activation_beta"},
         "as RNN; peepholes", checkRecurrent},
        // Convolution and pooling
        {"Conv", Role::Compute, {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}, "N-d, groups, dilations", checkConv},
        {"ConvTranspose", Role::Compute, {"auto_pad", "dilations", "group", "kernel_shape", "output_padding", "output_shape", "pads", "strides"},
         "N-d, groups, dilations, output_padding, output_shape", checkConv},
        {"MaxPool", Role::Compute, {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"}, "no Indices output", checkMaxPool},
        {"AveragePool", Role::Compute, {"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides", "dilations"}, "", checkAveragePool},
        {"GlobalAveragePool", Role::Compute, {}, "", nullptr},
        {"GlobalMaxPool", Role::Compute, {}, "", nullptr},
        // Constants and shape arithmetic: folded away by the loader
        {"Constant", Role::FoldOnly, {"value", "value_float", "value_floats", "value_int", "value_ints", "sparse_value", "value_string", "value_strings"}, "", checkConstant},
        {"Shape", Role::FoldOnly, {"start", "end"}, "input must have a static shape", nullptr},
        {"Size", Role::FoldOnly, {}, "input must have a static shape", nullptr},
        {"ConstantOfShape", Role::FoldOnly, {"value"}, "shape input must be constant", nullptr},
        {"Range", Role::FoldOnly, {}, "inputs must be constant", nullptr},
        {"If", Role::FoldOnly, {"then_branch", "else_branch"}, "the condition must fold to a constant: the taken branch is inlined", nullptr},
    };
    return ops;
}

}  // namespace

const std::vector<OpSupport>& supportedOps() { return table(); }

const OpSupport* findOpSupport(const std::string& opType)
{
    for (const OpSupport& op : table())
        if (opType == op.opType)
            return &op;
    return nullptr;
}

bool isComputeOp(const std::string& opType)
{
    const OpSupport* op = findOpSupport(opType);
    return op && op->role == OpSupport::Role::Compute;
}

void checkNodeSupported(const Node& node, int64_t opset)
{
    const OpSupport* op = findOpSupport(node.opType);
    if (!op)
        throw UnsupportedError(node.opType, node.name, {}, "op type '" + node.opType + "' is not supported");
    for (const auto& [name, value] : node.attributes)
        if (std::find(op->attributes.begin(), op->attributes.end(), name) == op->attributes.end())
            throw UnsupportedError(node.opType, node.name, name, "attribute '" + name + "' is not supported");
    if (op->checkNode)
        op->checkNode(node, opset);
}

}  // namespace spyglass::model
