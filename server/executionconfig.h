#pragma once

#include <QJsonObject>
#include <QString>

#include <chrono>

namespace cs {

// Everything the executor and the reconciler are tuned with. Defaults suit a real provider
// (Stripe); tests shrink the times. All durations are milliseconds.
//
// The one rule they must keep: a lease outlives the request it covers comfortably
// (leaseDuration >= 2 x requestTimeout + 1 s), so a slow answer is never recorded by an executor
// that has already lost the action to recovery. validate() checks it.
struct ExecutionConfig
{
    int workers = 4;                                  // worker threads, each claims and sends alone
    std::chrono::milliseconds requestTimeout{30000};  // >= the adapter's own deadline (StripeClientConfig)
    std::chrono::milliseconds leaseDuration{120000};  // executor/reconciler lease on an action
    std::chrono::milliseconds idlePoll{500};          // an idle worker looks for work this often
    std::chrono::milliseconds recoverySweep{5000};    // expired leases are recovered this often

    // 429 / 409 while EXECUTING: wait (Retry-After or backoff) and send again with the same key,
    // at most this many times; then CONFIRMATION_UNKNOWN (a 409 means a same-key request may be
    // in flight) and the reconciler carries on.
    int maxBusyRetries = 4;

    // Backoff with jitter: min(max, base * 2^(n-1)), of which a random half (equal jitter).
    std::chrono::milliseconds backoffBase{1000};
    std::chrono::milliseconds backoffMax{300000};

    // Reconciliation rounds (lookup, then possibly a same-key retry) before REQUIRES_REVIEW.
    int maxReconcileTries = 10;
    // After an ambiguous answer (charge_already_refunded) only lookups follow, no resend: review
    // once this many rounds found nothing (rounds are counted from the first).
    int ambiguousLookups = 3;

    // The provider's idempotency key window (Stripe: 24 h) and the safety margin kept before its
    // end: same-key retries only while now < first attempt start + window - margin (invariant 7).
    std::chrono::milliseconds keyWindow{std::chrono::hours(24)};
    std::chrono::milliseconds keyWindowMargin{std::chrono::hours(1)};

    // Settlement after COMPLETED (issue 18): a refund the provider accepted as pending is looked up
    // on a schedule until it settles — webhook events usually settle it first. The n-th scheduled
    // look-up waits min(max, base * 2^(n-1)) after the previous one (the first: one minute after
    // completion, settlementrows.h).
    std::chrono::milliseconds settlementCheckBase{std::chrono::minutes(5)};
    std::chrono::milliseconds settlementCheckMax{std::chrono::hours(6)};

    QString instanceName = QStringLiteral("exec"); // part of every executor id

    // Empty when usable, else a sentence saying what is wrong.
    QString validate() const;

    // Reads the keys of toJson() (snake_case, durations in ms); missing keys keep their default.
    static ExecutionConfig fromJson(const QJsonObject &json, QString *error = nullptr);
    QJsonObject toJson() const;
};

} // namespace cs
