// distributed_statevector.h without MPI: one process, one rank. DistributedState is never constructed then
// (callers check ranks() > 1); its constructor says why if something does.
#include "core/quantum/distributed_statevector.h"

#include "core/common/diagnostics.h"

#include <stdexcept>

namespace spyglass::quantum::distributed {

std::optional<std::string> init(int*, char***)
{
    if (launchedUnderMpi() && launcherRanks() > 1)
        return "this spyglass-cli was built without MPI, so " + std::to_string(launcherRanks()) +
               " ranks would each run the whole circuit; rebuild with libopenmpi-dev installed or run one process";
    return std::nullopt;
}

void finalize() {}
bool builtWithMpi() { return false; }
int rank() { return 0; }
int ranks() { return 1; }

void agree(const std::optional<std::string>& error)
{
    if (error)
        throw InputError(SourceLocation{}, *error);
}

void inTurn(const std::function<void()>& fn) { fn(); }
uint64_t broadcast(uint64_t v) { return v; }
double maxOverRanks(double v) { return v; }
void barrier() {}

struct DistributedState::Impl {};

DistributedState::DistributedState(int, Precision, int) { throw std::logic_error("built without MPI: no distributed state"); }
DistributedState::~DistributedState() = default;
int DistributedState::numQubits() const { return 0; }
int DistributedState::usedRanks() const { return 1; }
bool DistributedState::holdsAmplitudes() const { return false; }
const QubitMap& DistributedState::map() const { throw std::logic_error("built without MPI"); }
std::string DistributedState::note() const { return {}; }
void DistributedState::setZero() {}
void DistributedState::copyFrom(const DistributedState&) {}
void DistributedState::applyAll(const std::vector<kernels::PreparedGate>&, JobControl*) {}
void DistributedState::restoreOrder() {}
uint64_t DistributedState::offset() const { return 0; }
const StateVector* DistributedState::local() const { return nullptr; }
double DistributedState::probabilityOfOne(int) const { return 0; }
void DistributedState::collapse(int, int, double) {}
void DistributedState::resetAfter(int, int, double) {}
double DistributedState::expectation(const PauliSum&) { return 0; }
std::vector<uint64_t> DistributedState::sample(int, std::mt19937_64&) { return {}; }
Traffic DistributedState::traffic() const { return {}; }

}  // namespace spyglass::quantum::distributed
