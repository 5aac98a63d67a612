#pragma once

#include <chrono>

#include "models/actionrecord.h"
#include "models/attempt.h"
#include "models/chargesnapshot.h"
#include "models/evidencerule.h"
#include "models/fingerprint.h"
#include "models/providerlookup.h"
#include "server/keywindow.h"

#include <QString>
#include <QStringList>

namespace cs {

// What the provider answered to one refund request, classified (DESIGN.md, issue "exactly-once").
// `outcome` is never Open. Unknown means the request may have reached the provider: a timeout, a
// reset, a 5xx, a lost response, or an ambiguous 4xx such as charge_already_refunded.
struct RefundOutcome
{
    Attempt::Outcome outcome = Attempt::Outcome::Unknown;
    int httpStatus = 0;           // 0 when no HTTP answer arrived
    QString errorCode;            // Stripe error code, if any
    QString errorType;            // Stripe error type, if any
    QString providerRequestId;    // Request-Id header
    QString providerObjectId;     // "re_…" when the answer named a refund
    QString refundStatus;         // the refund's status when one was returned
    qint64 amount = 0;            // the refund's amount when one was returned
    QString currency;             // the refund's currency (lowercase) when one was returned
    bool replayed = false;        // Idempotent-Replayed: true
    int retryAfterMs = 0;         // from Retry-After on 429/409, 0 if absent
    QString errorExcerpt;         // at most 500 characters
    ProviderClock providerClock;  // the answer's Date header; invalid when none arrived (issue 33)
};

// Every refund of an action's target that carries the action's id. More than one means the
// provider holds duplicates for one action: contradictory evidence that a human must look at.
struct RefundSearch
{
    ProviderLookup lookup;         // as findRefundForAction returns it (FOUND: the newest match)
    QList<RefundSighting> sightings; // every match as the evidence rule reads it, newest first;
                                     // empty unless FOUND
    ProviderClock providerClock;   // the last answer's Date (a failed look-up's too); invalid when
                                   // no answer arrived
};

// A payment provider as the executor, the reconciler and the API see it.
// Calls block until answered or until the per-request deadline passes; call them from worker
// threads, never from the HTTP server's thread or the GUI thread. Implementations must be safe
// to call from several threads at once.
class ProviderClient
{
public:
    virtual ~ProviderClient() = default;

    virtual QString name() const = 0; // "stripe", "paysim"

    // Sends the exact request with the Idempotency-Key header. Never retries on its own.
    virtual RefundOutcome createRefund(const ProviderRequest &request, const QString &idempotencyKey) = 0;

    // Lists refunds of the action's target and matches metadata[countersign_action_id]; follows
    // pagination. Returns a filled ProviderLookup (actionId, method ListByMetadata, askedBy, at,
    // result, object id, status, amount, currency, httpStatus, excerpt); seq is left 0 for the ledger.
    virtual ProviderLookup findRefundForAction(const ActionRecord &action, const QString &askedBy) = 0;

    // GET /v1/refunds/{id}; method RetrieveRefund.
    virtual ProviderLookup retrieveRefund(const ActionRecord &action, const QString &refundId,
                                          const QString &askedBy) = 0;

    // --- Optional (defaults keep older implementations source-compatible) ---------------------

    // findRefundForAction with every match listed (duplicates are contradictory evidence).
    virtual RefundSearch searchRefundsForAction(const ActionRecord &action, const QString &askedBy)
    {
        RefundSearch search;
        search.lookup = findRefundForAction(action, askedBy);
        if (search.lookup.result == ProviderLookup::Result::Found)
            search.sightings << sightingOf(search.lookup);
        return search;
    }

    // Reads refund events (GET /v1/events?type=refund.*) and matches the refund's
    // metadata[countersign_action_id]; method Events. Default: ERROR, "not supported".
    virtual ProviderLookup findRefundInEvents(const ActionRecord &action, const QString &askedBy)
    {
        ProviderLookup lookup;
        lookup.actionId = action.id;
        lookup.method = ProviderLookup::Method::Events;
        lookup.askedBy = askedBy;
        lookup.result = ProviderLookup::Result::Error;
        lookup.excerpt = QStringLiteral("this provider adapter cannot read events");
        return lookup;
    }

    // What the provider says about a charge, or a payment intent's latest charge: amounts, age,
    // card, dispute and every refund it holds (every page followed), whoever made them. readAt is
    // when the answer arrived; NOT_FOUND only when the provider said the object does not exist;
    // ERROR (with the excerpt) for anything else, including a partial list of refunds.
    // Default: ERROR, "not supported".
    virtual ChargeSnapshot retrieveCharge(TargetType targetType, const QString &targetId, const QString &askedBy)
    {
        ChargeSnapshot snapshot;
        snapshot.targetType = targetType;
        snapshot.targetId = targetId;
        snapshot.askedBy = askedBy;
        snapshot.readAt = QDateTime::currentDateTimeUtc();
        snapshot.result = ChargeSnapshot::Result::Error;
        snapshot.excerpt = QStringLiteral("this provider adapter cannot read charges (not supported)");
        return snapshot;
    }

    // Whether retrieveCharge asks the provider. false (the default): countersignd reads no charge
    // and records no snapshot, at a proposal or when an approver asks — an adapter that cannot
    // read charges leaves the budget unknown rather than filling the ledger with "not supported".
    virtual bool readsCharges() const { return false; }

    // Whether the provider answers this client at all, for readiness (GET /api/v1/health/ready):
    // one cheap authenticated read, bounded by a short deadline. Default: NotChecked (an adapter
    // that cannot tell does not make the service unready).
    struct Reachability
    {
        enum class Status { Reachable, Unreachable, NotChecked };
        Status status = Status::NotChecked;
        int httpStatus = 0;  // 0: no HTTP answer
        QString detail;      // for a human: what answered, or why nothing did
        qint64 elapsedMs = 0;
    };
    virtual Reachability probe() { return {Reachability::Status::NotChecked, 0, QStringLiteral("this provider adapter cannot be probed"), 0}; }
    // Aborts every request in flight, from any thread; they end as Unknown (the request may
    // have reached the provider). The last resort of a graceful stop. Default: does nothing.
    virtual void abortInFlight() {}

    // How long the provider promises to remember an idempotency key (Stripe: at least 24 h); 0 when
    // it promises nothing. countersignd refuses a configured key window longer than this (issue 33).
    virtual std::chrono::milliseconds promisedKeyWindow() const { return std::chrono::milliseconds(0); }

    // The longest a call may wait for the provider (0: not known). The executor sizes its leases
    // from its own request timeout and refuses to start if this is longer.
    virtual std::chrono::milliseconds longestDeadline() const { return std::chrono::milliseconds(0); }
};

} // namespace cs
