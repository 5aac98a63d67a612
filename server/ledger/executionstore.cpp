#include "server/ledger/executionstore.h"

#include "server/ledger/approvalstore.h"
#include "server/ledger/auditchain.h"
#include "server/ledger/chargestore.h"
#include "server/ledger/ledgerdatabase.h"
#include "server/ledger/ledgerlog.h"
#include "server/ledger/ledgerrows.h"
#include "server/ledger/pausestore.h"
#include "server/ledger/settlementrows.h"

#include "models/approval.h"
#include "models/fingerprint.h"

#include <algorithm>

namespace cs {

using namespace sql;
using namespace rows;

namespace {

using Claim = ExecutionStore::Claim;

// What claimRow needs besides the action row: the approval at the action's approval_version and
// its attempt count. Read by claimRow itself, or together with the candidates (claimNextIn).
struct ClaimContext
{
    Approval approval;
    int attempts = 0;
    bool pausesChecked = false; // read by the candidate read, which leaves paused actions out
};

LedgerError readClaimContext(QSqlDatabase &db, const ActionRow &row, ClaimContext *out)
{
    LedgerError e;
    const QString &id = row.record.id;
    Statement q(db);
    static const QString approvalSql =
        QStringLiteral("SELECT %1 FROM approvals WHERE action_id = ? AND version = ?").arg(approvalColumns());
    if (!run(q, approvalSql, {id, row.record.approvalVersion}, &e))
        return e;
    if (!q.next())
        return err(Code::Forbidden, QStringLiteral("%1 has no approval version %2").arg(id).arg(row.record.approvalVersion));
    out->approval = approvalFromRow(q);
    q.finish();
    QList<Attempt> attempts;
    if (!loadAttempts(db, id, &attempts, &e))
        return e;
    out->attempts = int(attempts.size());
    return {};
}

Attempt openAttemptOf(const ActionRecord &record, int seq, const QString &executor, const QDateTime &now)
{
    Attempt attempt;
    attempt.actionId = record.id;
    attempt.seq = seq;
    attempt.idempotencyKey = record.idempotencyKey; // the same key, always (invariant 4)
    attempt.requestFingerprint = record.requestFingerprint;
    attempt.executor = executor;
    attempt.startedAt = now;
    attempt.outcome = Attempt::Outcome::Open;
    return attempt;
}

// Claims one loaded PENDING action inside the caller's write transaction. On fingerprint drift, or
// when it no longer fits its charge's refund budget, it stops the action for review (committed
// with the transaction) and sets *drift instead; when its approval has expired, it records the
// expiry (the action waits for approval again) and sets *drift too. Nothing is sent then.
LedgerError claimRow(QSqlDatabase &db, const QDateTime &now, const ActionRow &row, const QString &executor,
                     std::chrono::milliseconds lease, Claim *out, LedgerError *drift,
                     const ClaimContext *context = nullptr)
{
    LedgerError e;
    const QString &id = row.record.id;
    QString why;
    if (!StateMachine::apply(row.record.state, Trigger::Claim, &why))
        return err(Code::IllegalTransition,
                   why.isEmpty() ? QStringLiteral("%1 cannot be claimed in %2").arg(id, toWire(row.record.state)) : why);
    if (row.record.approvalVersion <= 0 || row.record.idempotencyKey.isEmpty())
        return err(Code::Forbidden, QStringLiteral("%1 has no current approval").arg(id));
    ClaimContext read;
    if (!context) {
        e = readClaimContext(db, row, &read);
        if (!e.ok())
            return e;
        context = &read;
    }
    const Approval &approval = context->approval;
    if (approval.decision != Approval::Decision::Approved || approval.idempotencyKey != row.record.idempotencyKey)
        return err(Code::Forbidden, QStringLiteral("%1's current approval does not approve its key").arg(id));
    if (context->attempts > 0)
        return err(Code::Conflict, QStringLiteral("%1 is PENDING but already has attempts").arg(id));
    if (approval.expiresAt.isValid() && approval.expiresAt <= now) {
        // Approval expiry (docs/POLICY.md): an approval past its time is never sent, whether the
        // sweep recorded its expiry yet or not; recorded here, and the action waits for approval.
        ActionRow after = row;
        bool expired = false;
        e = ApprovalStore::expireIfDueIn(db, now, &after, &expired, &approval);
        if (!e.ok())
            return e;
        out->record = after.record;
        *drift = err(Code::Conflict, QStringLiteral("%1 is not claimed: approval v%2 expired at %3, unsent")
                                         .arg(id).arg(approval.version).arg(toWireTime(approval.expiresAt)));
        return {};
    }
    if (!context->pausesChecked) {
        // The stop switch (PauseStore): claimNext's candidate read left out what is paused, under
        // the same lock; a claim by id asks here.
        std::optional<ExecutionPause> pause;
        e = PauseStore::lockForClaim(db);
        if (e.ok())
            e = PauseStore::coveringIn(db, row.record, &pause);
        if (!e.ok())
            return e;
        if (pause)
            return err(Code::Conflict, QStringLiteral("%1 is not claimed: %2 (%3)").arg(id, pause->describe(), pause->id));
    }

    // Invariant 10: only the exact request the approval signed may be sent.
    const QString recomputed = requestFingerprint(row.record.providerRequest());
    if (approval.approvedFingerprint != row.record.requestFingerprint || recomputed != row.record.requestFingerprint) {
        const QString reason = QStringLiteral("fingerprint drift: approval v%1 signed %2, the action holds %3 and its"
                                              " payload hashes to %4; nothing was sent")
                                   .arg(approval.version)
                                   .arg(approval.approvedFingerprint, row.record.requestFingerprint, recomputed);
        ActionRow after = row;
        e = applyTrigger(after, Trigger::StopForReview, reason);
        if (e.ok())
            e = commitChange(db, now, row, after, {executor, QStringLiteral("state_changed"), reason, {}, {}});
        if (!e.ok())
            return e;
        out->record = after.record;
        *drift = err(Code::Conflict, reason);
        return {};
    }

    // Issue 14: nothing is sent that no longer fits the charge's refund budget — what the
    // provider last said is left, less what has gone further than PENDING in Countersign (in
    // flight, unknown, under review, completed since). Under the charge's lock, so two claims on
    // one charge, on any instance, decide one after the other.
    ChargeBudget budget;
    e = ChargeStore::budgetIn(db, row.record.targetType, row.record.targetId, ChargeBudget::Stage::Claim, id, &budget);
    if (!e.ok())
        return e;
    if (!budget.fits(row.record.amount, row.record.currency)) {
        const QString reason = QStringLiteral("over the charge's refundable amount: %1; nothing was sent")
                                   .arg(budget.describe(row.record.amount, row.record.currency));
        ActionRow after = row;
        e = applyTrigger(after, Trigger::StopForReview, reason);
        if (e.ok())
            e = commitChange(db, now, row, after,
                             {executor, QStringLiteral("state_changed"), reason, QStringLiteral("budget"), budget.toJson()});
        if (!e.ok())
            return e;
        out->record = after.record;
        *drift = err(Code::Conflict, reason);
        return {};
    }

    ActionRow after = row;
    e = applyTrigger(after, Trigger::Claim, QString());
    if (!e.ok())
        return e;
    after.leaseOwner = executor;
    after.leaseExpiresAtMs = toMs(now) + lease.count();
    const Attempt attempt = openAttemptOf(after.record, 1, executor, now); // a PENDING action has none yet
    e = saveAction(db, row, after, now, attempt.seq);
    if (!e.ok())
        return e;
    if (!insertAttempt(db, attempt, &e))
        return e;
    e = auditChange(db, now, row, after,
                    {executor, QStringLiteral("claimed"),
                     QStringLiteral("claimed with attempt %1 under approval v%2").arg(attempt.seq).arg(approval.version),
                     QStringLiteral("attempt"), attempt.toJson()});
    if (!e.ok())
        return e;
    out->record = after.record;
    out->attempt = attempt;
    return {};
}

LedgerError checkLeaseArguments(const QString &executorId, std::chrono::milliseconds leaseDuration)
{
    LedgerError e = requireText(executorId, QStringLiteral("executor id"));
    if (e.ok() && leaseDuration.count() <= 0)
        e = err(Code::Invalid, QStringLiteral("a lease must last longer than 0 ms"));
    return e;
}

// An approved PENDING action read for claiming, with its approval and its attempt count.
struct Candidate
{
    ActionRow row;
    ClaimContext context;
};

} // namespace

QString ExecutionStore::candidateSql(bool postgres, int fetch)
{
    // Each candidate's approval by its key. PostgreSQL: a LATERAL subquery that cannot be
    // flattened (OFFSET 0), so it is always that lookup whatever the statistics say; before the
    // first ANALYZE of a busy ledger its planner joined every PENDING row with every approval
    // instead (~97 ms per claim with 1,500 approved actions waiting).
    static const QString approval =
        QStringLiteral("p.action_id, p.version, p.decided_by, p.decision, p.note,"
                       " p.idempotency_key, p.approved_fingerprint, p.decided_at, p.expires_at");
    static const QString sqliteJoin = QStringLiteral(
        "JOIN approvals p ON p.action_id = a.id AND p.version = a.approval_version AND p.decision = 'approved'");
    static const QString postgresJoin = QStringLiteral(
        "CROSS JOIN LATERAL (SELECT %1 FROM approvals p WHERE p.action_id = a.id"
        " AND p.version = a.approval_version AND p.decision = 'approved' OFFSET 0) p").arg(approval);
    // Three more choices keep PostgreSQL's plan the same whatever the statistics say, and cached:
    // - The state is asked as a range of one value, ordered by state first: the order of
    //   actions_by_state_created and of no other index. With `state = 'PENDING'` the planner
    //   drops the state from the order (it is constant) and, while its statistics still said most
    //   actions were PENDING, walked actions_by_created from the ledger's oldest action past every
    //   one already claimed (tst_ledger_counts::claimCandidatesReadTheQueueIndex).
    // - The attempt count is the action's own attempt_count, which the triggers keep exact on
    //   both engines (tst_ledger_counts); a COUNT over attempts was a sequential scan while
    //   attempts' statistics said it was empty. A wrong count could not send twice anyway:
    //   attempt 1's primary key refuses a second attempt 1.
    // - The limit is a literal, so the statement has no parameter and PostgreSQL plans it once
    //   per session; with LIMIT ? it made a custom plan for every claim (0.23 ms each).
    return QStringLiteral("SELECT %1, %2, a.attempt_count FROM actions a %3"
                          " WHERE a.state >= 'PENDING' AND a.state <= 'PENDING' AND a.idempotency_key <> ''"
                          " AND %5"
                          " ORDER BY a.state, a.created_at, a.id LIMIT %4")
        .arg(qualifiedActionColumns(QStringLiteral("a")), approval, postgres ? postgresJoin : sqliteJoin,
             QString::number(fetch), PauseStore::notPausedSql(QStringLiteral("a")));
}

namespace {

// How many candidates to read for `claims` claims. SQLite reads 16 ahead, so the drifted ones a
// claim stops for review cost no second read. PostgreSQL reads exactly as many as it claims:
// every row it reads is locked (FOR UPDATE, a WAL record each) and skipped by every other
// instance until COMMIT; reading ahead made each single claim lock 16 rows.
int candidateFetch(const QSqlDatabase &db, int claims)
{
    return isPostgres(db) ? claims : claims + 16;
}

// claimNext's work inside the caller's write transaction: the oldest approved PENDING action,
// drifted ones stopped for review and skipped. *out stays empty when there is nothing to claim.
// `candidates` may be shared by several claims of one transaction (commitBatch): the rows are
// then read once for all of them. They stay current: the transaction holds the write lock, and
// what it changes itself (a claim, a drift stopped for review) is taken off the list first;
// saveAction's state_version check refuses anything else.
LedgerError claimNextIn(QSqlDatabase &db, const QDateTime &now, const QString &executorId,
                        std::chrono::milliseconds leaseDuration, std::optional<Claim> *out,
                        QList<Candidate> *candidates, int fetch)
{
    out->reset();
    LedgerError e;
    QList<Candidate> local;
    QList<Candidate> &list = candidates ? *candidates : local;
    // Drifted ones are stopped for review and skipped, so each refill sees fresh candidates.
    for (int pass = 0; pass < 10; ++pass) {
        if (list.isEmpty()) {
            // Pauses committed before this read are seen by it; pause() waits for this
            // transaction's COMMIT (PauseStore::lockForClaim).
            e = PauseStore::lockForClaim(db);
            if (!e.ok())
                return e;
            Statement q(db);
            // PostgreSQL: the candidates are locked, and rows another instance is claiming right
            // now are skipped instead of waited for (FOR UPDATE SKIP LOCKED).
            if (!run(q, ExecutionStore::candidateSql(isPostgres(db), fetch) + rowLock(db, QStringLiteral("a"), true), {}, &e))
                return e;
            while (q.next()) {
                Candidate c;
                c.row = actionFromRow(q);
                c.context.approval = approvalFromRow(q, kActionRowColumnCount);
                c.context.attempts = q.value(kActionRowColumnCount + kApprovalColumnCount).toInt();
                c.context.pausesChecked = true;
                list << c;
            }
        }
        if (list.isEmpty())
            return {};
        while (!list.isEmpty()) {
            const Candidate c = list.takeFirst();
            Claim claimed;
            LedgerError drift;
            e = claimRow(db, now, c.row, executorId, leaseDuration, &claimed, &drift, &c.context);
            if (!e.ok())
                return e;
            if (drift.ok()) {
                *out = claimed;
                return {};
            }
            qCWarning(lcLedger) << c.row.record.id << "stopped for review when claimed:" << drift.message();
        }
    }
    return {};
}

// The checks of a finish that need no database.
LedgerError checkFinish(const ExecutionStore::AttemptResult &result, std::optional<Trigger> trigger)
{
    if (result.outcome == Attempt::Outcome::Open)
        return err(Code::Invalid, QStringLiteral("an attempt cannot be finished as open"));
    if (trigger == Trigger::ProviderSucceeded && result.outcome != Attempt::Outcome::Succeeded)
        return err(Code::Invalid, QStringLiteral("provider_succeeded needs a succeeded attempt"));
    if (trigger == Trigger::ProviderRejected && result.outcome != Attempt::Outcome::Rejected)
        return err(Code::Invalid, QStringLiteral("provider_rejected needs a definitive rejection; an unknown outcome"
                                                 " is CONFIRMATION_UNKNOWN (invariant 6)"));
    if (trigger && *trigger != Trigger::ProviderSucceeded && *trigger != Trigger::ProviderRejected
        && *trigger != Trigger::OutcomeUnknown && *trigger != Trigger::StopForReview) {
        return err(Code::Invalid, QStringLiteral("%1 is not an outcome of an attempt").arg(toWire(*trigger)));
    }
    return {};
}

// finishAttempt's work inside the caller's write transaction.
LedgerError finishAttemptIn(QSqlDatabase &db, const QDateTime &now, const ExecutionStore::FinishRequest &f,
                            ExecutionStore::FinishedAttempt *out)
{
    *out = ExecutionStore::FinishedAttempt();
    const QString &actionId = f.actionId;
    const int seq = f.seq;
    LedgerError e;
    ActionRow row;
    if (!loadAction(db, actionId, &row, &e))
        return e;
    QList<Attempt> attempts;
    if (!loadAttempts(db, actionId, &attempts, &e))
        return e;
    const auto found = std::find_if(attempts.cbegin(), attempts.cend(), [&](const Attempt &a) { return a.seq == seq; });
    if (found == attempts.cend())
        return err(Code::NotFound, QStringLiteral("%1 has no attempt %2").arg(actionId).arg(seq));
    if (found->outcome != Attempt::Outcome::Open)
        return err(Code::Conflict, QStringLiteral("attempt %1 of %2 is already finished (%3)")
                                       .arg(seq).arg(actionId, toWire(found->outcome)));
    // A lost lease means another executor (or recovery) may own the action now: record nothing.
    if (!row.holdsLiveLease(f.executorId, toMs(now)))
        return err(Code::LeaseLost, QStringLiteral("%1 no longer holds the lease on %2; nothing recorded")
                                        .arg(f.executorId, actionId));

    Attempt attempt = *found;
    attempt.finishedAt = now;
    attempt.outcome = f.result.outcome;
    attempt.httpStatus = f.result.httpStatus;
    attempt.errorCode = truncated(f.result.errorCode, kMaxTextField);
    attempt.providerRequestId = truncated(f.result.providerRequestId, kMaxTextField);
    attempt.providerObjectId = truncated(f.result.providerObjectId, kMaxTextField);
    attempt.replayed = f.result.replayed;
    attempt.errorExcerpt = truncated(f.result.errorExcerpt, kExcerptLimit);
    Statement update(db);
    if (!run(update,
             QStringLiteral("UPDATE attempts SET finished_at = ?, outcome = ?, http_status = ?, error_code = ?,"
                            " provider_request_id = ?, provider_object_id = ?, replayed = ?, error_excerpt = ?"
                            " WHERE action_id = ? AND seq = ? AND outcome = 'open'"),
             {toMs(now), toWire(attempt.outcome), attempt.httpStatus, text(attempt.errorCode),
              text(attempt.providerRequestId), text(attempt.providerObjectId), attempt.replayed ? 1 : 0,
              text(attempt.errorExcerpt), actionId, seq},
             &e)) {
        return e;
    }
    if (update.numRowsAffected() != 1)
        return err(Code::Conflict, QStringLiteral("attempt %1 of %2 was finished concurrently").arg(seq).arg(actionId));

    ActionRow after = row;
    QString why = f.reason;
    if (f.trigger) {
        e = applyTrigger(after, *f.trigger, f.reason);
        if (!e.ok())
            return e;
    }
    // A changed resubmission arrived while this request was in flight: whatever is not a
    // definitive provider answer goes to a human.
    if (row.reviewRequested && !isTerminal(after.record.state) && after.record.state != ActionState::RequiresReview) {
        after = row;
        why = QStringLiteral("a changed resubmission requested review while attempt %1 was in flight;"
                             " outcome %2%3")
                  .arg(seq)
                  .arg(toWire(attempt.outcome),
                       f.reason.isEmpty() ? QString() : QStringLiteral(" (") + f.reason + QLatin1Char(')'));
        e = applyTrigger(after, Trigger::StopForReview, why);
        if (!e.ok())
            return e;
        out->escalated = true;
    }
    const bool rowChanged = after.record.state != row.record.state || after.reviewRequested != row.reviewRequested;
    e = commitChange(db, now, row, after,
                     {f.executorId, QStringLiteral("attempt_finished"), why, QStringLiteral("attempt"), attempt.toJson()},
                     rowChanged);
    // The refund the provider accepted is followed until it settles (issue 18): a `pending`
    // answer completes the action, and its settlement starts here, in the same transaction.
    if (e.ok() && after.record.state == ActionState::Completed && row.record.state != ActionState::Completed)
        e = settlements::startIn(db, now, after,
                                 {attempt.providerObjectId, f.result.refundStatus, QString(), QStringLiteral("attempt"),
                                  QStringLiteral("attempt %1").arg(seq), f.executorId});
    out->record = after.record;
    out->attempt = attempt;
    return e;
}

} // namespace

void ExecutionStore::releaseThread()
{
    m_db.releaseCurrentThread();
}

bool ExecutionStore::isOpen() const
{
    return m_db.isOpen();
}

QDateTime ExecutionStore::currentTime() const
{
    return m_db.now();
}

LedgerResult<ExecutionStore::Claim> ExecutionStore::claim(const QString &actionId, const QString &executorId,
                                                          std::chrono::milliseconds leaseDuration)
{
    LedgerError error = checkLeaseArguments(executorId, leaseDuration);
    if (!error.ok())
        return error;
    Claim out;
    LedgerError drift;
    error = m_db.write("claim", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        drift = LedgerError();
        LedgerError e;
        ActionRow row;
        if (!loadAction(db, actionId, &row, &e))
            return e;
        return claimRow(db, now, row, executorId, leaseDuration, &out, &drift);
    });
    return resultOf(error.ok() ? drift : error, out);
}

