#pragma once
// ONNX test data sets (test_data_set_N/input_K.pb, output_K.pb) and the elementwise check
// |y - ref| <= atol + rtol * |ref| used by the CLI, the conformance suite and the simulator checks.

#include "core/model/model_graph.h"
#include "core/model/model_loader.h"

#include <string>
#include <vector>

namespace spyglass::model {

struct TestDataSet {
    std::string dir;
    std::vector<HostTensor> inputs;    // input_0.pb, input_1.pb, ... (the declared graph inputs, in order)
    std::vector<std::string> inputNames;
    std::vector<HostTensor> outputs;   // output_0.pb, ...
    std::vector<std::string> outputNames;
};

// Reads every input_K.pb / output_K.pb (K = 0, 1, ... without gaps). Throws InputError naming the file.
TestDataSet readTestDataSet(const std::string& dir);

// Integer-typed inputs (int64, int32: shapes, axes, indices) are bound as constants so that the shapes
// they determine are static, as a compiler for a static-shape accelerator needs.
LoadOptions bindIntegerInputs(const TestDataSet& data);

// The tensors for graph.inputs, taken from the data set by declared position. Checks count, dtype and
// shape, naming the input and the file on a mismatch ("wrong shape", "wrong dtype").
std::vector<HostTensor> graphInputsFromTestData(const ModelGraph& graph, const TestDataSet& data);

struct TensorComparison {
    bool ok = true;
    std::string problem;          // non-empty for a dtype or shape mismatch
    int64_t mismatches = 0;       // elements outside tolerance
    double maxAbsErr = 0;
    double maxRelErr = 0;         // |y - ref| / |ref| over elements with ref != 0
    int64_t worstIndex = -1;      // flat index of the element furthest outside (or closest to) tolerance
    std::vector<int64_t> worstCoords;
    double worstValue = 0, worstReference = 0;
    std::string summary(const std::string& name) const;   // one line for humans
};

// Floating: |y - ref| <= atol + rtol * |ref| (NaN matches NaN, inf matches the same inf);
// integer and bool: exact equality.
TensorComparison compareTensors(const HostTensor& got, const HostTensor& ref, double rtol, double atol);

// Deterministic inputs for graph.inputs when no test data is given (the CLI's `run` and the explorer's numbers
// check): floats uniform in [-1, 1) from seed 0, integers and bools 1. One, not zero: the integer inputs of real
// models are token ids (1 is a valid id), token types, and attention masks, where 0 masks every token: HF-style
// models then add -10000 to every attention logit, where fp16's spacing is 8, and the softmax loses the logits
// (BERT-base failed its numbers check on generated inputs for this reason alone).
std::vector<HostTensor> generatedInputs(const ModelGraph& graph);

}  // namespace spyglass::model
