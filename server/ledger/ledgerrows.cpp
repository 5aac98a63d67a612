#include "server/ledger/ledgerrows.h"

#include "server/ledger/actioncolumns.h"
#include "server/ledger/auditchain.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace cs::rows {

using namespace sql;

namespace {

const QString &leaseExpiredExcerpt()
{
    static const QString text = QStringLiteral("executor lease expired (process died?)");
    return text;
}

LedgerError checkVersion(const ActionRow &row, qint64 expected)
{
    if (row.record.stateVersion == expected)
        return {};
    return err(Code::StaleVersion, QStringLiteral("action %1 is at state_version %2, not %3")
                                       .arg(row.record.id).arg(row.record.stateVersion).arg(expected));
}

} // namespace

// --- the action row -------------------------------------------------------------------------------

const QString &actionColumns()
{
    static const QString columns =
        actionColumnList() + QStringLiteral(", review_requested, lease_owner, lease_expires_at, proposed_payload");
    return columns;
}

QString qualifiedActionColumns(const QString &alias)
{
    return actionColumnList(alias) + QStringLiteral(", %1.review_requested, %1.lease_owner, %1.lease_expires_at,"
                                                     " %1.proposed_payload").arg(alias);
}

ActionRow actionFromRow(const Statement &q)
{
    ActionRow row;
    readActionColumns(q, 0, &row.record);
    constexpr int at = kActionColumnCount; // the ledger's own columns follow
    row.reviewRequested = q.value(at).toInt() != 0;
    row.leaseOwner = q.value(at + 1).toString();
    if (!q.value(at + 2).isNull())
        row.leaseExpiresAtMs = q.value(at + 2).toLongLong();
    row.proposedPayload = q.value(at + 3).toString();
    return row;
}

bool loadAction(QSqlDatabase &db, const QString &actionId, ActionRow *row, LedgerError *error)
{
    Statement q(db);
    // Inside a write on PostgreSQL the row is locked until COMMIT: what the write decides from
    // it cannot be changed underneath by another instance (SQLite holds the whole file).
    static const QString sql = QStringLiteral("SELECT %1 FROM actions WHERE id = ?").arg(actionColumns());
    if (!run(q, sql + rowLock(db), {actionId}, error))
        return false;
    if (!q.next()) {
        *error = err(Code::NotFound, QStringLiteral("no action %1").arg(actionId));
        return false;
    }
    *row = actionFromRow(q);
    return true;
}

bool loadForChange(QSqlDatabase &db, const QString &actionId, std::optional<qint64> expectedStateVersion,
                   ActionRow *row, LedgerError *error)
{
    if (!loadAction(db, actionId, row, error))
        return false;
    if (expectedStateVersion)
        *error = checkVersion(*row, *expectedStateVersion);
    return error->ok();
}

bool loadInState(QSqlDatabase &db, const QString &actionId, std::optional<qint64> expectedStateVersion,
                 ActionState state, const QString &what, ActionRow *row, LedgerError *error)
{
    if (!loadForChange(db, actionId, expectedStateVersion, row, error))
        return false;
    if (row->record.state != state) {
        *error = err(Code::IllegalTransition, QStringLiteral("only a %1 action %2; %3 is %4")
                                                  .arg(toWire(state), what, actionId, toWire(row->record.state)));
        return false;
    }
    return true;
}

QJsonObject snapshot(const ActionRow &row)
{
    const ActionRecord &r = row.record;
    return QJsonObject{
        {QStringLiteral("state"), toWire(r.state)},
        {QStringLiteral("state_version"), r.stateVersion},
        {QStringLiteral("review_reason"), r.reviewReason},
        {QStringLiteral("amount"), r.amount},
        {QStringLiteral("reason"), r.reason},
        {QStringLiteral("request_fingerprint"), r.requestFingerprint},
        {QStringLiteral("idempotency_key"), r.idempotencyKey},
        {QStringLiteral("approval_version"), r.approvalVersion},
        {QStringLiteral("review_requested"), row.reviewRequested},
        {QStringLiteral("lease_owner"), row.leaseOwner},
        {QStringLiteral("lease_expires_at"),
         row.leaseExpiresAtMs ? toWireTime(fromMs(*row.leaseExpiresAtMs)) : QString()},
    };
}