LedgerResult<std::optional<ExecutionStore::Claim>> ExecutionStore::claimNext(const QString &executorId,
                                                                             std::chrono::milliseconds leaseDuration)
{
    LedgerError error = checkLeaseArguments(executorId, leaseDuration);
    if (!error.ok())
        return error;
    std::optional<Claim> out;
    error = m_db.write("claimNext", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        return claimNextIn(db, now, executorId, leaseDuration, &out, nullptr, candidateFetch(db, 1));
    });
    return resultOf(error, out);
}

namespace {

// What a lease operation changes on the loaded row (after starts as a copy of row); an error
// refuses it. *reason goes into the audit row.
using LeaseChange = std::function<LedgerError(QSqlDatabase &db, const QDateTime &now, const ActionRow &row,
                                              ActionRow &after, QString *reason)>;

// The one sequence of acquireLease, renewLease and releaseLease: refuse invalid arguments
// (`invalid`), load, change, save, audit.
LedgerResult<ActionRecord> changeLease(LedgerDatabase &database, const char *operation, const LedgerError &invalid,
                                       const QString &actionId, const QString &executorId, const QString &event,
                                       const LeaseChange &change)
{
    if (!invalid.ok())
        return invalid;
    ActionRecord out;
    const LedgerError error = database.write(operation, [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        ActionRow row;
        if (!loadAction(db, actionId, &row, &e))
            return e;
        ActionRow after = row;
        QString reason;
        e = change(db, now, row, after, &reason);
        if (e.ok())
            e = commitChange(db, now, row, after, {executorId, event, reason, {}, {}});
        out = after.record;
        return e;
    });
    return resultOf(error, out);
}

} // namespace

