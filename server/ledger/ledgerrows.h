#pragma once

// Internal to server/ledger/: the rows the ledger's stores share — the action row with its
// execution bookkeeping, the per-action append-only tables (attempts, approvals, lookups,
// reconciliations) — and the one sequence every mutation of an action follows: load it (checking
// If-Match), change it through StateMachine::apply, save it under optimistic concurrency, append
// one audit row. Every function runs inside a LedgerDatabase write or read body.

#include "server/ledger/actioncolumns.h"
#include "server/ledger/ledgererror.h"
#include "server/ledger/sqlstatement.h"

#include "models/actionrecord.h"
#include "models/actionstate.h"
#include "models/approval.h"
#include "models/attempt.h"
#include "models/providerlookup.h"
#include "models/reconciliation.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QSqlDatabase>
#include <QString>

#include <optional>

namespace cs::rows {

using Code = LedgerError::Code;

constexpr int kExcerptLimit = 500;
constexpr int kMaxListLimit = 200;
constexpr qsizetype kMaxTextField = 255;
constexpr qsizetype kMaxNote = 2000;
// The agent's reasons (ActionRecord): justification ≤ kMaxNote, and these.
constexpr qsizetype kMaxContextUrl = 2048;
constexpr qsizetype kMaxFacts = 10;
constexpr qsizetype kMaxFactKey = 40;
constexpr qsizetype kMaxFactValue = 200;

inline LedgerError err(Code code, const QString &message) { return LedgerError(code, message); }

// --- the action row -----------------------------------------------------------------------------

// The record's columns (actioncolumns.h), then the ledger's bookkeeping (from column 24 on).
const QString &actionColumns();
QString qualifiedActionColumns(const QString &alias);
constexpr int kActionRowColumnCount = kActionColumnCount + 4;

// An action row: the record plus the execution bookkeeping ActionRecord does not carry.
struct ActionRow
{
    ActionRecord record;
    bool reviewRequested = false;
    QString leaseOwner;
    std::optional<qint64> leaseExpiresAtMs;
    QString proposedPayload; // compact JSON of the original proposal
    // Set by a change that the action's own columns do not show (its settlement, issue 18): the
    // record the API shows changed all the same, so saveAction moves state_version (the ETag).
    bool recordChanged = false;

