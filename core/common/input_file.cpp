#include "core/common/input_file.h"

#include "core/common/diagnostics.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace spyglass {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) { throw InputError(SourceLocation{path, 0, 0}, what); }

void checkStat(const std::string& path, const struct stat& st, const std::string& expected, uint64_t maxBytes,
               const std::function<std::string(uint64_t)>& tooLarge)
{
    if (S_ISDIR(st.st_mode))
        fail(path, "is a folder, expected " + expected);
    if (!S_ISREG(st.st_mode))
        fail(path, "is not a regular file");
    const auto size = static_cast<uint64_t>(st.st_size);
    if (size > maxBytes)
        fail(path, tooLarge ? tooLarge(size)
                            : "the file is " + byteSizeText(size) + ", more than the limit of " + byteSizeText(maxBytes) + " for " + expected);
}

void statPath(const std::string& path, struct stat& st)
{
    if (::stat(path.c_str(), &st) != 0)
        fail(path, errno == ENOENT || errno == ENOTDIR ? std::string("no such file or directory") : "cannot read: " + std::string(std::strerror(errno)));
}

}  // namespace

std::string byteSizeText(uint64_t bytes)
{
    return bytes >= (uint64_t(1) << 20) ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes) + " bytes";
}

uint64_t checkInputFile(const std::string& path, const std::string& expected, uint64_t maxBytes,
                        const std::function<std::string(uint64_t)>& tooLarge)
{
    struct stat st {};
    statPath(path, st);
    checkStat(path, st, expected, maxBytes, tooLarge);
    return static_cast<uint64_t>(st.st_size);
}

std::string readInputFile(const std::string& path, const std::string& expected, uint64_t maxBytes,
                          const std::function<std::string(uint64_t)>& tooLarge)
{
    // The type is checked on the name first (a FIFO is never opened), then again on what was opened: the file may
    // have been swapped in between. O_NONBLOCK keeps even that open from waiting on a FIFO.
    checkInputFile(path, expected, maxBytes, tooLarge);
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        fail(path, "cannot open: " + std::string(std::strerror(errno)));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        fail(path, "cannot read: " + std::string(std::strerror(errno)));
    checkStat(path, st, expected, maxBytes, tooLarge);
    std::string bytes(static_cast<size_t>(st.st_size), '\0');
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            fail(path, "cannot read: " + std::string(std::strerror(errno)));
        if (n == 0)
            break;   // the file shrank while it was read
        done += static_cast<size_t>(n);
    }
    bytes.resize(done);
    return bytes;
}

bool resolvesInside(const fs::path& root, const fs::path& file)
{
    std::error_code ec;
    const fs::path r = fs::weakly_canonical(root, ec);
    if (ec)
        return false;
    const fs::path f = fs::weakly_canonical(file.is_absolute() ? file : root / file, ec);
    if (ec)
        return false;
    const auto m = std::mismatch(r.begin(), r.end(), f.begin(), f.end());
    // The root's last component may be empty (a trailing '/').
    return (m.first == r.end() || (std::next(m.first) == r.end() && m.first->empty())) && f != r;
}

}  // namespace spyglass
