#include "models/discrepancy.h"
#include "models/jsonfieldreader.h"
#include "models/wirenames.h"

#include <QCoreApplication>
#include <QJsonArray>

#include <limits>

namespace cs {

using namespace wire;

namespace {

constexpr Name<Discrepancy::Kind> KindNames[] = {
    { Discrepancy::Kind::DuplicateRefund, QLatin1String("duplicate_refund") },
    { Discrepancy::Kind::ContradictingRefund, QLatin1String("contradicting_refund") },
};
constexpr Name<Discrepancy::Attention> AttentionNames[] = {
    { Discrepancy::Attention::Open, QLatin1String("open") },
    { Discrepancy::Attention::Closed, QLatin1String("closed") },
};

QJsonValue orNull(const QString &s)
{
    return s.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(s);
}

} // namespace

QString toWire(Discrepancy::Kind kind) { return nameOf(KindNames, kind); }
std::optional<Discrepancy::Kind> discrepancyKindFromWire(QStringView wire) { return valueOf(KindNames, wire); }
QString toWire(Discrepancy::Attention attention) { return nameOf(AttentionNames, attention); }
std::optional<Discrepancy::Attention> discrepancyAttentionFromWire(QStringView wire) { return valueOf(AttentionNames, wire); }

QString Discrepancy::headline() const
{
    const int refunds = refundIds.size() < 2 ? 2 : int(refundIds.size());
    if (kind == Kind::DuplicateRefund)
        return QCoreApplication::translate("cs::Discrepancy", "The provider holds %n refunds for this action", nullptr,
                                           refunds);
    return QCoreApplication::translate("cs::Discrepancy", "The provider holds a refund that contradicts this action");
}

QJsonObject Discrepancy::toJson() const
{
    QJsonObject json;
    json.insert(QLatin1String("action_id"), actionId);
    json.insert(QLatin1String("kind"), toWire(kind));
    json.insert(QLatin1String("refund_ids"), QJsonArray::fromStringList(refundIds));
    json.insert(QLatin1String("detail"), detail);
    json.insert(QLatin1String("evidence"), evidence);
    json.insert(QLatin1String("found_by"), foundBy);
    json.insert(QLatin1String("opened_at"), timeToJson(openedAt));
    json.insert(QLatin1String("last_seen_at"), timeToJson(lastSeenAt));
    json.insert(QLatin1String("sightings"), sightings);
    json.insert(QLatin1String("attention"), toWire(attention));
    json.insert(QLatin1String("resolved_by"), orNull(resolvedBy));
    json.insert(QLatin1String("resolved_at"), timeToJson(resolvedAt));
    json.insert(QLatin1String("resolution_note"), orNull(resolutionNote));
    return json;
}

// Required: action_id, kind, refund_ids, opened_at, attention. The rest may be absent or null.
std::optional<Discrepancy> Discrepancy::fromJson(const QJsonObject &json, QString *error)
{
    using Need = FieldReader::Need;
    FieldReader in(json);
    Discrepancy d;
    d.actionId = in.string(QLatin1String("action_id"), Need::Required, true);
    d.kind = in.enumeration(QLatin1String("kind"), discrepancyKindFromWire, Kind::DuplicateRefund);
    const QJsonValue ids = json.value(QLatin1String("refund_ids"));
    if (!ids.isArray())
        in.fail(QLatin1String("refund_ids"), QStringLiteral("must be an array of strings"));
    for (const QJsonValue &id : ids.toArray()) {
        if (!id.isString()) {
            in.fail(QLatin1String("refund_ids"), QStringLiteral("must be an array of strings"));
            break;
        }
        d.refundIds << id.toString();
    }
    d.detail = in.string(QLatin1String("detail"));
    d.evidence = in.string(QLatin1String("evidence"));
    d.foundBy = in.string(QLatin1String("found_by"));
    d.openedAt = in.time(QLatin1String("opened_at"), Need::Required);
    d.lastSeenAt = in.time(QLatin1String("last_seen_at"));
    d.sightings = int(in.integer(QLatin1String("sightings"), 1, std::numeric_limits<int>::max(), Need::Optional, 1));
    d.attention = in.enumeration(QLatin1String("attention"), discrepancyAttentionFromWire, Attention::Open);
    d.resolvedBy = in.string(QLatin1String("resolved_by"));
    d.resolvedAt = in.time(QLatin1String("resolved_at"));
    d.resolutionNote = in.string(QLatin1String("resolution_note"));
    return finish(in, std::move(d), error);
}

} // namespace cs
