// The program gates' steps (kernels.h: ProgramStep, setProgram): what each step costs the kernel, and the
// normalisation that moves a fused block's gates onto the prepared gate's targets and merges what meets.
#include "core/quantum/kernels.h"

#include <algorithm>
#include <complex>
#include <stdexcept>

namespace spyglass::quantum::kernels {

namespace {

using Z = std::complex<double>;

Z entry(const ProgramStep& s, int i) { return {s.values[2 * size_t(i)], s.values[2 * size_t(i) + 1]}; }

bool isOneQubitDiagonal(const ProgramStep& s) { return s.target >= 0 && entry(s, 1) == Z(0) && entry(s, 2) == Z(0); }

// The local target bits a diagonal step's factors depend on.
int support(const ProgramStep& s, int k)
{
    int bits = 0;
    for (int j = 0; j < k; ++j)
        for (int i = 0; i < 1 << k && !(bits >> j & 1); ++i)
            if (!(i >> j & 1) && entry(s, i) != entry(s, i | 1 << j))
                bits |= 1 << j;
    return bits;
}

// Vector operations a pair of outputs of a one-qubit step above the vector lanes takes (programHigh* in
// kernels_impl.inc): a real matrix 4, an rx-like one 6 (two swaps more), any other 10.
int pairOps(ProgramStepKind kind) { return kind == ProgramStepKind::Real ? 4 : kind == ProgramStepKind::ImagOff ? 6 : 10; }

ProgramStep diagonalOf(const ProgramStep& oneQubit, int k)
{
    ProgramStep d;
    d.values.resize(size_t(2) << k);
    for (int i = 0; i < 1 << k; ++i) {
        const Z z = entry(oneQubit, (i >> oneQubit.target & 1) ? 3 : 0);
        d.values[2 * size_t(i)] = z.real();
        d.values[2 * size_t(i) + 1] = z.imag();
    }
    return d;
}

// later * earlier, both one-qubit matrices on one target, or both diagonals.
void multiplyInto(ProgramStep& earlier, const ProgramStep& later, int k)
{
    if (earlier.target >= 0) {
        Z m[4];
        for (int r = 0; r < 2; ++r)
            for (int c = 0; c < 2; ++c)
                m[2 * r + c] = entry(later, 2 * r) * entry(earlier, c) + entry(later, 2 * r + 1) * entry(earlier, 2 + c);
        for (int e = 0; e < 4; ++e) {
            earlier.values[2 * e] = m[e].real();
            earlier.values[2 * e + 1] = m[e].imag();
        }
        return;
    }
    for (int i = 0; i < 1 << k; ++i) {
        const Z z = entry(earlier, i) * entry(later, i);
        earlier.values[2 * size_t(i)] = z.real();
        earlier.values[2 * size_t(i) + 1] = z.imag();
    }
}

// Appends s to the steps, merged into an earlier one where it can move back to it across steps it commutes with
// (a diagonal commutes with diagonals and with one-qubit matrices off its support; a one-qubit matrix with
// diagonals off its target and with matrices on other targets).
void append(std::vector<ProgramStep>& steps, ProgramStep s, int k)
{
    if (isOneQubitDiagonal(s))
        s = diagonalOf(s, k);
    const int mine = s.target < 0 ? support(s, k) : 1 << s.target;
    for (size_t i = steps.size(); i-- > 0;) {
        ProgramStep& e = steps[i];
        if (s.target < 0 && e.target < 0) {
            multiplyInto(e, s, k);
            return;
        }
        if (s.target >= 0 && e.target == s.target) {
            ProgramStep product = e;
            multiplyInto(product, s, k);
            if (pairOps(programStepKind(product, k)) <= pairOps(programStepKind(e, k)) + pairOps(programStepKind(s, k))) {
                e = std::move(product);
                return;
            }
            break;
        }
        const int theirs = e.target < 0 ? support(e, k) : 1 << e.target;
        const bool commute = (e.target < 0 && s.target < 0) || !(mine & theirs);
        if (!commute)
            break;
    }
    steps.push_back(std::move(s));
}

}  // namespace

ProgramStepKind programStepKind(const ProgramStep& s, int k)
{
    if (s.target < 0) {
        for (int i = 0; i < 1 << k; ++i)
            if (s.values[2 * size_t(i) + 1] != 0)
                return ProgramStepKind::ComplexDiagonal;
        return ProgramStepKind::Diagonal;
    }
    return oneQubitStepKind(s.values.data());
}

ProgramStepKind oneQubitStepKind(const double* f)
{
    if (f[1] == 0 && f[3] == 0 && f[5] == 0 && f[7] == 0)
        return ProgramStepKind::Real;
    if (f[1] == 0 && f[7] == 0 && f[2] == 0 && f[4] == 0)
        return ProgramStepKind::ImagOff;
    return ProgramStepKind::Complex;
}

std::vector<ProgramStep> normalizedProgram(const int* targets, int k, const std::vector<int>& qubits, const std::vector<ProgramStep>& steps)
{
    if (static_cast<int>(qubits.size()) != k)
        throw std::invalid_argument("program steps on " + std::to_string(qubits.size()) + " qubits for a gate on " + std::to_string(k));
    // place[j]: where qubits[j] is among the ascending targets.
    int place[kMaxTargets];
    for (int j = 0; j < k; ++j)
        place[j] = static_cast<int>(std::find(targets, targets + k, qubits[j]) - targets);
    std::vector<ProgramStep> out;
    for (const ProgramStep& s : steps) {
        ProgramStep moved;
        moved.target = s.target < 0 ? -1 : place[s.target];
        if (s.target >= 0) {
            if (s.values.size() != 8)
                throw std::invalid_argument("a one-qubit program step needs 8 numbers");
            moved.values = s.values;
        } else {
            if (s.values.size() != size_t(2) << k)
                throw std::invalid_argument("a diagonal program step needs 2^k factors");
            moved.values.resize(s.values.size());
            for (int i = 0; i < 1 << k; ++i) {
                int to = 0;
                for (int j = 0; j < k; ++j)
                    to |= (i >> j & 1) << place[j];
                moved.values[2 * size_t(to)] = s.values[2 * size_t(i)];
                moved.values[2 * size_t(to) + 1] = s.values[2 * size_t(i) + 1];
            }
        }
        append(out, std::move(moved), k);
    }
    return out;
}

void programShape(const std::vector<ProgramStep>& steps, const int* targets, int k, CostShape& s)
{
    s.program = true;
    s.programReal = s.programRxLike = s.programComplex = s.programDiagonal = s.programInLanes = 0;
    const int laneQubits = laneBits(activeIsa(), false);
    for (const ProgramStep& step : steps) {
        const ProgramStepKind kind = programStepKind(step, k);
        if (step.target < 0) {
            ++s.programDiagonal;
            continue;
        }
        ++(kind == ProgramStepKind::Real ? s.programReal : kind == ProgramStepKind::ImagOff ? s.programRxLike : s.programComplex);
        s.programInLanes += targets[step.target] < laneQubits;
    }
}

std::vector<double> programMatrix(int k, const std::vector<ProgramStep>& steps)
{
    const int dim = 1 << k;
    std::vector<Z> m(size_t(dim) * dim), next(m.size());
    for (int i = 0; i < dim; ++i)
        m[size_t(i) * dim + i] = 1;
    for (const ProgramStep& s : steps) {
        for (int r = 0; r < dim; ++r)
            for (int c = 0; c < dim; ++c) {
                Z z;
                if (s.target < 0) {
                    z = entry(s, r) * m[size_t(r) * dim + c];
                } else {
                    const int bit = r >> s.target & 1, r0 = r & ~(1 << s.target);
                    z = entry(s, 2 * bit) * m[size_t(r0) * dim + c] + entry(s, 2 * bit + 1) * m[size_t(r0 | 1 << s.target) * dim + c];
                }
                next[size_t(r) * dim + c] = z;
            }
        m.swap(next);
    }
    std::vector<double> out(2 * m.size());
    for (size_t e = 0; e < m.size(); ++e) {
        out[2 * e] = m[e].real();
        out[2 * e + 1] = m[e].imag();
    }
    return out;
}

void setProgram(PreparedGate& g, const std::vector<int>& qubits, const std::vector<ProgramStep>& steps)
{
    g.programSteps = normalizedProgram(g.targets, g.k, qubits, steps);
    g.program = true;
    g.tensor = false;
    g.sparse = false;
    g.diagonal = false;
    g.permutation = false;
}

void carryProgram(PreparedGate& to, const PreparedGate& from, const std::vector<int>& mappedTargets)
{
    if (!from.program)
        return;
    setProgram(to, mappedTargets, from.programSteps);
}

}  // namespace spyglass::quantum::kernels
