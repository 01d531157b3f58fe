// bench_spyre_compile [--layers N,N,...] [--seq S] [--width D] [--heads H] [--repeat R] [--no-text] [--dump FILE]
// Compiles generated transformer encoders through every Spyre pass and prints the wall time of each pass
// (median of R runs) as a Markdown table. "--no-text" skips printing the IR after each pass (the pass times
// are the same; the total then excludes the printer).
#include "core/common/job_control.h"
#include "core/spyre/model_builder.h"
#include "core/spyre/spyre_pipeline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace spyglass;
using namespace spyglass::spyre;

int main(int argc, char** argv)
{
    std::vector<int> layers = {1, 12, 48};
    int seq = 128, width = 768, heads = 12, repeat = 3;
    bool text = true;
    std::string dump;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
        if (a == "--layers") {
            layers.clear();
            std::stringstream ss(next());
            for (std::string s; std::getline(ss, s, ',');)
                layers.push_back(std::stoi(s));
        } else if (a == "--seq") seq = std::stoi(next());
        else if (a == "--width") width = std::stoi(next());
        else if (a == "--heads") heads = std::stoi(next());
        else if (a == "--repeat") repeat = std::max(1, std::stoi(next()));
        else if (a == "--no-text") text = false;
        else if (a == "--dump") dump = next();
        else {
            std::fprintf(stderr, "unknown option %s\n", a.c_str());
            return 2;
        }
    }
    const SpyreTarget target = SpyreTarget::loadDefault();
    std::printf("target %s (%s), seq %d, width %d, heads %d, median of %d runs, IR text %s\n\n", target.name.c_str(),
                target.path.c_str(), seq, width, heads, repeat, text ? "printed after every pass" : "not printed");
    std::vector<std::string> names;
    std::map<int, std::map<std::string, double>> table;
    std::map<int, double> totals, wall;
    std::map<int, size_t> kernels;
    for (int n : layers) {
        const model::ModelGraph g = transformerEncoder(n, seq, width, heads);
        std::map<std::string, std::vector<double>> runs;
        std::vector<double> walls;
        for (int r = 0; r < repeat; ++r) {
            CompileOptions o;
            o.keepIrText = text;
            JobControl job;
            const auto t0 = std::chrono::steady_clock::now();
            const auto snaps = SpyrePipeline::run(g, target, o, job);
            walls.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
            names.clear();
            for (const auto& s : snaps) {
                if (s.record.name == "import")
                    continue;
                names.push_back(s.record.name);
                runs[s.record.name].push_back(s.record.wallMs);
            }
            kernels[n] = snaps.back().ir->ops.size();
            if (r == 0) {
                for (const auto& s : snaps)
                    std::fprintf(stderr, "N=%d %-20s %s\n", n, s.record.name.c_str(), s.record.summary.c_str());
                if (!dump.empty() && n == layers.front()) {
                    std::ofstream(dump) << snaps.back().record.irText;
                }
            }
        }
        double total = 0;
        for (auto& [name, v] : runs) {
            std::sort(v.begin(), v.end());
            table[n][name] = v[v.size() / 2];
            total += v[v.size() / 2];
        }
        std::sort(walls.begin(), walls.end());
        totals[n] = total;
        wall[n] = walls[walls.size() / 2];
    }
    std::printf("| pass |");
    for (int n : layers)
        std::printf(" N=%d (ms) |", n);
    std::printf("\n|---|");
    for (size_t i = 0; i < layers.size(); ++i)
        std::printf("---:|");
    std::printf("\n");
    for (const std::string& name : names) {
        std::printf("| %s |", name.c_str());
        for (int n : layers)
            std::printf(" %.2f |", table[n][name]);
        std::printf("\n");
    }
    std::printf("| **sum of passes** |");
    for (int n : layers)
        std::printf(" **%.1f** |", totals[n]);
    std::printf("\n| wall incl. import%s |", text ? " and IR printing" : "");
    for (int n : layers)
        std::printf(" %.1f |", wall[n]);
    std::printf("\n| kernels |");
    for (int n : layers)
        std::printf(" %zu |", kernels[n]);
    std::printf("\n");
    return 0;
}
