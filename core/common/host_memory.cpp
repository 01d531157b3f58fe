#include "core/common/host_memory.h"

#include <fstream>
#include <string>

#include <unistd.h>

namespace spyglass {

uint64_t availableMemoryBytes()
{
    std::ifstream in("/proc/meminfo");
    std::string key;
    uint64_t kb = 0;
    std::string unit;
    while (in >> key >> kb >> unit)
        if (key == "MemAvailable:")
            return kb * 1024;
    const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : 0;
}

}  // namespace spyglass
