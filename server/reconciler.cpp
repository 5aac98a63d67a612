#include "server/reconciler.h"

#include "server/ledger/settlementrows.h"

#include "server/ledger/ledger.h"
#include "server/metrics/metrics.h"

#include "models/evidencerule.h"
#include "models/refundstatus.h"
#include "server/attemptpolicy.h"
#include "server/executionlog.h"

namespace cs {

namespace {

using ms = std::chrono::milliseconds;
using Code = LedgerError::Code;

// Reconciliation rounds of this process by their result (busy: leased elsewhere or resolved
// meanwhile; failed: a ledger error). Every result is declared at zero.
metrics::Counter reconcilerRounds(QStringLiteral("countersign_reconciler_rounds_total"),
                                  QStringLiteral("Reconciliation rounds of this process, by result"),
                                  {QStringLiteral("result")});
[[maybe_unused]] const bool reconcilerRoundsDeclared = [] {
    using Step = Reconciler::Step;
    for (const Step step : {Step::Busy, Step::Completed, Step::Rejected, Step::Review, Step::StillUnknown, Step::Settlement,
                            Step::Failed})
        reconcilerRounds.declare({toString(step)});
    return true;
}();

const QString &reconcilerName()
{
    static const QString name = QStringLiteral("reconciler");
    return name;
}

bool anyAmbiguous(const QList<Attempt> &attempts)
{
    for (const Attempt &a : attempts) {
        if (a.errorCode == u"charge_already_refunded")
            return true;
    }
    return false;
}

Reconciler::Step stepFor(ActionState state)
{
    switch (state) {
    case ActionState::Completed: return Reconciler::Step::Completed;
    case ActionState::Rejected: return Reconciler::Step::Rejected;
    case ActionState::RequiresReview: return Reconciler::Step::Review;
    default: return Reconciler::Step::StillUnknown;
    }
}

} // namespace

QString toString(Reconciler::Step step)
{
    switch (step) {
    case Reconciler::Step::NothingDue: return QStringLiteral("nothing_due");
    case Reconciler::Step::Busy: return QStringLiteral("busy");
    case Reconciler::Step::Completed: return QStringLiteral("completed");
    case Reconciler::Step::Rejected: return QStringLiteral("rejected");
    case Reconciler::Step::Review: return QStringLiteral("review");
    case Reconciler::Step::StillUnknown: return QStringLiteral("still_unknown");
    case Reconciler::Step::Settlement: return QStringLiteral("settlement");
    case Reconciler::Step::Failed: return QStringLiteral("failed");
    }
    return QString();
}

Reconciler::Stores Reconciler::storesOf(Ledger &ledger)
{
    return Stores{ledger.execution(), ledger.evidence(), ledger.reader()};
}

Reconciler::Reconciler(Stores stores, ProviderClient &provider, ExecutionConfig config)
    : m_execution(stores.execution), m_evidence(stores.evidence), m_reader(stores.reader), m_provider(provider), m_config(std::move(config)),
      m_backoff(m_config.backoffBase, m_config.backoffMax)
{
}

void Reconciler::notify(const ActionRecord &record) const
{
    if (m_observer)
        m_observer(record);
}

void Reconciler::release(const QString &actionId, const QString &workerId)
{
    const auto released = m_execution.releaseLease(actionId, workerId);
    if (!released.ok() && released.code() != Code::LeaseLost)
        qCDebug(lcReconciler) << actionId << "lease release refused:" << released.error().toString();
}

Reconciler::StepResult Reconciler::reconcileNextDue(const QString &workerId)
{
    const auto due = m_evidence.dueForReconciliation(8);
    if (!due.ok()) {
        qCWarning(lcReconciler) << "cannot read due actions:" << due.error().toString();
        return {Step::Failed, {}, due.error().message()};
    }
    for (const ActionRecord &record : due.value()) {
        StepResult result = reconcile(record.id, workerId);
        if (result.step != Step::Busy)
            return result;
    }
    return followNextSettlement(workerId);
}

Reconciler::StepResult Reconciler::followNextSettlement(const QString &workerId)
{
    const auto taken = m_evidence.takeDueSettlementChecks(m_config.leaseDuration, 1);
    if (!taken.ok()) {
        qCWarning(lcReconciler) << "cannot read due settlement checks:" << taken.error().toString();
        return {Step::Failed, {}, taken.error().message()};
    }
    if (taken->isEmpty())
        return {};
    const EvidenceStore::SettlementCheck check = taken->constFirst();
    const QString askedBy = QString(settlements::kFollowerName);
    ProviderLookup lookup = check.refundId.isEmpty() ? m_provider.findRefundForAction(check.record, askedBy)
                                                     : m_provider.retrieveRefund(check.record, check.refundId, askedBy);
    lookup.askedBy = askedBy;
    // Every refund carrying the action's id, not only the one followed: a second one is a
    // duplicate at the provider (issue 33), whatever the first one's status.
    const RefundSearch all = m_provider.searchRefundsForAction(check.record, askedBy);
    std::optional<EvidenceFinding> contradiction;
    if (all.lookup.result == ProviderLookup::Result::Found) {
        const EvidenceFinding finding = judgeEvidence(check.record, all.sightings, check.refundId);
        if (contradictsFinalState(check.record.state, finding))
            contradiction = finding;
    }
    const int checks = check.checks + 1;
    const auto recorded = m_evidence.recordLookup(
        lookup, std::nullopt,
        QStringLiteral("scheduled settlement check %1 of refund %2 (%3), by %4")
            .arg(checks)
            .arg(check.refundId, check.status, workerId));
    // min(max, base * 2^(checks-1)), without overflow for any number of checks.
    std::chrono::milliseconds wait = m_config.settlementCheckBase;
    for (int i = 1; i < checks && wait < m_config.settlementCheckMax; ++i)
        wait *= 2;
    wait = std::min(wait, m_config.settlementCheckMax);
    const LedgerError scheduled =
        m_evidence.scheduleSettlementCheck(check.record.id, checks, m_execution.currentTime().addMSecs(wait.count()));
    if (!scheduled.ok())
        qCWarning(lcReconciler) << check.record.id << "settlement check not rescheduled (due again after the lease):"
                                << scheduled.toString();
    if (!recorded.ok()) {
        qCWarning(lcReconciler) << check.record.id << "settlement check not recorded:" << recorded.error().toString();
        reconcilerRounds.inc({toString(Step::Failed)});
        return {Step::Failed, check.record.id, recorded.error().message()};
    }
    reconcilerRounds.inc({toString(Step::Settlement)});
    if (recorded->record.stateVersion != check.record.stateVersion)
        notify(recorded->record);
    if (contradiction) {
        if (const LedgerError also = recordAlsoListed(all); !also.ok())
            qCWarning(lcReconciler) << check.record.id << "listed refunds not recorded:" << also.toString();
        const auto listed = m_evidence.recordLookup(all.lookup, std::nullopt,
                                                    QStringLiteral("scheduled settlement check %1: %2")
                                                        .arg(checks)
                                                        .arg(contradiction->reason),
                                                    contradiction);
        if (listed.ok())
            notify(listed->record);
        else
            qCWarning(lcReconciler) << check.record.id << "discrepancy not recorded (the next check tries again):"
                                    << listed.error().toString();
    }
    qCInfo(lcReconciler) << check.record.id << "settlement check" << checks << "of" << check.refundId << "->"
                         << toWire(lookup.result) << lookup.status;
    return {Step::Settlement, check.record.id,
            QStringLiteral("refund %1: %2 %3").arg(check.refundId, toWire(lookup.result), lookup.status)};
}

Reconciler::StepResult Reconciler::reconcile(const QString &actionId, const QString &workerId)
{
    const auto schedule = m_evidence.reconcileSchedule(actionId);
    if (!schedule.ok())
        return {Step::Failed, actionId, schedule.error().message()};
    const auto leased = m_execution.acquireLease(actionId, workerId, m_config.leaseDuration);
    if (!leased.ok()) {
        if (leased.code() == Code::Conflict || leased.code() == Code::IllegalTransition || leased.code() == Code::NotFound)
            return {Step::Busy, actionId, leased.error().message()};
        qCWarning(lcReconciler) << actionId << "cannot be leased:" << leased.error().toString();
        return {Step::Failed, actionId, leased.error().message()};
    }
    // Count the round before doing anything, so a process that dies mid-round cannot retry forever.
    const int tries = schedule->tries + 1;
    const QDateTime next = m_execution.currentTime().addMSecs(m_backoff.delay(tries).count());
    const LedgerError scheduled = m_evidence.scheduleReconciliation(
        actionId, tries, next, QStringLiteral("round %1 started by %2").arg(tries).arg(workerId));
    if (!scheduled.ok()) {
        release(actionId, workerId);
        return {Step::Failed, actionId, scheduled.message()};
    }
    StepResult result = round(leased.value(), workerId, tries);
    result.actionId = actionId;
    if (result.step == Step::StillUnknown || result.step == Step::Failed || result.step == Step::Busy)
        release(actionId, workerId);
    reconcilerRounds.inc({toString(result.step)});
    qCInfo(lcReconciler) << actionId << "round" << tries << "->" << toString(result.step) << result.reason;
    return result;
}

Reconciler::StepResult Reconciler::round(const ActionRecord &record, const QString &workerId, int tries)
{
    const auto attempts = m_reader.attempts(record.id);
    if (!attempts.ok())
        return {Step::Failed, record.id, attempts.error().message()};
    if (attempts->isEmpty()) {
        const auto stopped = m_execution.transition(record.id, Trigger::StopForReview, reconcilerName(),
                                                 QStringLiteral("CONFIRMATION_UNKNOWN without any attempt on record"));
        if (stopped.ok())
            notify(stopped.value());
        return {stopped.ok() ? Step::Review : Step::Failed, record.id, QString()};
    }
    const KeyWindow window(attempts->constFirst().startedAt, m_config.keyWindow, m_config.keyWindowMargin);
    const QString known = refundNamedByAttempts(attempts.value());

    // 0. Evidence in hand first (issue 33): what the ledger already holds — a webhook stored while
    //    an attempt was open, an earlier look-up — is weighed before the provider is asked again.
    const auto inHand = m_reader.lookups(record.id);
    if (!inHand.ok())
        return {Step::Failed, record.id, inHand.error().message()};
    const QList<RefundSighting> held = sightingsOf(inHand.value());
    if (const EvidenceFinding finding = judgeEvidence(record, held, known); finding.refundShown())
        return resolveFromStored(record, inHand.value(), finding);

    // 1. Evidence: every refund of the target carrying this action's id, with what is in hand.
    const RefundSearch search = m_provider.searchRefundsForAction(record, reconcilerName());
    if (const LedgerError also = recordAlsoListed(search); !also.ok())
        return {Step::Failed, record.id, also.message()};
    if (search.lookup.result == ProviderLookup::Result::Found)
        return applyEvidence(record, search.lookup, judgeEvidence(record, held + search.sightings, known),
                             QStringLiteral("lookup by metadata"));

    // An attempt that named a refund id: ask for it directly too (a second method).
    ProviderLookup latest = search.lookup;
    if (!known.isEmpty()) {
        const auto listed = m_evidence.recordLookup(search.lookup, std::nullopt,
                                                  QStringLiteral("not listed; retrieving %1 by id").arg(known));
        if (!listed.ok())
            return {Step::Failed, record.id, listed.error().message()};
        const ProviderLookup retrieved = m_provider.retrieveRefund(record, known, reconcilerName());
        if (retrieved.result == ProviderLookup::Result::Found)
            return applyEvidence(record, retrieved, judgeEvidence(record, held + QList{sightingOf(retrieved)}, known),
                                 QStringLiteral("retrieval by id"));
        latest = retrieved;
    }

    const QDateTime now = m_execution.currentTime();
    const bool lookupFailed = latest.result == ProviderLookup::Result::Error;
    const KeyWindow::Judgement judged = window.judge(now, search.providerClock);

    // 2. Outside the key window, on our clock or the provider's: never a send. Only evidence, or a human.
    if (judged.passed()) {
        if (lookupFailed && tries < m_config.maxReconcileTries) {
            return recordAndReschedule(record, latest, workerId, tries, ms(0),
                                       QStringLiteral("lookup failed after the key window passed (%1); looking again")
                                           .arg(judged.why));
        }
        if (!lookupFailed) {
            const auto listed = m_evidence.recordLookup(latest, std::nullopt,
                                                      QStringLiteral("key window passed; reading refund events too"));
            if (!listed.ok())
                return {Step::Failed, record.id, listed.error().message()};
            const ProviderLookup events = m_provider.findRefundInEvents(record, reconcilerName());
            if (events.result == ProviderLookup::Result::Found)
                return applyEvidence(record, events, judgeEvidence(record, held + QList{sightingOf(events)}, known),
                                     QStringLiteral("refund events"));
            return stopForReview(events, QStringLiteral("%1, and the provider shows no refund for this action (%2): a"
                                                        " same-key retry could execute twice, so nothing is sent; a"
                                                        " human must decide")
                                             .arg(judged.why,
                                                  toWire(events.result) + QLatin1Char(' ') + events.excerpt.left(160)));
        }
        return stopForReview(latest, QStringLiteral("%1, and lookups kept failing after %2 rounds: a human must decide")
                                         .arg(judged.why)
                                         .arg(tries));
    }

    // 3. An ambiguous answer (charge_already_refunded): a same-key retry would only repeat it.
    if (anyAmbiguous(attempts.value())) {
        if (tries >= m_config.ambiguousLookups) {
            return stopForReview(latest,
                                 QStringLiteral("the provider answered charge_already_refunded but after %1 lookups no"
                                                " refund carries this action's id (an earlier attempt under a pruned"
                                                " key, or a refund made outside Countersign): a human must decide")
                                     .arg(tries));
        }
        return recordAndReschedule(record, latest, workerId, tries, ms(0),
                                   QStringLiteral("ambiguous charge_already_refunded; looking again (lookup lag)"));
    }

    // 4. Bounded: the last round only looks.
    if (tries >= m_config.maxReconcileTries) {
        // Say what the evidence was: a failed lookup (e.g. an outage) is not "no refund".
        const QString evidence = lookupFailed
            ? QStringLiteral("the provider lookups failed (%1), so it is unknown whether a refund exists for this action")
                  .arg(toWire(latest.result) + QLatin1Char(' ') + latest.excerpt.left(160))
            : QStringLiteral("the provider shows no refund for this action");
        return stopForReview(latest,
                             QStringLiteral("gave up after %1 reconciliation rounds: %2 and same-key retries stayed"
                                            " inconclusive (%3)")
                                 .arg(tries)
                                 .arg(evidence, attempts->constLast().errorExcerpt.left(160)));
    }

    // 5. No answer told the provider's clock: nothing is resent on the strength of ours alone.
    if (!judged.open) {
        return recordAndReschedule(record, latest, workerId, tries, ms(0),
                                   QStringLiteral("%1; nothing resent this round, looking again").arg(judged.why));
    }

    // 6. Inside the window on both clocks: the same key and the same body again. A failed look-up
    //    allows it exactly as "not found" does: the provider replays what it committed under the key.
    const auto noted = m_evidence.recordLookup(latest, std::nullopt,
                                             QStringLiteral("%1; same-key retry %2")
                                                 .arg(lookupFailed ? QStringLiteral("lookup failed")
                                                                   : QStringLiteral("not found"),
                                                      judged.why));
    if (!noted.ok())
        return {Step::Failed, record.id, noted.error().message()};
    return sameKeyRetry(record, workerId, tries, window, search.providerClock);
}

Reconciler::StepResult Reconciler::sameKeyRetry(const ActionRecord &record, const QString &workerId, int tries,
                                                const KeyWindow &window, const ProviderClock &providerClock)
{
    // Re-checked right before the attempt row: the lookups may have taken a while, and a webhook
    // may have arrived meanwhile.
    if (const KeyWindow::Judgement judged = window.judge(m_execution.currentTime(), providerClock); !judged.open)
        return {Step::StillUnknown, record.id, QStringLiteral("during the lookup: ") + judged.why};
    const auto attempts = m_reader.attempts(record.id);
    const auto inHand = m_reader.lookups(record.id);
    if (!attempts.ok() || !inHand.ok())
        return {Step::Failed, record.id, QStringLiteral("cannot read the evidence in hand")};
    const QList<RefundSighting> held = sightingsOf(inHand.value());
    if (const EvidenceFinding finding = judgeEvidence(record, held, refundNamedByAttempts(attempts.value()));
        finding.refundShown())
        return resolveFromStored(record, inHand.value(), finding);
    const auto attempt = m_execution.beginRetryAttempt(record.id, workerId);
    if (!attempt.ok()) {
        // Resolved meanwhile (a webhook, a supervisor's lookup) or the lease was lost: nothing sent.
        const Step step = attempt.code() == Code::IllegalTransition || attempt.code() == Code::LeaseLost
            ? Step::Busy
            : Step::Failed;
        return {step, record.id, attempt.error().message()};
    }
    const ProviderRequest request = record.providerRequest();
    const RefundOutcome outcome = m_provider.createRefund(request, attempt->idempotencyKey);
    const AttemptPolicy::Decision decision =
        AttemptPolicy::decide(record, outcome, ActionState::ConfirmationUnknown, held);
    const QString reason = QStringLiteral("same-key retry, attempt %1: %2").arg(attempt->seq).arg(decision.reason);
    const auto finished = m_execution.finishAttempt(record.id, attempt->seq, AttemptPolicy::attemptResult(outcome),
                                                 decision.trigger, reason, workerId);
    if (!finished.ok()) {
        qCWarning(lcReconciler) << record.id << "attempt" << attempt->seq << "cannot be recorded:"
                                << finished.error().toString();
        return {Step::Failed, record.id, finished.error().message()};
    }
    if (finished->record.state != ActionState::ConfirmationUnknown) {
        notify(finished->record);
        return {stepFor(finished->record.state), record.id, reason};
    }
    const ms retryAfter(outcome.retryAfterMs);
    const QDateTime next = m_execution.currentTime().addMSecs(m_backoff.delay(tries, retryAfter).count());
    const LedgerError scheduled = m_evidence.scheduleReconciliation(record.id, tries, next, reason);
    if (!scheduled.ok())
        return {Step::Failed, record.id, scheduled.message()};
    return {Step::StillUnknown, record.id, reason};
}

LedgerError Reconciler::recordAlsoListed(const RefundSearch &search)
{
    if (search.lookup.result != ProviderLookup::Result::Found)
        return {};
    for (const RefundSighting &s : search.sightings) {
        if (s.refundId == search.lookup.providerObjectId)
            continue;
        ProviderLookup also = search.lookup; // the same question, asked by the same one
        also.providerObjectId = s.refundId;
        also.status = s.status;
        also.amount = s.amount;
        also.currency = s.currency;
        also.failureReason.clear();
        also.excerpt = QStringLiteral("also listed for this action: refund %1, %2, %3 %4")
                           .arg(s.refundId, s.status)
                           .arg(s.amount)
                           .arg(s.currency);
        const auto recorded = m_evidence.recordLookup(also, std::nullopt,
                                                      QStringLiteral("another refund listed for this action"));
        if (!recorded.ok())
            return recorded.error();
    }
    return {};
}

std::optional<Trigger> Reconciler::triggerFor(const EvidenceFinding &finding)
{
    switch (finding.verdict) {
    case EvidenceVerdict::Committed: return Trigger::ProviderSucceeded;
    case EvidenceVerdict::NotCommitted: return Trigger::ProviderRejected;
    case EvidenceVerdict::Unsettled:
    case EvidenceVerdict::Contradictory: return Trigger::StopForReview;
    case EvidenceVerdict::Inconclusive: break;
    }
    return std::nullopt;
}

Reconciler::StepResult Reconciler::resolveFromStored(const ActionRecord &record, const QList<ProviderLookup> &stored,
                                                     const EvidenceFinding &finding)
{
    // The look-up the verdict rests on: the newest that showed its refund with its status, else the
    // newest that showed the refund at all.
    int seq = 0;
    for (const ProviderLookup &l : stored) {
        if (l.result != ProviderLookup::Result::Found || l.providerObjectId != finding.refundId)
            continue;
        if (l.status == finding.status || seq == 0)
            seq = l.seq;
    }
    if (seq == 0 && !stored.isEmpty())
        seq = stored.constLast().seq;
    const Trigger trigger = *triggerFor(finding);
    const QString reason = QStringLiteral("evidence in hand (lookup %1): %2").arg(seq).arg(finding.reason);
    const auto applied = m_evidence.applyStoredLookup(record.id, seq, trigger, reconcilerName(), reason);
    if (!applied.ok()) {
        qCWarning(lcReconciler) << record.id << "evidence in hand cannot be applied:" << applied.error().toString();
        // Never a resend on the way out: the next round weighs it again.
        return {applied.code() == Code::Conflict || applied.code() == Code::IllegalTransition ? Step::Busy : Step::Failed,
                record.id, applied.error().message()};
    }
    notify(applied.value());
    return {stepFor(applied->state), record.id, reason};
}

Reconciler::StepResult Reconciler::applyEvidence(const ActionRecord &record, const ProviderLookup &lookup,
                                                 const EvidenceFinding &finding, const QString &context)
{
    const std::optional<Trigger> trigger = triggerFor(finding);
    const QString reason = QStringLiteral("%1: %2").arg(context, finding.reason);
    if (!carriesVerdict(lookup, finding)) { // it rests on an older report in hand: applied from that one
        const auto recorded = m_evidence.recordLookup(lookup, std::nullopt, reason);
        const auto stored = recorded.ok() ? m_reader.lookups(record.id) : LedgerResult<QList<ProviderLookup>>(recorded.error());
        if (!stored.ok())
            return {Step::Failed, record.id, stored.error().message()};
        return resolveFromStored(record, stored.value(), finding);
    }
    return fromRecorded(lookup.actionId, m_evidence.recordLookup(lookup, trigger, reason), reason);
}

Reconciler::StepResult Reconciler::stopForReview(const ProviderLookup &lookup, const QString &reason)
{
    return fromRecorded(lookup.actionId, m_evidence.recordLookup(lookup, Trigger::StopForReview, reason), reason);
}

Reconciler::StepResult Reconciler::fromRecorded(const QString &actionId,
                                                const LedgerResult<EvidenceStore::RecordedLookup> &recorded,
                                                const QString &reason)
{
    if (!recorded.ok()) {
        qCWarning(lcReconciler) << actionId << "lookup cannot be recorded:" << recorded.error().toString();
        return {Step::Failed, {}, recorded.error().message()};
    }
    notify(recorded->record);
    return {stepFor(recorded->record.state), recorded->record.id, reason};
}

Reconciler::StepResult Reconciler::recordAndReschedule(const ActionRecord &record, const ProviderLookup &lookup,
                                                       const QString &workerId, int tries, ms retryAfter,
                                                       const QString &note)
{
    Q_UNUSED(workerId)
    const auto recorded = m_evidence.recordLookup(lookup, std::nullopt, note);
    if (!recorded.ok())
        return {Step::Failed, record.id, recorded.error().message()};
    const QDateTime next = m_execution.currentTime().addMSecs(m_backoff.delay(tries, retryAfter).count());
    const LedgerError scheduled = m_evidence.scheduleReconciliation(record.id, tries, next, note);
    if (!scheduled.ok())
        return {Step::Failed, record.id, scheduled.message()};
    return {Step::StillUnknown, record.id, note};
}

LedgerResult<EvidenceStore::RecordedLookup> Reconciler::lookUpNow(const QString &actionId, const QString &askedBy)
{
    const auto action = m_reader.action(actionId);
    if (!action.ok())
        return action.error();
    const ActionRecord &record = action.value();
    const auto known = refundOnRecord(m_reader, record);
    if (!known.ok())
        return known.error();
    // An open action is judged with everything in hand; a final one against the refund on record.
    const bool open = record.state == ActionState::ConfirmationUnknown;
    const auto inHand = open ? m_reader.lookups(actionId) : LedgerResult<QList<ProviderLookup>>(QList<ProviderLookup>());
    if (!inHand.ok())
        return inHand.error();

    RefundSearch search = m_provider.searchRefundsForAction(record, askedBy);
    if (search.lookup.result != ProviderLookup::Result::Found && !known->isEmpty()) {
        // Not listed (metadata edited, list lag): the refund on record, asked for by its id.
        const ProviderLookup retrieved = m_provider.retrieveRefund(record, *known, askedBy);
        if (retrieved.result == ProviderLookup::Result::Found) {
            search.lookup = retrieved;
            search.sightings = {sightingOf(retrieved)};
        }
    }
    if (const LedgerError also = recordAlsoListed(search); !also.ok())
        return also;
    const ProviderLookup &lookup = search.lookup;
    std::optional<Trigger> trigger;
    QString reason = QStringLiteral("look up now by %1").arg(askedBy);
    std::optional<EvidenceFinding> contradiction;
    if (lookup.result == ProviderLookup::Result::Found) {
        const EvidenceFinding finding = judgeEvidence(record, sightingsOf(inHand.value()) + search.sightings, *known);
        reason += QStringLiteral(": ") + finding.reason;
        if (open) {
            // Resting on an older report in hand, it is the reconciler's to apply from that one.
            if (carriesVerdict(lookup, finding))
                trigger = triggerFor(finding);
        } else if (contradictsFinalState(record.state, finding)) {
            contradiction = finding;
        }
    }
    auto recorded = m_evidence.recordLookup(lookup, trigger, reason, contradiction);
    if (!recorded.ok() && (trigger || contradiction)
        && (recorded.code() == LedgerError::Code::Conflict || recorded.code() == LedgerError::Code::IllegalTransition)) {
        // An attempt is in flight, or the action moved meanwhile: the evidence is still stored.
        recorded = m_evidence.recordLookup(lookup, std::nullopt, reason + QStringLiteral(" (not applied: ")
                                                                   + recorded.error().message() + QLatin1Char(')'));
    }
    if (recorded.ok() && (trigger || contradiction))
        notify(recorded->record);
    return recorded;
}

LedgerResult<QString> Reconciler::refundOnRecord(const ActionReader &reader, const ActionRecord &record)
{
    const auto settlement = record.state == ActionState::Completed ? reader.settlement(record.id)
                                                                   : LedgerResult<std::optional<Settlement>>(std::nullopt);
    if (!settlement.ok())
        return settlement.error();
    const auto attempts = reader.attempts(record.id);
    if (!attempts.ok())
        return attempts.error();
    return cs::refundOnRecord(settlement.value(), attempts.value());
}

} // namespace cs
