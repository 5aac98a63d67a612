#include "simulator/faultrule.h"

#include "simulator/refund.h"

#include <QJsonArray>
#include <QStringList>

#include <limits>

namespace cs::paysim {

namespace {

struct KindName
{
    FaultRule::Kind kind;
    const char *name;
};

constexpr KindName KindNames[] = {
    {FaultRule::Kind::DropResponseAfterCommit, "drop_response_after_commit"},
    {FaultRule::Kind::DelayBeforeCommit, "delay_before_commit"},
    {FaultRule::Kind::DelayAfterCommit, "delay_after_commit"},
    {FaultRule::Kind::Error500BeforeCommit, "error_500_before_commit"},
    {FaultRule::Kind::Error500AfterCommit, "error_500_after_commit"},
    {FaultRule::Kind::Outage503, "outage_503"},
    {FaultRule::Kind::ResetConnection, "reset_connection"},
    {FaultRule::Kind::RateLimit429, "rate_limit_429"},
    {FaultRule::Kind::IdempotencyError, "idempotency_error"},
    {FaultRule::Kind::LookupLag, "lookup_lag"},
    {FaultRule::Kind::ClockAdvance, "clock_advance"},
    {FaultRule::Kind::ForcedError, "forced_error"},
    {FaultRule::Kind::RefundSettles, "refund_settles"},
};

const QStringList &knownFields()
{
    static const QStringList fields{
        QStringLiteral("id"),        QStringLiteral("method"),       QStringLiteral("path"),
        QStringLiteral("nth"),       QStringLiteral("times"),        QStringLiteral("every"),
        QStringLiteral("probability"), QStringLiteral("fault"),      QStringLiteral("delay_ms"),
        QStringLiteral("advance_ms"), QStringLiteral("after_commit"), QStringLiteral("status"),
        QStringLiteral("type"),      QStringLiteral("code"),         QStringLiteral("message"),
        QStringLiteral("param"),     QStringLiteral("decline_code"), QStringLiteral("save"),
        QStringLiteral("matched"),   QStringLiteral("fired"),        QStringLiteral("after_seconds"),
        QStringLiteral("to"),        QStringLiteral("failure_reason"),
    };
    return fields;
}

std::optional<qint64> integerField(const QJsonObject &json, const QString &name, qint64 fallback, qint64 minimum,
                                   QString *error)
{
    const QJsonValue v = json.value(name);
    if (v.isUndefined() || v.isNull())
        return fallback;
    if (!v.isDouble() || v.toDouble() != static_cast<double>(v.toInteger())) {
        *error = QStringLiteral("'%1' must be an integer").arg(name);
        return std::nullopt;
    }
    if (v.toInteger() < minimum) {
        *error = QStringLiteral("'%1' must be at least %2").arg(name).arg(minimum);
        return std::nullopt;
    }
    return v.toInteger();
}

} // namespace

QString FaultRule::kindName(Kind kind)
{
    for (const auto &k : KindNames) {
        if (k.kind == kind)
            return QLatin1String(k.name);
    }
    return {};
}

std::optional<FaultRule::Kind> FaultRule::kindFromName(const QString &name)
{
    for (const auto &k : KindNames) {
        if (name == QLatin1String(k.name))
            return k.kind;
    }
    return std::nullopt;
}

QStringList FaultRule::kindNames()
{
    QStringList out;
    for (const auto &k : KindNames)
        out.append(QLatin1String(k.name));
    return out;
}

bool FaultRule::matches(const QString &m, const QString &p) const
{
    if (method != QLatin1String("*") && method.compare(m, Qt::CaseInsensitive) != 0)
        return false;
    if (path == QLatin1String("*"))
        return true;
    if (path.endsWith(u'*'))
        return p.startsWith(path.chopped(1));
    return p == path;
}

QJsonObject FaultRule::toJson() const
{
    QJsonObject o{{QStringLiteral("id"), id},
                  {QStringLiteral("method"), method},
                  {QStringLiteral("path"), path},
                  {QStringLiteral("nth"), nth},
                  {QStringLiteral("times"), times},
                  {QStringLiteral("every"), every},
                  {QStringLiteral("probability"), probability},
                  {QStringLiteral("fault"), kindName(kind)},
                  {QStringLiteral("delay_ms"), delayMs},
                  {QStringLiteral("matched"), matched},
                  {QStringLiteral("fired"), fired}};
    if (kind == Kind::ClockAdvance)
        o.insert(QStringLiteral("advance_ms"), advanceMs);
    if (kind == Kind::ResetConnection)
        o.insert(QStringLiteral("after_commit"), afterCommit);
    if (kind == Kind::ForcedError) {
        o.insert(QStringLiteral("status"), status);
        o.insert(QStringLiteral("type"), errorType);
        o.insert(QStringLiteral("code"), errorCode);
        o.insert(QStringLiteral("message"), errorMessage);
        if (!errorParam.isEmpty())
            o.insert(QStringLiteral("param"), errorParam);
        if (!declineCode.isEmpty())
            o.insert(QStringLiteral("decline_code"), declineCode);
        o.insert(QStringLiteral("save"), save);
    }
    if (kind == Kind::RefundSettles) {
        o.insert(QStringLiteral("after_seconds"), afterSeconds);
        o.insert(QStringLiteral("to"), settleTo);
        if (settleTo == QLatin1String("failed"))
            o.insert(QStringLiteral("failure_reason"),
                     failureReason.isEmpty() ? Refund::defaultFailureReason() : failureReason);
    }
    return o;
}

std::variant<FaultRule, QString> FaultRule::fromJson(const QJsonObject &json)
{
    for (auto it = json.constBegin(); it != json.constEnd(); ++it) {
        if (!knownFields().contains(it.key()))
            return QStringLiteral("unknown field '%1'").arg(it.key());
    }
    FaultRule r;
    const QJsonValue fault = json.value(QStringLiteral("fault"));
    if (!fault.isString())
        return QStringLiteral("'fault' is required: one of %1").arg(kindNames().join(QStringLiteral(", ")));
    const auto kind = kindFromName(fault.toString());
    if (!kind)
        return QStringLiteral("unknown fault '%1': expected one of %2").arg(fault.toString(), kindNames().join(QStringLiteral(", ")));
    r.kind = *kind;

    const QJsonValue method = json.value(QStringLiteral("method"));
    if (!method.isUndefined() && !method.isNull()) {
        if (!method.isString() || method.toString().isEmpty())
            return QStringLiteral("'method' must be an HTTP method or \"*\"");
        r.method = method.toString().toUpper();
    }
    const QJsonValue path = json.value(QStringLiteral("path"));
    if (!path.isUndefined() && !path.isNull()) {
        if (!path.isString() || !(path.toString() == QLatin1String("*") || path.toString().startsWith(u'/')))
            return QStringLiteral("'path' must start with '/' (a trailing '*' matches a prefix) or be \"*\"");
        r.path = path.toString();
    }

    QString error;
    const auto nth = integerField(json, QStringLiteral("nth"), 1, 1, &error);
    const auto times = integerField(json, QStringLiteral("times"), 1, 0, &error);
    const auto every = integerField(json, QStringLiteral("every"), 1, 1, &error);
    const auto delay = integerField(json, QStringLiteral("delay_ms"), 0, 0, &error);
    const auto advance = integerField(json, QStringLiteral("advance_ms"), 0, 0, &error);
    const auto status = integerField(json, QStringLiteral("status"), 402, 100, &error);
    const auto afterSeconds = integerField(json, QStringLiteral("after_seconds"), 0, 0, &error);
    if (!nth || !times || !every || !delay || !advance || !status || !afterSeconds)
        return error;
    if (*nth > std::numeric_limits<int>::max() || *times > std::numeric_limits<int>::max()
        || *every > std::numeric_limits<int>::max())
        return QStringLiteral("'nth', 'times' and 'every' must fit in 32 bits");
    r.nth = static_cast<int>(*nth);
    r.times = static_cast<int>(*times);
    r.every = static_cast<int>(*every);
    r.delayMs = *delay;
    r.advanceMs = *advance;

    const QJsonValue probability = json.value(QStringLiteral("probability"));
    if (!probability.isUndefined() && !probability.isNull()) {
        if (!probability.isDouble() || probability.toDouble() < 0.0 || probability.toDouble() > 1.0)
            return QStringLiteral("'probability' must be a number from 0 to 1");
        r.probability = probability.toDouble();
    }
    const QJsonValue afterCommit = json.value(QStringLiteral("after_commit"));
    if (!afterCommit.isUndefined() && !afterCommit.isNull()) {
        if (!afterCommit.isBool())
            return QStringLiteral("'after_commit' must be true or false");
        r.afterCommit = afterCommit.toBool();
    }
    const QJsonValue save = json.value(QStringLiteral("save"));
    if (!save.isUndefined() && !save.isNull()) {
        if (!save.isBool())
            return QStringLiteral("'save' must be true or false");
        r.save = save.toBool();
    }

    if (r.kind == Kind::ClockAdvance && r.advanceMs == 0)
        r.advanceMs = r.delayMs;
    if ((r.kind == Kind::DelayBeforeCommit || r.kind == Kind::DelayAfterCommit || r.kind == Kind::LookupLag)
        && r.delayMs == 0)
        return QStringLiteral("'%1' needs 'delay_ms' greater than 0").arg(kindName(r.kind));
    if (r.kind == Kind::ClockAdvance && r.advanceMs == 0)
        return QStringLiteral("'clock_advance' needs 'advance_ms' (or 'delay_ms') greater than 0");

    if (r.kind == Kind::RefundSettles) {
        // Ten years: far beyond any demo, small enough that milliseconds never overflow.
        constexpr qint64 MaxAfterSeconds = 10LL * 366 * 86400;
        if (*afterSeconds > MaxAfterSeconds)
            return QStringLiteral("'after_seconds' must be at most %1 (ten years)").arg(MaxAfterSeconds);
        r.afterSeconds = *afterSeconds;
        const QJsonValue to = json.value(QStringLiteral("to"));
        static const QStringList settled{QStringLiteral("succeeded"), QStringLiteral("failed"), QStringLiteral("canceled")};
        if (!to.isString() || !settled.contains(to.toString()))
            return QStringLiteral("'refund_settles' needs 'to': one of succeeded, failed, canceled");
        r.settleTo = to.toString();
        const QJsonValue reason = json.value(QStringLiteral("failure_reason"));
        if (!reason.isUndefined() && !reason.isNull()) {
            if (r.settleTo != QLatin1String("failed"))
                return QStringLiteral("'failure_reason' applies only to \"to\": \"failed\"");
            if (!reason.isString() || !Refund::isValidFailureReason(reason.toString()))
                return QStringLiteral("'failure_reason' must be one of %1")
                    .arg(Refund::failureReasons().join(QStringLiteral(", ")));
            r.failureReason = reason.toString();
        }
    }

    if (r.kind == Kind::ForcedError) {
        if (*status < 400 || *status > 599)
            return QStringLiteral("'status' of a forced_error must be from 400 to 599");
        r.status = static_cast<int>(*status);
        for (const auto &[name, target] : {std::pair{QStringLiteral("type"), &r.errorType},
                                           std::pair{QStringLiteral("code"), &r.errorCode},
                                           std::pair{QStringLiteral("message"), &r.errorMessage},
                                           std::pair{QStringLiteral("param"), &r.errorParam},
                                           std::pair{QStringLiteral("decline_code"), &r.declineCode}}) {
            const QJsonValue v = json.value(name);
            if (v.isUndefined() || v.isNull())
                continue;
            if (!v.isString())
                return QStringLiteral("'%1' must be a string").arg(name);
            *target = v.toString();
        }
        if (r.errorMessage.isEmpty())
            r.errorMessage = QStringLiteral("Simulated error (forced by paysim fault rule).");
    }
    return r;
}

} // namespace cs::paysim