LedgerResult<ActionRecord> ExecutionStore::acquireLease(const QString &actionId, const QString &executorId,
                                                        std::chrono::milliseconds leaseDuration)
{
    return changeLease(m_db, "acquireLease", checkLeaseArguments(executorId, leaseDuration), actionId, executorId,
                       QStringLiteral("lease_acquired"),
                       [&](QSqlDatabase &db, const QDateTime &now, const ActionRow &row, ActionRow &after,
                           QString *reason) -> LedgerError {
        if (row.record.state != ActionState::ConfirmationUnknown)
            return err(Code::IllegalTransition, QStringLiteral("only a CONFIRMATION_UNKNOWN action can be leased;"
                                                               " %1 is %2").arg(actionId, toWire(row.record.state)));
        const qint64 nowMs = toMs(now);
        if (row.hasLiveLease(nowMs) && row.leaseOwner != executorId)
            return err(Code::Conflict, QStringLiteral("%1 is leased by %2 until %3")
                                           .arg(actionId, row.leaseOwner, toWireTime(fromMs(*row.leaseExpiresAtMs))));
        int finished = 0;
        LedgerError e;
        if (!row.hasLiveLease(nowMs) && !finishOpenAttemptsUnknown(db, actionId, now, &finished, &e))
            return e;
        after.leaseOwner = executorId;
        after.leaseExpiresAtMs = nowMs + leaseDuration.count();
        if (finished > 0)
            *reason = QStringLiteral("previous holder's lease expired; %1 open attempt(s) finished as unknown")
                          .arg(finished);
        return {};
    });
}

