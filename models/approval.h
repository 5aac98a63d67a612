#pragma once

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace cs {

// One human decision on an action (append-only). An approval signs one exact request: it stores
// the fingerprint it approved and mints the idempotency key (invariants 4 and 10).
struct Approval
{
    enum class Decision { Approved, Rejected };

    // One approver's signature in a quorum (dual control, docs/POLICY.md).
    struct Signer
    {
        QString approver;
        QDateTime signedAt; // UTC
        friend bool operator==(const Signer &, const Signer &) = default;
    };

    QString actionId;
    int version = 0;               // 1, 2, ... per action
    QString decidedBy;
    Decision decision = Decision::Approved;
    QString note;
    // For a rejection, why, from rejectionReasons() (wire "reason"); "" for an approval and for a
    // rejection recorded before reasons existed (ledger migration 9).
    QString rejectionReason;
    QString idempotencyKey;        // minted by this approval; empty for a rejection
    QString approvedFingerprint;   // the request fingerprint this approval signs
    QDateTime decidedAt;           // UTC
    // What the approval policy decided (ledger migration 11): its version (0: no policy in force)
    // and the rule that matched ("" for none); for a quorum, every approver who signed, in order,
    // the last one being decidedBy (empty for a single approver and for a rejection).
    int policyVersion = 0;
    QString ruleId;
    QList<Signer> signers;
    // Approval expiry (ledger migration 13, docs/POLICY.md): when this approval stops counting if
    // it has not been sent by then (null: never), and when it did (null: it has not). An expired
    // approval's key was never used: the action asks for approval again, and the next approval
    // mints a fresh key.
    QDateTime expiresAt;
    QDateTime expiredAt;

    // wrong_amount, duplicate, not_eligible, needs_information, other: the reasons an approver may
    // give for a rejection (issue 19), in the order the console lists them.
    static const QStringList &rejectionReasons();
    // "policy": the decided_by of an approval the approval policy made itself (auto-approval,
    // docs/POLICY.md); never an agent, never a person.
    static const QString &policyApprover();

    QJsonObject toJson() const;
    static std::optional<Approval> fromJson(const QJsonObject &json, QString *error = nullptr);
    friend bool operator==(const Approval &, const Approval &) = default;
};

// A quorum's signers on the wire: [{"approver", "signed_at"}], oldest first (null or absent: []).
QJsonArray signersToJson(const QList<Approval::Signer> &signers);
std::optional<QList<Approval::Signer>> signersFromJson(const QJsonValue &value);

QString toWire(Approval::Decision decision); // "approved", "rejected"
std::optional<Approval::Decision> decisionFromWire(QStringView wire);

} // namespace cs
