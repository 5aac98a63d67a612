#pragma once

#include "models/chargesnapshot.h"

#include <QDateTime>
#include <QList>
#include <QString>

namespace cs {

// Where an approver should look twice before a refund of a charge is sent (issue 19), from the
// provider's view of the charge (a ChargeSnapshot) and the amount asked for. A pure function of
// its arguments: no clock, no I/O. Amounts are minor units of the snapshot's currency.

// Card networks accept a refund of a card charge for a limited time after the purchase. Stripe's
// refund guide (stripe.com/docs/refunds, read 2026-12) states no figure; 180 days is the window
// the card schemes' processors document (Cybersource's Visa Platform Connect: "within 180 days of
// the authorization"; PayPal's default refund period: 180 days). A warning, never a refusal:
// the provider is the one that decides.
inline constexpr qint64 CardRefundWindowDays = 180;

struct ChargeWarning
{
    enum class Kind {
        NoProviderView,   // the snapshot is not FOUND: nothing below could be checked
        Disputed,         // the customer disputed the charge: a refund may pay twice
        OverHalf,         // the request is more than half of the captured amount (the text says "the
                          // whole of" or "more than" the charge when it is)
        PastRefundWindow, // the charge is older than CardRefundWindowDays
        RefundsMade,      // the provider already holds refunds of this charge (listed)
        ExceedsRemaining, // the request is more than captured − counted refunds
    };

    Kind kind = Kind::NoProviderView;
    QString text; // one sentence for the approver, English, amounts formatted ("40.00 USD")

    friend bool operator==(const ChargeWarning &, const ChargeWarning &) = default;
};

// What the provider says may still be refunded: captured − the refunds that hold funds (failed and
// canceled ones give the money back). The larger of the listed refunds' sum and the provider's
// amount_refunded is taken, so a refund listed by one and not yet by the other still counts.
// Never negative. 0 unless the snapshot is FOUND.
qint64 refundableRemaining(const ChargeSnapshot &snapshot);

// The warnings, in the order of Kind. `requested` is the refund asked for (minor units, in the
// charge's currency); `now` is when the approver looks (UTC) and dates "… 3 h ago".
QList<ChargeWarning> chargeWarnings(const ChargeSnapshot &snapshot, qint64 requested, const QDateTime &now);

QString toWire(ChargeWarning::Kind kind); // "no_provider_view", "disputed", "over_half", …

} // namespace cs
