#include "models/attempt.h"
#include "models/jsonfieldreader.h"
#include "models/wirenames.h"

#include "models/actionrecord.h" // toWireTime, timeFromWire

#include <QJsonValue>

#include <limits>

namespace cs {

using namespace wire; // FieldReader, timeToJson, finish, Name, nameOf, valueOf

namespace {

constexpr Name<Attempt::Outcome> OutcomeNames[] = {
    { Attempt::Outcome::Open, QLatin1String("open") },
    { Attempt::Outcome::Succeeded, QLatin1String("succeeded") },
    { Attempt::Outcome::Rejected, QLatin1String("rejected") },
    { Attempt::Outcome::Unknown, QLatin1String("unknown") },
    { Attempt::Outcome::RateLimited, QLatin1String("rate_limited") },
    { Attempt::Outcome::KeyInUse, QLatin1String("key_in_use") },
    { Attempt::Outcome::IdempotencyMismatch, QLatin1String("idempotency_mismatch") },
};

} // namespace

QString toWire(Attempt::Outcome outcome)
{
    return nameOf(OutcomeNames, outcome);
}

std::optional<Attempt::Outcome> attemptOutcomeFromWire(QStringView wire)
{
    return valueOf(OutcomeNames, wire);
}

QJsonObject Attempt::toJson() const
{
    QJsonObject json;
    json.insert(QLatin1String("action_id"), actionId);
    json.insert(QLatin1String("seq"), seq);
    json.insert(QLatin1String("idempotency_key"), idempotencyKey);
    json.insert(QLatin1String("request_fingerprint"), requestFingerprint);
    json.insert(QLatin1String("executor"), executor);
    json.insert(QLatin1String("started_at"), timeToJson(startedAt));
    json.insert(QLatin1String("finished_at"), timeToJson(finishedAt));
    json.insert(QLatin1String("outcome"), toWire(outcome));
    json.insert(QLatin1String("http_status"), httpStatus);
    json.insert(QLatin1String("error_code"), errorCode);
    json.insert(QLatin1String("provider_request_id"), providerRequestId);
    json.insert(QLatin1String("provider_object_id"), providerObjectId);
    json.insert(QLatin1String("replayed"), replayed);
    json.insert(QLatin1String("error_excerpt"), errorExcerpt);
    return json;
}

// Required: action_id, seq, outcome. The rest may be absent or null.
std::optional<Attempt> Attempt::fromJson(const QJsonObject &json, QString *error)
{
    using Need = FieldReader::Need;
    FieldReader in(json);
    Attempt a;
    a.actionId = in.string(QLatin1String("action_id"), Need::Required, true);
    a.seq = int(in.integer(QLatin1String("seq"), 0, std::numeric_limits<int>::max()));
    a.idempotencyKey = in.string(QLatin1String("idempotency_key"));
    a.requestFingerprint = in.string(QLatin1String("request_fingerprint"));
    a.executor = in.string(QLatin1String("executor"));
    a.startedAt = in.time(QLatin1String("started_at"));
    a.finishedAt = in.time(QLatin1String("finished_at"));
    a.outcome = in.enumeration(QLatin1String("outcome"), attemptOutcomeFromWire, Outcome::Open);
    a.httpStatus = int(in.integer(QLatin1String("http_status"), 0, 999, Need::Optional, 0));
    a.errorCode = in.string(QLatin1String("error_code"));
    a.providerRequestId = in.string(QLatin1String("provider_request_id"));
    a.providerObjectId = in.string(QLatin1String("provider_object_id"));
    a.replayed = in.boolean(QLatin1String("replayed"));
    a.errorExcerpt = in.string(QLatin1String("error_excerpt"));
    return finish(in, std::move(a), error);
}

} // namespace cs
