#include "app/cli/cli.h"
#include "app/cli/pass_options.h"

#include "core/common/diagnostics.h"
#include "core/common/job_control.h"
#include "core/common/versions.h"

#include <QJsonDocument>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <stdexcept>

#include <unistd.h>

namespace spyglass::cli {

namespace {

std::vector<Command>& registry()
{
    static std::vector<Command> all;
    return all;
}

bool isOption(const std::string& s) { return s.size() > 1 && s[0] == '-' && !(s.size() > 1 && std::isdigit(static_cast<unsigned char>(s[1]))); }

void printUsage(std::ostream& out)
{
    out << "Usage: spyglass-cli [--help] [--version] COMMAND [ARGS...]\n\n"
           "Spyglass without a display: compile models and circuits, run them on the built-in\n"
           "simulators, export, and read session history.\n\nCommands:\n";
    std::vector<Command> sorted = registry();
    std::sort(sorted.begin(), sorted.end(), [](const Command& a, const Command& b) { return std::string(a.name) < b.name; });
    for (const Command& c : sorted) {
        std::string name = c.name;
        name.resize(std::max<size_t>(name.size() + 2, 14), ' ');
        out << "  " << name << c.summary << '\n';
    }
    out << "\nRun 'spyglass-cli COMMAND --help' for a command's options.\n"
           "Exit codes: 0 success, 1 the job failed (e.g. a numerical check), 2 bad usage or bad input.\n"
           "--json prints one JSON object on stdout.\n";
}

void printCommandHelp(const Command& c)
{
    std::cout << "Usage: spyglass-cli " << c.usage << "\n\n" << c.summary << '\n';
    if (c.passNames)
        std::cout << '\n' << passListHelp(c.passNames()) << '\n';
    if (c.details && *c.details)
        std::cout << '\n' << c.details << '\n';
}

int fail(int code, const std::string& message, bool json, const char* kind)
{
    std::cerr << "spyglass-cli: " << message << '\n';
    if (json) {
        QJsonObject err;
        err[QStringLiteral("ok")] = false;
        err[QStringLiteral("error")] = QString::fromStdString(message);
        err[QStringLiteral("error_kind")] = QString::fromLatin1(kind);
        printJson(err);
    }
    return code;
}

// Progress on stderr, throttled, overwriting one line; `done` ends the line.
class ProgressLine {
public:
    ProgressLine()
    {
        const char* forced = std::getenv("SPYGLASS_PROGRESS");
        enabled_ = forced ? std::string(forced) == "1" : isatty(STDERR_FILENO) == 1;
    }
    void show(double fraction, const std::string& what)
    {
        if (!enabled_ || what == "done")
            return;
        const auto now = std::chrono::steady_clock::now();
        if (shown_ && now - last_ < std::chrono::milliseconds(200))
            return;
        last_ = now;
        shown_ = true;
        std::fprintf(stderr, "\rspyglass-cli: %s %3.0f %%\033[K", what.c_str(), 100.0 * std::clamp(fraction, 0.0, 1.0));
        std::fflush(stderr);
    }
    void done()
    {
        if (shown_)
            std::fputs("\r\033[K", stderr);
        shown_ = false;
    }

private:
    bool enabled_ = false;
    bool shown_ = false;
    std::chrono::steady_clock::time_point last_{};
};

ProgressLine& progressLine()
{
    static ProgressLine line;
    return line;
}

// A lock-free atomic store is async-signal-safe: the handler only asks the job to stop, and gives Ctrl+C back its
// default meaning so that a second one ends the process at once.
void onInterrupt(int)
{
    commandJob().requestCancel();
    std::signal(SIGINT, SIG_DFL);
}

}  // namespace

JobControl& commandJob()
{
    static JobControl job([](double fraction, const std::string& what) { progressLine().show(fraction, what); });
    return job;
}

namespace {

// Ends the progress line however the command ends.
struct ProgressScope {
    ~ProgressScope() { progressLine().done(); }
};

}  // namespace

RegisterCommand::RegisterCommand(Command c) { registry().push_back(c); }

const std::vector<Command>& commands() { return registry(); }

std::vector<std::string> valueOptionsIn(const std::string& usage)
{
    // "[--shots N]", "--qubits N", "[-o OUT]" take a value; "[--json]", "--csv|--json", "[--no-fusion]" do not.
    std::vector<std::string> out;
    size_t i = 0;
    while ((i = usage.find('-', i)) != std::string::npos) {
        if (i > 0 && usage[i - 1] != ' ' && usage[i - 1] != '[' && usage[i - 1] != '|') {
            ++i;
            continue;
        }
        size_t end = i;
        while (end < usage.size() && (std::isalnum(static_cast<unsigned char>(usage[end])) || usage[end] == '-'))
            ++end;
        const std::string name = usage.substr(i, end - i);
        if (name.size() > 1 && end + 1 < usage.size() && usage[end] == ' ' && usage[end + 1] != '[' && usage[end + 1] != '-'
            && usage[end + 1] != '|' && usage[end + 1] != '.')
            out.push_back(name);
        i = end;
    }
    return out;
}

Args::Args(std::string command, std::vector<std::string> argv, const std::string& usage)
    : command_(std::move(command)), argv_(std::move(argv)), used_(argv_.size(), false), valueOptions_(valueOptionsIn(usage))
{
    json_ = std::find(argv_.begin(), argv_.end(), "--json") != argv_.end();
}

bool Args::flag(const std::string& name)
{
    bool found = false;
    for (size_t i = 0; i < argv_.size(); ++i)
        if (!used_[i] && argv_[i] == name) {
            used_[i] = true;
            found = true;
        }
    return found;
}

std::vector<std::string> Args::values(const std::string& name)
{
    std::vector<std::string> out;
    const std::string eq = name + '=';
    for (size_t i = 0; i < argv_.size(); ++i) {
        if (used_[i])
            continue;
        if (argv_[i] == name) {
            if (i + 1 >= argv_.size())
                throw UsageError(name + " needs a value");
            used_[i] = used_[i + 1] = true;
            out.push_back(argv_[i + 1]);
            ++i;
        } else if (argv_[i].rfind(eq, 0) == 0) {
            used_[i] = true;
            out.push_back(argv_[i].substr(eq.size()));
        }
    }
    return out;
}

std::optional<std::string> Args::value(const std::string& name)
{
    auto all = values(name);
    if (all.empty())
        return std::nullopt;
    if (all.size() > 1)
        throw UsageError(name + " given more than once");
    return all.front();
}

std::string Args::valueOr(const std::string& name, const std::string& fallback)
{
    auto v = value(name);
    return v ? *v : fallback;
}

std::optional<long long> Args::integer(const std::string& name, long long min, long long max)
{
    auto v = value(name);
    if (!v)
        return std::nullopt;
    size_t pos = 0;
    long long n = 0;
    try {
        n = std::stoll(*v, &pos);
    } catch (const std::exception&) {
        pos = 0;
    }
    if (pos == 0 || pos != v->size())
        throw UsageError(name + " expects a whole number, got '" + *v + "'");
    if (n < min || n > max)
        throw UsageError(name + " must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " + *v);
    return n;
}

std::map<std::string, int64_t> dimOptions(Args& args)
{
    std::map<std::string, int64_t> dims;
    for (const std::string& d : args.values("--dim")) {
        const auto eq = d.find('=');
        const std::string size = eq == std::string::npos ? std::string() : d.substr(eq + 1);
        if (eq == std::string::npos || eq == 0 || size.empty() || size.find_first_not_of("0123456789") != std::string::npos)
            throw UsageError("--dim expects NAME=SIZE (a symbolic input dimension and a size >= 0), got '" + d + "'");
        // Any size int64 holds is taken: the loader then says which tensor it makes too large, naming the file.
        try {
            dims[d.substr(0, eq)] = std::stoll(size);
        } catch (const std::out_of_range&) {
            throw UsageError("--dim " + d + ": the size does not fit in 64 bits");
        }
    }
    return dims;
}

std::optional<double> Args::number(const std::string& name)
{
    auto v = value(name);
    if (!v)
        return std::nullopt;
    size_t pos = 0;
    double x = 0;
    try {
        x = std::stod(*v, &pos);
    } catch (const std::exception&) {
        pos = 0;
    }
    if (pos == 0 || pos != v->size())
        throw UsageError(name + " expects a number, got '" + *v + "'");
    return x;
}

std::optional<std::string> Args::optionalPositional()
{
    for (size_t i = 0; i < argv_.size(); ++i) {
        const bool valueOfOption = i > 0 && std::find(valueOptions_.begin(), valueOptions_.end(), argv_[i - 1]) != valueOptions_.end();
        if (!used_[i] && !isOption(argv_[i]) && !valueOfOption) {
            used_[i] = true;
            return argv_[i];
        }
    }
    return std::nullopt;
}

std::string Args::positional(const std::string& what)
{
    auto v = optionalPositional();
    if (!v)
        throw UsageError("missing " + what);
    return *v;
}

void Args::finish()
{
    flag("--json");
    for (size_t i = 0; i < argv_.size(); ++i)
        if (!used_[i])
            throw UsageError(isOption(argv_[i]) ? "unknown option '" + argv_[i] + "'" : "unexpected argument '" + argv_[i] + "'");
}

void rethrowWithFile(const InputError& e, const std::string& file, const std::string& parsedName)
{
    Diagnostic d = e.diagnostic();
    if (d.location.file.empty() || d.location.file == parsedName)
        d.location.file = file;
    throw InputError(std::move(d));
}

void printJson(const QJsonObject& obj)
{
    const QByteArray text = QJsonDocument(obj).toJson(QJsonDocument::Compact);
    std::fwrite(text.constData(), 1, static_cast<size_t>(text.size()), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

int runMain(int argc, char** argv)
{
    std::vector<std::string> rest(argv + 1, argv + argc);
    if (rest.empty()) {
        printUsage(std::cerr);
        return ExitBadInput;
    }
    const std::string first = rest.front();
    if (first == "--help" || first == "-h" || first == "help") {
        if (first == "help" && rest.size() > 1) {
            for (const Command& c : registry())
                if (rest[1] == c.name) {
                    printCommandHelp(c);
                    return ExitOk;
                }
        }
        printUsage(std::cout);
        return ExitOk;
    }
    if (first == "--version" || first == "-V") {
        std::cout << "spyglass-cli " << spyglassVersion() << '\n';
        for (const auto& [name, version] : coreLibraryVersions())
            std::cout << "  " << name << ' ' << version << '\n';
        return ExitOk;
    }
    const auto it = std::find_if(registry().begin(), registry().end(), [&](const Command& c) { return first == c.name; });
    if (it == registry().end()) {
        std::cerr << "spyglass-cli: unknown command '" << first << "'\n\n";
        printUsage(std::cerr);
        return ExitBadInput;
    }
    const Command cmd = *it;
    std::vector<std::string> cmdArgs(rest.begin() + 1, rest.end());
    if (std::find(cmdArgs.begin(), cmdArgs.end(), "--help") != cmdArgs.end()) {
        printCommandHelp(cmd);
        return ExitOk;
    }
    Args args(cmd.name, std::move(cmdArgs), cmd.usage);
    commandJob();   // made before the handler can touch it
    std::signal(SIGINT, onInterrupt);
    try {
        const ProgressScope progress;
        return cmd.run(args);
    } catch (const UsageError& e) {
        const int code = fail(ExitBadInput, std::string(cmd.name) + ": " + e.what(), args.json(), "usage");
        std::cerr << "usage: spyglass-cli " << cmd.usage << '\n';
        return code;
    } catch (const InputError& e) {
        return fail(ExitBadInput, e.what(), args.json(), "input");
    } catch (const JobFailed& e) {
        return fail(ExitJobFailed, e.what(), args.json(), "failed");
    } catch (const Cancelled&) {
        return fail(ExitInterrupted, std::string(cmd.name) + ": interrupted (Ctrl+C); nothing was written", args.json(), "interrupted");
    } catch (const std::bad_alloc&) {
        return fail(ExitJobFailed, "out of memory", args.json(), "resources");
    } catch (const std::exception& e) {
        return fail(ExitJobFailed, std::string("internal error: ") + e.what(), args.json(), "internal");
    }
}

}  // namespace spyglass::cli
