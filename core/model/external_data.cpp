// ONNX external data: large tensors stored in side files next to the model. Resolved only inside the
// model's own folder so that a model file cannot make Spyglass read arbitrary files.
#include "core/common/diagnostics.h"
#include "core/model/onnx_import.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace spyglass::model::import {

namespace fs = std::filesystem;

namespace {

void resolveTensor(onnx::TensorProto& t, const fs::path& base, const std::string& displayName, const std::string& what,
                   uint64_t& budget)
{
    if (t.data_location() != onnx::TensorProto::EXTERNAL)
        return;
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto& kv : t.external_data()) {
        try {
            if (kv.key() == "location")
                location = kv.value();
            else if (kv.key() == "offset")
                offset = std::stoll(kv.value());
            else if (kv.key() == "length")
                length = std::stoll(kv.value());
        } catch (const std::exception&) {
            throw InputError(SourceLocation{displayName, 0, 0}, what + ": external data '" + kv.key() + "' is not a number: " + kv.value());
        }
    }
    auto refuse = [&](const std::string& why) {
        throw InputError(SourceLocation{displayName, 0, 0}, what + ": external data location '" + location + "' refused: " + why);
    };
    if (location.empty())
        throw InputError(SourceLocation{displayName, 0, 0}, what + ": external data without a location");
    if (base.empty())
        refuse("the model has no folder (loaded from memory)");
    const fs::path rel(location);
    if (rel.is_absolute() || rel.has_root_name() || rel.has_root_directory())
        refuse("absolute paths are not allowed; it must be relative to the model's folder");
    for (const auto& part : rel)
        if (part == "..")
            refuse("'..' is not allowed; the file must be inside the model's folder");
    std::error_code ec;
    const fs::path baseCanon = fs::weakly_canonical(base, ec);
    const fs::path file = fs::weakly_canonical(base / rel, ec);
    if (ec)
        refuse("cannot resolve the path");
    // After resolving symlinks the file must still be under the model's folder.
    const auto mismatch = std::mismatch(baseCanon.begin(), baseCanon.end(), file.begin(), file.end());
    if (mismatch.first != baseCanon.end())
        refuse("it resolves outside the model's folder");
    // Opening a FIFO or device would block or never end; only plain files hold tensor data.
    if (fs::exists(file, ec) && !fs::is_regular_file(file, ec))
        refuse("it is not a regular file");
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw InputError(SourceLocation{displayName, 0, 0}, what + ": cannot open external data file '" + location + "'");
    const auto size = static_cast<int64_t>(fs::file_size(file, ec));
    if (offset < 0 || offset > size)
        throw InputError(SourceLocation{displayName, 0, 0}, what + ": external data offset " + std::to_string(offset) + " is beyond the end of '" + location + "'");
    if (length < 0)
        length = size - offset;
    if (length > size - offset)
        throw InputError(SourceLocation{displayName, 0, 0}, what + ": external data '" + location + "' is shorter than offset + length");
    if (static_cast<uint64_t>(length) > budget)
        throw InputError(SourceLocation{displayName, 0, 0}, what + ": external data '" + location + "' (" + std::to_string(length) +
                                                                " bytes) goes past the limit on a model's size; raise it (--max-model-bytes) if the model is genuine");
    budget -= static_cast<uint64_t>(length);
    std::string bytes(static_cast<size_t>(length), '\0');
    in.seekg(offset);
    in.read(bytes.data(), length);
    t.set_raw_data(bytes);
    t.clear_external_data();
    t.set_data_location(onnx::TensorProto::DEFAULT);
}

}  // namespace

void resolveExternalData(onnx::ModelProto& model, const std::string& baseDir, const std::string& displayName, uint64_t maxBytes)
{
    uint64_t budget = maxBytes;
    const fs::path base = baseDir.empty() ? fs::path() : fs::path(baseDir);
    auto* graph = model.mutable_graph();
    for (auto& t : *graph->mutable_initializer())
        resolveTensor(t, base, displayName, "initializer '" + t.name() + "'", budget);
    for (auto& n : *graph->mutable_node())
        for (auto& a : *n.mutable_attribute())
            if (a.has_t())
                resolveTensor(*a.mutable_t(), base, displayName, n.op_type() + " '" + n.name() + "' attribute '" + a.name() + "'", budget);
}

}  // namespace spyglass::model::import
