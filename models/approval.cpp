#include "models/approval.h"
#include "models/jsonfieldreader.h"
#include "models/wirenames.h"

#include "models/actionrecord.h" // toWireTime, timeFromWire

#include <QJsonArray>
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

QJsonArray signersToJson(const QList<Approval::Signer> &signers)
{
    QJsonArray array;
    for (const Approval::Signer &s : signers)
        array.append(QJsonObject{{QLatin1String("approver"), s.approver}, {QLatin1String("signed_at"), timeToJson(s.signedAt)}});
    return array;
}

std::optional<QList<Approval::Signer>> signersFromJson(const QJsonValue &value)
{
    QList<Approval::Signer> out;
    if (value.isUndefined() || value.isNull())
        return out;
    if (!value.isArray())
        return std::nullopt;
    for (const QJsonValue &item : value.toArray()) {
        const QJsonObject o = item.toObject();
        const QString approver = o.value(QLatin1String("approver")).toString();
        const QDateTime at = timeFromWire(o.value(QLatin1String("signed_at")).toString());
        if (approver.isEmpty() || !at.isValid())
            return std::nullopt;
        out.append({approver, at});
    }
    return out;
}

const QStringList &Approval::rejectionReasons()
{
    static const QStringList reasons = {QStringLiteral("wrong_amount"), QStringLiteral("duplicate"),
                                        QStringLiteral("not_eligible"), QStringLiteral("needs_information"),
                                        QStringLiteral("other")};
    return reasons;
}

const QString &Approval::policyApprover()
{
    static const QString name = QStringLiteral("policy");
    return name;
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
    json.insert(QLatin1String("policy_version"), policyVersion);
    json.insert(QLatin1String("rule_id"), ruleId);
    json.insert(QLatin1String("signers"), signersToJson(signers));
    json.insert(QLatin1String("expires_at"), timeToJson(expiresAt));
    json.insert(QLatin1String("expired_at"), timeToJson(expiredAt));
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
    a.policyVersion = int(in.integer(QLatin1String("policy_version"), 0, std::numeric_limits<int>::max(), Need::Optional));
    a.ruleId = in.string(QLatin1String("rule_id"));
    a.expiresAt = in.time(QLatin1String("expires_at"));
    a.expiredAt = in.time(QLatin1String("expired_at"));
    std::optional<Approval> out = finish(in, std::move(a), error);
    if (out) {
        const auto signers = signersFromJson(json.value(QLatin1String("signers")));
        if (!signers) {
            if (error)
                *error = QStringLiteral("signers: expected an array of {approver, signed_at}");
            return std::nullopt;
        }
        out->signers = *signers;
    }
    return out;
}

} // namespace cs