LedgerResult<ActionRecord> ExecutionStore::renewLease(const QString &actionId, const QString &executorId,
                                                      std::chrono::milliseconds leaseDuration)
{
    return changeLease(m_db, "renewLease", checkLeaseArguments(executorId, leaseDuration), actionId, executorId,
                       QStringLiteral("lease_renewed"),
                       [&](QSqlDatabase &, const QDateTime &now, const ActionRow &row, ActionRow &after,
                           QString *) -> LedgerError {
        const qint64 nowMs = toMs(now);
        if ((row.record.state != ActionState::Executing && row.record.state != ActionState::ConfirmationUnknown)
            || !row.holdsLiveLease(executorId, nowMs)) {
            return err(Code::LeaseLost, QStringLiteral("%1 does not hold a live lease on %2").arg(executorId, actionId));
        }
        after.leaseExpiresAtMs = nowMs + leaseDuration.count();
        return {};
    });
}

LedgerResult<ActionRecord> ExecutionStore::releaseLease(const QString &actionId, const QString &executorId)
{
    return changeLease(m_db, "releaseLease", requireText(executorId, QStringLiteral("executor id")), actionId,
                       executorId, QStringLiteral("lease_released"),
                       [&](QSqlDatabase &db, const QDateTime &, const ActionRow &row, ActionRow &after,
                           QString *) -> LedgerError {
        if (row.leaseOwner != executorId)
            return err(Code::LeaseLost, QStringLiteral("%1 does not hold the lease on %2").arg(executorId, actionId));
        if (row.record.state == ActionState::Executing)
            return err(Code::Conflict, QStringLiteral("%1 is EXECUTING: its lease ends when its attempt is finished")
                                           .arg(actionId));
        LedgerError e;
        if (!requireNoOpenAttempt(db, actionId, QStringLiteral("is still open; finish it first"), nullptr, &e))
            return e;
        after.clearLease();
        return {};
    });
}

