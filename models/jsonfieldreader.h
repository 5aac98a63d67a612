#pragma once

// Internal to models/: the reader every fromJson() uses. Not part of the wire contract.

#include "models/actionrecord.h" // toWireTime, timeFromWire

#include <QDateTime>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

#include <optional>

namespace cs::wire {

// ---- JSON field reader ---------------------------------------------------------------------
// Reads a JSON object field by field. The first problem is kept as "<key>: <what is wrong>"; after
// it every read returns its fallback, so a parser can read everything and check ok() once.
class FieldReader
{
public:
    enum class Need { Required, Optional };

    FieldReader(const QJsonObject &json, QString prefix = QString())
        : m_json(json), m_prefix(std::move(prefix)) {}

    bool ok() const { return m_error.isEmpty(); }
    QString error() const { return m_error; }

    // Keeps a complete "<field>: <what>" message from another parser.
    void fail(const QString &message)
    {
        if (ok())
            m_error = m_prefix + message;
    }

    void fail(QLatin1String key, const QString &what)
    {
        if (ok())
            m_error = m_prefix + key + QLatin1String(": ") + what;
    }

    // Takes over the first problem of a reader of a nested object.
    void merge(const FieldReader &nested)
    {
        if (ok())
            m_error = nested.m_error;
    }

    // Present and not null; reports "is required" otherwise.
    bool has(QLatin1String key, Need need)
    {
        const QJsonValue value = m_json.value(key);
        if (!value.isUndefined() && !value.isNull())
            return ok();
        if (need == Need::Required)
            fail(key, QStringLiteral("is required"));
        return false;
    }

    QString string(QLatin1String key, Need need = Need::Optional, bool nonEmpty = false)
    {
        if (!has(key, need))
            return QString();
        const QJsonValue value = m_json.value(key);
        if (!value.isString()) {
            fail(key, QStringLiteral("must be a string"));
            return QString();
        }
        if (nonEmpty && value.toString().isEmpty()) {
            fail(key, QStringLiteral("must not be empty"));
            return QString();
        }
        return value.toString();
    }

    // A JSON number that is a whole number within [min, max]. Numbers are doubles on the wire,
    // so only integers up to 2^53 survive every JSON implementation; amounts stay below 10^12.
    qint64 integer(QLatin1String key, qint64 min, qint64 max, Need need = Need::Required,
                   qint64 fallback = 0)
    {
        if (!has(key, need))
            return fallback;
        const QJsonValue value = m_json.value(key);
        // toInteger() returns its default for a fraction or a value out of qint64's range: two
        // different defaults expose that.
        const qint64 number = value.toInteger(0);
        if (!value.isDouble() || number != value.toInteger(1)) {
            fail(key, QStringLiteral("must be an integer"));
            return fallback;
        }
        if (number < min || number > max) {
            fail(key, QStringLiteral("must be between %1 and %2").arg(min).arg(max));
            return fallback;
        }
        return number;
    }

    bool boolean(QLatin1String key, Need need = Need::Optional, bool fallback = false)
    {
        if (!has(key, need))
            return fallback;
        const QJsonValue value = m_json.value(key);
        if (!value.isBool()) {
            fail(key, QStringLiteral("must be true or false"));
            return fallback;
        }
        return value.toBool();
    }

    // A wire timestamp or null; null and absent give a null QDateTime.
    QDateTime time(QLatin1String key, Need need = Need::Optional)
    {
        if (!has(key, need))
            return QDateTime();
        const QJsonValue value = m_json.value(key);
        const QDateTime time = value.isString() ? timeFromWire(value.toString()) : QDateTime();
        if (!time.isValid()) {
            fail(key, QStringLiteral("must be an ISO-8601 UTC time such as "
                                     "\"2026-11-29T22:38:35.123Z\", or null"));
            return QDateTime();
        }
        return time;
    }

    QJsonObject object(QLatin1String key, Need need = Need::Optional)
    {
        if (!has(key, need))
            return QJsonObject();
        const QJsonValue value = m_json.value(key);
        if (!value.isObject()) {
            fail(key, QStringLiteral("must be an object"));
            return QJsonObject();
        }
        return value.toObject();
    }

    // A string that fromWire maps to an enumerator.
    template <typename Enum, typename FromWire>
    Enum enumeration(QLatin1String key, FromWire fromWire, Enum fallback, Need need = Need::Required)
    {
        const QString wire = string(key, need);
        if (!ok() || (wire.isNull() && need == Need::Optional))
            return fallback;
        const std::optional<Enum> value = fromWire(QStringView(wire));
        if (!value) {
            fail(key, QStringLiteral("\"%1\" is not one of the known values").arg(wire));
            return fallback;
        }
        return *value;
    }

private:
    QJsonObject m_json;
    QString m_prefix;
    QString m_error;
};

inline QJsonValue timeToJson(const QDateTime &time)
{
    return time.isValid() ? QJsonValue(toWireTime(time)) : QJsonValue(QJsonValue::Null);
}

template <typename T>
inline std::optional<T> finish(const FieldReader &reader, T value, QString *error)
{
    if (!reader.ok()) {
        if (error)
            *error = reader.error();
        return std::nullopt;
    }
    return value;
}

} // namespace cs::wire
