#include "models/actionrecord.h"
#include "models/jsonfieldreader.h"
#include "models/wirenames.h"

#include <QJsonValue>

#include <limits>

namespace cs {

using namespace wire; // FieldReader, timeToJson, finish, Name, nameOf, valueOf

namespace {

constexpr Name<TargetType> TargetTypeNames[] = {
    { TargetType::Charge, QLatin1String("charge") },
    { TargetType::PaymentIntent, QLatin1String("payment_intent") },
};

} // namespace

QString toWire(TargetType type)
{
    return nameOf(TargetTypeNames, type);
}

std::optional<TargetType> targetTypeFromWire(QStringView wire)
{
    return valueOf(TargetTypeNames, wire);
}

std::optional<Money> ActionRecord::money() const
{
    return Money::fromMinorUnits(amount, currency);
}

ProviderRequest ActionRecord::providerRequest() const
{
    ProviderRequest request;
    request.method = QStringLiteral("POST");
    request.path = QStringLiteral("/v1/refunds");
    request.fields.append({ toWire(targetType), targetId });
    request.fields.append({ QStringLiteral("amount"), QString::number(amount) });
    if (!reason.isEmpty())
        request.fields.append({ QStringLiteral("reason"), reason });
    request.fields.append({ QStringLiteral("metadata[countersign_action_id]"), id });
    request.fields.append({ QStringLiteral("metadata[countersign_currency]"), currency });
    if (!businessReference.isEmpty())
        request.fields.append({ QStringLiteral("metadata[business_reference]"), businessReference });
    return request;
}

QJsonObject targetToJson(TargetType type, const QString &id)
{
    QJsonObject target;
    target.insert(toWire(type), id);
    return target;
}

bool targetFromJson(const QJsonObject &json, TargetType *type, QString *id, QString *error)
{
    const auto fail = [error](const QString &what) {
        if (error)
            *error = what;
        return false;
    };
    if (json.size() != 1)
        return fail(QStringLiteral("target: must have exactly one of \"charge\" or \"payment_intent\""));
    const QString key = json.begin().key();
    const std::optional<TargetType> parsed = targetTypeFromWire(key);
    if (!parsed)
        return fail(QStringLiteral("target: \"%1\" is not charge or payment_intent").arg(key));
    const QJsonValue value = json.begin().value();
    if (!value.isString() || value.toString().isEmpty())
        return fail(QStringLiteral("target.%1: must be a non-empty string").arg(key));
    *type = *parsed;
    *id = value.toString();
    return true;
}

QJsonObject ActionRecord::proposalPayload() const
{
    const QJsonObject target = targetToJson(targetType, targetId);

    QJsonObject payload;
    payload.insert(QLatin1String("kind"), kind);
    payload.insert(QLatin1String("target"), target);
    payload.insert(QLatin1String("amount"), QJsonValue(amount));
    payload.insert(QLatin1String("currency"), currency);
    payload.insert(QLatin1String("reason"), reason);
    payload.insert(QLatin1String("business_reference"), businessReference);
    return payload;
}

QJsonObject factsToJson(const QMap<QString, QString> &facts)
{
    QJsonObject json;
    for (auto it = facts.cbegin(); it != facts.cend(); ++it)
        json.insert(it.key(), it.value());
    return json;
}

QMap<QString, QString> factsFromJson(const QJsonObject &json)
{
    QMap<QString, QString> facts;
    for (auto it = json.constBegin(); it != json.constEnd(); ++it) {
        if (it.value().isString())
            facts.insert(it.key(), it.value().toString());
    }
    return facts;
}

QJsonObject ActionRecord::reasonsPayload() const
{
    QJsonObject payload;
    if (!justification.isEmpty())
        payload.insert(QLatin1String("justification"), justification);
    if (!contextUrl.isEmpty())
        payload.insert(QLatin1String("context_url"), contextUrl);
    if (!facts.isEmpty())
        payload.insert(QLatin1String("facts"), factsToJson(facts));
    return payload;
}

// The proposal payload's fields, then the agent's reasons, then the record's own.
QJsonObject ActionRecord::toJson() const
{
    QJsonObject json = proposalPayload();
    json.insert(QLatin1String("justification"), justification);
    json.insert(QLatin1String("context_url"), contextUrl);
    json.insert(QLatin1String("facts"), factsToJson(facts));
    json.insert(QLatin1String("id"), id);
    json.insert(QLatin1String("provider"), provider);
    json.insert(QLatin1String("provider_account"), providerAccount);
    json.insert(QLatin1String("requested_by"), requestedBy);
    json.insert(QLatin1String("client_reference"), clientReference);
    json.insert(QLatin1String("parent_id"), parentId);
    json.insert(QLatin1String("request_fingerprint"), requestFingerprint);
    json.insert(QLatin1String("idempotency_key"), idempotencyKey);
    json.insert(QLatin1String("approval_version"), approvalVersion);
    json.insert(QLatin1String("state"), toWire(state));
    json.insert(QLatin1String("state_version"), QJsonValue(stateVersion));
    json.insert(QLatin1String("review_reason"), reviewReason);
    json.insert(QLatin1String("created_at"), timeToJson(createdAt));
    json.insert(QLatin1String("updated_at"), timeToJson(updatedAt));
    return json;
}

// Required: id, kind, target {"charge"|"payment_intent": id}, amount, currency, state. Every other key may be absent
// or null and then takes the member's default. Unknown keys are ignored (newer servers may add
// some). The currency is accepted in any case and stored lowercase.
std::optional<ActionRecord> ActionRecord::fromJson(const QJsonObject &json, QString *error)
{
    using Need = FieldReader::Need;
    FieldReader in(json);
    ActionRecord r;
    r.id = in.string(QLatin1String("id"), Need::Required, true);
    r.kind = in.string(QLatin1String("kind"), Need::Required, true);

    const QJsonObject targetJson = in.object(QLatin1String("target"), Need::Required);
    if (in.ok()) {
        QString targetError;
        if (!targetFromJson(targetJson, &r.targetType, &r.targetId, &targetError))
            in.fail(targetError);
    }

    r.businessReference = in.string(QLatin1String("business_reference"));
    r.amount = in.integer(QLatin1String("amount"), 0, Money::MaxMinorUnits);
    r.currency = in.string(QLatin1String("currency"), Need::Required, true);
    if (in.ok()) {
        QString moneyError;
        const std::optional<Money> money = Money::fromMinorUnits(r.amount, r.currency, &moneyError);
        if (money)
            r.currency = money->currency();
        else
            in.fail(QLatin1String("currency"), moneyError);
    }
    r.reason = in.string(QLatin1String("reason"));
    r.provider = in.string(QLatin1String("provider"));
    r.providerAccount = in.string(QLatin1String("provider_account"));
    r.requestedBy = in.string(QLatin1String("requested_by"));
    r.clientReference = in.string(QLatin1String("client_reference"));
    r.parentId = in.string(QLatin1String("parent_id"));
    r.requestFingerprint = in.string(QLatin1String("request_fingerprint"));
    r.idempotencyKey = in.string(QLatin1String("idempotency_key"));
    r.approvalVersion = int(in.integer(QLatin1String("approval_version"), 0,
                                       std::numeric_limits<int>::max(), Need::Optional, 0));
    r.state = in.enumeration(QLatin1String("state"), stateFromWire, ActionState::Pending);
    r.stateVersion = in.integer(QLatin1String("state_version"), 0, std::numeric_limits<qint64>::max(),
                                Need::Optional, 1);
    r.reviewReason = in.string(QLatin1String("review_reason"));
    r.createdAt = in.time(QLatin1String("created_at"));
    r.updatedAt = in.time(QLatin1String("updated_at"));
    r.justification = in.string(QLatin1String("justification"));
    r.contextUrl = in.string(QLatin1String("context_url"));
    r.facts = factsFromJson(in.object(QLatin1String("facts")));
    return finish(in, std::move(r), error);
}

QString toWireTime(const QDateTime &time)
{
    if (!time.isValid())
        return QString();
    return time.toUTC().toString(Qt::ISODateWithMs);
}

QDateTime timeFromWire(const QString &wire)
{
    if (wire.isEmpty())
        return QDateTime();
    const QDateTime time = QDateTime::fromString(wire, Qt::ISODateWithMs);
    // A time without 'Z' or an offset would be read as the reader's local time: refuse it.
    if (!time.isValid() || time.timeSpec() == Qt::LocalTime)
        return QDateTime();
    return time.toUTC();
}

} // namespace cs
