#include "core/common/versions.h"

#include "core/common/version.h"

#include <QtGlobal>
#include <google/protobuf/stubs/common.h>
#include <onnx/common/version.h>
#include <sqlite3.h>

namespace spyglass {

std::string spyglassVersion() { return SPYGLASS_VERSION; }

std::vector<std::pair<std::string, std::string>> coreLibraryVersions()
{
    return {
        {"Qt", qVersion()},
        {"SQLite", sqlite3_libversion()},
        {"ONNX", ONNX_NAMESPACE::LAST_RELEASE_VERSION},
        {"protobuf", google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION)},
    };
}

}  // namespace spyglass
