#include "models/approval.h"
#include "models/jsonfieldreader.h"
#include "models/wirenames.h"

#include "models/actionrecord.h" // toWireTime, timeFromWire

#include <QJsonValue>

#include <limits>

namespace cs {

using namespace wire; // FieldReader, timeToJson, finish, Name, nameOf, valueOf

namespace {

constexpr Name<Approval::Decision> DecisionNames[] = {
    { Approval::Decision::Approved, QLatin1String("approved") },
    { Approval::Decision::Rejected, QLatin1String("rejected") },
};

} // namespace

QString toWire(Approval::Decision decision)
{
    return nameOf(DecisionNames, decision);
}

std::optional<Approval::Decision> decisionFromWire(QStringView wire)
{
    return valueOf(DecisionNames, wire);
}

const QStringList &Approval::rejectionReasons()
{
    static const QStringList reasons = {QStringLiteral("wrong_amount"), QStringLiteral("duplicate"),
                                        QStringLiteral("not_eligible"), QStringLiteral("needs_information"),
                                        QStringLiteral("other")};
    return reasons;
}

QJsonObject Approval::toJson() const
{
    QJsonObject json;
    json.insert(QLatin1String("action_id"), actionId);
    json.insert(QLatin1String("version"), version);
    json.insert(QLatin1String("decided_by"), decidedBy);
    json.insert(QLatin1String("decision"), toWire(decision));
    json.insert(QLatin1String("note"), note);
    json.insert(QLatin1String("reason"), rejectionReason);
    json.insert(QLatin1String("idempotency_key"), idempotencyKey);
    json.insert(QLatin1String("approved_fingerprint"), approvedFingerprint);
    json.insert(QLatin1String("decided_at"), timeToJson(decidedAt));
    return json;
}

// Required: action_id, version, decided_by, decision. The rest may be absent or null.
std::optional<Approval> Approval::fromJson(const QJsonObject &json, QString *error)
{
    using Need = FieldReader::Need;
    FieldReader in(json);
    Approval a;
    a.actionId = in.string(QLatin1String("action_id"), Need::Required, true);
    a.version = int(in.integer(QLatin1String("version"), 0, std::numeric_limits<int>::max()));
    a.decidedBy = in.string(QLatin1String("decided_by"), Need::Required, true);
    a.decision = in.enumeration(QLatin1String("decision"), decisionFromWire, Decision::Approved);
    a.note = in.string(QLatin1String("note"));
    a.rejectionReason = in.string(QLatin1String("reason"));
    a.idempotencyKey = in.string(QLatin1String("idempotency_key"));
    a.approvedFingerprint = in.string(QLatin1String("approved_fingerprint"));
    a.decidedAt = in.time(QLatin1String("decided_at"));
    return finish(in, std::move(a), error);
}

} // namespace cs
