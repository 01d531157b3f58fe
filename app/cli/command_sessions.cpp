// `spyglass-cli sessions list|show|export|rename|delete`: read and tidy the recorded history of runs.
#include "app/cli/cli.h"

#include "core/common/diagnostics.h"
#include "core/session/session_charts.h"
#include "core/session/session_export.h"
#include "core/session/session_store.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

namespace spyglass::cli {
namespace {

using session::RowId;
using session::SessionStore;

void printJsonArray(const QJsonArray& array)
{
    const QByteArray text = QJsonDocument(array).toJson(QJsonDocument::Compact);
    std::fwrite(text.constData(), 1, static_cast<size_t>(text.size()), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

// An ID, or a name (the most recent session with that name).
RowId resolveSession(SessionStore& store, const std::string& ref)
{
    const bool numeric = !ref.empty() && ref.find_first_not_of("0123456789") == std::string::npos;
    if (numeric && ref.size() < 18) {
        const RowId id = std::stoll(ref);
        if (store.session(id))
            return id;
    } else if (const auto byName = store.findSessionByName(ref)) {
        return *byName;
    }
    throw InputError(SourceLocation{store.path(), 0, 0},
                     "no session '" + ref + "' in this database (see 'spyglass-cli sessions list')");
}

std::string fixed(double v, int decimals)
{
    std::ostringstream out;
    out << std::fixed << std::setprecision(decimals) << v;
    return out.str();
}

std::string padded(std::string s, size_t width)
{
    if (s.size() < width)
        s.resize(width, ' ');
    return s + ' ';
}

void writeOutput(const std::string& text, const std::optional<std::string>& outputPath)
{
    if (!outputPath) {
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
        return;
    }
    std::ofstream out(*outputPath, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out)
        throw InputError(SourceLocation{*outputPath, 0, 0}, "cannot write the export");
}

int list(SessionStore& store, bool json)
{
    const auto sessions = store.listSessions();
    if (json) {
        QJsonArray array;
        for (const auto& s : sessions)
            array.append(QJsonObject{{QStringLiteral("id"), static_cast<double>(s.id)},
                                     {QStringLiteral("name"), QString::fromStdString(s.name)},
                                     {QStringLiteral("runs"), s.runCount},
                                     {QStringLiteral("started"), QString::fromStdString(s.startedAt)}});
        printJsonArray(array);
        return ExitOk;
    }
    if (sessions.empty()) {
        std::cout << "no sessions in " << store.path() << " (record some with --session NAME)\n";
        return ExitOk;
    }
    std::cout << padded("ID", 6) << padded("NAME", 24) << padded("RUNS", 6) << padded("STARTED", 25) << padded("LAST ACTIVITY", 25) << "HOST\n";
    for (const auto& s : sessions)
        std::cout << padded(std::to_string(s.id), 6) << padded(s.name, 24) << padded(std::to_string(s.runCount), 6)
                  << padded(s.startedAt, 25) << padded(s.endedAt.empty() ? "-" : s.endedAt, 25) << s.host << '\n';
    return ExitOk;
}

// "REGRESSION: simulated time +16.0% over the best earlier run of this artifact" when the run is flagged
// (more than 5% slower than the best earlier run of the same artifact, across all sessions).
std::string regressionNote(SessionStore& store, const session::RunDetail& d,
                           std::map<std::pair<RowId, int>, std::vector<session::HistoryPoint>>& histories)
{
    if (!d.run.artifact.id || d.run.status != session::RunStatus::Ok)
        return {};
    for (auto metric : {session::RunMetric::SimulatedTime, session::RunMetric::SimulationWallTime, session::RunMetric::CompileWallTime}) {
        if (!session::runMetricValue(d, metric))
            continue;
        auto key = std::make_pair(d.run.artifact.id, static_cast<int>(metric));
        auto it = histories.find(key);
        if (it == histories.end())
            it = histories.emplace(key, session::artifactHistory(store, d.run.artifact.id, metric)).first;
        for (const auto& p : it->second)
            if (p.runId == d.run.id && p.regression && p.bestEarlier && *p.bestEarlier > 0)
                return std::string("REGRESSION: ") + session::runMetricName(metric) + " +" +
                       fixed(100.0 * (p.value / *p.bestEarlier - 1.0), 1) + "% over the best earlier run of this artifact";
        return {};   // judged by the first metric the run has
    }
    return {};
}

int show(SessionStore& store, RowId id, bool json)
{
    if (json) {
        printJson(session::sessionJson(store, id));
        return ExitOk;
    }
    const auto s = *store.session(id);
    std::cout << "session " << s.id << " '" << s.name << "': started " << s.startedAt << ", "
              << (s.endedAt.empty() ? std::string("still open") : "last activity " + s.endedAt) << ", " << s.runCount
              << " runs, Spyglass " << s.appVersion << " on " << s.host << '\n';
    if (s.runCount == 0)
        return ExitOk;
    std::cout << '\n'
              << padded("RUN", 6) << padded("KIND", 9) << padded("STATUS", 12) << padded("STARTED", 25) << padded("COMPILE ms", 11)
              << padded("SIM TIME us", 12) << padded("SIM WALL ms", 12) << "ARTIFACT\n";
    std::map<std::pair<RowId, int>, std::vector<session::HistoryPoint>> histories;
    for (RowId runId : store.runIds(id)) {
        const auto d = store.runDetail(runId);
        if (!d)
            continue;
        const auto compile = session::runMetricValue(*d, session::RunMetric::CompileWallTime);
        const auto simNs = session::runMetricValue(*d, session::RunMetric::SimulatedTime);
        const auto simWall = session::runMetricValue(*d, session::RunMetric::SimulationWallTime);
        std::cout << padded(std::to_string(runId), 6) << padded(d->run.kind, 9) << padded(session::runStatusName(d->run.status), 12)
                  << padded(d->run.startedAt, 25) << padded(compile ? fixed(*compile, 2) : "-", 11)
                  << padded(simNs ? fixed(*simNs / 1000.0, 3) : "-", 12) << padded(simWall ? fixed(*simWall, 2) : "-", 12)
                  << (d->run.artifact.path.empty() ? "-" : d->run.artifact.path) << '\n';
        if (!d->run.errorText.empty())
            std::cout << "      " << d->run.errorText << '\n';
        if (const std::string flag = regressionNote(store, *d, histories); !flag.empty())
            std::cout << "      " << flag << '\n';
    }
    return ExitOk;
}

int runSessions(Args& args)
{
    // Options that take a value are read before any positional, or their value would be taken for one.
    const auto db = args.value("--db");
    if (db && db->empty())
        throw UsageError("--db needs a file name");
    const std::string path = db ? *db : SessionStore::defaultPath();
    const auto output = args.value("--output");
    const bool csv = args.flag("--csv");
    const std::string action = args.positional("ACTION (list, show, export, rename or delete)");
    if (action != "list" && action != "show" && action != "export" && action != "delete" && action != "rename")
        throw UsageError("unknown action '" + action + "' (list, show, export, rename or delete)");
    if (action != "export" && (csv || output))
        throw UsageError(std::string(csv ? "--csv" : "--output") + " only applies to 'sessions export'");

    // Reading history never creates a database: nothing recorded yet is an empty list.
    std::error_code ec;
    const bool exists = std::filesystem::exists(path, ec);
    if (action == "list") {
        args.finish();
        if (!exists) {
            if (args.json())
                printJsonArray({});
            else
                std::cout << "no sessions: " << path << " does not exist yet (record runs with --session NAME)\n";
            return ExitOk;
        }
        SessionStore store(path, SessionStore::Access::ReadOnly);
        return list(store, args.json());
    }
    const std::string ref = args.positional("session ID");
    if (!exists) {
        if (action == "rename")
            args.positional("new NAME");
        args.finish();
        throw InputError(SourceLocation{path, 0, 0}, "no session '" + ref + "': the session database does not exist yet");
    }
    // Reading opens read-only, so a read-only file, folder or file system can still be listed, shown and exported.
    const bool writes = action == "rename" || action == "delete";
    auto store = std::make_unique<SessionStore>(path, writes ? SessionStore::Access::ReadWrite : SessionStore::Access::ReadOnly);
    if (action == "rename") {
        const std::string name = args.positional("new NAME");
        args.finish();
        if (name.empty())
            throw UsageError("the new name is empty");
        const RowId id = resolveSession(*store, ref);
        store->renameSession(id, name);
        std::cout << "session " << id << " renamed to '" << name << "'\n";
        return ExitOk;
    }
    args.finish();
    const RowId id = resolveSession(*store, ref);
    if (action == "show")
        return show(*store, id, args.json());
    if (action == "delete") {
        const auto s = *store->session(id);
        store->deleteSession(id);
        std::cout << "deleted session " << id << " '" << s.name << "' and its " << s.runCount << " runs\n";
        return ExitOk;
    }
    // export
    if (csv == args.json())
        throw UsageError("export needs exactly one of --csv or --json");
    if (csv) {
        writeOutput(session::sessionCsv(*store, id), output);
    } else {
        const QByteArray text = QJsonDocument(session::sessionJson(*store, id)).toJson(QJsonDocument::Indented);
        writeOutput(text.toStdString(), output);
    }
    return ExitOk;
}

const RegisterCommand reg{{"sessions", "list, show, export or delete recorded sessions",
                           "sessions list|show ID|export ID --csv|--json [--output FILE]|rename ID NAME|delete ID [--db FILE] [--json]",
                           runSessions,
                           "ID is a session's number or its name (the most recent session with that name).\n"
                           "--db FILE   the session database (default: $XDG_DATA_HOME/spyglass/spyglass.db,\n"
                           "            else ~/.local/share/spyglass/spyglass.db)\n"
                           "list --json prints [{\"id\",\"name\",\"runs\",\"started\"}...].\n"
                           "Commands that take --session NAME [--db FILE] (see their --help) record their runs; nothing is\n"
                           "recorded without it."}};

}  // namespace
}  // namespace spyglass::cli
