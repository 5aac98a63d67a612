#include "server/ledger/approvalstore.h"

#include "server/ledger/chargestore.h"
#include "server/ledger/ids.h"
#include "server/ledger/ledgerdatabase.h"
#include "server/ledger/ledgerrows.h"

#include "models/fingerprint.h"

namespace cs {

using namespace rows;

namespace {

// What approve checks before it signs: four-eyes, never sent, the fingerprint still the payload's.
LedgerError checkSignable(QSqlDatabase &db, const ActionRow &row, const QString &approver)
{
    const QString &actionId = row.record.id;
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
    return {};
}

} // namespace

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
    ActionRecord out;
    error = m_db.write(operation, [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        ActionRow row;
        if (!loadForChange(db, actionId, expectedStateVersion, &row, &e))
            return e;
        ActionRow after = row;
        if (approve) {
            if (row.record.state != ActionState::Pending)
                return err(Code::IllegalTransition, QStringLiteral("only a PENDING action can be approved; %1 is %2")
                                                        .arg(actionId, toWire(row.record.state)));
            e = checkSignable(db, row, who);
            // Issue 14: not more than the charge can still refund, counting what is approved and
            // queued, in flight, unknown, under review or completed since the provider's last word.
            if (e.ok())
                e = ChargeStore::requireRoomIn(db, row.record, ChargeBudget::Stage::Approval,
                                               QStringLiteral("%1 cannot be approved").arg(actionId));
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

} // namespace cs
