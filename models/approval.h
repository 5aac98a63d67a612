#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace cs {

// One human decision on an action (append-only). An approval signs one exact request: it stores
// the fingerprint it approved and mints the idempotency key (invariants 4 and 10).
struct Approval
{
    enum class Decision { Approved, Rejected };

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

    // wrong_amount, duplicate, not_eligible, needs_information, other: the reasons an approver may
    // give for a rejection (issue 19), in the order the console lists them.
    static const QStringList &rejectionReasons();

    QJsonObject toJson() const;
    static std::optional<Approval> fromJson(const QJsonObject &json, QString *error = nullptr);
    friend bool operator==(const Approval &, const Approval &) = default;
};

QString toWire(Approval::Decision decision); // "approved", "rejected"
std::optional<Approval::Decision> decisionFromWire(QStringView wire);

} // namespace cs
