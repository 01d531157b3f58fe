#pragma once
// How long-running core work (compile, simulate, layout) reports progress and notices a Cancel,
// without knowing whether a GUI, the CLI or a test is watching.

#include <atomic>
#include <functional>
#include <stdexcept>
#include <string>

namespace spyglass {

class Cancelled : public std::runtime_error {
public:
    Cancelled() : std::runtime_error("cancelled") {}
};

class JobControl {
public:
    using ProgressFn = std::function<void(double fraction, const std::string& what)>;

    JobControl() = default;
    explicit JobControl(ProgressFn fn) : progress_(std::move(fn)) {}

    void requestCancel() { cancelled_.store(true, std::memory_order_relaxed); }
    bool isCancelled() const { return cancelled_.load(std::memory_order_relaxed); }
    // Call at natural checkpoints; throws Cancelled so work unwinds without partial results.
    void checkpoint() const
    {
        if (isCancelled())
            throw Cancelled();
    }
    void report(double fraction, const std::string& what) const
    {
        if (progress_)
            progress_(fraction, what);
    }

private:
    std::atomic<bool> cancelled_{false};
    ProgressFn progress_;
};

}  // namespace spyglass
