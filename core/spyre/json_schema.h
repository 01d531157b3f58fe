#pragma once
// A small JSON Schema validator for the keywords Spyglass's own schemas use: type (string or list), const, enum,
// required, properties, additionalProperties (boolean), items (one schema), minimum, and local $ref
// ("#/$defs/name"). Anything else in a schema is ignored, so keep schemas to this subset.

#include <QJsonObject>
#include <QJsonValue>

#include <string>
#include <vector>

namespace spyglass::spyre {

// Returns one message per violation, "$.kernels[3].file: expected string"; empty when valid.
std::vector<std::string> validateJsonSchema(const QJsonValue& value, const QJsonObject& schema);
// Validates against a named definition of `root` ("#/$defs/<name>").
std::vector<std::string> validateJsonSchemaDef(const QJsonValue& value, const QJsonObject& root, const std::string& def);

}  // namespace spyglass::spyre
