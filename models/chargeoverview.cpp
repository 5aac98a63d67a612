#include "models/chargeoverview.h"

#include "models/jsonfieldreader.h"

#include <QJsonArray>

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
    return wire::finish(in, std::move(o), error);
}

} // namespace cs