LedgerError applyTrigger(ActionRow &row, Trigger trigger, const QString &reason)
{
    QString why;
    const std::optional<ActionState> to = StateMachine::apply(row.record.state, trigger, &why);
    if (!to) {
        if (why.isEmpty())
            why = QStringLiteral("%1 is not legal in %2").arg(toWire(trigger), toWire(row.record.state));
        return err(Code::IllegalTransition, why);
    }
    const bool changed = *to != row.record.state;
    row.record.state = *to;
    if (*to == ActionState::RequiresReview) {
        row.record.reviewReason = reason.isEmpty() ? QStringLiteral("stopped for review") : reason;
        row.reviewRequested = false; // honoured
    } else {
        row.record.reviewReason.clear();
    }
    if (changed)
        row.clearLease();
    return {};
}

LedgerError saveAction(QSqlDatabase &db, const ActionRow &before, ActionRow &after, const QDateTime &now,
                       int attemptsAfter)
{
    // (Writers are serialized by BEGIN IMMEDIATE and each one loads the row inside its own
    // transaction, so a lease write still cannot lose an update.)
    const bool leaseOnly = !after.recordChanged && after.record == before.record
        && after.reviewRequested == before.reviewRequested;
    after.record.stateVersion = before.record.stateVersion + (leaseOnly ? 0 : 1);
    if (!leaseOnly)
        after.record.updatedAt = now;
    const ActionRecord &r = after.record;
    static const QString sql = QStringLiteral(
        "UPDATE actions SET amount = ?, reason = ?, request_fingerprint = ?, idempotency_key = ?,"
        " approval_version = ?, state = ?, state_version = ?, review_reason = ?, review_requested = ?,"
        " lease_owner = ?, lease_expires_at = ?, updated_at = ?,"
        " last_event_at = CASE WHEN last_event_at < ? THEN ? ELSE last_event_at END,"
        " attempt_count = CASE WHEN attempt_count < ? THEN ? ELSE attempt_count END"
        " WHERE id = ? AND state = ? AND state_version = ?");
    Statement q(db);
    LedgerError error;
    if (!run(q, sql,
             {r.amount, text(r.reason), text(r.requestFingerprint), text(r.idempotencyKey), r.approvalVersion,
              toWire(r.state), r.stateVersion, text(r.reviewReason), after.reviewRequested ? 1 : 0,
              textOrNull(after.leaseOwner), msOrNull(after.leaseExpiresAtMs), toMs(r.updatedAt),
              toMs(now), toMs(now), attemptsAfter, attemptsAfter,
              r.id, toWire(before.record.state), before.record.stateVersion},
             &error)) {
        return error;
    }
    if (q.numRowsAffected() != 1)
        return err(Code::Conflict, QStringLiteral("action %1 changed concurrently").arg(r.id));
    return {};
}

LedgerError auditChange(QSqlDatabase &db, const QDateTime &now, const ActionRow &before, const ActionRow &after,
                        const AuditNote &note)
{
    QJsonObject afterJson = snapshot(after);
    if (!note.detailKey.isEmpty())
        afterJson.insert(note.detailKey, note.detail);
    return AuditChain::append(db, now, after.record.id, note.actor, note.event, note.reason, snapshot(before),
                              afterJson);
}

LedgerError commitChange(QSqlDatabase &db, const QDateTime &now, const ActionRow &before, ActionRow &after,
                         const AuditNote &note, bool save)
{
    const LedgerError e = save ? saveAction(db, before, after, now) : LedgerError();
    return e.ok() ? auditChange(db, now, before, after, note) : e;
}

// --- checks ----------------------------------------------------------------------------------------

LedgerError requireText(const QString &value, const QString &what, qsizetype maxLength)
{
    if (value.trimmed().isEmpty())
        return err(Code::Invalid, QStringLiteral("%1 is required").arg(what));
    if (value.size() > maxLength)
        return err(Code::Invalid, QStringLiteral("%1 is longer than %2 characters").arg(what).arg(maxLength));
    return {};
}

LedgerError checkNote(const QString &note)
{
    if (note.size() > kMaxNote)
        return err(Code::Invalid, QStringLiteral("the note is longer than %1 characters").arg(kMaxNote));
    return {};
}

LedgerError checkRejectionReason(const QString &reason)
{
    if (Approval::rejectionReasons().contains(reason))
        return {};
    return err(Code::Invalid, QStringLiteral("a rejection's reason must be one of %1, not \"%2\"")
                                  .arg(Approval::rejectionReasons().join(QStringLiteral(", ")), reason));
}

LedgerError checkRefundReason(const QString &reason)
{
    if (reason.isEmpty() || reason == u"duplicate" || reason == u"fraudulent" || reason == u"requested_by_customer")
        return {};
    return err(Code::Invalid, QStringLiteral("reason must be empty, duplicate, fraudulent or"
                                             " requested_by_customer, not \"%1\"").arg(reason));
}

