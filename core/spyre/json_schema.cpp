#include "core/spyre/json_schema.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>

namespace spyglass::spyre {

namespace {

bool hasType(const QJsonValue& v, const QString& t)
{
    if (t == QLatin1String("object")) return v.isObject();
    if (t == QLatin1String("array")) return v.isArray();
    if (t == QLatin1String("string")) return v.isString();
    if (t == QLatin1String("boolean")) return v.isBool();
    if (t == QLatin1String("null")) return v.isNull();
    if (t == QLatin1String("number")) return v.isDouble();
    if (t == QLatin1String("integer")) return v.isDouble() && std::floor(v.toDouble()) == v.toDouble();
    return false;
}

std::string show(const QJsonValue& v)
{
    if (v.isString())
        return "\"" + v.toString().toStdString() + "\"";
    if (v.isDouble())
        return QString::number(v.toDouble()).toStdString();
    if (v.isBool())
        return v.toBool() ? "true" : "false";
    if (v.isNull())
        return "null";
    return v.isArray() ? "an array" : "an object";
}

class Validator {
public:
    explicit Validator(const QJsonObject& root) : root_(root) {}
    std::vector<std::string> errors;

    void check(const QJsonValue& v, QJsonObject schema, const std::string& path, int depth = 0)
    {
        if (depth > 64) {
            errors.push_back(path + ": schema $ref nesting too deep");
            return;
        }
        if (schema.contains(QStringLiteral("$ref"))) {
            const QString ref = schema.value(QStringLiteral("$ref")).toString();
            const QString prefix = QStringLiteral("#/$defs/");
            if (!ref.startsWith(prefix) || !root_.value(QStringLiteral("$defs")).toObject().contains(ref.mid(prefix.size()))) {
                errors.push_back(path + ": unresolvable $ref " + ref.toStdString());
                return;
            }
            check(v, root_.value(QStringLiteral("$defs")).toObject().value(ref.mid(prefix.size())).toObject(), path, depth + 1);
            return;
        }
        if (schema.contains(QStringLiteral("type"))) {
            const QJsonValue t = schema.value(QStringLiteral("type"));
            bool ok = false;
            std::string expected;
            if (t.isArray()) {
                for (const QJsonValue& x : t.toArray()) {
                    ok = ok || hasType(v, x.toString());
                    expected += (expected.empty() ? "" : " or ") + x.toString().toStdString();
                }
            } else {
                ok = hasType(v, t.toString());
                expected = t.toString().toStdString();
            }
            if (!ok) {
                errors.push_back(path + ": expected " + expected + ", found " + show(v));
                return;
            }
        }
        if (schema.contains(QStringLiteral("const")) && schema.value(QStringLiteral("const")) != v)
            errors.push_back(path + ": must be " + show(schema.value(QStringLiteral("const"))) + ", found " + show(v));
        if (schema.contains(QStringLiteral("enum"))) {
            bool found = false;
            for (const QJsonValue& x : schema.value(QStringLiteral("enum")).toArray())
                found = found || x == v;
            if (!found)
                errors.push_back(path + ": " + show(v) + " is not one of the allowed values");
        }
        if (schema.contains(QStringLiteral("minimum")) && v.isDouble() &&
            v.toDouble() < schema.value(QStringLiteral("minimum")).toDouble())
            errors.push_back(path + ": " + show(v) + " is below the minimum " + show(schema.value(QStringLiteral("minimum"))));
        if (v.isObject()) {
            const QJsonObject o = v.toObject();
            for (const QJsonValue& r : schema.value(QStringLiteral("required")).toArray())
                if (!o.contains(r.toString()))
                    errors.push_back(path + ": missing required field '" + r.toString().toStdString() + "'");
            const QJsonObject props = schema.value(QStringLiteral("properties")).toObject();
            const bool closed = schema.value(QStringLiteral("additionalProperties")) == QJsonValue(false);
            for (auto it = o.begin(); it != o.end(); ++it) {
                const std::string child = path + "." + it.key().toStdString();
                if (props.contains(it.key()))
                    check(it.value(), props.value(it.key()).toObject(), child, depth);
                else if (closed)
                    errors.push_back(child + ": unexpected field");
            }
        }
        if (v.isArray() && schema.contains(QStringLiteral("items"))) {
            const QJsonObject items = schema.value(QStringLiteral("items")).toObject();
            const QJsonArray a = v.toArray();
            for (qsizetype i = 0; i < a.size(); ++i)
                check(a.at(i), items, path + "[" + std::to_string(i) + "]", depth);
        }
    }

private:
    QJsonObject root_;
};

}  // namespace

std::vector<std::string> validateJsonSchema(const QJsonValue& value, const QJsonObject& schema)
{
    Validator v(schema);
    v.check(value, schema, "$");
    return v.errors;
}

std::vector<std::string> validateJsonSchemaDef(const QJsonValue& value, const QJsonObject& root, const std::string& def)
{
    Validator v(root);
    QJsonObject ref;
    ref[QStringLiteral("$ref")] = QString::fromStdString("#/$defs/" + def);
    v.check(value, ref, "$");
    return v.errors;
}

}  // namespace spyglass::spyre
