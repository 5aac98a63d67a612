#include "models/settlement.h"
#include "models/jsonfieldreader.h"
#include "models/refundstatus.h"
#include "models/wirenames.h"

#include "models/actionrecord.h" // toWireTime, timeFromWire

#include <QJsonArray>
#include <QJsonValue>

#include <limits>

namespace cs {

using namespace wire; // FieldReader, timeToJson, finish, Name, nameOf, valueOf

namespace {

constexpr Name<Settlement::Attention> AttentionNames[] = {
    { Settlement::Attention::None, QLatin1String("none") },
    { Settlement::Attention::Open, QLatin1String("open") },
    { Settlement::Attention::FollowedUp, QLatin1String("followed_up") },
    { Settlement::Attention::Closed, QLatin1String("closed") },
};

QJsonValue orNull(const QString &s)
{
    return s.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(s);
}

// 0: not settled yet; 1: succeeded; 2: failed or canceled (final); -1: unrecognised.
int rank(const QString &status)
{
    switch (refundStatusFromWire(status)) {
    case RefundStatus::Pending:
    case RefundStatus::RequiresAction:
        return 0;
    case RefundStatus::Succeeded:
        return 1;
    case RefundStatus::Failed:
    case RefundStatus::Canceled:
        return 2;
    case RefundStatus::Unrecognised:
        break;
    }
    return -1;
}

} // namespace

QString toWire(Settlement::Attention attention)
{
    return nameOf(AttentionNames, attention);
}

std::optional<Settlement::Attention> settlementAttentionFromWire(QStringView wire)
{
    return valueOf(AttentionNames, wire);
}

bool settlementSupersedes(const QString &incoming, const QString &current)
{
    const int in = rank(incoming);
    const int now = rank(current);
    if (in < 0 || incoming == current)
        return false;
    if (now < 0)
        return true;
    // pending <-> requires_action both wait; the newer report of the two wins.
    return in > now || (in == 0 && now == 0);
}

bool Settlement::isSettled() const
{
    return rank(status) > 0;
}

bool Settlement::moneyReturned() const
{
    return provesNotCommitted(status);
}

QJsonObject SettlementChange::toJson() const
{
    QJsonObject json;
    json.insert(QLatin1String("seq"), seq);
    json.insert(QLatin1String("at"), timeToJson(at));
    json.insert(QLatin1String("from_status"), orNull(fromStatus));
    json.insert(QLatin1String("to_status"), toStatus);
    json.insert(QLatin1String("failure_reason"), orNull(failureReason));
    json.insert(QLatin1String("source"), source);
    json.insert(QLatin1String("evidence"), evidence);
    return json;
}

std::optional<SettlementChange> SettlementChange::fromJson(const QJsonObject &json, QString *error)
{
    using Need = FieldReader::Need;
    FieldReader in(json);
    SettlementChange c;
    c.seq = int(in.integer(QLatin1String("seq"), 1, std::numeric_limits<int>::max()));
    c.at = in.time(QLatin1String("at"), Need::Required);
    c.fromStatus = in.string(QLatin1String("from_status"));
    c.toStatus = in.string(QLatin1String("to_status"), Need::Required, true);
    c.failureReason = in.string(QLatin1String("failure_reason"));
    c.source = in.string(QLatin1String("source"), Need::Required, true);
    c.evidence = in.string(QLatin1String("evidence"));
    return finish(in, std::move(c), error);
}

QJsonObject Settlement::toJson() const
{
    QJsonObject json;
    json.insert(QLatin1String("action_id"), actionId);
    json.insert(QLatin1String("refund_id"), refundId);
    json.insert(QLatin1String("status"), status);
    json.insert(QLatin1String("failure_reason"), orNull(failureReason));
    json.insert(QLatin1String("started_at"), timeToJson(startedAt));
    json.insert(QLatin1String("confirmed_at"), timeToJson(confirmedAt));
    json.insert(QLatin1String("confirmed_by"), confirmedBy);
    json.insert(QLatin1String("settled_at"), timeToJson(settledAt));
    json.insert(QLatin1String("next_check_at"), timeToJson(nextCheckAt));
    json.insert(QLatin1String("checks"), checks);
    json.insert(QLatin1String("attention"), toWire(attention));
    json.insert(QLatin1String("attention_since"), timeToJson(attentionSince));
    json.insert(QLatin1String("resolved_by"), orNull(resolvedBy));
    json.insert(QLatin1String("resolved_at"), timeToJson(resolvedAt));
    json.insert(QLatin1String("resolution_note"), orNull(resolutionNote));
    json.insert(QLatin1String("follow_up_id"), orNull(followUpId));
    QJsonArray changes;
    for (const SettlementChange &c : history)
        changes.append(c.toJson());
    json.insert(QLatin1String("history"), changes);
    return json;
}

// Required: action_id, refund_id, status, confirmed_at, confirmed_by, attention. The rest may be
// absent or null.
std::optional<Settlement> Settlement::fromJson(const QJsonObject &json, QString *error)
{
    using Need = FieldReader::Need;
    FieldReader in(json);
    Settlement s;
    s.actionId = in.string(QLatin1String("action_id"), Need::Required, true);
    s.refundId = in.string(QLatin1String("refund_id"), Need::Required);
    s.status = in.string(QLatin1String("status"), Need::Required, true);
    s.failureReason = in.string(QLatin1String("failure_reason"));
    s.startedAt = in.time(QLatin1String("started_at"));
    s.confirmedAt = in.time(QLatin1String("confirmed_at"), Need::Required);
    s.confirmedBy = in.string(QLatin1String("confirmed_by"), Need::Required, true);
    s.settledAt = in.time(QLatin1String("settled_at"));
    s.nextCheckAt = in.time(QLatin1String("next_check_at"));
    s.checks = int(in.integer(QLatin1String("checks"), 0, std::numeric_limits<int>::max(), Need::Optional, 0));
    s.attention = in.enumeration(QLatin1String("attention"), settlementAttentionFromWire, Attention::None);
    s.attentionSince = in.time(QLatin1String("attention_since"));
    s.resolvedBy = in.string(QLatin1String("resolved_by"));
    s.resolvedAt = in.time(QLatin1String("resolved_at"));
    s.resolutionNote = in.string(QLatin1String("resolution_note"));
    s.followUpId = in.string(QLatin1String("follow_up_id"));
    const QJsonValue changes = json.value(QLatin1String("history"));
    if (!changes.isUndefined() && !changes.isNull() && !changes.isArray())
        in.fail(QLatin1String("history"), QStringLiteral("must be an array"));
    for (const QJsonValue &value : changes.toArray()) {
        QString why;
        const auto change = SettlementChange::fromJson(value.toObject(), &why);
        if (!change) {
            in.fail(QLatin1String("history"), why);
            break;
        }
        s.history.append(*change);
    }
    return finish(in, std::move(s), error);
}

} // namespace cs