QString truncated(const QString &value, qsizetype limit)
{
    return value.size() > limit ? value.left(limit) : value;
}

// --- per-action append-only tables ---------------------------------------------------------------

bool nextSeq(QSqlDatabase &db, const QString &table, const QString &actionId, int *seq, LedgerError *error)
{
    const QString column = table == u"approvals" ? QStringLiteral("version") : QStringLiteral("seq");
    Statement q(db);
    if (!run(q, QStringLiteral("SELECT COALESCE(MAX(%1), 0) + 1 FROM %2 WHERE action_id = ?").arg(column, table),
             {actionId}, error)) {
        return false;
    }
    *seq = q.next() ? q.value(0).toInt() : 1;
    return true;
}

const QString &attemptColumns()
{
    static const QString columns = QStringLiteral(
        "action_id, seq, idempotency_key, request_fingerprint, executor, started_at, finished_at, outcome,"
        " http_status, error_code, provider_request_id, provider_object_id, replayed, error_excerpt");
    return columns;
}

Attempt attemptFromRow(const Statement &q)
{
    Attempt a;
    a.actionId = q.value(0).toString();
    a.seq = q.value(1).toInt();
    a.idempotencyKey = q.value(2).toString();
    a.requestFingerprint = q.value(3).toString();
    a.executor = q.value(4).toString();
    a.startedAt = fromMs(q.value(5).toLongLong());
    a.finishedAt = timeOrNull(q.value(6));
    a.outcome = attemptOutcomeFromWire(q.value(7).toString()).value_or(Attempt::Outcome::Unknown);
    a.httpStatus = q.value(8).toInt();
    a.errorCode = q.value(9).toString();
    a.providerRequestId = q.value(10).toString();
    a.providerObjectId = q.value(11).toString();
    a.replayed = q.value(12).toInt() != 0;
    a.errorExcerpt = q.value(13).toString();
    return a;
}

bool loadAttempts(QSqlDatabase &db, const QString &actionId, QList<Attempt> *out, LedgerError *error)
{
    Statement q(db);
    static const QString sql =
        QStringLiteral("SELECT %1 FROM attempts WHERE action_id = ? ORDER BY seq").arg(attemptColumns());
    if (!run(q, sql, {actionId}, error))
        return false;
    while (q.next())
        out->append(attemptFromRow(q));
    return true;
}

std::optional<Attempt> openAttempt(const QList<Attempt> &attempts)
{
    for (const Attempt &a : attempts) {
        if (a.outcome == Attempt::Outcome::Open)
            return a;
    }
    return std::nullopt;
}

bool requireNoOpenAttempt(QSqlDatabase &db, const QString &actionId, const QString &what, QList<Attempt> *attempts,
                          LedgerError *error)
{
    QList<Attempt> local;
    QList<Attempt> &list = attempts ? *attempts : local;
    if (!loadAttempts(db, actionId, &list, error))
        return false;
    if (const auto open = openAttempt(list)) {
        *error = err(Code::Conflict, QStringLiteral("attempt %1 of %2 %3").arg(open->seq).arg(actionId, what));
        return false;
    }
    return true;
}

bool insertAttempt(QSqlDatabase &db, const Attempt &a, LedgerError *error)
{
    static const QString sql =
        QStringLiteral("INSERT INTO attempts (%1) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").arg(attemptColumns());
    Statement q(db);
    return run(q, sql,
               {a.actionId, a.seq, a.idempotencyKey, a.requestFingerprint, text(a.executor), toMs(a.startedAt),
                msOrNull(a.finishedAt), toWire(a.outcome), a.httpStatus, text(a.errorCode),
                text(a.providerRequestId), text(a.providerObjectId), a.replayed ? 1 : 0, text(a.errorExcerpt)},
               error);
}

bool finishOpenAttemptsUnknown(QSqlDatabase &db, const QString &actionId, const QDateTime &now, int *finished,
                               LedgerError *error)
{
    Statement q(db);
    if (!run(q,
             QStringLiteral("UPDATE attempts SET outcome = 'unknown', finished_at = ?, error_excerpt = ?"
                            " WHERE action_id = ? AND outcome = 'open'"),
             {toMs(now), leaseExpiredExcerpt(), actionId}, error)) {
        return false;
    }
    *finished = q.numRowsAffected();
    return true;
}

