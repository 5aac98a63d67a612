#include "models/chargeoverview.h"

#include "models/jsonfieldreader.h"
#include "models/settlement.h"

#include <QJsonArray>

#include <algorithm>
#include <limits>

namespace cs {

using wire::FieldReader;
using Need = FieldReader::Need;

QList<ChargeSnapshot::Refund> ChargeOverview::refundsMadeOutside() const
{
    QList<ChargeSnapshot::Refund> outside;
    if (snapshot) {
        for (const ChargeSnapshot::Refund &r : snapshot->refunds) {
            if (r.actionId.isEmpty())
                outside << r;
        }
    }
    return outside;
}

QList<ProviderRefund> ChargeOverview::providerRefunds() const
{
    QList<ProviderRefund> read;
    if (snapshot) {
        for (const ChargeSnapshot::Refund &r : snapshot->refunds)
            read << ProviderRefund{ r, snapshot->currency, true, QString(), QString(), {} };
    }
    QList<ProviderRefund> announced; // known from events alone
    for (const UnmatchedRefundEvent &e : unmatchedRefundEvents) {
        auto same = [&e](const ProviderRefund &p) { return p.refund.id == e.refundId; };
        auto it = std::find_if(read.begin(), read.end(), same);
        if (it == read.end()) {
            it = std::find_if(announced.begin(), announced.end(), same);
            if (it == announced.end()) {
                ChargeSnapshot::Refund r;
                r.id = e.refundId;
                r.amount = e.amount;
                r.actionId = e.namedAction;
                announced << ProviderRefund{ r, e.currency, false, QString(), QString(), {} };
                it = announced.end() - 1;
            }
        }
        it->events << e;
    }
    for (QList<ProviderRefund> *list : { &announced, &read }) {
        for (ProviderRefund &p : *list) {
            // Oldest first, so that of two reports of the same rank the later one wins.
            for (auto e = p.events.crbegin(); e != p.events.crend(); ++e) {
                if (!p.refund.created.isValid() || (!p.inRead && e->eventCreated.isValid() && e->eventCreated < p.refund.created))
                    p.refund.created = e->eventCreated.isValid() ? e->eventCreated : e->receivedAt;
                if (p.refund.status.isEmpty() || settlementSupersedes(e->status, p.refund.status)) {
                    if (p.inRead && p.readStatus.isEmpty())
                        p.readStatus = p.refund.status;
                    p.refund.status = e->status;
                    p.failureReason = e->failureReason;
                }
            }
        }
    }
    return announced + read;
}

const ActionSummary *ChargeOverview::actionOf(const ChargeSnapshot::Refund &refund) const
{
    if (refund.actionId.isEmpty())
        return nullptr;
    for (const ActionSummary &a : actions) {
        if (a.id() == refund.actionId)
            return &a;
    }
    return nullptr;
}

// Required: id, target_type, budget, actions. snapshot may be null or absent (never read).
std::optional<ChargeOverview> ChargeOverview::fromJson(const QJsonObject &json, QString *error)
{
    FieldReader in(json);
    ChargeOverview o;
    o.id = in.string(QLatin1String("id"), Need::Required, true);
    o.targetType = in.enumeration(QLatin1String("target_type"), targetTypeFromWire, TargetType::Charge);
    o.chargeId = in.string(QLatin1String("charge_id"));
    o.paymentIntentId = in.string(QLatin1String("payment_intent_id"));
    o.actionsTruncated = in.boolean(QLatin1String("actions_truncated"));
    const QJsonObject budget = in.object(QLatin1String("budget"), Need::Required);
    const QJsonValue snapshot = json.value(QLatin1String("snapshot"));
    if (in.ok() && !snapshot.isUndefined() && !snapshot.isNull()) {
        if (!snapshot.isObject()) {
            in.fail(QLatin1String("snapshot"), QStringLiteral("must be an object or null"));
        } else {
            QString problem;
            o.snapshot = ChargeSnapshot::fromJson(snapshot.toObject(), &problem);
            if (!o.snapshot)
                in.fail(QStringLiteral("snapshot.") + problem);
            o.snapshotSeq = int(FieldReader(snapshot.toObject()).integer(QLatin1String("seq"), 0, std::numeric_limits<int>::max(),
                                                                          Need::Optional, 0));
        }
    }
    if (in.ok()) {
        QString problem;
        std::optional<ChargeBudget> b = ChargeBudget::fromJson(budget, &problem);
        if (b)
            o.budget = std::move(*b);
        else
            in.fail(QStringLiteral("budget.") + problem);
    }
    const QJsonValue actions = json.value(QLatin1String("actions"));
    if (in.ok() && !actions.isArray())
        in.fail(QLatin1String("actions"), actions.isUndefined() || actions.isNull() ? QStringLiteral("is required")
                                                                                   : QStringLiteral("must be an array"));
    const QJsonArray array = actions.toArray();
    for (qsizetype i = 0; i < array.size() && in.ok(); ++i) {
        QString problem;
        std::optional<ActionSummary> row = array.at(i).isObject() ? ActionSummary::fromJson(array.at(i).toObject(), &problem)
                                                                  : std::nullopt;
        if (!row) {
            in.fail(QStringLiteral("actions[%1]%2").arg(i).arg(problem.isEmpty() ? QStringLiteral(": must be an object")
                                                                                  : QLatin1Char('.') + problem));
            break;
        }
        o.actions.append(std::move(*row));
    }
    // Issue 18; absent from older backends.
    const QJsonValue unmatched = json.value(QLatin1String("unmatched_refund_events"));
    if (in.ok() && !unmatched.isUndefined() && !unmatched.isNull() && !unmatched.isArray())
        in.fail(QLatin1String("unmatched_refund_events"), QStringLiteral("must be an array"));
    const QJsonArray events = unmatched.toArray();
    for (qsizetype i = 0; i < events.size() && in.ok(); ++i) {
        QString problem;
        std::optional<UnmatchedRefundEvent> event = events.at(i).isObject()
            ? UnmatchedRefundEvent::fromJson(events.at(i).toObject(), &problem)
            : std::nullopt;
        if (!event) {
            in.fail(QStringLiteral("unmatched_refund_events[%1]%2")
                        .arg(i)
                        .arg(problem.isEmpty() ? QStringLiteral(": must be an object") : QLatin1Char('.') + problem));
            break;
        }
        o.unmatchedRefundEvents.append(std::move(*event));
    }
    return wire::finish(in, std::move(o), error);
}

// Required: event_id, type, refund_id, received_at, status, amount, currency (openapi.yaml, Charge).
std::optional<UnmatchedRefundEvent> UnmatchedRefundEvent::fromJson(const QJsonObject &json, QString *error)
{
    FieldReader in(json);
    UnmatchedRefundEvent e;
    e.eventId = in.string(QLatin1String("event_id"), Need::Required, true);
    e.type = in.string(QLatin1String("type"), Need::Required, true);
    e.refundId = in.string(QLatin1String("refund_id"), Need::Required, true);
    e.receivedAt = in.time(QLatin1String("received_at"), Need::Required);
    e.status = in.string(QLatin1String("status"), Need::Required);
    e.amount = in.integer(QLatin1String("amount"), 0, std::numeric_limits<qint64>::max() / 2);
    e.currency = in.string(QLatin1String("currency"), Need::Required);
    e.failureReason = in.string(QLatin1String("failure_reason"));
    e.paymentIntent = in.string(QLatin1String("payment_intent"));
    const qint64 created = in.integer(QLatin1String("event_created"), 0, std::numeric_limits<qint32>::max() * qint64(4),
                                      Need::Optional, 0);
    if (created > 0)
        e.eventCreated = QDateTime::fromSecsSinceEpoch(created, Qt::UTC);
    e.namedAction = in.string(QLatin1String("named_action"));
    return wire::finish(in, std::move(e), error);
}

} // namespace cs
