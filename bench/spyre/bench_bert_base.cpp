// bench_bert_base [--seq N] [--threads T] [--repeat R] [--data DIR]
// BERT-base through Spyglass in one run (issue 14): a 12-layer BERT-base (hidden 768, 12 heads, FFN 3072,
// vocabulary 30522, random weights) exported by Debian's python3-torch at bench time (bench/spyre/export_bert_base.py,
// into DIR, by default bench-data/ in the build tree), then
//  1. compile time of the whole model through the workbench (compileDocument, as `spyglass-cli compile` runs it):
//     wall time including reading the 440 MB file, and the ten passes' own time;
//  2. the functional simulation of `run --backend spyre` (the workbench's runOnSpyre on the exported test data,
//     fp16 device memory): host time of every MatMul kernel and its GFLOP/s, against OpenBLAS cblas_sgemm on the
//     same shapes (batch x M x K x N of each kernel, one sgemm per batch element) with the same thread count, in
//     this process; best of R runs each. The outputs are checked against PyTorch's with the device tolerance.
#include "core/common/job_control.h"
#include "core/model/model_loader.h"
#include "core/model/test_data.h"
#include "core/spyre/loop_ir.h"
#include "core/spyresim/gemm_f32.h"
#include "core/spyresim/spyre_simulator.h"
#include "core/workbench/workbench.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

using namespace spyglass;

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0) { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }

// One MatMul kernel's product: batch independent [M, K] x [K, N].
struct Shape4 {
    int64_t batch = 1, M = 1, K = 1, N = 1;
    auto key() const { return std::tuple(batch, M, K, N); }
    bool operator<(const Shape4& o) const { return key() < o.key(); }
    double flop() const { return 2.0 * static_cast<double>(batch * M * K * N); }
};

Shape4 matmulShape(const spyre::Kernel& k)
{
    Shape4 s;
    s.M = k.vars.at(static_cast<size_t>(k.matmul.m)).range;
    s.N = k.vars.at(static_cast<size_t>(k.matmul.n)).range;
    s.K = k.vars.at(static_cast<size_t>(k.matmul.k)).range;
    for (size_t v = 0; v < k.vars.size(); ++v)
        if (!k.vars[v].reduction && static_cast<int>(v) != k.matmul.m && static_cast<int>(v) != k.matmul.n)
            s.batch *= k.vars[v].range;
    return s;
}

std::string shellQuote(const std::string& s)
{
    std::string q = "'";
    for (char c : s)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

}  // namespace

