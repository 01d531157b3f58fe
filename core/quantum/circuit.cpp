#include "core/quantum/circuit.h"

#include "core/quantum/gates.h"

namespace spyglass::quantum {

const GateDef* Circuit::findGate(const std::string& n) const
{
    if (!gates)
        return nullptr;
    auto it = gates->find(n);
    return it == gates->end() ? nullptr : &it->second;
}

bool Circuit::isPrimitive(const Op& op) const
{
    if (op.kind != OpKind::Gate)
        return false;
    if (op.fused)
        return true;
    if (!findStdGate(op.name))
        return false;
    const GateDef* d = findGate(op.name);
    return !d || d->builtin;
}

int Circuit::gateCount() const
{
    int n = 0;
    for (const Op& op : ops)
        n += op.kind == OpKind::Gate;
    return n;
}

namespace {
std::string bitName(const std::vector<Register>& regs, int index, char fallback)
{
    for (const Register& r : regs)
        if (index >= r.offset && index < r.offset + r.size)
            return r.name + "[" + std::to_string(index - r.offset) + "]";
    return std::string(1, fallback) + "[" + std::to_string(index) + "]";
}
}  // namespace

std::string Circuit::qubitName(int q) const { return bitName(qregs, q, 'q'); }
std::string Circuit::clbitName(int c) const { return bitName(cregs, c, 'c'); }

}  // namespace spyglass::quantum
