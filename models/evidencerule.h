#pragma once

#include "models/actionrecord.h"
#include "models/attempt.h"
#include "models/providerlookup.h"
#include "models/settlement.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace cs {

// One refund the provider showed us for an action: in a look-up's answer, a webhook event, or an
// answer to an attempt (fresh or replayed under the same key). Fields the evidence did not carry
// stay empty and are not compared.
struct RefundSighting
{
    QString refundId;        // re_…; empty when the answer named none
    QString status;          // the provider's refund status (models/refundstatus.h)
    qint64 amount = 0;       // minor units
    QString currency;        // lowercase; empty when not said
    QString chargeId;        // the charge it is on; empty when not said
    QString paymentIntentId; // the payment intent it is on; empty when not said
    QString source;          // where it can be read, for words: "lookup #3", "event evt_…", "attempt 2"
    friend bool operator==(const RefundSighting &, const RefundSighting &) = default;
};

// What a body of evidence proves about an action (issue 33: one rule, where there were three
// copies that disagreed). The stricter reading wins everywhere.
enum class EvidenceVerdict {
    Inconclusive,  // no refund shown: proves nothing either way (NOT_FOUND never proves "not sent")
    Committed,     // one refund, the action's money, a status that proves it exists (succeeded, pending)
    NotCommitted,  // one refund, the action's money, failed or canceled: no money moved
    Unsettled,     // one refund, the action's money, a status proving neither (requires_action, an
                   // unknown one): a refund exists, a human follows it
    Contradictory, // two refunds or more carry this action's id; or the refund's amount, currency,
                   // charge or payment intent is not the action's; or it is another refund than the
                   // one the ledger already holds for the action
};

struct EvidenceFinding
{
    EvidenceVerdict verdict = EvidenceVerdict::Inconclusive;
    QString refundId;      // the refund the verdict is about (Contradictory: the one that contradicts)
    QString status;        // its status, as the most advanced report showed it
    QStringList refundIds; // every distinct refund seen for the action, in the order first seen
    QString reason;        // one sentence for the audit trail and the reviewer
    bool duplicate = false; // Contradictory because two refunds or more carry the action's id

    // Whether the provider holds (or held) a refund for this action: anything but Inconclusive.
    // An action whose evidence says so is never sent again.
    bool refundShown() const { return verdict != EvidenceVerdict::Inconclusive; }
    friend bool operator==(const EvidenceFinding &, const EvidenceFinding &) = default;
};

QString toWire(EvidenceVerdict verdict); // "inconclusive", "committed", "not_committed", "unsettled", "contradictory"

// The one evidence rule. `sightings` are every refund the evidence showed carrying the action's id
// (several reports of one refund are one refund: its most advanced status counts, as
// settlementSupersedes orders them); `knownRefundId` is the refund the ledger already holds for the
// action (its settlement's, or the one an attempt's answer named), empty when none. Pure: callers
// (the reconciler, "look up now", the scheduled settlement look-ups, webhooks, the attempt policy)
// decide what to do with the verdict; they never re-derive it.
EvidenceFinding judgeEvidence(const ActionRecord &action, const QList<RefundSighting> &sightings,
                              const QString &knownRefundId = QString());

// Whether `lookup` on its own can carry the verdict's transition (the ledger refuses a COMPLETED or
// REJECTED whose look-up does not show it): a committed verdict needs a committed status in this
// very look-up, a not-committed one a failed or canceled one; review needs nothing. When it cannot —
// the verdict rests on an older report in hand — the look-up is stored and the verdict applied from
// the stored one it rests on.
bool carriesVerdict(const ProviderLookup &lookup, const EvidenceFinding &finding);

// Whether the finding contradicts a final state: another refund (or another amount, currency,
// charge) than a COMPLETED action's, or any refund for a REJECTED one. Such an action keeps its
// state and is flagged (models/discrepancy.h); an open one goes to REQUIRES_REVIEW instead.
bool contradictsFinalState(ActionState state, const EvidenceFinding &finding);

// A FOUND look-up (any method, webhooks included) as the refund it shows; source "lookup #seq".
RefundSighting sightingOf(const ProviderLookup &lookup);
// Every FOUND look-up of the list, oldest first.
QList<RefundSighting> sightingsOf(const QList<ProviderLookup> &lookups);

// The refund at the provider an action's attempts named: the last attempt whose answer named one;
// empty when none did.
QString refundNamedByAttempts(const QList<Attempt> &attempts);
// The refund the ledger holds for an action: its settlement's (a COMPLETED action, whatever evidence
// completed it), else the one its attempts named; empty when neither. The one place that names an
// action's refund at the provider (reconciler, webhooks, console, MCP).
QString refundOnRecord(const std::optional<Settlement> &settlement, const QList<Attempt> &attempts);

} // namespace cs