LedgerResult<Attempt> ExecutionStore::beginRetryAttempt(const QString &actionId, const QString &executorId)
{
    LedgerError error = requireText(executorId, QStringLiteral("executor id"));
    if (!error.ok())
        return error;
    Attempt out;
    error = m_db.write("beginRetryAttempt", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        ActionRow row;
        if (!loadAction(db, actionId, &row, &e))
            return e;
        if (row.record.state != ActionState::ConfirmationUnknown && row.record.state != ActionState::Executing)
            return err(Code::IllegalTransition, QStringLiteral("a retry needs CONFIRMATION_UNKNOWN or EXECUTING; %1 is %2")
                                                    .arg(actionId, toWire(row.record.state)));
        if (!row.holdsLiveLease(executorId, toMs(now)))
            return err(Code::LeaseLost, QStringLiteral("%1 does not hold a live lease on %2").arg(executorId, actionId));
        QList<Attempt> attempts;
        if (!requireNoOpenAttempt(db, actionId, QStringLiteral("is still open"), &attempts, &e))
            return e;
        if (row.record.idempotencyKey.isEmpty() || attempts.isEmpty())
            return err(Code::Forbidden, QStringLiteral("%1 was never claimed: a retry reuses the first attempt's key")
                                            .arg(actionId));
        if (requestFingerprint(row.record.providerRequest()) != row.record.requestFingerprint)
            return err(Code::Conflict, QStringLiteral("%1's payload no longer matches its fingerprint").arg(actionId));
        out = openAttemptOf(row.record, attempts.constLast().seq + 1, executorId, now);
        if (!insertAttempt(db, out, &e))
            return e;
        return AuditChain::append(db, now, actionId, executorId, QStringLiteral("attempt_started"),
                                  QStringLiteral("same-key retry, attempt %1").arg(out.seq), {}, out.toJson());
    });
    return resultOf(error, out);
}