const QString &approvalColumns()
{
    static const QString columns = QStringLiteral(
        "action_id, version, decided_by, decision, note, idempotency_key, approved_fingerprint, decided_at, expires_at");
    return columns;
}

Approval approvalFromRow(const Statement &q, int first)
{
    const auto at = [&](int i) { return q.value(first + i); };
    Approval a;
    a.actionId = at(0).toString();
    a.version = at(1).toInt();
    a.decidedBy = at(2).toString();
    a.decision = decisionFromWire(at(3).toString()).value_or(Approval::Decision::Rejected);
    a.note = at(4).toString();
    a.idempotencyKey = at(5).toString();
    a.approvedFingerprint = at(6).toString();
    a.decidedAt = fromMs(at(7).toLongLong());
    a.expiresAt = timeOrNull(at(8));
    return a;
}

namespace {

// What insertApproval writes: the execution's columns and the history's.
const QString &approvalInsertColumns()
{
    static const QString columns = approvalColumns() + QStringLiteral(", rejection_reason, policy_version, rule_id, signers");
    return columns;
}

} // namespace

const QString &approvalHistoryColumns()
{
    // The expiry, if any, from approval_expiries (migration 13).
    static const QString columns = approvalInsertColumns()
        + QStringLiteral(", (SELECT x.expired_at FROM approval_expiries x WHERE x.action_id = approvals.action_id"
                         " AND x.approval_version = approvals.version)");
    return columns;
}

Approval approvalHistoryFromRow(const Statement &q)
{
    Approval a = approvalFromRow(q);
    a.rejectionReason = q.value(kApprovalColumnCount).toString();
    a.policyVersion = q.value(kApprovalColumnCount + 1).toInt();
    a.ruleId = q.value(kApprovalColumnCount + 2).toString();
    a.signers = signersFromJson(QJsonDocument::fromJson(q.value(kApprovalColumnCount + 3).toByteArray()).array())
                    .value_or(QList<Approval::Signer>());
    a.expiredAt = timeOrNull(q.value(kApprovalColumnCount + 4));
    return a;
}

bool insertApproval(QSqlDatabase &db, const Approval &a, LedgerError *error)
{
    Statement q(db);
    const QString signers = QString::fromUtf8(QJsonDocument(signersToJson(a.signers)).toJson(QJsonDocument::Compact));
    return run(q, QStringLiteral("INSERT INTO approvals (%1) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                      .arg(approvalInsertColumns()),
               {a.actionId, a.version, a.decidedBy, toWire(a.decision), text(a.note), text(a.idempotencyKey),
                text(a.approvedFingerprint), toMs(a.decidedAt),
                msOrNull(a.expiresAt),
                text(a.rejectionReason), a.policyVersion,
                text(a.ruleId), text(signers)},
               error);
}

const QString &lookupColumns()
{
    static const QString columns = QStringLiteral(
        "action_id, seq, method, asked_by, at, result, provider_object_id, status, amount, currency, http_status,"
        " excerpt, failure_reason");
    return columns;
}

ProviderLookup lookupFromRow(const Statement &q)
{
    ProviderLookup l;
    l.actionId = q.value(0).toString();
    l.seq = q.value(1).toInt();
    l.method = lookupMethodFromWire(q.value(2).toString()).value_or(ProviderLookup::Method::ListByMetadata);
    l.askedBy = q.value(3).toString();
    l.at = fromMs(q.value(4).toLongLong());
    l.result = lookupResultFromWire(q.value(5).toString()).value_or(ProviderLookup::Result::Error);
    l.providerObjectId = q.value(6).toString();
    l.status = q.value(7).toString();
    l.amount = q.value(8).toLongLong();
    l.currency = q.value(9).toString();
    l.httpStatus = q.value(10).toInt();
    l.excerpt = q.value(11).toString();
    l.failureReason = q.value(12).toString();
    return l;
}

const QString &reconciliationColumns()
{
    static const QString columns =
        QStringLiteral("action_id, seq, decided_by, outcome, evidence_lookup_seq, note, decided_at");
    return columns;
}

Reconciliation reconciliationFromRow(const Statement &q)
{
    Reconciliation r;
    r.actionId = q.value(0).toString();
    r.seq = q.value(1).toInt();
    r.decidedBy = q.value(2).toString();
    r.outcome = reconciliationOutcomeFromWire(q.value(3).toString()).value_or(Reconciliation::Outcome::NotCommitted);
    r.evidenceLookupSeq = q.value(4).toInt();
    r.note = q.value(5).toString();
    r.decidedAt = fromMs(q.value(6).toLongLong());
    return r;
}

} // namespace cs::rows
