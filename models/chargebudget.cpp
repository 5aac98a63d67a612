#include "models/chargebudget.h"
#include "models/actionrecord.h" // toWireTime
#include "models/money.h"

#include <QJsonArray>
#include <QJsonValue>

namespace cs {

namespace {

QString formatted(qint64 minor, const QString &currency)
{
    if (minor < 0) {
        const std::optional<Money> m = Money::fromMinorUnits(-minor, currency);
        return m ? QStringLiteral("-") + m->format() : QStringLiteral("%1 (minor units of %2)").arg(minor).arg(currency);
    }
    const std::optional<Money> m = Money::fromMinorUnits(minor, currency);
    return m ? m->format() : QStringLiteral("%1 (minor units of %2)").arg(minor).arg(currency);
}

} // namespace

QString toWire(ChargeBudget::Stage stage)
{
    switch (stage) {
    case ChargeBudget::Stage::Proposal:
        return QStringLiteral("proposal");
    case ChargeBudget::Stage::Approval:
        return QStringLiteral("approval");
    case ChargeBudget::Stage::Claim:
        return QStringLiteral("claim");
    }
    return QString();
}

bool ChargeBudget::fits(qint64 amount, const QString &requestedCurrency) const
{
    if (!known)
        return true;
    return requestedCurrency.compare(currency, Qt::CaseInsensitive) == 0 && amount <= available();
}

QString ChargeBudget::describe(qint64 requested, const QString &requestedCurrency) const
{
    if (!known)
        return QStringLiteral("the provider has not said what %1 can still refund").arg(chargeId);
    if (requestedCurrency.compare(currency, Qt::CaseInsensitive) != 0) {
        return QStringLiteral("%1 is a charge in %2; %3 was requested")
            .arg(chargeId, currency.toUpper(), formatted(requested, requestedCurrency));
    }
    QStringList holders;
    for (const Reservation &r : reservations)
        holders << QStringLiteral("%1 %2 (%3)").arg(r.actionId, formatted(r.amount, currency), toWire(r.state));
    return QStringLiteral("%1: captured %2, refunded at the provider %3 (read %4), reserved in Countersign %5%6;"
                          " %7 left, %8 requested")
        .arg(chargeId, formatted(captured, currency), formatted(refundedAtProvider, currency), toWireTime(readAt),
             formatted(reserved, currency),
             holders.isEmpty() ? QString() : QStringLiteral(" by ") + holders.join(QStringLiteral(", ")),
             formatted(available(), currency), formatted(requested, currency));
}

QJsonObject ChargeBudget::toJson() const
{
    QJsonArray held;
    for (const Reservation &r : reservations) {
        QJsonObject o;
        o.insert(QLatin1String("action_id"), r.actionId);
        o.insert(QLatin1String("state"), toWire(r.state));
        o.insert(QLatin1String("approved"), r.approved);
        o.insert(QLatin1String("amount"), QJsonValue(r.amount));
        o.insert(QLatin1String("currency"), r.currency);
        o.insert(QLatin1String("requested_by"), r.requestedBy);
        o.insert(QLatin1String("created_at"), r.createdAt.isValid() ? QJsonValue(toWireTime(r.createdAt)) : QJsonValue());
        held.append(o);
    }
    QJsonObject json;
    json.insert(QLatin1String("stage"), toWire(stage));
    json.insert(QLatin1String("known"), known);
    json.insert(QLatin1String("charge_id"), chargeId);
    json.insert(QLatin1String("payment_intent_id"), paymentIntentId);
    json.insert(QLatin1String("currency"), currency);
    json.insert(QLatin1String("snapshot_seq"), snapshotSeq);
    json.insert(QLatin1String("read_at"), readAt.isValid() ? QJsonValue(toWireTime(readAt)) : QJsonValue());
    json.insert(QLatin1String("captured"), QJsonValue(captured));
    json.insert(QLatin1String("refunded_at_provider"), QJsonValue(refundedAtProvider));
    json.insert(QLatin1String("reserved"), QJsonValue(reserved));
    json.insert(QLatin1String("available"), QJsonValue(available()));
    json.insert(QLatin1String("reservations"), held);
    return json;
}

} // namespace cs
