#pragma once
#include "core/spyre/pass.h"

namespace spyglass::spyre {

// Makes every layout mismatch chosen by optimize_layouts explicit: for each (tensor, stick dim) some consumer needs
// and the producer does not provide, one Restickify op copies the tensor into that layout, placed just before its
// first consumer, and those consumers load the copy.
class InsertRestickifyPass : public Pass {
public:
    std::string name() const override { return "insert_restickify"; }
    std::string description() const override { return "insert restickify ops where a consumer needs another stick dim"; }
    PassResult run(Program& program, PassContext& ctx) override;
};

}  // namespace spyglass::spyre
