#include "models/chargebudget.h"
#include "models/actionrecord.h" // toWireTime
#include "models/jsonfieldreader.h"
#include "models/money.h"
#include "models/wirenames.h"

#include <QJsonArray>
#include <QJsonValue>

#include <limits>

namespace cs {

namespace {

using wire::FieldReader;

constexpr wire::Name<ChargeBudget::Stage> StageNames[] = {
    { ChargeBudget::Stage::Proposal, QLatin1String("proposal") },
    { ChargeBudget::Stage::Approval, QLatin1String("approval") },
    { ChargeBudget::Stage::Claim, QLatin1String("claim") },
};

constexpr qint64 kMaxMinor = 1'000'000'000'000'000LL; // far above any amount, below 2^53

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
    return wire::nameOf(StageNames, stage);
}

std::optional<ChargeBudget::Stage> budgetStageFromWire(QStringView text)
{
    return wire::valueOf(StageNames, text);
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

std::optional<ChargeBudget> ChargeBudget::fromJson(const QJsonObject &json, QString *error)
{
    using Need = FieldReader::Need;
    FieldReader in(json);
    ChargeBudget b;
    b.stage = in.enumeration(QLatin1String("stage"), budgetStageFromWire, Stage::Approval, Need::Optional);
    b.known = in.boolean(QLatin1String("known"));
    b.chargeId = in.string(QLatin1String("charge_id"));
    b.paymentIntentId = in.string(QLatin1String("payment_intent_id"));
    b.currency = in.string(QLatin1String("currency"));
    b.snapshotSeq = int(in.integer(QLatin1String("snapshot_seq"), 0, std::numeric_limits<int>::max(), Need::Optional, 0));
    b.readAt = in.time(QLatin1String("read_at"));
    b.captured = in.integer(QLatin1String("captured"), 0, kMaxMinor, Need::Optional, 0);
    b.refundedAtProvider = in.integer(QLatin1String("refunded_at_provider"), 0, kMaxMinor, Need::Optional, 0);
    b.reserved = in.integer(QLatin1String("reserved"), 0, kMaxMinor, Need::Optional, 0);
    const QJsonValue held = json.value(QLatin1String("reservations"));
    if (in.ok() && !held.isUndefined() && !held.isNull() && !held.isArray())
        in.fail(QLatin1String("reservations"), QStringLiteral("must be an array"));
    const QJsonArray array = held.toArray();
    for (qsizetype i = 0; i < array.size() && in.ok(); ++i) {
        if (!array.at(i).isObject()) {
            in.fail(QStringLiteral("reservations[%1]: must be an object").arg(i));
            break;
        }
        FieldReader r(array.at(i).toObject(), QStringLiteral("reservations[%1].").arg(i));
        Reservation reservation;
        reservation.actionId = r.string(QLatin1String("action_id"), Need::Required, true);
        reservation.state = r.enumeration(QLatin1String("state"), stateFromWire, ActionState::Pending);
        reservation.approved = r.boolean(QLatin1String("approved"));
        reservation.amount = r.integer(QLatin1String("amount"), 0, kMaxMinor);
        reservation.currency = r.string(QLatin1String("currency"));
        reservation.requestedBy = r.string(QLatin1String("requested_by"));
        reservation.createdAt = r.time(QLatin1String("created_at"));
        in.merge(r);
        b.reservations.append(reservation);
    }
    return wire::finish(in, std::move(b), error);
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