int main(int argc, char** argv)
{
    int seq = 128, threads = 2, repeat = 3;
    std::string data = SPYGLASS_BENCH_DATA_DIR;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--seq") && i + 1 < argc)
            seq = std::max(8, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--data") && i + 1 < argc)
            data = argv[++i];
        else {
            std::fprintf(stderr, "usage: bench_bert_base [--seq N] [--threads T] [--repeat R] [--data DIR]\n");
            return 2;
        }
    }
    const std::string dir = data + "/seq" + std::to_string(seq);
    const std::string exportCmd = "/usr/bin/python3 " + shellQuote(std::string(SPYGLASS_SOURCE_DIR) + "/bench/spyre/export_bert_base.py") + " " +
                                  shellQuote(dir) + " " + std::to_string(seq);
    auto t0 = std::chrono::steady_clock::now();
    if (std::system(exportCmd.c_str()) != 0) {
        std::fprintf(stderr, "bench_bert_base: the export failed: %s\n", exportCmd.c_str());
        return 1;
    }
    std::printf("export (or cache check): %.1f s\n", secondsSince(t0));
    const std::string model = dir + "/bert_base/model.onnx";
    const std::string testData = dir + "/bert_base/test_data_set_0";
    std::printf("model %s: BERT-base, 12 layers, hidden 768, 12 heads, FFN 3072, vocabulary 30522, sequence %d; GEMM %s; %d host threads\n\n",
                model.c_str(), seq, spyresim::gemmF32Implementation(), threads);

    try {
        // 1. Compile through the workbench, as `spyglass-cli compile` does (no simulation).
        double compileBest = 1e30, passesBest = 1e30;
        size_t kernels = 0;
        for (int r = 0; r < repeat; ++r) {
            JobControl job;
            CompileRequest request;
            request.simulate = false;
            t0 = std::chrono::steady_clock::now();
            const CompiledDocument doc = compileDocument(QString::fromStdString(model), job, request);
            compileBest = std::min(compileBest, secondsSince(t0));
            double passes = 0;
            for (const PassRecord& p : doc.passes)
                passes += p.wallMs / 1e3;
            passesBest = std::min(passesBest, passes);
            kernels = doc.programs.back()->bundle->kernels.size();
        }
        std::printf("#### Compile (compileDocument, best of %d)\n| wall incl. reading the model | ten passes | kernels |\n|---|---|---|\n", repeat);
        std::printf("| %.2f s | %.3f s | %zu |\n\n", compileBest, passesBest, kernels);
        std::fflush(stdout);

        // 2. `run --backend spyre`: load with the test data's integer inputs kept as inputs, compile, simulate.
        const model::TestDataSet set = model::readTestDataSet(testData);
        const model::ModelGraph graph = model::loadModel(model, model::bindIntegerInputs(set));
        const std::vector<model::HostTensor> inputs = model::graphInputsFromTestData(graph, set);
        JobControl job;
        const CompiledDocument doc = compileModelGraph(graph, job, {});
        const spyre::KernelBundle& bundle = *doc.programs.back()->bundle;
        spyresim::SimOptions so;
        so.hostThreads = threads;
        so.trace = false;
        std::vector<double> matmulBest;   // per MatMul kernel, best over the runs
        double kernelsBest = 1e30, wallBest = 1e30;
        std::vector<model::TensorComparison> cmp;
        for (int r = 0; r < repeat; ++r) {
            const SpyreRunResult run = runOnSpyre(doc, graph, inputs, so, &job);
            kernelsBest = std::min(kernelsBest, run.sim->kernelWallMs / 1e3);
            wallBest = std::min(wallBest, run.sim->wallMs / 1e3);
            size_t j = 0;
            for (size_t i = 0; i < bundle.kernels.size(); ++i)
                if (bundle.kernels[i].op == spyre::OpKind::MatMul) {
                    if (matmulBest.size() <= j)
                        matmulBest.push_back(1e30);
                    matmulBest[j] = std::min(matmulBest[j], run.sim->kernelWallMsEach.at(i) / 1e3);
                    ++j;
                }
            if (r == 0)
                cmp = compareOutputs(run.outputs, set.outputs, spyresim::kDeviceRtol, spyresim::deviceAtol(set.outputs));
        }

        // The same products in OpenBLAS, one shape group at a time (fresh random operands, fp32).
        openblas_set_num_threads(threads);
        struct Group {
            int count = 0;
            double sim = 0, blas = 0;
        };
        std::map<Shape4, Group> groups;
        {
            size_t j = 0;
            for (const spyre::Kernel& k : bundle.kernels)
                if (k.op == spyre::OpKind::MatMul) {
                    Group& g = groups[matmulShape(k)];
                    ++g.count;
                    g.sim += matmulBest[j++];
                }
        }
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> u(-1, 1);
        for (auto& [s, g] : groups) {
            std::vector<float> a(static_cast<size_t>(s.M * s.K)), b(static_cast<size_t>(s.K * s.N)), c(static_cast<size_t>(s.M * s.N));
            for (float& x : a)
                x = u(rng);
            for (float& x : b)
                x = u(rng);
            double best = 1e30;
            for (int r = 0; r < repeat; ++r) {
                t0 = std::chrono::steady_clock::now();
                for (int e = 0; e < g.count; ++e)
                    for (int64_t bi = 0; bi < s.batch; ++bi)
                        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(s.M), static_cast<int>(s.N), static_cast<int>(s.K), 1.0f,
                                    a.data(), static_cast<int>(s.K), b.data(), static_cast<int>(s.N), 0.0f, c.data(), static_cast<int>(s.N));
                best = std::min(best, secondsSince(t0));
            }
            g.blas = best;
        }

        std::printf("#### Functional simulation of the MatMul kernels vs OpenBLAS sgemm (%d threads each, best of %d)\n", threads, repeat);
        std::printf("| batch x M x K x N | kernels | simulator s | sim GFLOP/s | sgemm s | sgemm GFLOP/s | simulator / sgemm |\n|---|---|---|---|---|---|---|\n");
        double simAll = 0, blasAll = 0, flopAll = 0;
        for (const auto& [s, g] : groups) {
            const double flop = s.flop() * g.count;
            simAll += g.sim;
            blasAll += g.blas;
            flopAll += flop;
            std::printf("| %lld x %lld x %lld x %lld | %d | %.4f | %.1f | %.4f | %.1f | %.2f |\n", (long long)s.batch, (long long)s.M, (long long)s.K,
                        (long long)s.N, g.count, g.sim, flop / g.sim / 1e9, g.blas, flop / g.blas / 1e9, g.blas / g.sim);
        }
        std::printf("| **all MatMul kernels** | %zu | %.4f | %.1f | %.4f | %.1f | %.2f |\n\n", matmulBest.size(), simAll, flopAll / simAll / 1e9, blasAll,
                    flopAll / blasAll / 1e9, blasAll / simAll);
        std::printf("whole simulation: %.3f s of kernels (%.3f s in MatMul kernels), %.3f s with loading the tensors into device memory\n", kernelsBest,
                    simAll, wallBest);
        bool ok = true;
        for (size_t i = 0; i < cmp.size(); ++i) {
            std::printf("output %zu: %s\n", i, cmp[i].summary(set.outputNames.at(i)).c_str());
            ok = ok && cmp[i].ok;
        }
        return ok ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_bert_base: %s\n", e.what());
        return 1;
    }
}