LedgerResult<ExecutionStore::FinishedAttempt> ExecutionStore::finishAttempt(const QString &actionId, int seq,
                                                                            const AttemptResult &result,
                                                                            std::optional<Trigger> trigger,
                                                                            const QString &reason,
                                                                            const QString &executorId)
{
    LedgerError error = checkFinish(result, trigger);
    if (!error.ok())
        return error;
    const FinishRequest request{actionId, seq, result, trigger, reason, executorId};
    FinishedAttempt out;
    error = m_db.write("finishAttempt", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        return finishAttemptIn(db, now, request, &out);
    });
    return resultOf(error, out);
}

LedgerResult<ExecutionStore::BatchOutcome> ExecutionStore::commitBatch(const Batch &batch)
{
    if (!batch.claimFor.isEmpty() && batch.leaseDuration.count() <= 0)
        return err(Code::Invalid, QStringLiteral("a lease must last longer than 0 ms"));
    // Requests refused before the transaction keep their place in the answer.
    std::vector<LedgerError> precheck;
    precheck.reserve(size_t(batch.finishes.size()));
    for (const FinishRequest &f : batch.finishes)
        precheck.push_back(checkFinish(f.result, f.trigger));
    BatchOutcome out;
    // Optimistically without savepoints (nearly every step succeeds); if one is refused, the
    // whole transaction is rolled back and run again with a savepoint around each step.
    bool savepoints = false;
    bool refused = false;
    auto step = [&](QSqlDatabase &db, const std::function<LedgerError()> &work, LedgerError *stepError) -> LedgerError {
        if (savepoints)
            return LedgerDatabase::onSavepoint(db, work, stepError);
        *stepError = work();
        if (stepError->ok() || stepError->code() == Code::Busy)
            return stepError->ok() ? LedgerError() : *stepError;
        refused = true;
        return err(Code::Conflict, QStringLiteral("a step of the batch was refused: again with savepoints"));
    };
    auto body = [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        out = BatchOutcome();
        for (qsizetype i = 0; i < batch.finishes.size(); ++i) {
            if (!precheck.at(size_t(i)).ok()) {
                out.finished.push_back(precheck.at(size_t(i)));
                continue;
            }
            FinishedAttempt finished;
            LedgerError stepError;
            const LedgerError fatal =
                step(db, [&] { return finishAttemptIn(db, now, batch.finishes.at(i), &finished); }, &stepError);
            if (!fatal.ok())
                return fatal;
            if (stepError.ok())
                out.finished.push_back(finished);
            else
                out.finished.push_back(stepError);
        }
        QList<Candidate> candidates; // fetched once for all the claims of this batch
        const int fetch = candidateFetch(db, int(batch.claimFor.size()));
        for (const QString &executorId : batch.claimFor) {
            const LedgerError invalid = checkLeaseArguments(executorId, batch.leaseDuration);
            if (!invalid.ok()) {
                out.claims.emplace_back();
                out.claimErrors.push_back(invalid);
                continue;
            }
            std::optional<Claim> claimed;
            LedgerError stepError;
            const LedgerError fatal = step(db, [&] {
                return claimNextIn(db, now, executorId, batch.leaseDuration, &claimed, &candidates, fetch);
            }, &stepError);
            if (!fatal.ok())
                return fatal;
            out.claims.push_back(stepError.ok() ? claimed : std::nullopt);
            out.claimErrors.push_back(stepError);
        }
        return {};
    };
    LedgerError error = m_db.write("commitBatch", body);
    if (!error.ok() && refused) {
        savepoints = true;
        error = m_db.write("commitBatch", body);
    }
    return resultOf(error, out);
}

