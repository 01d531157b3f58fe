#include "core/quantum/real_kernels.h"

#include "core/quantum/kernels.h"

namespace spyglass::quantum::realk {

namespace {
bool useAvx2(Build b) { return b == Build::Best && kernels::usingAvx2(); }
}  // namespace

void prepareAnsatz(double* a, const AnsatzPlan& p, Build b) { useAvx2(b) ? avx2::prepareAnsatz(a, p) : generic::prepareAnsatz(a, p); }
void prepareAnsatz(float* a, const AnsatzPlan& p, Build b) { useAvx2(b) ? avx2::prepareAnsatz(a, p) : generic::prepareAnsatz(a, p); }

double expectationPasses(const double* a, const ExpectationPlan& p, Build b)
{
    return useAvx2(b) ? avx2::expectationPasses(a, p) : generic::expectationPasses(a, p);
}

double expectationPasses(const float* a, const ExpectationPlan& p, Build b)
{
    return useAvx2(b) ? avx2::expectationPasses(a, p) : generic::expectationPasses(a, p);
}

}  // namespace spyglass::quantum::realk
