#pragma once
// Numerics bisect: where does a mismatch against the CPU come from? The bundle is simulated once, keeping every
// value the device stores that is an ONNX value of the model. Each ONNX op whose outputs the device stored is then
// re-run by the reference interpreter fed with the device's own inputs of that op (its region: the op and the ops
// fused into it whose values never reached device memory; graph inputs and weights as the device format rounds
// them). Its device output is compared against that reference, and against what rounding explains:
//  - input rounding: how far the reference output moves when each input is moved by the format's unit roundoff
//    (half an ulp, signs alternating by a fixed hash): the op's own amplification of rounding;
//  - output rounding: the unit roundoff times max |reference output| (the store).
// An op whose error exceeds kBisectFactor times their sum is wrong beyond rounding (a compiler or simulator bug);
// the first such op in graph order is named. When none does, the op that amplifies rounding most is named.
#include "core/model/model_graph.h"
#include "core/spyre/kernel_bundle.h"
#include "core/spyre/spyre_target.h"
#include "core/spyresim/spyre_simulator.h"

#include <map>
#include <string>
#include <vector>

namespace spyglass {
class JobControl;
}

namespace spyglass::spyresim {

// Rounding explains an error up to this multiple of (input rounding + output rounding): the perturbation is one
// sample of the rounding pattern, not its worst case, and ops inside a region round values the reference keeps.
constexpr double kBisectFactor = 2.0;

struct BisectStep {
    std::string node;        // Node::label()
    std::string value;       // the compared output (ONNX value name)
    int regionNodes = 1;     // ops evaluated from device-stored inputs to this output
    double maxAbsErr = 0;    // max |device - reference on the device's inputs|
    double maxAbsRef = 0;
    double inputRounding = 0;
    double outputRounding = 0;
    bool exceeds = false;
    double explained() const { return inputRounding + outputRounding; }
};

struct BisectReport {
    std::string format;                 // "fp16" or "dl16"
    double unitRoundoff = 0;
    std::vector<BisectStep> steps;      // graph order
    int firstExceeding = -1;            // index into steps
    int largestAmplification = -1;      // the step whose input rounding is the largest multiple of its output rounding
    std::string text() const;           // a table and the verdict, for the CLI
};

// `inputs` by ONNX input name, as simulate() takes them. Throws what simulate() and the reference interpreter throw.
BisectReport bisectNumerics(const model::ModelGraph& graph, const spyre::KernelBundle& bundle, const spyre::SpyreTarget& target,
                            const std::map<std::string, model::HostTensor>& inputs, SimOptions options, JobControl* job = nullptr);

}  // namespace spyglass::spyresim