    bool hasLiveLease(qint64 nowMs) const
    {
        return !leaseOwner.isEmpty() && leaseExpiresAtMs && *leaseExpiresAtMs > nowMs;
    }
    bool holdsLiveLease(const QString &executor, qint64 nowMs) const
    {
        return hasLiveLease(nowMs) && leaseOwner == executor;
    }
    void clearLease()
    {
        leaseOwner.clear();
        leaseExpiresAtMs.reset();
    }
};

ActionRow actionFromRow(const sql::Statement &q);
// Inside a write body on PostgreSQL the row is locked FOR UPDATE until the transaction ends.
bool loadAction(QSqlDatabase &db, const QString &actionId, ActionRow *row, LedgerError *error);
// loadAction, then the If-Match check when expectedStateVersion is given (StaleVersion).
bool loadForChange(QSqlDatabase &db, const QString &actionId, std::optional<qint64> expectedStateVersion,
                   ActionRow *row, LedgerError *error);
// ... then IllegalTransition unless the action is in `state` ("only a PENDING action <what>;
// act_… is X", what: "can be approved").
bool loadInState(QSqlDatabase &db, const QString &actionId, std::optional<qint64> expectedStateVersion,
                 ActionState state, const QString &what, ActionRow *row, LedgerError *error);

// The mutable part of an action as JSON, for audit before/after.
QJsonObject snapshot(const ActionRow &row);

// The one way an action's state changes here: through StateMachine::apply. Entering
// REQUIRES_REVIEW records why; any state change ends the current lease.
LedgerError applyTrigger(ActionRow &row, Trigger trigger, const QString &reason);

// Writes every mutable column of `after` if the row is still exactly `before` (state and
// state_version in the WHERE clause, row count checked): a second writer can never both win.
// state_version (the API's ETag) and updated_at move with every change of the record; a write
// that only takes, renews or releases a lease keeps both, so that an executor's bookkeeping never
// makes a reviewer's If-Match stale.
// The same UPDATE moves the queue's sort columns the triggers of migration 5 keep, so that they
// find nothing left to change and the row is written once, not three times (each write of an
// action's row is a new version in every one of its indexes on PostgreSQL): last_event_at to
// `now`, because every saveAction is followed by the audit row of its change stamped `now`
// (commitChange, claimRow), and attempt_count to attemptsAfter when the caller is about to
// insert that attempt (0: the caller inserts none; the trigger counts any it does).
LedgerError saveAction(QSqlDatabase &db, const ActionRow &before, ActionRow &after, const QDateTime &now,
                       int attemptsAfter = 0);

// The audit row of a change of one action: before/after snapshots, `after` carrying `detail`
// under detailKey when given (the approval, attempt, lookup, reconciliation it rests on).
struct AuditNote
{
    QString actor;
    QString event;
    QString reason;
    QString detailKey;
    QJsonObject detail;
};
LedgerError auditChange(QSqlDatabase &db, const QDateTime &now, const ActionRow &before, const ActionRow &after,
                        const AuditNote &note);
// saveAction (unless save is false: the row is unchanged), then auditChange: the end of every
// mutation of an action.
LedgerError commitChange(QSqlDatabase &db, const QDateTime &now, const ActionRow &before, ActionRow &after,
                         const AuditNote &note, bool save = true);

// --- checks ----------------------------------------------------------------------------------------

LedgerError requireText(const QString &value, const QString &what, qsizetype maxLength = kMaxTextField);
LedgerError checkNote(const QString &note);
LedgerError checkRefundReason(const QString &reason);
// One of Approval::rejectionReasons().
LedgerError checkRejectionReason(const QString &reason);
QString truncated(const QString &value, qsizetype limit);

// --- per-action append-only tables ---------------------------------------------------------------

// COALESCE(MAX(seq), 0) + 1 for one of the per-action tables (approvals: version).
bool nextSeq(QSqlDatabase &db, const QString &table, const QString &actionId, int *seq, LedgerError *error);

const QString &attemptColumns();
Attempt attemptFromRow(const sql::Statement &q);
bool loadAttempts(QSqlDatabase &db, const QString &actionId, QList<Attempt> *out, LedgerError *error);
std::optional<Attempt> openAttempt(const QList<Attempt> &attempts);
// Conflict "attempt n of act_… <what>" when one of the action's attempts is open.
bool requireNoOpenAttempt(QSqlDatabase &db, const QString &actionId, const QString &what, QList<Attempt> *attempts,
                          LedgerError *error);
bool insertAttempt(QSqlDatabase &db, const Attempt &a, LedgerError *error);
// Finishes every open attempt of an action as Unknown: the process that sent it is gone, so the
// request may or may not have reached the provider. Never failed or rejected (invariant 6).
bool finishOpenAttemptsUnknown(QSqlDatabase &db, const QString &actionId, const QDateTime &now, int *finished,
                               LedgerError *error);

// The approval as execution reads it (kApprovalColumnCount columns; the executor's claim selects
// the same columns itself); the history adds the rejection's reason (migration 10) and the
// policy's policy_version, rule_id and signers (migration 11) and the expiry (migration 13) after them.
constexpr int kApprovalColumnCount = 9;
const QString &approvalColumns();
const QString &approvalHistoryColumns();
Approval approvalHistoryFromRow(const sql::Statement &q);
Approval approvalFromRow(const sql::Statement &q, int first = 0);
bool insertApproval(QSqlDatabase &db, const Approval &a, LedgerError *error);

const QString &lookupColumns();
ProviderLookup lookupFromRow(const sql::Statement &q);

const QString &reconciliationColumns();
Reconciliation reconciliationFromRow(const sql::Statement &q);

} // namespace cs::rows
