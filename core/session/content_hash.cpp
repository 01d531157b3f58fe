#include "core/session/content_hash.h"

#include "core/common/diagnostics.h"

#include <QCryptographicHash>
#include <QFile>

#include <algorithm>
#include <filesystem>
#include <vector>

namespace spyglass::session {

namespace {

namespace fs = std::filesystem;

void addFile(QCryptographicHash& h, const std::string& path)
{
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        throw InputError(SourceLocation{path, 0, 0}, "cannot read to hash it: " + f.errorString().toStdString());
    if (!h.addData(&f))
        throw InputError(SourceLocation{path, 0, 0}, "cannot read to hash it: " + f.errorString().toStdString());
}

}  // namespace

std::string contentHashOfBytes(const std::string& bytes)
{
    return QCryptographicHash::hash(QByteArrayView(bytes.data(), static_cast<qsizetype>(bytes.size())), QCryptographicHash::Sha256)
        .toHex()
        .toStdString();
}

std::string contentHashOfPath(const std::string& path)
{
    QCryptographicHash h(QCryptographicHash::Sha256);
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        std::vector<fs::path> files;
        for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
            if (it->is_regular_file(ec))
                files.push_back(it->path());
        if (ec)
            throw InputError(SourceLocation{path, 0, 0}, "cannot list the folder to hash it: " + ec.message());
        std::sort(files.begin(), files.end());
        for (const fs::path& f : files) {
            // The relative name and a NUL separate files, so moving bytes between files changes the hash.
            const std::string rel = fs::relative(f, path).generic_string();
            h.addData(QByteArrayView(rel.data(), static_cast<qsizetype>(rel.size() + 1)));
            addFile(h, f.string());
        }
    } else {
        addFile(h, path);
    }
    return h.result().toHex().toStdString();
}

}  // namespace spyglass::session
