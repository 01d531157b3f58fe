// Test helper: session_writer DB SESSION COUNT [DELAY_MS]
// Records COUNT runs (0 = until killed) into session SESSION of database DB. Each run has 40 pass timings,
// 40 kernel timings, 4 circuit timings and a 4 KiB result, so a commit takes long enough to be killed in the
// middle of. After each commit it prints "committed <run id>" and flushes, before starting the next run.
#include "core/common/diagnostics.h"
#include "core/session/session_recorder.h"
#include "core/session/session_store.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

using namespace spyglass::session;

int main(int argc, char** argv)
{
    if (argc < 4) {
        std::fprintf(stderr, "usage: session_writer DB SESSION COUNT [DELAY_MS]\n");
        return 2;
    }
    const long count = std::strtol(argv[3], nullptr, 10);
    const long delayMs = argc > 4 ? std::strtol(argv[4], nullptr, 10) : 0;
    try {
        SessionStore store(argv[1]);
        const RowId session = store.openOrCreateSession(argv[2]);
        SessionRecorder rec(store, session);
        const std::string result = "{\"blob\":\"" + std::string(4096, 'x') + "\"}";
        for (long i = 0; count == 0 || i < count; ++i) {
            rec.beginRun({.kind = "run", .artifactPath = "model.onnx", .artifactKind = "onnx",
                          .artifactHash = "00000000000000000000000000000000000000000000000000000000000000aa",
                          .optionsJson = "{\"i\":" + std::to_string(i) + "}"});
            for (int p = 0; p < 40; ++p)
                rec.addPassTiming("pass_" + std::to_string(p), 0.5 + p);
            for (int k = 0; k < 40; ++k)
                rec.addKernelTiming("kernel_" + std::to_string(k), 1000.0 * (k + 1) + static_cast<double>(i), 4096 * (k + 1), 65536);
            for (int c = 0; c < 4; ++c)
                rec.addCircuitTiming(4 + c, 20 * (c + 1), 0.25 * (c + 1));
            rec.setSimulationWallMs(12.5);
            rec.setResultJson(result);
            const RowId id = rec.finishRun(RunStatus::Ok);
            std::printf("committed %lld\n", static_cast<long long>(id));
            std::fflush(stdout);
            if (delayMs > 0)
                std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "session_writer: %s\n", e.what());
        return 1;
    }
    return 0;
}
