#pragma once
// The one pass infrastructure of both compilers, in MLIR's shape: a Pass<IR, Context> has a name, a one-line
// description and run(); a PassManager<IR, Context> runs a named list of them, keeps an immutable snapshot of the
// IR after every pass (what the explorer steps through), times each pass, reports progress and honours Cancel,
// stops after a named pass, and lets instrumentations watch every pass (dumps, --print-after, plugins' timing).
// The Spyre compiler instantiates it on (Program, spyre::PassContext), the quantum compiler on
// (Circuit, quantum::PassContext); user passes loaded from plugins go into the same list at a named point.

#include "core/common/diagnostics.h"
#include "core/common/job_control.h"
#include "core/common/pass_record.h"

#include <chrono>
#include <concepts>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace spyglass {

struct PassResult {
    bool changed = false;
    std::string summary;   // one line: what this run of the pass did
};

template <class IR, class Context>
class Pass {
public:
    virtual ~Pass() = default;
    virtual std::string name() const = 0;          // snake_case, unique in its pipeline: "insert_restickify"
    virtual std::string description() const = 0;   // what the pass does in general, one line
    virtual PassResult run(IR& ir, Context& ctx) = 0;
    // For passes whose context needs nothing from the caller (the quantum passes run alone in tests and tools).
    PassResult run(IR& ir)
        requires std::default_initializable<Context>
    {
        Context ctx{};
        return run(ir, ctx);
    }
};

// The IR after one pass: its record and an immutable copy (views and later passes only read it).
template <class IR>
struct Snapshot {
    PassRecord record;
    std::shared_ptr<const IR> ir;
};

// Watches a run (MLIR's PassInstrumentation). `index` counts snapshots: 0 is the input, pass i is index i + 1.
template <class IR>
class PassInstrumentation {
public:
    virtual ~PassInstrumentation() = default;
    virtual void beforePass(size_t index, const PassRecord& pending, const IR& ir) {}
    virtual void afterPass(size_t index, const PassRecord& record, const IR& ir) {}
};

// Where a pass goes in a list: "after:NAME" or "before:NAME" (NAME a pass already in the list), "end" or "begin".
struct InsertionPoint {
    enum class Where { Begin, End, Before, After } where = Where::End;
    std::string pass;
    static InsertionPoint parse(const std::string& text);   // throws InputError naming the accepted forms
    std::string text() const;
};

// A pass from outside the built-in list (a plugin's), and where it goes.
template <class IR, class Context>
struct PassInsertion {
    InsertionPoint at;
    std::function<std::unique_ptr<Pass<IR, Context>>()> make;
    std::string origin;   // the plugin file it came from, for messages
};

struct PassRunOptions {
    std::string stopAfter;                     // run up to and including this pass; empty: all
    bool keepIrText = true;                    // print the IR into every record (the explorer and dumps need it)
    PassRecord input;                          // the record of snapshot 0 (name "import" / "input", summary)
    JobControl* job = nullptr;                 // progress and Cancel between passes
};

template <class IR, class Context>
class PassManager {
public:
    using PassType = Pass<IR, Context>;
    using Printer = std::function<std::string(const IR&)>;

    explicit PassManager(Printer printer) : printer_(std::move(printer)) {}

    void add(std::unique_ptr<PassType> pass) { passes_.push_back(std::move(pass)); }
    // Throws InputError when the point names no pass of the list.
    void insert(const InsertionPoint& at, std::unique_ptr<PassType> pass)
    {
        if (at.where == InsertionPoint::Where::Begin) {
            passes_.insert(passes_.begin(), std::move(pass));
            return;
        }
        if (at.where == InsertionPoint::Where::End) {
            passes_.push_back(std::move(pass));
            return;
        }
        for (auto it = passes_.begin(); it != passes_.end(); ++it)
            if (at.pass == (*it)->name()) {
                passes_.insert(at.where == InsertionPoint::Where::After ? it + 1 : it, std::move(pass));
                return;
            }
        throw InputError(SourceLocation{}, "insertion point '" + at.text() + "': no pass named '" + at.pass +
                                               "' in this pipeline (passes: " + joinedNames() + ")");
    }
    // Inserts a plugin's pass; errors name the plugin file.
    void insert(const PassInsertion<IR, Context>& extra)
    {
        std::unique_ptr<PassType> pass = extra.make ? extra.make() : nullptr;
        if (!pass)
            throw InputError(SourceLocation{extra.origin, 0, 0}, "the plugin's pass factory returned no pass");
        try {
            insert(extra.at, std::move(pass));
        } catch (const InputError& e) {
            throw InputError(SourceLocation{extra.origin, 0, 0}, e.what());
        }
    }
    void addInstrumentation(std::shared_ptr<PassInstrumentation<IR>> i) { instrumentations_.push_back(std::move(i)); }

    const std::vector<std::unique_ptr<PassType>>& passes() const { return passes_; }
    std::vector<std::string> names() const
    {
        std::vector<std::string> n;
        for (const auto& p : passes_)
            n.push_back(p->name());
        return n;
    }
    std::string joinedNames() const
    {
        std::string s;
        for (const auto& p : passes_)
            s += (s.empty() ? "" : ", ") + p->name();
        return s;
    }

    // Runs the list on `ir`; the first snapshot is the input as given. Throws InputError (a pass refusing the
    // input, an unknown --stop-after) and Cancelled.
    std::vector<Snapshot<IR>> run(IR ir, Context& ctx, const PassRunOptions& o) const
    {
        if (!o.stopAfter.empty()) {
            bool known = false;
            for (const auto& p : passes_)
                known = known || o.stopAfter == p->name();
            if (!known)
                throw InputError(SourceLocation{}, "--stop-after: no pass named '" + o.stopAfter + "' (passes: " + joinedNames() + ")");
        }
        std::vector<Snapshot<IR>> snaps;
        Snapshot<IR> first;
        first.record = o.input;
        first.record.changed = true;
        keep(first, ir, o);
        for (const auto& i : instrumentations_)
            i->afterPass(0, first.record, ir);
        snaps.push_back(std::move(first));
        const double total = static_cast<double>(passes_.size());
        for (size_t k = 0; k < passes_.size(); ++k) {
            PassType& pass = *passes_[k];
            if (o.job) {
                o.job->checkpoint();
                o.job->report(static_cast<double>(k) / total, pass.name());
            }
            Snapshot<IR> s;
            s.record.name = pass.name();
            s.record.description = pass.description();
            for (const auto& i : instrumentations_)
                i->beforePass(k + 1, s.record, ir);
            const auto t0 = std::chrono::steady_clock::now();
            PassResult r = pass.run(ir, ctx);
            s.record.wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            s.record.changed = r.changed;
            s.record.summary = std::move(r.summary);
            keep(s, ir, o);
            for (const auto& i : instrumentations_)
                i->afterPass(k + 1, s.record, ir);
            snaps.push_back(std::move(s));
            if (!o.stopAfter.empty() && o.stopAfter == pass.name())
                break;
        }
        if (o.job)
            o.job->report(1.0, "done");
        return snaps;
    }

private:
    void keep(Snapshot<IR>& s, const IR& ir, const PassRunOptions& o) const
    {
        if (o.keepIrText)
            s.record.irText = printer_(ir);
        s.ir = std::make_shared<const IR>(ir);
    }

    Printer printer_;
    std::vector<std::unique_ptr<PassType>> passes_;
    std::vector<std::shared_ptr<PassInstrumentation<IR>>> instrumentations_;
};

}  // namespace spyglass
