#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace cs {

// One request sent (or about to be sent) to the provider for an action (append-only once
// finished). The row is committed before the request leaves the process (invariant 3); it is
// finished exactly once with the classified outcome.
struct Attempt
{
    enum class Outcome {
        Open,                // committed, request not answered yet (or the process died)
        Succeeded,           // 2xx: the refund exists
        Rejected,            // definitive 4xx (errorCode says which)
        Unknown,             // timeout, reset, 5xx, crash: it may or may not have committed
        RateLimited,         // 429: not executed; retry later with the same key
        KeyInUse,            // 409 idempotency_key_in_use: the first request is still in flight
        IdempotencyMismatch, // 400 idempotency_error: the key was used for a different request
    };

    QString actionId;
    int seq = 0;                 // 1, 2, ... per action
    QString idempotencyKey;
    QString requestFingerprint;
    QString executor;            // who sent it: "worker-2@host:pid"
    QDateTime startedAt;         // UTC, when the row was committed
    QDateTime finishedAt;        // UTC; null while Open
    Outcome outcome = Outcome::Open;
    int httpStatus = 0;          // 0 when no HTTP answer arrived
    QString errorCode;           // provider error code ("charge_already_refunded"), if any
    QString providerRequestId;   // "req_…" from the Request-Id header, if any
    QString providerObjectId;    // "re_…" when the answer named a refund
    bool replayed = false;       // Idempotent-Replayed: true
    QString errorExcerpt;        // at most 500 characters of the error body or transport error

    QJsonObject toJson() const;
    static std::optional<Attempt> fromJson(const QJsonObject &json, QString *error = nullptr);
    friend bool operator==(const Attempt &, const Attempt &) = default;
};

QString toWire(Attempt::Outcome outcome); // "open", "succeeded", "rejected", "unknown",
                                          // "rate_limited", "key_in_use", "idempotency_mismatch"
std::optional<Attempt::Outcome> attemptOutcomeFromWire(QStringView wire);

} // namespace cs
