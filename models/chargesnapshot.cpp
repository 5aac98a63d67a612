#include "models/chargesnapshot.h"
#include "models/jsonfieldreader.h"
#include "models/wirenames.h"

#include <QJsonArray>
#include <QJsonValue>

#include <limits>

namespace cs {

using namespace wire; // FieldReader, timeToJson, finish, Name, nameOf, valueOf

namespace {

constexpr Name<ChargeSnapshot::Result> ResultNames[] = {
    { ChargeSnapshot::Result::Found, QLatin1String("FOUND") },
    { ChargeSnapshot::Result::NotFound, QLatin1String("NOT_FOUND") },
    { ChargeSnapshot::Result::Error, QLatin1String("ERROR") },
};

constexpr qint64 kMaxAmount = std::numeric_limits<qint64>::max();

} // namespace

QString toWire(ChargeSnapshot::Result result)
{
    return nameOf(ResultNames, result);
}

std::optional<ChargeSnapshot::Result> chargeResultFromWire(QStringView wire)
{
    return valueOf(ResultNames, wire);
}

bool ChargeSnapshot::Refund::counts() const
{
    return status != QLatin1String("failed") && status != QLatin1String("canceled");
}

QJsonObject ChargeSnapshot::toJson() const
{
    QJsonArray refundArray;
    for (const Refund &r : refunds) {
        QJsonObject refund;
        refund.insert(QLatin1String("id"), r.id);
        refund.insert(QLatin1String("amount"), QJsonValue(r.amount));
        refund.insert(QLatin1String("status"), r.status);
        refund.insert(QLatin1String("created"), timeToJson(r.created));
        refund.insert(QLatin1String("action_id"), r.actionId);
        refundArray.append(refund);
    }
    QJsonObject json;
    json.insert(QLatin1String("target_type"), toWire(targetType));
    json.insert(QLatin1String("target_id"), targetId);
    json.insert(QLatin1String("charge_id"), chargeId);
    json.insert(QLatin1String("payment_intent_id"), paymentIntentId);
    json.insert(QLatin1String("asked_by"), askedBy);
    json.insert(QLatin1String("read_at"), timeToJson(readAt));
    json.insert(QLatin1String("result"), toWire(result));
    json.insert(QLatin1String("http_status"), httpStatus);
    json.insert(QLatin1String("excerpt"), excerpt);
    json.insert(QLatin1String("amount"), QJsonValue(amount));
    json.insert(QLatin1String("amount_captured"), QJsonValue(amountCaptured));
    json.insert(QLatin1String("amount_refunded"), QJsonValue(amountRefunded));
    json.insert(QLatin1String("currency"), currency);
    json.insert(QLatin1String("created"), timeToJson(created));
    json.insert(QLatin1String("payment_method_brand"), paymentMethodBrand);
    json.insert(QLatin1String("payment_method_last4"), paymentMethodLast4);
    json.insert(QLatin1String("disputed"), disputed);
    json.insert(QLatin1String("refunds"), refundArray);
    return json;
}

// Required: target_type, target_id, result. What the provider said is evidence and kept verbatim
// (the currency is neither checked nor lowercased); amounts must be non-negative integers.
std::optional<ChargeSnapshot> ChargeSnapshot::fromJson(const QJsonObject &json, QString *error)
{
    using Need = FieldReader::Need;
    FieldReader in(json);
    ChargeSnapshot s;
    s.targetType = in.enumeration(QLatin1String("target_type"), targetTypeFromWire, TargetType::Charge);
    s.targetId = in.string(QLatin1String("target_id"), Need::Required, true);
    s.chargeId = in.string(QLatin1String("charge_id"));
    s.paymentIntentId = in.string(QLatin1String("payment_intent_id"));
    s.askedBy = in.string(QLatin1String("asked_by"));
    s.readAt = in.time(QLatin1String("read_at"));
    s.result = in.enumeration(QLatin1String("result"), chargeResultFromWire, Result::NotFound);
    s.httpStatus = int(in.integer(QLatin1String("http_status"), 0, 999, Need::Optional, 0));
    s.excerpt = in.string(QLatin1String("excerpt"));
    s.amount = in.integer(QLatin1String("amount"), 0, kMaxAmount, Need::Optional, 0);
    s.amountCaptured = in.integer(QLatin1String("amount_captured"), 0, kMaxAmount, Need::Optional, 0);
    s.amountRefunded = in.integer(QLatin1String("amount_refunded"), 0, kMaxAmount, Need::Optional, 0);
    s.currency = in.string(QLatin1String("currency"));
    s.created = in.time(QLatin1String("created"));
    s.paymentMethodBrand = in.string(QLatin1String("payment_method_brand"));
    s.paymentMethodLast4 = in.string(QLatin1String("payment_method_last4"));
    s.disputed = in.boolean(QLatin1String("disputed"));
    const QJsonValue refunds = json.value(QLatin1String("refunds"));
    if (!refunds.isUndefined() && !refunds.isNull() && !refunds.isArray())
        in.fail(QLatin1String("refunds"), QStringLiteral("must be an array"));
    const QJsonArray array = refunds.toArray();
    for (qsizetype i = 0; i < array.size() && in.ok(); ++i) {
        if (!array.at(i).isObject()) {
            in.fail(QLatin1String("refunds"), QStringLiteral("must hold objects"));
            break;
        }
        FieldReader r(array.at(i).toObject(), QStringLiteral("refunds[%1].").arg(i));
        Refund refund;
        refund.id = r.string(QLatin1String("id"), Need::Required, true);
        refund.amount = r.integer(QLatin1String("amount"), 0, kMaxAmount);
        refund.status = r.string(QLatin1String("status"));
        refund.created = r.time(QLatin1String("created"));
        refund.actionId = r.string(QLatin1String("action_id"));
        in.merge(r);
        s.refunds.append(refund);
    }
    return finish(in, std::move(s), error);
}

} // namespace cs
