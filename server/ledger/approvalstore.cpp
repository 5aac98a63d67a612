#include "server/ledger/approvalstore.h"

#include "server/ledger/actionreader.h"
#include "server/ledger/auditchain.h"
#include "server/ledger/chargestore.h"
#include "server/ledger/ids.h"
#include "server/ledger/ledgerdatabase.h"
#include "server/ledger/ledgerrows.h"
#include "server/ledger/sqlstatement.h"

#include "models/fingerprint.h"

#include <QJsonArray>
#include <QMutexLocker>
#include <QSet>

#include <limits>

namespace cs {

using namespace rows;

namespace {

// Issue 14, "Two refunds for one business need": an action with possible duplicates
// (ActionReader::possibleDuplicatesIn: the same charge or business reference, another action not
// REJECTED, outside its own follow-up chain) is signed only with a note saying why both are
// intended. Invalid with detail {problem: "note_required", possible_duplicates: [...]} otherwise.
LedgerError requireDuplicateNote(QSqlDatabase &db, const ActionRecord &action, const QString &note)
{
    if (!note.trimmed().isEmpty())
        return {};
    QList<ActionReader::PossibleDuplicate> duplicates;
    if (const LedgerError e = ActionReader::possibleDuplicatesIn(db, {action.id}, &duplicates); !e.ok())
        return e;
    if (duplicates.isEmpty())
        return {};
    QJsonArray listed;
    QStringList ids;
    for (const ActionReader::PossibleDuplicate &d : std::as_const(duplicates)) {
        const ActionRecord &other = d.other.record;
        ids << other.id;
        listed.append(QJsonObject{
            {QStringLiteral("id"), other.id},
            {QStringLiteral("state"), toWire(other.state)},
            {QStringLiteral("amount"), QJsonValue(other.amount)},
            {QStringLiteral("currency"), other.currency},
            {QStringLiteral("requested_by"), other.requestedBy},
            {QStringLiteral("created_at"), toWireTime(other.createdAt)},
            {QStringLiteral("same"), d.sameBusinessReference ? QStringLiteral("business_reference")
                                                              : QStringLiteral("charge")},
        });
    }
    // The message names a few; the detail lists them all.
    constexpr int kNamed = 3;
    const QString named = ids.size() <= kNamed
        ? ids.join(QStringLiteral(", "))
        : QStringLiteral("%1 and %2 more").arg(ids.mid(0, kNamed).join(QStringLiteral(", "))).arg(ids.size() - kNamed);
    return LedgerError(Code::Invalid,
                       QStringLiteral("%1 may duplicate %2: approving it needs a note saying why both are intended")
                           .arg(action.id, named),
                       QJsonObject{{QStringLiteral("problem"), QStringLiteral("note_required")},
                                   {QStringLiteral("possible_duplicates"), listed}});
}

// What approve checks before it signs: four-eyes, never sent, the fingerprint still the payload's,
// the charge's budget, and a note when the action may duplicate another. Every check an approval
// (or a quorum's signature) must pass goes here.
LedgerError checkSignable(QSqlDatabase &db, const ActionRow &row, const QString &approver,
                          const QString &note = QString())
{
    const QString &actionId = row.record.id;
    if (row.record.state != ActionState::Pending)
        return err(Code::IllegalTransition, QStringLiteral("only a PENDING action can be approved; %1 is %2")
                                                .arg(actionId, toWire(row.record.state)));
    if (approver == row.record.requestedBy)
        return err(Code::Forbidden, QStringLiteral("four-eyes rule: %1 proposed %2 and cannot approve it")
                                        .arg(approver, actionId));
    LedgerError e;
    QList<Attempt> attempts;
    if (!loadAttempts(db, actionId, &attempts, &e))
        return e;
    if (!attempts.isEmpty())
        return err(Code::Forbidden, QStringLiteral("%1 has been sent; a fresh key is only minted for an action"
                                                   " never sent (invariant 4)").arg(actionId));
    if (requestFingerprint(row.record.providerRequest()) != row.record.requestFingerprint)
        return err(Code::Conflict, QStringLiteral("the stored fingerprint of %1 does not match its payload;"
                                                  " refusing to sign it").arg(actionId));
    // Issue 14: not more than the charge can still refund, counting what is approved and
    // queued, in flight, unknown, under review or completed since the provider's last word.
    e = ChargeStore::requireRoomIn(db, row.record, ChargeBudget::Stage::Approval,
                                   QStringLiteral("%1 cannot be approved").arg(actionId));
    if (!e.ok())
        return e;
    return requireDuplicateNote(db, row.record, note);
}

LedgerError conflict(const QString &problem, const QString &message)
{
    return LedgerError(Code::Conflict, message, QJsonObject{{QStringLiteral("problem"), problem}});
}

// The audit seq of the action's last amendment (0: never amended): a signature's epoch.
bool voidEpoch(QSqlDatabase &db, const QString &actionId, qint64 *epoch, LedgerError *error)
{
    sql::Statement q(db);
    if (!run(q, QStringLiteral("SELECT COALESCE(MAX(seq), 0) FROM audit WHERE action_id = ? AND event = 'amended'"),
             {actionId}, error))
        return false;
    *epoch = q.next() ? q.value(0).toLongLong() : 0;
    return true;
}

// The signatures that count for the action as it is now, oldest first: this round, this epoch,
// this fingerprint, and under an approval expiry of T seconds none older than T (docs/POLICY.md).
bool currentSignatures(QSqlDatabase &db, const ActionRecord &action, qint64 epoch, const QDateTime &now,
                       const Policy::Requirement &requirement, QList<Approval::Signer> *out, LedgerError *error)
{
    const qint64 notBefore = requirement.expiresAfterSeconds
        ? sql::toMs(now) - *requirement.expiresAfterSeconds * 1000 + 1 // signed_at > now - T
        : std::numeric_limits<qint64>::min();
    sql::Statement q(db);
    if (!run(q, QStringLiteral("SELECT signed_by, signed_at FROM approval_signatures WHERE action_id = ?"
                               " AND approval_round = ? AND void_epoch = ? AND fingerprint = ? AND signed_at >= ?"
                               " ORDER BY seq"),
             {action.id, action.approvalVersion, epoch, sql::text(action.requestFingerprint), notBefore}, error))
        return false;
    // An approver counts once, whatever the rows say (a renewed signature: migration 13).
    QSet<QString> seen;
    while (q.next()) {
        const QString approver = q.value(0).toString();
        if (!seen.contains(approver)) {
            seen.insert(approver);
            out->append({approver, sql::fromMs(q.value(1).toLongLong())});
        }
    }
    return true;
}

bool hasCurrentApproval(QSqlDatabase &db, const ActionRecord &action, Approval *approval, LedgerError *error)
{
    if (action.approvalVersion <= 0 || action.idempotencyKey.isEmpty())
        return false;
    sql::Statement q(db);
    if (!run(q, QStringLiteral("SELECT %1 FROM approvals WHERE action_id = ? AND version = ?").arg(approvalHistoryColumns()),
             {action.id, action.approvalVersion}, error))
        return false;
    if (!q.next())
        return false;
    *approval = approvalHistoryFromRow(q);
    return approval->decision == Approval::Decision::Approved
        && approval->approvedFingerprint == action.requestFingerprint;
}

// PostgreSQL: the lock auto-approvals take before they count the day's total (SQLite: the write
// lock already serialises them). Taken after the charge's row lock, and nothing but the audit
// chain's lock is taken after it, so it cannot deadlock.
constexpr qint64 kAutoApprovalLockKey = 0x4175746f41707221; // "AutoApr!"

// The agent's auto-approved total in `currency` of the UTC day of `now` (actions proposed and
// approved by the policy that day: an auto-approval is made in the proposal's transaction).
bool autoApprovedToday(QSqlDatabase &db, const QDateTime &now, const QString &agent, const QString &currency,
                       qint64 *total, LedgerError *error)
{
    const QDateTime dayStart(now.toUTC().date(), QTime(0, 0), Qt::UTC);
    sql::Statement q(db);
    if (!run(q, QStringLiteral("SELECT COALESCE(SUM(a.amount), 0) FROM actions a WHERE a.requested_by = ?"
                               " AND a.created_at >= ? AND a.created_at < ? AND a.currency = ?"
                               " AND EXISTS (SELECT 1 FROM approvals p WHERE p.action_id = a.id AND p.decided_by = ?"
                               "   AND p.decision = 'approved' AND p.decided_at >= ? AND p.decided_at < ?)"),
             {agent, sql::toMs(dayStart), sql::toMs(dayStart.addDays(1)), currency, Approval::policyApprover(),
              sql::toMs(dayStart), sql::toMs(dayStart.addDays(1))},
             error))
        return false;
    *total = q.next() ? q.value(0).toLongLong() : 0;
    return true;
}

} // namespace

LedgerError ApprovalStore::autoApproveIn(QSqlDatabase &db, const QDateTime &now, const Policy &policy, ActionRow *row,
                                         std::optional<Approval> *approval)
{
    approval->reset();
    const Policy::Requirement requirement = policy.requirementFor(row->record);
    if (!requirement.autoApprovable)
        return {};
    const PolicyRule::AutoApprove &rule = *requirement.autoApprove;
    const ActionRecord &action = row->record;
    const QString &policyName = Approval::policyApprover();
    const QString needs = requirement.approvals > 1 ? QStringLiteral("; it needs %1 approvers").arg(requirement.approvals)
                                                    : QStringLiteral("; it needs an approver");
    const auto skip = [&](const QString &why, const QJsonObject &detail) {
        QJsonObject after = detail;
        after.insert(QStringLiteral("rule_id"), requirement.ruleId);
        after.insert(QStringLiteral("policy_version"), requirement.policyVersion);
        return AuditChain::append(db, now, action.id, policyName, QStringLiteral("auto_approval_skipped"),
                                  QStringLiteral("not auto-approved by rule %1 (policy version %2): %3%4")
                                      .arg(requirement.ruleId).arg(requirement.policyVersion).arg(why, needs),
                                  {}, after);
    };
    LedgerError e;
    if (sql::isPostgres(db)) {
        sql::Statement lock(db);
        if (!run(lock, QStringLiteral("SELECT pg_advisory_xact_lock(%1)").arg(kAutoApprovalLockKey), {}, &e))
            return e;
    }
    qint64 today = 0;
    if (!autoApprovedToday(db, now, action.requestedBy, action.currency, &today, &e))
        return e;
    if (today > rule.dailyTotal - action.amount) {
        return skip(QStringLiteral("%1 already has %2 of its daily total of %3 %4 auto-approved today (UTC); %5 more"
                                   " would exceed it")
                        .arg(action.requestedBy).arg(today).arg(rule.dailyTotal).arg(action.currency).arg(action.amount),
                    {{QStringLiteral("problem"), QStringLiteral("daily_total")},
                     {QStringLiteral("auto_approved_today"), today},
                     {QStringLiteral("daily_total"), rule.dailyTotal}});
    }
    e = checkSignable(db, *row, policyName);
    if (e.code() == Code::Storage)
        return e;
    if (!e.ok()) {
        QJsonObject detail = e.detail();
        detail.insert(QStringLiteral("problem"), e.code() == Code::OverBudget ? QStringLiteral("exceeds_refundable")
                                                                               : QStringLiteral("not_signable"));
        return skip(e.message(), detail);
    }
    Approval a;
    a.actionId = action.id;
    if (!nextSeq(db, QStringLiteral("approvals"), action.id, &a.version, &e))
        return e;
    a.decidedBy = policyName;
    a.decision = Approval::Decision::Approved;
    a.note = QStringLiteral("auto-approved by rule %1 (policy version %2): at most %3 %4 for %5, %6 of the daily total"
                            " of %7 auto-approved today with it")
                 .arg(requirement.ruleId).arg(requirement.policyVersion).arg(rule.upTo).arg(action.currency)
                 .arg(action.requestedBy).arg(today + action.amount).arg(rule.dailyTotal);
    a.idempotencyKey = Ids::newIdempotencyKey(action.id, a.version);
    a.approvedFingerprint = action.requestFingerprint;
    a.decidedAt = now;
    a.policyVersion = requirement.policyVersion;
    a.ruleId = requirement.ruleId;
    if (requirement.expiresAfterSeconds)
        a.expiresAt = now.addSecs(*requirement.expiresAfterSeconds);
    if (!insertApproval(db, a, &e))
        return e;
    ActionRow after = *row;
    after.record.idempotencyKey = a.idempotencyKey;
    after.record.approvalVersion = a.version;
    e = commitChange(db, now, *row, after,
                     {policyName, QStringLiteral("auto_approved"), a.note, QStringLiteral("approval"), a.toJson()});
    if (!e.ok())
        return e;
    *row = after;
    *approval = a;
    return {};
}

void ApprovalStore::setPolicy(std::shared_ptr<const Policy> policy)
{
    QMutexLocker lock(&m_policyMutex);
    m_policy = std::move(policy);
}

std::shared_ptr<const Policy> ApprovalStore::policy() const
{
    QMutexLocker lock(&m_policyMutex);
    return m_policy;
}

LedgerResult<ActionRecord> ApprovalStore::approve(const QString &actionId, const QString &approver,
                                                  const QString &note, qint64 expectedStateVersion)
{
    return decide("approve", actionId, approver, QString(), note, expectedStateVersion, true);
}

LedgerResult<ActionRecord> ApprovalStore::reject(const QString &actionId, const QString &who, const QString &reason,
                                                 const QString &note, qint64 expectedStateVersion)
{
    return decide("reject", actionId, who, reason, note, expectedStateVersion, false);
}

LedgerResult<ActionRecord> ApprovalStore::decide(const char *operation, const QString &actionId, const QString &who,
                                                 const QString &reason, const QString &note,
                                                 qint64 expectedStateVersion, bool approve)
{
    LedgerError error = requireText(who, approve ? QStringLiteral("approver") : QStringLiteral("who"));
    if (error.ok())
        error = checkNote(note);
    if (error.ok() && !approve)
        error = checkRejectionReason(reason);
    if (error.ok() && reason == u"other" && note.trimmed().isEmpty())
        error = err(Code::Invalid, QStringLiteral("a rejection for reason \"other\" needs a note"));
    if (!error.ok())
        return error;
    const std::shared_ptr<const Policy> policy = this->policy();
    ActionRecord out;
    error = m_db.write(operation, [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        ActionRow row;
        if (!loadForChange(db, actionId, expectedStateVersion, &row, &e))
            return e;
        // An approval past its expiry no longer signs anything: recorded first, so this decision
        // is taken on the action as it stands (asking for approval again).
        bool expired = false;
        e = expireIfDueIn(db, now, &row, &expired);
        if (!e.ok())
            return e;
        ActionRow after = row;
        // The rule is matched on the action as it is inside this transaction (row-locked).
        const Policy::Requirement requirement = policy ? policy->requirementFor(row.record) : Policy::Requirement();
        QList<Approval::Signer> signers;
        if (approve) {
            e = checkSignable(db, row, who, note);
            if (!e.ok())
                return e;
            if (requirement.approvals > 1) {
                Approval current;
                if (hasCurrentApproval(db, row.record, &current, &e))
                    return conflict(QStringLiteral("already_approved"),
                                    QStringLiteral("approval %1 of %2 already signs this request (a quorum of %3)")
                                        .arg(current.version).arg(actionId).arg(requirement.approvals));
                qint64 epoch = 0;
                if (!e.ok() || !voidEpoch(db, actionId, &epoch, &e)
                    || !currentSignatures(db, row.record, epoch, now, requirement, &signers, &e))
                    return e;
                for (const Approval::Signer &s : std::as_const(signers)) {
                    if (s.approver == who)
                        return conflict(QStringLiteral("already_signed"),
                                        QStringLiteral("%1 already signed %2 (%3 of %4 approvals); another approver must"
                                                       " sign").arg(who, actionId).arg(signers.size()).arg(requirement.approvals));
                }
                int seq = 0;
                if (!nextSeq(db, QStringLiteral("approval_signatures"), actionId, &seq, &e))
                    return e;
                // This approver's earlier signatures in this round and epoch, all expired (a live
                // one was refused above): this one is their renewal.
                int renewal = 0;
                {
                    sql::Statement earlier(db);
                    if (!run(earlier, QStringLiteral("SELECT COUNT(*) FROM approval_signatures WHERE action_id = ?"
                                                     " AND approval_round = ? AND void_epoch = ? AND signed_by = ?"),
                             {actionId, row.record.approvalVersion, epoch, sql::text(who)}, &e))
                        return e;
                    renewal = earlier.next() ? earlier.value(0).toInt() : 0;
                }
                sql::Statement insert(db);
                if (!run(insert, QStringLiteral("INSERT INTO approval_signatures (action_id, seq, approval_round, void_epoch,"
                                                " signed_by, fingerprint, required, policy_version, rule_id, note, signed_at,"
                                                " renewal) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
                         {actionId, seq, row.record.approvalVersion, epoch, sql::text(who),
                          sql::text(row.record.requestFingerprint), requirement.approvals, requirement.policyVersion,
                          sql::text(requirement.ruleId), sql::text(note), sql::toMs(now), renewal},
                         &e))
                    return e;
                signers.append({who, now});
                if (signers.size() < requirement.approvals) {
                    // Not yet the quorum: a signature, no key; the action row is unchanged.
                    const QJsonObject detail{{QStringLiteral("approver"), who},
                                             {QStringLiteral("approvals_given"), int(signers.size())},
                                             {QStringLiteral("approvals_required"), requirement.approvals},
                                             {QStringLiteral("policy_version"), requirement.policyVersion},
                                             {QStringLiteral("rule_id"), requirement.ruleId},
                                             {QStringLiteral("approved_fingerprint"), row.record.requestFingerprint},
                                             {QStringLiteral("signers"), signersToJson(signers)}};
                    e = commitChange(db, now, row, after,
                                     {who, QStringLiteral("approval_signed"),
                                      QStringLiteral("%1 of %2 approvals%3").arg(signers.size()).arg(requirement.approvals)
                                          .arg(note.isEmpty() ? QString() : QStringLiteral(": ") + note),
                                      QStringLiteral("signature"), detail},
                                     false);
                    out = after.record;
                    return e;
                }
            }
        } else {
            e = applyTrigger(after, Trigger::HumanReject, note);
        }
        if (!e.ok())
            return e;
        Approval approval;
        approval.actionId = actionId;
        if (!nextSeq(db, QStringLiteral("approvals"), actionId, &approval.version, &e)) // max(version) + 1
            return e;
        approval.decidedBy = who;
        approval.decision = approve ? Approval::Decision::Approved : Approval::Decision::Rejected;
        approval.note = note;
        approval.rejectionReason = reason;
        if (approve) // a rejection mints nothing
            approval.idempotencyKey = Ids::newIdempotencyKey(actionId, approval.version);
        approval.approvedFingerprint = row.record.requestFingerprint; // what was looked at, signed or refused
        approval.decidedAt = now;
        approval.policyVersion = requirement.policyVersion;
        approval.ruleId = requirement.ruleId;
        approval.signers = signers;
        if (approve && requirement.expiresAfterSeconds)
            approval.expiresAt = now.addSecs(*requirement.expiresAfterSeconds);
        if (!insertApproval(db, approval, &e))
            return e;
        if (approve)
            after.record.idempotencyKey = approval.idempotencyKey;
        after.record.approvalVersion = approval.version;
        // The audit's reason is the note; a rejection without one says its reason (both are in the
        // approval row of `after` too).
        const QString why = !approve && note.isEmpty() ? reason : note;
        e = commitChange(db, now, row, after,
                         {who, approve ? QStringLiteral("approved") : QStringLiteral("rejected"), why,
                          QStringLiteral("approval"), approval.toJson()});
        out = after.record;
        return e;
    });
    return resultOf(error, out);
}

LedgerResult<ApprovalStore::Quorum> ApprovalStore::quorum(const QString &actionId) const
{
    const std::shared_ptr<const Policy> policy = this->policy();
    Quorum out;
    const LedgerError error = m_db.read([&](QSqlDatabase &db) {
        LedgerError e;
        ActionRow row;
        if (!loadAction(db, actionId, &row, &e))
            return e;
        out.requirement = policy ? policy->requirementFor(row.record) : Policy::Requirement();
        Approval current;
        if (hasCurrentApproval(db, row.record, &current, &e)) {
            // Decided: what the approval itself recorded.
            out.requirement.approvals = std::max(1, int(current.signers.size()));
            out.requirement.ruleId = current.ruleId;
            out.requirement.policyVersion = current.policyVersion;
            out.given = current.signers.isEmpty() ? QList<Approval::Signer>{{current.decidedBy, current.decidedAt}}
                                                  : current.signers;
            return e;
        }
        qint64 epoch = 0;
        if (e.ok() && voidEpoch(db, actionId, &epoch, &e))
            currentSignatures(db, row.record, epoch, m_db.now(), out.requirement, &out.given, &e);
        return e;
    });
    return resultOf(error, out);
}

LedgerError ApprovalStore::expireIfDueIn(QSqlDatabase &db, const QDateTime &now, ActionRow *row, bool *expired,
                                         const Approval *known)
{
    *expired = false;
    const ActionRecord &action = row->record;
    if (action.state != ActionState::Pending || action.approvalVersion <= 0 || action.idempotencyKey.isEmpty())
        return {};
    LedgerError e;
    Approval approval;
    if (known && known->version == action.approvalVersion) {
        approval = *known;
    } else {
        sql::Statement q(db);
        if (!run(q, QStringLiteral("SELECT %1 FROM approvals WHERE action_id = ? AND version = ?").arg(approvalColumns()),
                 {action.id, action.approvalVersion}, &e))
            return e;
        if (!q.next())
            return {};
        approval = approvalFromRow(q);
    }
    if (approval.decision != Approval::Decision::Approved || !approval.expiresAt.isValid() || approval.expiresAt > now)
        return {};
    QList<Attempt> attempts;
    if (!loadAttempts(db, action.id, &attempts, &e))
        return e;
    if (!attempts.isEmpty())
        return {}; // invariant 4: the key is the action's for good once an attempt exists
    const QString &policyName = Approval::policyApprover();
    const QString note = QStringLiteral("approval v%1 by %2 (%3) was not sent by %4, when it expired (rule %5, policy"
                                        " version %6); its key was never used: %7 needs approval again")
                             .arg(approval.version)
                             .arg(approval.decidedBy, toWireTime(approval.decidedAt), toWireTime(approval.expiresAt))
                             .arg(approval.ruleId.isEmpty() ? QStringLiteral("-") : approval.ruleId)
                             .arg(approval.policyVersion)
                             .arg(action.id);
    sql::Statement insert(db);
    if (!run(insert, QStringLiteral("INSERT INTO approval_expiries (action_id, approval_version, expired_by, expired_at,"
                                    " note) VALUES (?, ?, ?, ?, ?)"),
             {action.id, approval.version, policyName, sql::toMs(now), sql::text(note)}, &e))
        return e;
    approval.expiredAt = now;
    ActionRow after = *row;
    after.record.idempotencyKey.clear();
    e = commitChange(db, now, *row, after,
                     {policyName, QStringLiteral("approval_expired"), note, QStringLiteral("approval"), approval.toJson()});
    if (!e.ok())
        return e;
    *row = after;
    *expired = true;
    return {};
}

LedgerResult<int> ApprovalStore::expireDue(LedgerDatabase &database, int limit)
{
    int count = 0;
    const LedgerError error = database.write("expire approvals", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        count = 0;
        LedgerError e;
        QStringList due;
        {
            // The state as a range of one value: actions_by_state_created (see candidateSql).
            sql::Statement q(db);
            if (!run(q, QStringLiteral("SELECT a.id FROM actions a JOIN approvals p ON p.action_id = a.id"
                                       " AND p.version = a.approval_version"
                                       " WHERE a.state >= 'PENDING' AND a.state <= 'PENDING' AND a.idempotency_key <> ''"
                                       " AND p.decision = 'approved' AND p.expires_at IS NOT NULL AND p.expires_at <= ?"
                                       " ORDER BY a.state, a.created_at, a.id LIMIT %1").arg(limit),
                     {sql::toMs(now)}, &e))
                return e;
            while (q.next())
                due << q.value(0).toString();
        }
        for (const QString &id : std::as_const(due)) {
            ActionRow row;
            if (!loadForChange(db, id, std::nullopt, &row, &e))
                return e;
            bool expired = false;
            e = expireIfDueIn(db, now, &row, &expired);
            if (!e.ok())
                return e;
            count += expired ? 1 : 0;
        }
        return e;
    });
    return resultOf(error, count);
}

LedgerResult<QHash<QString, ApprovalStore::Quorum>> ApprovalStore::awaitingQuorums(const QList<ActionRecord> &actions) const
{
    const std::shared_ptr<const Policy> policy = this->policy();
    QHash<QString, Quorum> out;
    if (!policy)
        return out;
    const LedgerError error = m_db.read([&](QSqlDatabase &db) {
        LedgerError e;
        const QDateTime now = m_db.now();
        for (const ActionRecord &action : actions) {
            if (action.state != ActionState::Pending)
                continue;
            Quorum quorum;
            quorum.requirement = policy->requirementFor(action);
            if (quorum.requirement.approvals <= 1)
                continue;
            if (!action.idempotencyKey.isEmpty()) {
                // Approved and queued: the approval's signers are the quorum.
                Approval current;
                if (hasCurrentApproval(db, action, &current, &e)) {
                    quorum.requirement.approvals = std::max(1, int(current.signers.size()));
                    quorum.given = current.signers.isEmpty()
                        ? QList<Approval::Signer>{{current.decidedBy, current.decidedAt}}
                        : current.signers;
                } else if (!e.ok()) {
                    return e;
                }
            } else {
                qint64 epoch = 0;
                if (!voidEpoch(db, action.id, &epoch, &e)
                    || !currentSignatures(db, action, epoch, now, quorum.requirement, &quorum.given, &e))
                    return e;
            }
            out.insert(action.id, quorum);
        }
        return e;
    });
    return resultOf(error, out);
}

} // namespace cs
