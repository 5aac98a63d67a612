#include "models/evidencerule.h"

#include "models/refundstatus.h"
#include "models/settlement.h"

namespace cs {

namespace {

// What of the sighting is not the action's, in words; empty when nothing is.
QString mismatch(const ActionRecord &action, const RefundSighting &s)
{
    QStringList what;
    if (s.amount != action.amount)
        what << QStringLiteral("%1 minor units, the action %2").arg(s.amount).arg(action.amount);
    if (!s.currency.isEmpty() && s.currency != action.currency)
        what << QStringLiteral("currency %1, the action %2").arg(s.currency, action.currency);
    const bool onCharge = action.targetType == TargetType::Charge;
    if (onCharge && !s.chargeId.isEmpty() && s.chargeId != action.targetId)
        what << QStringLiteral("on charge %1, the action on %2").arg(s.chargeId, action.targetId);
    if (!onCharge && !s.paymentIntentId.isEmpty() && s.paymentIntentId != action.targetId)
        what << QStringLiteral("on payment intent %1, the action on %2").arg(s.paymentIntentId, action.targetId);
    return what.join(QStringLiteral("; "));
}

QString named(const RefundSighting &s)
{
    const QString id = s.refundId.isEmpty() ? QStringLiteral("a refund without an id") : QStringLiteral("refund ") + s.refundId;
    return s.source.isEmpty() ? id : QStringLiteral("%1 (%2)").arg(id, s.source);
}

} // namespace

QString toWire(EvidenceVerdict verdict)
{
    switch (verdict) {
    case EvidenceVerdict::Inconclusive: return QStringLiteral("inconclusive");
    case EvidenceVerdict::Committed: return QStringLiteral("committed");
    case EvidenceVerdict::NotCommitted: return QStringLiteral("not_committed");
    case EvidenceVerdict::Unsettled: return QStringLiteral("unsettled");
    case EvidenceVerdict::Contradictory: return QStringLiteral("contradictory");
    }
    return QString();
}

EvidenceFinding judgeEvidence(const ActionRecord &action, const QList<RefundSighting> &sightings,
                              const QString &knownRefundId)
{
    EvidenceFinding finding;
    if (sightings.isEmpty()) {
        finding.reason = QStringLiteral("the provider showed no refund carrying this action's id; that proves"
                                        " nothing either way");
        return finding;
    }
    // One entry per refund: its most advanced report. Every report is checked against the action's
    // money on its own (a later report cannot make an earlier contradiction go away).
    QList<RefundSighting> refunds;
    for (const RefundSighting &s : sightings) {
        if (const QString wrong = mismatch(action, s); !wrong.isEmpty()) {
            finding.verdict = EvidenceVerdict::Contradictory;
            finding.refundId = s.refundId;
            finding.status = s.status;
            finding.reason = QStringLiteral("contradictory evidence: %1 is %2").arg(named(s), wrong);
        }
        auto same = std::find_if(refunds.begin(), refunds.end(),
                                 [&s](const RefundSighting &r) { return r.refundId == s.refundId; });
        if (same == refunds.end()) {
            refunds << s;
            finding.refundIds << s.refundId;
        } else if (settlementSupersedes(s.status, same->status)) {
            *same = s;
        }
    }
    if (refunds.size() > 1) {
        finding.verdict = EvidenceVerdict::Contradictory;
        finding.duplicate = true;
        finding.refundId = refunds.at(1).refundId;
        finding.status = refunds.at(1).status;
        finding.reason = QStringLiteral("the provider holds %1 refunds for this action (%2): contradictory evidence")
                             .arg(refunds.size())
                             .arg(finding.refundIds.join(QStringLiteral(", ")));
        return finding;
    }
    if (finding.verdict == EvidenceVerdict::Contradictory)
        return finding;
    const RefundSighting &one = refunds.constFirst();
    finding.refundId = one.refundId;
    finding.status = one.status;
    if (!knownRefundId.isEmpty() && one.refundId != knownRefundId) {
        finding.verdict = EvidenceVerdict::Contradictory;
        finding.duplicate = true;
        finding.refundIds.prepend(knownRefundId);
        finding.reason = QStringLiteral("the provider holds 2 refunds for this action: %1 besides refund %2 already"
                                        " on record")
                             .arg(named(one), knownRefundId);
        return finding;
    }
    switch (refundEvidence(one.status)) {
    case RefundEvidence::Committed:
        finding.verdict = EvidenceVerdict::Committed;
        finding.reason = QStringLiteral("%1 exists with status %2").arg(named(one), one.status);
        break;
    case RefundEvidence::NotCommitted:
        finding.verdict = EvidenceVerdict::NotCommitted;
        finding.reason = QStringLiteral("%1 has status %2: no money moved").arg(named(one), one.status);
        break;
    case RefundEvidence::Unsettled:
    case RefundEvidence::Unrecognised:
        finding.verdict = EvidenceVerdict::Unsettled;
        finding.reason = QStringLiteral("%1 exists with status %2, which proves neither outcome: a human must"
                                        " follow it")
                             .arg(named(one), one.status.isEmpty() ? QStringLiteral("(none)") : one.status);
        break;
    }
    return finding;
}

bool contradictsFinalState(ActionState state, const EvidenceFinding &finding)
{
    if (state == ActionState::Completed)
        return finding.verdict == EvidenceVerdict::Contradictory;
    if (state == ActionState::Rejected) // a refund exists for an action that says none was made
        return finding.verdict == EvidenceVerdict::Contradictory || finding.verdict == EvidenceVerdict::Committed
            || finding.verdict == EvidenceVerdict::Unsettled;
    return false;
}

bool carriesVerdict(const ProviderLookup &lookup, const EvidenceFinding &finding)
{
    if (finding.verdict == EvidenceVerdict::Committed)
        return lookup.result == ProviderLookup::Result::Found && refundEvidence(lookup.status) == RefundEvidence::Committed;
    if (finding.verdict == EvidenceVerdict::NotCommitted)
        return lookup.result == ProviderLookup::Result::Found
            && refundEvidence(lookup.status) == RefundEvidence::NotCommitted;
    return true;
}

RefundSighting sightingOf(const ProviderLookup &lookup)
{
    RefundSighting s;
    s.refundId = lookup.providerObjectId;
    s.status = lookup.status;
    s.amount = lookup.amount;
    s.currency = lookup.currency;
    s.source = lookup.seq > 0 ? QStringLiteral("lookup #%1").arg(lookup.seq) : toWire(lookup.method);
    if (lookup.method == ProviderLookup::Method::Webhook) {
        // "event evt_… refund.updated: …": the event is where it can be read.
        const QString event = lookup.excerpt.section(QLatin1Char(' '), 1, 1);
        if (event.startsWith(QLatin1String("evt_")))
            s.source += QStringLiteral(", webhook ") + event;
    }
    return s;
}

QList<RefundSighting> sightingsOf(const QList<ProviderLookup> &lookups)
{
    QList<RefundSighting> out;
    for (const ProviderLookup &l : lookups) {
        if (l.result == ProviderLookup::Result::Found)
            out << sightingOf(l);
    }
    return out;
}

QString refundOnRecord(const std::optional<Settlement> &settlement, const QList<Attempt> &attempts)
{
    if (settlement && !settlement->refundId.isEmpty())
        return settlement->refundId;
    return refundNamedByAttempts(attempts);
}

QString refundNamedByAttempts(const QList<Attempt> &attempts)
{
    QString id;
    for (const Attempt &a : attempts) {
        if (!a.providerObjectId.isEmpty())
            id = a.providerObjectId;
    }
    return id;
}

} // namespace cs
