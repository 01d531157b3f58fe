#include "app/cli/session_option.h"

namespace spyglass::cli {

CliSession::CliSession(std::unique_ptr<session::SessionStore> store, session::RowId sessionId)
    : store_(std::move(store)), sessionId_(sessionId), recorder_(*store_, sessionId)
{
}

std::unique_ptr<session::SessionStore> openStoreForCli(Args& args)
{
    const auto db = args.value("--db");
    if (db && db->empty())
        throw UsageError("--db needs a file name");
    return std::make_unique<session::SessionStore>(db ? *db : session::SessionStore::defaultPath());
}

std::unique_ptr<CliSession> openSessionForCli(Args& args)
{
    const auto name = args.value("--session");
    if (!name) {
        if (args.value("--db"))
            throw UsageError("--db only applies with --session NAME (nothing is recorded without it)");
        return nullptr;
    }
    if (name->empty())
        throw UsageError("--session needs a name");
    auto store = openStoreForCli(args);
    const session::RowId id = store->openOrCreateSession(*name);
    return std::make_unique<CliSession>(std::move(store), id);
}

}  // namespace spyglass::cli
