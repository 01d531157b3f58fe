#pragma once
// The quantum compiler's instance of the common pass infrastructure (core/common/pass_manager.h), and the factory
// for each built-in pass (one pass per file).

#include "core/common/pass_manager.h"
#include "core/quantum/circuit.h"

#include <functional>
#include <limits>
#include <memory>
#include <string>

namespace spyglass::quantum {

// What a QPIR pass may ask of its caller: only the job (passes are otherwise pure functions of the circuit).
struct PassContext {
    const JobControl* job = nullptr;
};
using Pass = spyglass::Pass<Circuit, PassContext>;
using PassResult = spyglass::PassResult;

using PassInsertion = spyglass::PassInsertion<Circuit, PassContext>;

enum class Basis { U3Cx, RzSx };
enum class Coupling { None, Linear, Grid, HeavyHex };

std::unique_ptr<Pass> makeInlineGatesPass();
std::unique_ptr<Pass> makeDecomposePass(Basis basis);
std::unique_ptr<Pass> makeCancelInversesPass();
std::unique_ptr<Pass> makeMergeRotationsPass();
std::unique_ptr<Pass> makeRemoveIdentitiesPass();
std::unique_ptr<Pass> makeRoutePass(Coupling coupling);
// localQubits: with the state spread over MPI ranks, the qubits below it are local; a non-diagonal block never
// takes a global qubit in (see pass_fuse.cpp).
std::unique_ptr<Pass> makeFusePass(int maxQubits, int localQubits = std::numeric_limits<int>::max());
// The fuse pass keeping the fusion named `fusion` (as its summary names them: "cost-aware", "wide <= 3 in cache
// blocks", "wide", ...) whatever the estimates say: for measuring each candidate against the one the cost model
// picks (quantum_bench --fusion). An unknown name keeps the circuit unfused.
std::unique_ptr<Pass> makeFusePassKeeping(int maxQubits, const std::string& fusion);

// Helpers shared by the passes.
namespace passutil {
// The built-in qelib1.inc parsed once (definitions of every standard gate in terms of U and CX).
const GateLibrary& builtinLibrary();
// Definition used to expand `name`: the circuit's own library first, then the built-in one.
const GateDef* definitionFor(const Circuit& c, const std::string& name);
// Expands one gate call by its definition (one level), appending to `out`.
void expandOnce(const GateDef& def, const Op& op, std::vector<Op>& out);
bool isStdDiagonal(const std::string& name);
// Do two unconditioned gate ops commute? Conservative (false when unsure).
bool gatesCommute(const Op& a, const Op& b);
// Are the two gates together the identity up to global phase (a then b)?
bool cancels(const Op& a, const Op& b);
bool sharesQubit(const Op& a, const Op& b);
// Removes the ops whose `removed` flag is set, keeping the order of the rest.
void eraseMarked(std::vector<Op>& ops, const std::vector<char>& removed);
}  // namespace passutil

}  // namespace spyglass::quantum
