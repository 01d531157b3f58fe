#include "core/quantum/simulator.h"

#include "core/quantum/gates.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <set>
#include <type_traits>
#include <utility>

namespace spyglass::quantum {

namespace {

[[noreturn]] void cannotRun(const Circuit& c, const Op& op, const std::string& why)
{
    throw InputError(SourceLocation{c.name, op.line, 0}, "cannot simulate gate '" + op.name + "': " + why);
}

}  // namespace

kernels::PreparedGate prepareOp(const Circuit& c, const Op& op)
{
    if (!c.isPrimitive(op)) {
        const GateDef* d = c.findGate(op.name);
        if (d && d->opaque)
            cannotRun(c, op, "it is declared opaque and has no definition");
        cannotRun(c, op, "it is not a primitive gate (run inline_gates first)");
    }
    if (op.fused) {
        kernels::PreparedGate g = kernels::prepare({}, op.qubits, interleavedMatrix(op.fused->matrix));
        if (!op.fused->program.empty()) {
            std::vector<kernels::ProgramStep> steps;
            for (const FusedStep& s : op.fused->program)
                steps.push_back({s.target, interleavedMatrix(s.values)});
            kernels::setProgram(g, op.qubits, steps);
        }
        return g;
    }
    const StdGate* g = findStdGate(op.name);
    std::vector<int> controls(op.qubits.begin(), op.qubits.begin() + g->controls);
    std::vector<int> targets(op.qubits.begin() + g->controls, op.qubits.end());
    return kernels::prepare(controls, targets, interleavedMatrix(stdTargetMatrix(op.name, op.params)));
}

bool measurementsAreTerminal(const Circuit& c)
{
    std::vector<char> touched(static_cast<size_t>(c.numQubits), 0), measured(static_cast<size_t>(c.numQubits), 0);
    for (const Op& op : c.ops) {
        if (op.cond.active())
            return false;
        switch (op.kind) {
        case OpKind::Barrier: break;
        case OpKind::Measure:
            for (int q : op.qubits)
                measured[q] = 1;
            break;
        case OpKind::Reset:
            for (int q : op.qubits)
                if (touched[q] || measured[q])
                    return false;   // a reset of a fresh qubit changes nothing
            break;
        case OpKind::Gate:
            for (int q : op.qubits) {
                if (measured[q])
                    return false;
                touched[q] = 1;
            }
            break;
        }
    }
    return true;
}

std::string countsKey(const Circuit& c, const std::vector<char>& bits)
{
    std::string key;
    for (auto r = c.cregs.rbegin(); r != c.cregs.rend(); ++r) {
        if (!key.empty())
            key += ' ';
        for (int i = r->size - 1; i >= 0; --i)
            key += bits[r->offset + i] ? '1' : '0';
    }
    return key;
}

std::vector<kernels::PreparedGate> prepareGates(const Circuit& c)
{
    std::vector<kernels::PreparedGate> prepared;
    for (const Op& op : c.ops) {
        if (op.kind == OpKind::Gate) {
            if (op.cond.active())
                throw InputError(SourceLocation{c.name, op.line, 0}, "a conditioned gate needs shot-by-shot simulation");
            prepared.push_back(prepareOp(c, op));
        } else if (op.kind == OpKind::Reset || op.kind == OpKind::Measure) {
            throw InputError(SourceLocation{c.name, op.line, 0}, "measure/reset inside a unitary run");
        }
    }
    return prepared;
}

std::vector<kernels::PreparedGate> prepareFinalGates(const Circuit& c)
{
    if (!measurementsAreTerminal(c))
        throw InputError(SourceLocation{c.name, 0, 0},
                         "the final state is not defined: the circuit has mid-circuit measurement, reset after gates, or if");
    Circuit gatesOnly = c;
    gatesOnly.ops.clear();
    for (const Op& op : c.ops)
        if (op.kind == OpKind::Gate)
            gatesOnly.ops.push_back(op);
    return prepareGates(gatesOnly);
}

void applyGates(const Circuit& c, StateVector& sv, JobControl* job)
{
    // One list, so cache-blocked runs can span the whole circuit; applyAll checks the job between runs.
    sv.applyAll(prepareGates(c), job);
}

std::unique_ptr<StateVector> finalState(const Circuit& c, Precision p, JobControl* job)
{
    const auto gates = prepareFinalGates(c);
    auto sv = std::make_unique<StateVector>(c.numQubits, p);
    sv->applyAll(gates, job);
    return sv;
}

std::unique_ptr<distributed::DistributedState> finalDistributedState(const Circuit& c, Precision p, JobControl* job,
                                                                     const std::function<void()>& beforeGates)
{
    const auto gates = prepareFinalGates(c);
    auto ds = std::make_unique<distributed::DistributedState>(c.numQubits, p, distributed::minLocalQubits(gates));
    if (beforeGates)
        beforeGates();
    ds->applyAll(gates, job);
    ds->restoreOrder();
    return ds;
}

namespace {

bool unconditionedGate(const Op& op)
{
    return (op.kind == OpKind::Gate || op.kind == OpKind::Barrier) && !op.cond.active();
}

// Ops before the first measurement, reset or condition: run once, then copied for every shot.
size_t unitaryPrefix(const Circuit& c)
{
    size_t prefix = 0;
    while (prefix < c.ops.size() && unconditionedGate(c.ops[prefix]))
        ++prefix;
    return prefix;
}

// A measurement (clbit >= 0) or a reset (clbit -1) of one qubit.
struct Measured {
    int qubit = 0;
    int clbit = -1;
};

// What every shot runs after the unitary prefix, in order, each built once: a run of unconditioned gates (applyAll's
// cache-blocked runs, not a pass each), a row of unconditioned measurements and resets (in groups on distinct
// qubits, each group measured together), or one op with a condition (its gate prepared here, if it is one). Only
// the ops after the prefix take room here, and a run or a row takes one step however many ops it holds.
struct ShotStep {
    std::vector<kernels::PreparedGate> gates;       // a run, or the conditioned op's gate
    std::vector<std::vector<Measured>> groups;      // a row of measurements and resets
    const Op* conditioned = nullptr;
};

// Up to 2^10 outcomes at a time.
constexpr size_t kMaxMeasuredTogether = 10;

bool unconditionedMeasurement(const Op& op)
{
    return (op.kind == OpKind::Measure || op.kind == OpKind::Reset) && !op.cond.active();
}

std::vector<ShotStep> shotSteps(const Circuit& c, size_t prefix)
{
    std::vector<ShotStep> steps;
    for (size_t i = prefix; i < c.ops.size();) {
        ShotStep step;
        if (unconditionedGate(c.ops[i])) {
            for (; i < c.ops.size() && unconditionedGate(c.ops[i]); ++i)
                if (c.ops[i].kind == OpKind::Gate)
                    step.gates.push_back(prepareOp(c, c.ops[i]));
        } else if (unconditionedMeasurement(c.ops[i])) {
            uint64_t seen = 0;   // the qubits of the last group (a repeated one starts another)
            for (; i < c.ops.size() && unconditionedMeasurement(c.ops[i]); ++i)
                for (size_t k = 0; k < c.ops[i].qubits.size(); ++k) {
                    const int q = c.ops[i].qubits[k];
                    if (step.groups.empty() || (seen >> q & 1) || step.groups.back().size() == kMaxMeasuredTogether) {
                        step.groups.emplace_back();
                        seen = 0;
                    }
                    step.groups.back().push_back(Measured{q, c.ops[i].kind == OpKind::Measure ? c.ops[i].clbits[k] : -1});
                    seen |= uint64_t(1) << q;
                }
        } else {
            step.conditioned = &c.ops[i];
            if (c.ops[i].kind == OpKind::Gate)
                step.gates.push_back(prepareOp(c, c.ops[i]));
            ++i;
        }
        steps.push_back(std::move(step));
    }
    return steps;
}

// Shot by shot (mid-circuit measurement, reset, if) on a StateVector or a DistributedState, from `start` (the
// state after the unitary prefix).
template <class State>
void runTrajectories(const Circuit& c, const SimOptions& opt, const std::vector<ShotStep>& steps, State& start, State& sv,
                     std::mt19937_64& rng, SimResult& res, JobControl* job)
{
    std::vector<char> bits(static_cast<size_t>(c.numClbits), 0);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    auto regValue = [&](int creg) {
        const Register& r = c.cregs[creg];
        uint64_t v = 0;
        for (int i = 0; i < r.size && i < 64; ++i)
            v |= uint64_t(bits[r.offset + i]) << i;
        return v;
    };
    // Measures q (and, for a reset, puts it back to |0>); returns the outcome.
    auto measureQubit = [&](int q, bool reset) {
        const double p1 = sv.probabilityOfOne(q);
        const int outcome = u(rng) < p1 ? 1 : 0;
        // A qubit with no weight at all on |1> (an ancilla back in |0>, as resets and syndrome measurements often
        // find it) is left as it is: the collapse would scale by 1 and clear amplitudes that are 0 already.
        if (p1 != 0) {
            const double prob = outcome ? p1 : 1 - p1;
            if (reset)
                sv.resetAfter(q, outcome, prob);
            else
                sv.collapse(q, outcome, prob);
        }
        return outcome;
    };
    // A group measured together on a StateVector (a pass for their outcomes' probabilities and one to project,
    // where each qubit alone takes two): the outcomes are drawn qubit by qubit, each from its probability given
    // those before it, so the draws are the ones the qubits measured one by one would make.
    auto measureTogether = [&](const std::vector<Measured>& group) {
        if constexpr (std::is_same_v<State, StateVector>) {
            if (group.size() > 1) {
                std::vector<int> qubits;
                uint64_t resets = 0;
                for (size_t j = 0; j < group.size(); ++j) {
                    qubits.push_back(group[j].qubit);
                    resets |= uint64_t(group[j].clbit < 0) << j;
                }
                const std::vector<double> p = sv.outcomeProbabilities(qubits);
                uint64_t drawn = 0;
                for (size_t j = 0; j < group.size(); ++j) {
                    double given = 0, one = 0;   // the weight of the outcomes drawn so far, and of those with qubit j at 1
                    for (uint64_t o = 0; o < p.size(); ++o)
                        if ((o & ((uint64_t(1) << j) - 1)) == drawn) {
                            given += p[o];
                            one += (o >> j & 1) ? p[o] : 0.0;
                        }
                    if (u(rng) < (given > 0 ? one / given : 0.0))
                        drawn |= uint64_t(1) << j;
                    if (group[j].clbit >= 0)
                        bits[static_cast<size_t>(group[j].clbit)] = char(drawn >> j & 1);
                }
                // As for one qubit: an outcome that holds all the weight leaves the state as it is (unless it resets).
                bool certain = true;
                for (uint64_t o = 0; o < p.size(); ++o)
                    certain = certain && (o == drawn || p[o] == 0);
                if (!certain || (drawn & resets))
                    sv.projectOntoOutcome(qubits, drawn & ~resets, drawn & resets, p[drawn]);
                return;
            }
        }
        for (const Measured& m : group) {
            const int outcome = measureQubit(m.qubit, m.clbit < 0);
            if (m.clbit >= 0)
                bits[static_cast<size_t>(m.clbit)] = char(outcome);
        }
    };
    for (int shot = 0; shot < opt.shots; ++shot) {
        if (job) {
            job->checkpoint();   // every shot: a Cancel (Ctrl+C) is honoured within one shot
            if ((shot & 15) == 0)
                job->report(double(shot) / opt.shots, "simulating shots");
        }
        sv.copyFrom(start);
        std::fill(bits.begin(), bits.end(), 0);
        for (const ShotStep& step : steps) {
            const Op* op = step.conditioned;
            if (!op) {
                if (!step.gates.empty())
                    sv.applyAll(step.gates, job);
                for (const std::vector<Measured>& group : step.groups)
                    measureTogether(group);
                continue;
            }
            if (regValue(op->cond.creg) != op->cond.value)
                continue;
            switch (op->kind) {
            case OpKind::Gate: sv.apply(step.gates.front()); break;
            case OpKind::Barrier: break;
            case OpKind::Measure:
                for (size_t j = 0; j < op->qubits.size(); ++j)
                    bits[op->clbits[j]] = char(measureQubit(op->qubits[j], false));
                break;
            case OpKind::Reset:
                for (int q : op->qubits)
                    measureQubit(q, true);
                break;
            }
        }
        ++res.counts[countsKey(c, bits)];
    }
}

}  // namespace

double estimatedWork(const Circuit& c, int shots)
{
    const double amplitudes = std::ldexp(1.0, c.numQubits);
    double once = 0, perShot = 0;
    const size_t prefix = measurementsAreTerminal(c) ? c.ops.size() : unitaryPrefix(c);
    // A measurement or reset passes over the state once per qubit; a shot starts with a copy of the prefix's state.
    for (size_t i = 0; i < c.ops.size(); ++i) {
        const Op& op = c.ops[i];
        if (op.kind != OpKind::Barrier)
            (i < prefix ? once : perShot) += op.kind == OpKind::Gate ? 1.0 : static_cast<double>(op.qubits.size());
    }
    if (prefix < c.ops.size())
        perShot += 1;
    return (once + perShot * std::max(shots, 0)) * amplitudes;
}

SimResult simulate(const Circuit& c, const SimOptions& opt, JobControl* job)
{
    const auto t0 = std::chrono::steady_clock::now();
    SimResult res;
    if (opt.shots < 0)
        throw InputError(SourceLocation{}, "shots must not be negative");
    const bool spread = distributed::ranks() > 1;
    // Memory first (no --force helps there), then the work, both before anything is allocated or run: a small
    // file can ask for hours (a 26-qubit circuit with a reset, 1024 shots, each shot re-running the circuit).
    // Spread over MPI ranks, each rank checks its own share (DistributedState) and does a share of the work.
    // (Spread over MPI ranks, the ranks check their shares together when the state is made, and then the work.)
    const auto checkWork = [&] {
        const double work = estimatedWork(c, opt.shots) / distributed::ranks();
        if (work <= opt.maxWork)
            return;
        std::ostringstream m;
        m.precision(2);
        m << "the simulation would take about " << work << " amplitude updates" << (spread ? " per rank" : "") << " (" << c.numQubits << " qubits";
        if (!measurementsAreTerminal(c))
            m << ", " << opt.shots << " shots each re-running the circuit from its first measurement, reset or condition";
        m.precision(0);
        m << std::fixed << "), " << work / opt.maxWork << " times the limit";
        if (opt.maxWork == kMaxSimulationWork)
            m << " of 2^38 (about 5 minutes on a 2-core machine)";
        m << "; use --force to run it anyway, or fewer shots or qubits";
        throw InputError(SourceLocation{}, m.str());
    };
    if (!spread) {
        checkMemory(c.numQubits, opt.precision, measurementsAreTerminal(c) ? 1 : 2);
        checkWork();
    }
    for (const Op& op : c.ops)
        if (op.kind == OpKind::Gate) {
            ++res.gatesApplied;
            res.fusedBlocks += op.fused != nullptr;
        }
    std::mt19937_64 rng(opt.seed);
    if (measurementsAreTerminal(c)) {
        std::vector<uint64_t> samples;
        if (spread) {
            auto ds = finalDistributedState(c, opt.precision, job, checkWork);
            samples = ds->sample(opt.shots, rng);
            res.ranks = ds->usedRanks();
            res.traffic = ds->traffic();
            res.note = ds->note();
        } else {
            samples = finalState(c, opt.precision, job)->sample(opt.shots, rng);
        }
        // clbit <- qubit of the last measurement writing it
        std::vector<int> source(static_cast<size_t>(c.numClbits), -1);
        for (const Op& op : c.ops)
            if (op.kind == OpKind::Measure)
                for (size_t i = 0; i < op.qubits.size(); ++i)
                    source[op.clbits[i]] = op.qubits[i];
        std::map<uint64_t, int> byIndex;
        for (uint64_t s : samples)
            ++byIndex[s];
        std::vector<char> bits(static_cast<size_t>(c.numClbits), 0);
        for (const auto& [idx, n] : byIndex) {
            for (int b = 0; b < c.numClbits; ++b)
                bits[b] = source[b] >= 0 ? char((idx >> source[b]) & 1) : 0;
            res.counts[countsKey(c, bits)] += n;
        }
    } else {
        res.trajectories = true;
        // Prepare gates once; run the unitary prefix once and copy it for every shot.
        const size_t prefix = unitaryPrefix(c);
        std::vector<kernels::PreparedGate> prefixGates;
        for (size_t i = 0; i < prefix; ++i)
            if (c.ops[i].kind == OpKind::Gate)
                prefixGates.push_back(prepareOp(c, c.ops[i]));
        const std::vector<ShotStep> steps = shotSteps(c, prefix);
        if (spread) {
            int minLocal = distributed::minLocalQubits(prefixGates);
            for (const ShotStep& step : steps)
                minLocal = std::max(minLocal, distributed::minLocalQubits(step.gates));
            distributed::DistributedState start(c.numQubits, opt.precision, minLocal), sv(c.numQubits, opt.precision, minLocal);
            checkWork();
            start.applyAll(prefixGates, job);
            runTrajectories(c, opt, steps, start, sv, rng, res, job);
            res.ranks = sv.usedRanks();
            res.traffic = start.traffic();
            res.traffic.exchanges += sv.traffic().exchanges;
            res.traffic.bytesSent += sv.traffic().bytesSent;
            res.note = sv.note();
        } else {
            checkMemory(c.numQubits, opt.precision, 2);
            StateVector start(c.numQubits, opt.precision), sv(c.numQubits, opt.precision);
            start.applyAll(prefixGates, job);
            runTrajectories(c, opt, steps, start, sv, rng, res, job);
        }
    }
    res.simMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return res;
}

}  // namespace spyglass::quantum
