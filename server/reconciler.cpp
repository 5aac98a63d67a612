#include "server/reconciler.h"

#include "server/ledger/settlementrows.h"

#include "server/ledger/ledger.h"
#include "server/metrics/metrics.h"

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

QString Reconciler::windowText(const QDateTime &firstStart, const ExecutionConfig &config)
{
    const QDateTime end = firstStart.addMSecs(config.keyWindow.count() - config.keyWindowMargin.count());
    return QStringLiteral("first attempt at %1, key window %2 s minus margin %3 s ends at %4")
        .arg(toWireTime(firstStart))
        .arg(double(config.keyWindow.count()) / 1000.0)
        .arg(double(config.keyWindowMargin.count()) / 1000.0)
        .arg(toWireTime(end));
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
    const QDateTime firstStart = attempts->constFirst().startedAt;
    const QDateTime windowEnd = firstStart.addMSecs(m_config.keyWindow.count() - m_config.keyWindowMargin.count());

    // 1. Evidence: every refund of the target carrying this action's id.
    const RefundSearch search = m_provider.searchRefundsForAction(record, reconcilerName());
    if (search.lookup.result == ProviderLookup::Result::Found)
        return applyEvidence(record, search.lookup, search.matchingRefundIds, QStringLiteral("lookup by metadata"));

    // An attempt that named a refund id: ask for it directly too (a second method).
    ProviderLookup latest = search.lookup;
    QString knownId;
    for (const Attempt &a : attempts.value()) {
        if (!a.providerObjectId.isEmpty())
            knownId = a.providerObjectId;
    }
    if (!knownId.isEmpty()) {
        const auto listed = m_evidence.recordLookup(search.lookup, std::nullopt,
                                                  QStringLiteral("not listed; retrieving %1 by id").arg(knownId));
        if (!listed.ok())
            return {Step::Failed, record.id, listed.error().message()};
        const ProviderLookup retrieved = m_provider.retrieveRefund(record, knownId, reconcilerName());
        if (retrieved.result == ProviderLookup::Result::Found)
            return applyEvidence(record, retrieved, {retrieved.providerObjectId}, QStringLiteral("retrieval by id"));
        latest = retrieved;
    }

    const QDateTime now = m_execution.currentTime();
    const bool lookupFailed = latest.result == ProviderLookup::Result::Error;

    // 2. Outside the key window: never a send. Only evidence, or a human.
    if (now >= windowEnd) {
        if (lookupFailed && tries < m_config.maxReconcileTries) {
            return recordAndReschedule(record, latest, workerId, tries, ms(0),
                                       QStringLiteral("lookup failed after the key window passed; looking again"));
        }
        if (!lookupFailed) {
            const auto listed = m_evidence.recordLookup(latest, std::nullopt,
                                                      QStringLiteral("key window passed; reading refund events too"));
            if (!listed.ok())
                return {Step::Failed, record.id, listed.error().message()};
            const ProviderLookup events = m_provider.findRefundInEvents(record, reconcilerName());
            if (events.result == ProviderLookup::Result::Found)
                return applyEvidence(record, events, {events.providerObjectId}, QStringLiteral("refund events"));
            return stopForReview(events, QStringLiteral("the key window passed (%1) and the provider shows no refund for"
                                                        " this action (%2): a same-key retry could execute twice, so"
                                                        " nothing is sent; a human must decide")
                                             .arg(windowText(firstStart, m_config),
                                                  toWire(events.result) + QLatin1Char(' ') + events.excerpt.left(160)));
        }
        return stopForReview(latest, QStringLiteral("the key window passed (%1) and lookups kept failing after"
                                                           " %2 rounds: a human must decide")
                                                .arg(windowText(firstStart, m_config))
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

    // 5. Inside the window: the same key and the same body again.
    const auto noted = m_evidence.recordLookup(latest, std::nullopt,
                                             QStringLiteral("%1; same-key retry inside the key window (%2)")
                                                 .arg(lookupFailed ? QStringLiteral("lookup failed")
                                                                   : QStringLiteral("not found"),
                                                      windowText(firstStart, m_config)));
    if (!noted.ok())
        return {Step::Failed, record.id, noted.error().message()};
    return sameKeyRetry(record, workerId, tries, windowEnd);
}

Reconciler::StepResult Reconciler::sameKeyRetry(const ActionRecord &record, const QString &workerId, int tries,
                                                const QDateTime &windowEnd)
{
    // Re-checked right before the attempt row: the lookups may have taken a while.
    if (m_execution.currentTime() >= windowEnd)
        return {Step::StillUnknown, record.id, QStringLiteral("the key window ended during the lookup")};
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
    const AttemptPolicy::Decision decision = AttemptPolicy::decide(record, outcome, ActionState::ConfirmationUnknown);
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

Reconciler::StepResult Reconciler::applyEvidence(const ActionRecord &record, const ProviderLookup &lookup,
                                                 const QStringList &matches, const QString &context)
{
    if (matches.size() > 1) {
        return stopForReview(lookup, QStringLiteral("contradictory evidence: %1 refunds at the provider carry this"
                                                    " action's id (%2)")
                                         .arg(matches.size())
                                         .arg(matches.join(QStringLiteral(", "))));
    }
    if (lookup.amount != record.amount || (!lookup.currency.isEmpty() && lookup.currency != record.currency)) {
        return stopForReview(lookup, QStringLiteral("contradictory evidence: %1 found %2 of %3 %4, the action is %5 %6")
                                         .arg(context, lookup.providerObjectId)
                                         .arg(lookup.amount)
                                         .arg(lookup.currency)
                                         .arg(record.amount)
                                         .arg(record.currency));
    }
    std::optional<Trigger> trigger;
    QString reason;
    if (provesCommitted(lookup.status)) {
        trigger = Trigger::ProviderSucceeded;
        reason = QStringLiteral("%1 found refund %2 (%3): it exists").arg(context, lookup.providerObjectId, lookup.status);
    } else if (provesNotCommitted(lookup.status)) {
        trigger = Trigger::ProviderRejected;
        reason = QStringLiteral("%1 found refund %2 with status %3: no money moved")
                     .arg(context, lookup.providerObjectId, lookup.status);
    } else {
        return stopForReview(lookup, QStringLiteral("%1 found refund %2 with status %3: a human must follow it")
                                         .arg(context, lookup.providerObjectId, lookup.status));
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
    const RefundSearch search = m_provider.searchRefundsForAction(record, askedBy);
    const ProviderLookup &lookup = search.lookup;
    std::optional<Trigger> trigger;
    QString reason = QStringLiteral("look up now by %1").arg(askedBy);
    const bool conclusive = lookup.result == ProviderLookup::Result::Found && search.matchingRefundIds.size() == 1
        && lookup.amount == record.amount && (lookup.currency.isEmpty() || lookup.currency == record.currency);
    if (record.state == ActionState::ConfirmationUnknown && conclusive) {
        if (provesCommitted(lookup.status)) {
            trigger = Trigger::ProviderSucceeded;
            reason += QStringLiteral(": found refund %1 (%2)").arg(lookup.providerObjectId, lookup.status);
        } else if (provesNotCommitted(lookup.status)) {
            trigger = Trigger::ProviderRejected;
            reason += QStringLiteral(": found refund %1 with status %2").arg(lookup.providerObjectId, lookup.status);
        }
    }
    auto recorded = m_evidence.recordLookup(lookup, trigger, reason);
    if (!recorded.ok() && trigger && (recorded.code() == LedgerError::Code::Conflict
                                      || recorded.code() == LedgerError::Code::IllegalTransition)) {
        // An attempt is in flight, or the action moved meanwhile: the evidence is still stored.
        recorded = m_evidence.recordLookup(lookup, std::nullopt, reason + QStringLiteral(" (not applied: ")
                                                                   + recorded.error().message() + QLatin1Char(')'));
    }
    if (recorded.ok() && trigger)
        notify(recorded->record);
    return recorded;
}

} // namespace cs
