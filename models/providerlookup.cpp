#include "models/providerlookup.h"
#include "models/jsonfieldreader.h"
#include "models/wirenames.h"

#include "models/actionrecord.h" // toWireTime, timeFromWire

#include <QJsonValue>

#include <limits>

namespace cs {

using namespace wire; // FieldReader, timeToJson, finish, Name, nameOf, valueOf

namespace {

constexpr Name<ProviderLookup::Method> MethodNames[] = {
    { ProviderLookup::Method::ListByMetadata, QLatin1String("list_by_metadata") },
    { ProviderLookup::Method::RetrieveRefund, QLatin1String("retrieve_refund") },
    { ProviderLookup::Method::Events, QLatin1String("events") },
    { ProviderLookup::Method::Webhook, QLatin1String("webhook") },
};

constexpr Name<ProviderLookup::Result> ResultNames[] = {
    { ProviderLookup::Result::Found, QLatin1String("FOUND") },
    { ProviderLookup::Result::NotFound, QLatin1String("NOT_FOUND") },
    { ProviderLookup::Result::Error, QLatin1String("ERROR") },
};

} // namespace

QString toWire(ProviderLookup::Method method)
{
    return nameOf(MethodNames, method);
}

std::optional<ProviderLookup::Method> lookupMethodFromWire(QStringView wire)
{
    return valueOf(MethodNames, wire);
}

QString toWire(ProviderLookup::Result result)
{
    return nameOf(ResultNames, result);
}

std::optional<ProviderLookup::Result> lookupResultFromWire(QStringView wire)
{
    return valueOf(ResultNames, wire);
}

QJsonObject ProviderLookup::toJson() const
{
    QJsonObject json;
    json.insert(QLatin1String("action_id"), actionId);
    json.insert(QLatin1String("seq"), seq);
    json.insert(QLatin1String("method"), toWire(method));
    json.insert(QLatin1String("asked_by"), askedBy);
    json.insert(QLatin1String("at"), timeToJson(at));
    json.insert(QLatin1String("result"), toWire(result));
    json.insert(QLatin1String("provider_object_id"), providerObjectId);
    json.insert(QLatin1String("status"), status);
    json.insert(QLatin1String("amount"), QJsonValue(amount));
    json.insert(QLatin1String("currency"), currency);
    json.insert(QLatin1String("http_status"), httpStatus);
    json.insert(QLatin1String("excerpt"), excerpt);
    if (!failureReason.isEmpty())
        json.insert(QLatin1String("failure_reason"), failureReason);
    return json;
}

// Required: action_id, seq, method, result. The rest may be absent or null. What the provider
// said (status, amount, currency) is evidence and kept verbatim: the currency is neither checked
// against ISO-4217 nor lowercased, and the amount only has to be a non-negative integer.
std::optional<ProviderLookup> ProviderLookup::fromJson(const QJsonObject &json, QString *error)
{
    using Need = FieldReader::Need;
    FieldReader in(json);
    ProviderLookup l;
    l.actionId = in.string(QLatin1String("action_id"), Need::Required, true);
    l.seq = int(in.integer(QLatin1String("seq"), 0, std::numeric_limits<int>::max()));
    l.method = in.enumeration(QLatin1String("method"), lookupMethodFromWire, Method::ListByMetadata);
    l.askedBy = in.string(QLatin1String("asked_by"));
    l.at = in.time(QLatin1String("at"));
    l.result = in.enumeration(QLatin1String("result"), lookupResultFromWire, Result::NotFound);
    l.providerObjectId = in.string(QLatin1String("provider_object_id"));
    l.status = in.string(QLatin1String("status"));
    l.amount = in.integer(QLatin1String("amount"), 0, std::numeric_limits<qint64>::max(), Need::Optional, 0);
    l.currency = in.string(QLatin1String("currency"));
    l.httpStatus = int(in.integer(QLatin1String("http_status"), 0, 999, Need::Optional, 0));
    l.excerpt = in.string(QLatin1String("excerpt"));
    l.failureReason = in.string(QLatin1String("failure_reason"));
    return finish(in, std::move(l), error);
}

} // namespace cs
