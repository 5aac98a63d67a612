#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace cs {

// One entry of the append-only, hash-chained audit log (invariant 9). Every change to an action
// writes one: who, what, why, and the before/after of what changed.
struct AuditEvent
{
    qint64 seq = 0;        // global, 1, 2, ... in commit order
    QString actionId;      // empty for events not about one action (user added, ...)
    QDateTime at;          // UTC
    QString actor;         // user name, "executor", "reconciler", "system"
    QString event;         // "proposed", "approved", "rejected", "claimed", "state_changed",
                           // "attempt_started", "attempt_finished", "lookup", "reconciled",
                           // "resubmission_conflict", "recovered", ...
    QString reason;        // why, in words
    QJsonObject before;    // what changed, before (may be empty)
    QJsonObject after;     // what changed, after (may be empty)
    QString prevHash;      // hash of the previous row; 64 zeros for the first
    QString hash;          // chainHash(prevHash) of this row

    // SHA-256 hex over the prevHash ARGUMENT, "\n", and the canonical JSON of this event without
    // `hash` and with `prev_hash` taken from the argument (compact, keys sorted at every level).
    QString chainHash(const QString &prevHash) const;

    QJsonObject toJson() const;
    static std::optional<AuditEvent> fromJson(const QJsonObject &json, QString *error = nullptr);
    friend bool operator==(const AuditEvent &, const AuditEvent &) = default;
};

} // namespace cs