LedgerResult<ActionRecord> ExecutionStore::transition(const QString &actionId, Trigger trigger, const QString &actor,
                                                      const QString &reason, std::optional<qint64> expectedStateVersion)
{
    LedgerError error = requireText(actor, QStringLiteral("actor"));
    if (!error.ok())
        return error;
    if (trigger != Trigger::StopForReview && trigger != Trigger::OutcomeUnknown)
        return err(Code::Invalid, QStringLiteral("%1 needs its own operation and evidence (claim, reject, finishAttempt,"
                                                 " recordLookup or reconcile)").arg(toWire(trigger)));
    ActionRecord out;
    error = m_db.write("transition", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        ActionRow row;
        if (!loadForChange(db, actionId, expectedStateVersion, &row, &e)
            || !requireNoOpenAttempt(db, actionId, QStringLiteral("is in flight; its executor finishes it"), nullptr, &e))
            return e;
        ActionRow after = row;
        e = applyTrigger(after, trigger, reason);
        if (e.ok())
            e = commitChange(db, now, row, after, {actor, QStringLiteral("state_changed"), reason, {}, {}});
        out = after.record;
        return e;
    });
    return resultOf(error, out);
}

LedgerResult<int> ExecutionStore::expireDueApprovals(int limit)
{
    return ApprovalStore::expireDue(m_db, limit);
}

