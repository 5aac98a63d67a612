#pragma once

#include <QString>

namespace cs {

// The provider's refund status (Stripe: pending | requires_action | succeeded | failed |
// canceled) and the one rule for what it proves about an action (DESIGN.md). Used by the
// provider adapter, the attempt policy, the ledger's evidence checks, the API's permissions and
// the console, so they can never disagree.
enum class RefundStatus {
    Pending,
    RequiresAction,
    Succeeded,
    Failed,
    Canceled,
    Unrecognised, // any other string, including the empty one
};

// What a status proves about the refund it belongs to.
enum class RefundEvidence {
    Committed,    // succeeded, pending: the provider holds the refund (a pending one is followed until
                  // it settles, and may still fail: models/settlement.h)
    NotCommitted, // failed, canceled: the refund exists and will never move money
    Unsettled,    // requires_action: the refund exists but may still go either way; a human follows it
    Unrecognised, // a status this code does not know: proves nothing, either way
};

RefundStatus refundStatusFromWire(const QString &status);
QString toWire(RefundStatus status); // Unrecognised: an empty string
RefundEvidence evidenceOf(RefundStatus status);
RefundEvidence refundEvidence(const QString &status); // evidenceOf(refundStatusFromWire(status))

// The two questions every caller asks. An unsettled or unrecognised status answers no to both.
inline bool provesCommitted(const QString &status) { return refundEvidence(status) == RefundEvidence::Committed; }
inline bool provesNotCommitted(const QString &status)
{
    return refundEvidence(status) == RefundEvidence::NotCommitted;
}

} // namespace cs
