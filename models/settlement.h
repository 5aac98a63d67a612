#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace cs {

// One change of a COMPLETED action's refund status at the provider, as Countersign learned it
// (append-only, seq 1, 2, … per action; the first row is the status the action completed with).
struct SettlementChange
{
    int seq = 0;
    QDateTime at;          // UTC, when Countersign recorded it
    QString fromStatus;    // empty for the first row
    QString toStatus;      // the provider's refund status (models/refundstatus.h)
    QString failureReason; // the provider's failure_reason, for failed; else empty
    QString source;        // attempt | lookup | webhook | reconciliation | schedule
    QString evidence;      // "attempt 1", "lookup 3", "event evt_…": where it can be read
    QJsonObject toJson() const;
    static std::optional<SettlementChange> fromJson(const QJsonObject &json, QString *error = nullptr);
    friend bool operator==(const SettlementChange &, const SettlementChange &) = default;
};

// What happened to a COMPLETED action's refund after the provider accepted it (issue 18,
// docs/SETTLEMENT.md). The six states stay six: a refund that is still `pending` is COMPLETED
// and followed here — webhook events first, look-ups on a schedule as a fallback — until it
// settles. One that fails or is canceled afterwards opens a review item (attention "open") that a
// supervisor closes by proposing the follow-up (a new operation with its own approval and key:
// attention "followed_up") or by closing it with a note ("closed"); never by a silent resend.
struct Settlement
{
    enum class Attention {
        None,       // nothing to decide
        Open,       // the refund failed or was canceled after COMPLETED: a supervisor must decide
        FollowedUp, // decided: re-proposed as follow-up `followUpId`
        Closed,     // decided: closed with a note, nothing re-sent
    };

    QString actionId;
    QString refundId;         // re_…
    QString status;           // the provider's refund status as last seen
    QString failureReason;    // for failed: the provider's failure_reason (may be empty)
    QDateTime startedAt;      // when the action became COMPLETED (the first row)
    QDateTime confirmedAt;    // when the provider last confirmed `status`
    QString confirmedBy;      // the source of that confirmation (SettlementChange::source)
    QDateTime settledAt;      // when a final status (succeeded, failed, canceled) was first seen; null while not
    QDateTime nextCheckAt;    // the next scheduled look-up; null when none is due (settled)
    int checks = 0;           // scheduled look-ups made so far
    Attention attention = Attention::None;
    QDateTime attentionSince; // when the review item opened
    QString resolvedBy;
    QDateTime resolvedAt;
    QString resolutionNote;
    QString followUpId;       // the follow-up that re-proposed it
    QList<SettlementChange> history; // oldest first

    bool isSettled() const;  // succeeded, failed or canceled
    bool moneyReturned() const; // failed or canceled: the refund will never move money
    bool needsReview() const { return attention == Attention::Open; }

    QJsonObject toJson() const;
    static std::optional<Settlement> fromJson(const QJsonObject &json, QString *error = nullptr);
    friend bool operator==(const Settlement &, const Settlement &) = default;
};

QString toWire(Settlement::Attention attention); // "none", "open", "followed_up", "closed"
std::optional<Settlement::Attention> settlementAttentionFromWire(QStringView wire);

// Whether a report of `incoming` should replace the recorded `current` status. Refund statuses
// only move forward — pending / requires_action, then succeeded, then failed or canceled (Stripe:
// a succeeded refund can still fail; a failed or canceled one never changes again) — so a report
// that ranks lower is an old one arriving late (events out of order, a lagging list) and is kept
// as evidence only. Unrecognised statuses never replace anything.
bool settlementSupersedes(const QString &incoming, const QString &current);

} // namespace cs
