#pragma once
// The plumbing every spyglass-cli subcommand shares: argument reading, the command registry,
// exit codes and --json output. A subcommand is one .cpp file in app/cli/ that registers itself:
//
//   static int runQsim(spyglass::cli::Args& args);
//   static const spyglass::cli::RegisterCommand reg{{"qsim", "simulate an OpenQASM circuit",
//       "qsim FILE [--shots N] [--json]", runQsim}};

#include "core/common/diagnostics.h"
#include "core/common/job_control.h"

#include <QJsonObject>

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace spyglass::cli {

enum ExitCode { ExitOk = 0, ExitJobFailed = 1, ExitBadInput = 2, ExitInterrupted = 130 };

// Bad usage (unknown option, missing argument): exit 2 with the command's usage line.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The job ran but its result is a failure (e.g. a numerical check did not pass): exit 1.
class JobFailed : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Reads options in any order: "--name VALUE", "--name=VALUE", flags, and positionals.
// Each accessor consumes what it read; finish() rejects whatever is left over.
class Args {
public:
    // `usage` is the command's synopsis: options written with a value there ("--shots N") take the next
    // argument, so a file name is never mistaken for an option's value whatever the order.
    Args(std::string command, std::vector<std::string> argv, const std::string& usage = {});

    const std::string& command() const { return command_; }
    bool flag(const std::string& name);
    std::optional<std::string> value(const std::string& name);
    std::vector<std::string> values(const std::string& name);   // repeatable option
    std::string valueOr(const std::string& name, const std::string& fallback);
    std::optional<long long> integer(const std::string& name, long long min, long long max);
    std::optional<double> number(const std::string& name);
    std::string positional(const std::string& what);              // required
    std::optional<std::string> optionalPositional();
    void finish();                                                // throws UsageError on leftovers

    bool json() const { return json_; }

private:
    std::string command_;
    std::vector<std::string> argv_;
    std::vector<bool> used_;
    std::vector<std::string> valueOptions_;
    bool json_ = false;
};

// The repeatable "--dim NAME=SIZE" of the commands that load a model (run, compile): a symbolic input dimension
// (dynamic axis) and the static size to give it.
std::map<std::string, int64_t> dimOptions(Args& args);

using CommandFn = int (*)(Args& args);

struct Command {
    const char* name;
    const char* summary;   // one line for `spyglass-cli --help`
    const char* usage;     // synopsis, e.g. "qsim FILE [--shots N] [--json]"
    CommandFn run;
    const char* details = "";   // optional extra text for `spyglass-cli CMD --help`
    // For pipeline commands: the pipeline's pass list, printed by --help (so it cannot drift from the code).
    std::vector<std::string> (*passNames)() = nullptr;
};

struct RegisterCommand {
    explicit RegisterCommand(Command c);
};

const std::vector<Command>& commands();

// Errors raised after parsing name what was parsed (e.g. a circuit's name), not the file: rethrows `e` with the
// user's path in place of an empty file name or of `parsedName`.
[[noreturn]] void rethrowWithFile(const InputError& e, const std::string& file, const std::string& parsedName);

// Prints one JSON object on stdout (compact, newline-terminated).
void printJson(const QJsonObject& obj);

int runMain(int argc, char** argv);

// The job of the running command: Ctrl+C cancels it (a second Ctrl+C kills the process), and its progress goes to
// stderr when stderr is a terminal (or SPYGLASS_PROGRESS=1), one self-overwriting line at most every 0.2 s.
JobControl& commandJob();

}  // namespace spyglass::cli
