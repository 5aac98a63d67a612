#include "models/chargewarnings.h"

#include "models/displayformat.h"
#include "models/wirenames.h"

#include <QStringList>

#include <algorithm>

namespace cs {

namespace {

constexpr wire::Name<ChargeWarning::Kind> KindNames[] = {
    { ChargeWarning::Kind::NoProviderView, QLatin1String("no_provider_view") },
    { ChargeWarning::Kind::Disputed, QLatin1String("disputed") },
    { ChargeWarning::Kind::OverHalf, QLatin1String("over_half") },
    { ChargeWarning::Kind::PastRefundWindow, QLatin1String("past_refund_window") },
    { ChargeWarning::Kind::RefundsMade, QLatin1String("refunds_made") },
    { ChargeWarning::Kind::ExceedsRemaining, QLatin1String("exceeds_remaining") },
};

qint64 countedRefunds(const ChargeSnapshot &s)
{
    qint64 sum = 0;
    for (const ChargeSnapshot::Refund &r : s.refunds) {
        if (r.counts())
            sum += r.amount;
    }
    return std::max(sum, s.amountRefunded);
}

QString refundLine(const ChargeSnapshot::Refund &r, const QString &currency, const QDateTime &now)
{
    QString line = r.id + QLatin1Char(' ') + display::money(r.amount, currency) + QLatin1Char(' ') + r.status;
    if (r.created.isValid())
        line += QLatin1String(", ") + display::relative(r.created, now);
    if (!r.actionId.isEmpty())
        line += QLatin1String(" (action ") + r.actionId + QLatin1Char(')');
    else
        line += QLatin1String(" (made outside Countersign)");
    return line;
}

} // namespace

QString toWire(ChargeWarning::Kind kind)
{
    return wire::nameOf(KindNames, kind);
}

qint64 refundableRemaining(const ChargeSnapshot &snapshot)
{
    if (snapshot.result != ChargeSnapshot::Result::Found)
        return 0;
    return std::max<qint64>(0, snapshot.amountCaptured - countedRefunds(snapshot));
}

QList<ChargeWarning> chargeWarnings(const ChargeSnapshot &s, qint64 requested, const QDateTime &now)
{
    using Kind = ChargeWarning::Kind;
    QList<ChargeWarning> warnings;
    if (s.result != ChargeSnapshot::Result::Found) {
        const QString why = s.result == ChargeSnapshot::Result::NotFound
                                ? QStringLiteral("the provider does not know %1").arg(s.targetId)
                                : QStringLiteral("the provider could not be read (%1)")
                                      .arg(s.excerpt.isEmpty() ? QStringLiteral("no answer") : s.excerpt);
        warnings.append({ Kind::NoProviderView,
                          QStringLiteral("No view of the charge: %1; its amount, age, refunds and disputes are "
                                         "unchecked.").arg(why) });
        return warnings;
    }
    const QString &cur = s.currency;
    if (s.disputed)
        warnings.append({ Kind::Disputed,
                          QStringLiteral("The charge %1 is disputed: a refund now may pay the customer twice.")
                              .arg(s.chargeId) });
    // Strictly more than half: 50.00 of 100.00 is half, not over it. The whole charge, or more, is
    // said as such: "199.00 USD is over half of the charge's captured 199.00 USD" read as a slip.
    if (requested > 0 && s.amountCaptured > 0 && requested * 2 > s.amountCaptured) {
        const QString asked = display::money(requested, cur);
        const QString captured = display::money(s.amountCaptured, cur);
        warnings.append({ Kind::OverHalf,
                          requested == s.amountCaptured ? QStringLiteral("%1 is the whole of the charge's captured %2.").arg(asked, captured)
                              : requested > s.amountCaptured
                              ? QStringLiteral("%1 is more than the charge's captured %2.").arg(asked, captured)
                              : QStringLiteral("%1 is over half of the charge's captured %2.").arg(asked, captured) });
    }
    if (s.created.isValid() && now.isValid() && s.created.daysTo(now) > CardRefundWindowDays)
        warnings.append({ Kind::PastRefundWindow,
                          QStringLiteral("The charge is %1 days old, past the %2-day card refund window: the "
                                         "provider may refuse the refund.")
                              .arg(s.created.daysTo(now))
                              .arg(CardRefundWindowDays) });
    if (!s.refunds.isEmpty() || s.amountRefunded > 0) {
        QStringList lines;
        for (const ChargeSnapshot::Refund &r : s.refunds)
            lines << refundLine(r, cur, now);
        const QString listed = lines.isEmpty() ? QStringLiteral("none listed") : lines.join(QLatin1String("; "));
        warnings.append({ Kind::RefundsMade,
                          QStringLiteral("Already refunded %1 of %2: %3.")
                              .arg(display::money(s.amountRefunded, cur), display::money(s.amountCaptured, cur),
                                   listed) });
    }
    const qint64 left = refundableRemaining(s);
    if (requested > left)
        warnings.append({ Kind::ExceedsRemaining,
                          QStringLiteral("Requested %1, more than the %2 the provider says is left (captured %3 "
                                         "− refunded %4).")
                              .arg(display::money(requested, cur), display::money(left, cur),
                                   display::money(s.amountCaptured, cur),
                                   display::money(countedRefunds(s), cur)) });
    return warnings;
}

} // namespace cs
