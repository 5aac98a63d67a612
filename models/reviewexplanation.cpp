#include "models/reviewexplanation.h"
#include "models/actiondetail.h"
#include "models/displayformat.h"
#include "models/evidencerule.h"
#include "models/lookupsummary.h"
#include "models/lookuptablemodel.h"

#include <QStringList>

#include <functional>

namespace cs {

namespace {

using Result = ProviderLookup::Result;

// When the action last went to REQUIRES_REVIEW: what stopped it came before. Null when the
// record does not say (then everything counts).
QDateTime stoppedAt(const ActionDetail &d)
{
    const QString review = toWire(ActionState::RequiresReview);
    for (auto it = d.audit.crbegin(); it != d.audit.crend(); ++it) {
        if (it->after.value(QLatin1String("state")).toString() == review
            && it->before.value(QLatin1String("state")).toString() != review)
            return it->at;
    }
    return d.record.updatedAt;
}

QList<ProviderLookup> lookupsUntil(const QList<ProviderLookup> &lookups, const QDateTime &until)
{
    QList<ProviderLookup> before;
    for (const ProviderLookup &l : lookups) {
        if (!until.isValid() || !l.at.isValid() || l.at <= until)
            before.append(l);
    }
    return before;
}

// The newest of `lookups` (time, then seq), or nullptr.
const ProviderLookup *newest(const QList<ProviderLookup> &lookups, bool decidingOnly = false)
{
    const ProviderLookup *best = nullptr;
    for (const ProviderLookup &l : lookups) {
        if (decidingOnly && l.result == Result::Error)
            continue;
        if (!best || l.at > best->at || (l.at == best->at && l.seq > best->seq))
            best = &l;
    }
    return best;
}

QString httpText(int status)
{
    return status != 0 ? QStringLiteral("HTTP %1").arg(status) : ReviewExplanation::tr("no HTTP answer");
}

QString keyRefused(const ActionDetail &d, const QString &p)
{
    for (const Attempt &a : d.attempts) {
        if (a.outcome == Attempt::Outcome::IdempotencyMismatch)
            return ReviewExplanation::tr("%1 refused the refund: its key had already been used for a different request, so nothing "
                          "more is sent with it.").arg(p);
    }
    return {};
}

QString credentialsRefused(const ActionDetail &d, const QString &p)
{
    if (d.attempts.isEmpty())
        return {};
    const Attempt &a = d.attempts.constLast();
    if (a.outcome != Attempt::Outcome::Rejected || (a.httpStatus != 401 && a.httpStatus != 403))
        return {};
    return ReviewExplanation::tr("%1 refused Countersign's credentials (HTTP %2): the refund was not made. Fix the credentials, "
                  "then decide.").arg(p).arg(a.httpStatus);
}

// Refunds at the provider that contradict the action or prove neither outcome (the evidence rule).
QString refundsInDoubt(const ActionDetail &d, const QString &p)
{
    const EvidenceFinding f = judgeEvidence(d.record, sightingsOf(d.lookups), refundNamedByAttempts(d.attempts));
    if (f.verdict == EvidenceVerdict::Contradictory && f.refundIds.size() > 1)
        return ReviewExplanation::tr("%1 holds %2 refunds for this action, where there should be one.").arg(p).arg(f.refundIds.size());
    if (f.verdict == EvidenceVerdict::Contradictory)
        return ReviewExplanation::tr("%1 holds a refund for this action that does not match it: its amount, currency or charge "
                      "differs.").arg(p);
    if (f.verdict == EvidenceVerdict::Unsettled)
        return ReviewExplanation::tr("%1 holds a refund for this action with status %2, which shows neither outcome.")
            .arg(p, f.status.isEmpty() ? QStringLiteral("\u2014") : f.status);
    return {};
}

QString resubmitted(const ActionDetail &d, const QDateTime &stop)
{
    for (auto it = d.conflicts.crbegin(); it != d.conflicts.crend(); ++it) {
        if (stop.isValid() && it->at.isValid() && it->at > stop)
            continue;
        const QString who = it->submittedBy.isEmpty() ? d.record.requestedBy : it->submittedBy;
        return ReviewExplanation::tr("%1 resubmitted this refund with different details; the refund as first proposed is unchanged.")
            .arg(who);
    }
    return {};
}

QString alreadyRefunded(const ActionDetail &d, const QString &p)
{
    for (const Attempt &a : d.attempts) {
        if (a.errorCode == u"charge_already_refunded")
            return ReviewExplanation::tr("%1 said the charge was already refunded, but none of its refunds carries this action's id: "
                          "it may have been refunded outside Countersign.").arg(p);
    }
    return {};
}

QString lookupsFailed(const QList<ProviderLookup> &before, const QString &provider)
{
    const ProviderLookup *last = newest(before);
    if (!last || last->result != Result::Error)
        return {};
    const QList<LookupEntry> entries = orderLookups(before);
    const LookupEntry *failures = failureEntryOf(entries, *last);
    return failures ? ReviewExplanation::failedLookups(*failures, provider) : QString();
}

QString noRefundShown(const ActionDetail &d, const QList<ProviderLookup> &before, const QString &p)
{
    const ProviderLookup *last = newest(before);
    if (!last || last->result != Result::NotFound)
        return {};
    if (d.keyWindowEndsAt.isValid() && d.keyWindowEndsAt <= last->at)
        return ReviewExplanation::tr("%1 shows no refund for this action, and the time for a safe retry ended at %2: sending again "
                      "could refund twice.").arg(p, display::time(d.keyWindowEndsAt));
    return ReviewExplanation::tr("%1 shows no refund for this action, and retries with the same key stayed inconclusive.").arg(p);
}

QString notSent(const ActionDetail &d)
{
    if (!d.attempts.isEmpty())
        return {};
    const ActionRecord &r = d.record;
    if (d.charge && !d.charge->fits)
        return ReviewExplanation::tr("%1 is more than is left to refund on this charge, so nothing was sent.")
            .arg(display::money(r.amount, r.currency));
    for (const Approval &a : d.approvals) {
        if (a.version == r.approvalVersion && a.decision == Approval::Decision::Approved
            && !a.approvedFingerprint.isEmpty() && a.approvedFingerprint != r.requestFingerprint)
            return ReviewExplanation::tr("The refund on record no longer matches what was approved, so nothing was sent.");
    }
    return ReviewExplanation::tr("Countersign stopped this refund before sending it; nothing was sent.");
}

// A deciding look-up made after the stop: the news a reviewer acts on.
QString sinceThen(const ActionDetail &d, const QDateTime &stop)
{
    if (!stop.isValid())
        return {};
    QList<ProviderLookup> after;
    for (const ProviderLookup &l : d.lookups) {
        if (l.at.isValid() && l.at > stop)
            after.append(l);
    }
    const ProviderLookup *last = newest(after, true);
    if (!last)
        return {};
    if (last->result == Result::NotFound)
        return ReviewExplanation::tr("Since then, look-up #%1 found no refund for this action.").arg(last->seq);
    return ReviewExplanation::tr("Since then, look-up #%1 found a refund of %2 (%3).")
        .arg(last->seq)
        .arg(display::money(last->amount, last->currency), last->status.isEmpty() ? QStringLiteral("\u2014") : last->status);
}

QString rawDetails(const ActionDetail &d, const QList<ProviderLookup> &before)
{
    QStringList parts;
    if (!d.record.reviewReason.trimmed().isEmpty())
        parts << ReviewExplanation::tr("The server's reason: %1").arg(d.record.reviewReason.trimmed());
    const ProviderLookup *answered = nullptr;
    for (const ProviderLookup &l : before) {
        if (!l.excerpt.isEmpty() && (!answered || l.at > answered->at || (l.at == answered->at && l.seq > answered->seq)))
            answered = &l;
    }
    if (answered)
        parts << ReviewExplanation::tr("The provider's answer to look-up #%1 (%2): %3")
                     .arg(answered->seq)
                     .arg(httpText(answered->httpStatus), answered->excerpt);
    for (auto it = d.attempts.crbegin(); it != d.attempts.crend(); ++it) {
        if (it->errorExcerpt.isEmpty())
            continue;
        parts << ReviewExplanation::tr("The provider's answer to attempt %1 (%2): %3")
                     .arg(it->seq)
                     .arg(httpText(it->httpStatus), it->errorExcerpt);
        break;
    }
    return parts.join(QStringLiteral("\n\n"));
}

} // namespace

QString ReviewExplanation::providerName(const QString &provider)
{
    return provider.trimmed().isEmpty() ? tr("The provider") : provider.trimmed();
}

Explanation ReviewExplanation::forAction(const ActionDetail &detail)
{
    const QString p = providerName(detail.record.provider);
    const QDateTime stop = stoppedAt(detail);
    const QList<ProviderLookup> before = lookupsUntil(detail.lookups, stop);
    // In this order; the first that the record shows is the reason.
    const std::function<QString()> reasons[] = {
        [&] { return keyRefused(detail, p); },
        [&] { return credentialsRefused(detail, p); },
        [&] { return refundsInDoubt(detail, p); },
        [&] { return resubmitted(detail, stop); },
        [&] { return alreadyRefunded(detail, p); },
        [&] { return lookupsFailed(before, detail.record.provider); },
        [&] { return noRefundShown(detail, before, p); },
        [&] { return notSent(detail); },
    };
    Explanation e;
    for (const auto &reason : reasons) {
        e.sentence = reason();
        if (!e.sentence.isEmpty())
            break;
    }
    if (e.sentence.isEmpty())
        e.sentence = tr("Countersign stopped this refund for a person to decide.");
    if (const QString news = sinceThen(detail, stop); !news.isEmpty())
        e.sentence += QLatin1Char(' ') + news;
    e.details = rawDetails(detail, before);
    return e;
}

Explanation ReviewExplanation::forLookup(const ProviderLookup &lookup, const QString &provider)
{
    const QString p = providerName(provider);
    const int status = lookup.httpStatus;
    Explanation e;
    switch (lookup.result) {
    case Result::Found: {
        const QString money = display::money(lookup.amount, lookup.currency);
        e.sentence = lookup.status.isEmpty() ? tr("Found: %1 holds a refund of %2.").arg(p, money)
                                             : tr("Found: %1 holds a refund of %2, %3.").arg(p, money, lookup.status);
        break;
    }
    case Result::NotFound:
        e.sentence = tr("Not found: %1 holds no refund for this action.").arg(p);
        break;
    case Result::Error:
        if (status >= 500)
            e.sentence = tr("%1 did not answer (HTTP %2).").arg(p).arg(status);
        else if (status == 0)
            e.sentence = tr("%1 did not answer.").arg(p);
        else
            e.sentence = tr("%1 answered with an error (HTTP %2).").arg(p).arg(status);
        break;
    }
    e.details = LookupTableModel::describe(lookup);
    if (!lookup.excerpt.isEmpty())
        e.details += QStringLiteral("\n\n") + tr("The provider's answer (%1): %2").arg(httpText(status), lookup.excerpt);
    return e;
}

QString ReviewExplanation::failedLookups(const LookupEntry &failures, const QString &provider)
{
    const QString p = providerName(provider);
    const int status = failures.httpStatus;
    const QString from = display::time(failures.first);
    const QString to = display::timeAfter(failures.last, failures.first);
    if (status >= 500) {
        return failures.isFold()
            ? tr("%1 was unavailable (HTTP %2) \u2014 %3 look-ups failed between %4 and %5.")
                  .arg(p).arg(status).arg(failures.count).arg(from, to)
            : tr("%1 was unavailable (HTTP %2) \u2014 a look-up failed at %3.").arg(p).arg(status).arg(from);
    }
    if (status == 0) {
        return failures.isFold()
            ? tr("%1 did not answer \u2014 %2 look-ups failed between %3 and %4.").arg(p).arg(failures.count).arg(from, to)
            : tr("%1 did not answer \u2014 a look-up failed at %2.").arg(p, from);
    }
    return failures.isFold()
        ? tr("%1 answered with an error (HTTP %2) \u2014 %3 look-ups failed between %4 and %5.")
              .arg(p).arg(status).arg(failures.count).arg(from, to)
        : tr("%1 answered with an error (HTTP %2) \u2014 a look-up failed at %3.").arg(p).arg(status).arg(from);
}

} // namespace cs
