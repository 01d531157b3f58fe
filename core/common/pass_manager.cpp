#include "core/common/pass_manager.h"

namespace spyglass {

InsertionPoint InsertionPoint::parse(const std::string& text)
{
    InsertionPoint p;
    auto named = [&](const std::string& prefix, Where w) {
        if (text.rfind(prefix, 0) != 0 || text.size() == prefix.size())
            return false;
        p.where = w;
        p.pass = text.substr(prefix.size());
        return true;
    };
    if (text == "begin")
        p.where = Where::Begin;
    else if (text == "end")
        p.where = Where::End;
    else if (!named("after:", Where::After) && !named("before:", Where::Before))
        throw InputError(SourceLocation{}, "insertion point '" + text + "': expected after:PASS, before:PASS, begin or end");
    return p;
}

std::string InsertionPoint::text() const
{
    switch (where) {
    case Where::Begin: return "begin";
    case Where::End: return "end";
    case Where::Before: return "before:" + pass;
    case Where::After: return "after:" + pass;
    }
    return {};
}

}  // namespace spyglass
