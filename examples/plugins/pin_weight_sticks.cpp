// Example Spyre pass plugin: pins every weight to be sticked on its first dimension, as a
// user would to ask "what if my weights were stored K-major?" for the whole model at once instead of one --pin per
// tensor. A weight here is a constant of rank >= 2, or a 2-D model input that a matmul reads as its right operand
// (models exported with weights as inputs). It runs after propagate_layouts; optimize_layouts then honours the pins (Buffer::pinned + stickDim) and
// insert_restickify adds the moves the pins cost. Build:
//   g++ -std=c++20 -O2 -fPIC -shared $(pkg-config --cflags spyglass-plugin) pin_weight_sticks.cpp -o pin_weight_sticks.so
// Use: spyglass-cli compile model.onnx --pass-plugin ./pin_weight_sticks.so
#include <spyglass/pass_plugin.h>

#include <string>
#include <vector>

namespace {

using namespace spyglass;

class PinWeightSticks final : public spyre::Pass {
public:
    std::string name() const override { return "pin_weight_sticks"; }
    std::string description() const override { return "pin every weight (2-D+ constant or matmul right operand) to stick dimension 0"; }
    PassResult run(spyre::Program& program, spyre::PassContext&) override
    {
        if (program.stage != spyre::Stage::Loop)
            return {false, "nothing to do: not lowered"};
        std::vector<char> rightOperand(program.buffers.size(), 0);
        for (const spyre::Op& op : program.ops)
            if (op.kind == spyre::OpKind::MatMul)
                for (size_t k = 1; k < op.loads.size(); ++k)
                    rightOperand[op.loads[k].buffer] = 1;
        int pinned = 0;
        std::string names;
        for (size_t i = 0; i < program.buffers.size(); ++i) {
            spyre::Buffer& b = program.buffers[i];
            const bool weight = (b.kind == spyre::BufferKind::Constant && b.shape.size() >= 2) ||
                                (b.kind == spyre::BufferKind::Input && b.shape.size() == 2 && rightOperand[i]);
            if (!weight || (b.pinned && b.stickDim == 0))
                continue;
            b.pinned = true;
            b.stickDim = 0;
            ++pinned;
            if (pinned <= 4)
                names += (names.empty() ? "" : ", ") + (b.origin.empty() ? b.name : b.origin);
        }
        if (pinned > 4)
            names += ", ...";
        return {pinned > 0, "pinned " + std::to_string(pinned) + (pinned == 1 ? " weight" : " weights") + " to stick dim 0" + (pinned ? " (" + names + ")" : std::string())};
    }
};

void registerPasses(PassRegistry& registry)
{
    registry.addSpyrePass("after:propagate_layouts", [] { return std::make_unique<PinWeightSticks>(); });
}

}  // namespace

SPYGLASS_PASS_PLUGIN("pin-weight-sticks", registerPasses)