LedgerResult<int> ExecutionStore::recoverExpiredLeases()
{
    int recovered = 0;
    const LedgerError error = m_db.write("recoverExpiredLeases", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        recovered = 0;
        LedgerError e;
        QList<ActionRow> expired;
        {
            Statement q(db);
            if (!run(q,
                     QStringLiteral("SELECT %1 FROM actions WHERE state IN ('EXECUTING', 'CONFIRMATION_UNKNOWN')"
                                    " AND (lease_expires_at <= ? OR (state = 'EXECUTING' AND lease_expires_at IS NULL))"
                                    " ORDER BY created_at, id")
                             .arg(actionColumns())
                         // A row locked by its (live) owner's transaction is skipped, not waited
                         // for; a locked row is re-checked at its newest version (PostgreSQL).
                         + rowLock(db, QString(), true),
                     {toMs(now)}, &e)) {
                return e;
            }
            while (q.next())
                expired.append(actionFromRow(q));
        }
        for (const ActionRow &row : std::as_const(expired)) {
            int finished = 0;
            if (!finishOpenAttemptsUnknown(db, row.record.id, now, &finished, &e))
                return e;
            ActionRow after = row;
            QString why = QStringLiteral("lease of %1 expired").arg(row.leaseOwner.isEmpty() ? QStringLiteral("nobody")
                                                                                            : row.leaseOwner);
            if (finished > 0)
                why += QStringLiteral("; %1 open attempt(s) finished as unknown (process died?)").arg(finished);
            if (row.record.state == ActionState::Executing) {
                // The request may have reached the provider: unknown, never rejected (invariant 6).
                const Trigger trigger = row.reviewRequested ? Trigger::StopForReview : Trigger::OutcomeUnknown;
                if (row.reviewRequested)
                    why += QStringLiteral("; a changed resubmission had requested review");
                e = applyTrigger(after, trigger, why);
                if (!e.ok())
                    return e;
            }
            after.clearLease();
            e = commitChange(db, now, row, after, {QStringLiteral("system"), QStringLiteral("recovered"), why, {}, {}});
            if (!e.ok())
                return e;
            ++recovered;
        }
        return {};
    });
    return resultOf(error, recovered);
}

} // namespace cs
