#include "server/ledger/proposalstore.h"

#include "server/ledger/approvalstore.h"
#include "server/ledger/auditchain.h"
#include "server/ledger/chargestore.h"
#include "server/ledger/ids.h"
#include "server/ledger/ledgerdatabase.h"
#include "server/ledger/ledgerrows.h"

#include "models/fingerprint.h"
#include "models/money.h"

namespace cs {

using namespace sql;
using namespace rows;

namespace {

// What an agent submitted, for comparing resubmissions: proposalPayload() plus the provider and
// parent, which change what would be sent just as much, and the agent's reasons when it gave any
// (absent when empty: a proposal stored before they existed compares as it always did).
QJsonObject submittedPayload(const ActionRecord &record)
{
    QJsonObject payload = record.proposalPayload();
    const QJsonObject reasons = record.reasonsPayload();
    for (auto it = reasons.begin(); it != reasons.end(); ++it)
        payload.insert(it.key(), it.value());
    payload.insert(QStringLiteral("provider"), record.provider);
    payload.insert(QStringLiteral("provider_account"), record.providerAccount);
    payload.insert(QStringLiteral("parent_id"), record.parentId);
    return payload;
}

// Normalizes through one parse so number representations compare equal.
QString canonicalPayload(const QJsonObject &payload)
{
    return compactJson(parseJson(compactJson(payload)));
}

// The agent's reasons within the limits the API enforces (the API names the field; this is the
// ledger's own guard for any other caller).
LedgerError checkReasons(const ProposalStore::ProposalInput &input)
{
    if (input.justification.size() > kMaxNote)
        return err(Code::Invalid, QStringLiteral("justification is longer than %1 characters").arg(kMaxNote));
    if (input.contextUrl.size() > kMaxContextUrl)
        return err(Code::Invalid, QStringLiteral("context_url is longer than %1 characters").arg(kMaxContextUrl));
    if (!input.contextUrl.isEmpty() && !input.contextUrl.startsWith(QLatin1String("https://")))
        return err(Code::Invalid, QStringLiteral("context_url must be an https:// URL"));
    if (input.facts.size() > kMaxFacts)
        return err(Code::Invalid, QStringLiteral("facts has more than %1 members").arg(kMaxFacts));
    for (auto it = input.facts.cbegin(); it != input.facts.cend(); ++it) {
        if (it.key().isEmpty() || it.key().size() > kMaxFactKey || it.value().size() > kMaxFactValue)
            return err(Code::Invalid, QStringLiteral("facts.%1 is outside the limits").arg(it.key()));
    }
    return {};
}

LedgerError checkInput(const ProposalStore::ProposalInput &input, const QString &requestedBy)
{
    LedgerError error = requireText(requestedBy, QStringLiteral("requested_by"));
    if (error.ok() && input.kind != u"refund")
        error = err(Code::Invalid, QStringLiteral("kind must be \"refund\", not \"%1\"").arg(input.kind));
    if (error.ok())
        error = requireText(input.targetId, QStringLiteral("target id"));
    if (error.ok())
        error = requireText(input.clientReference, QStringLiteral("client_reference"));
    if (error.ok())
        error = requireText(input.provider, QStringLiteral("provider"));
    if (error.ok() && input.businessReference.size() > kMaxTextField)
        error = err(Code::Invalid, QStringLiteral("business_reference is longer than 255 characters"));
    if (error.ok() && input.providerAccount.size() > kMaxTextField)
        error = err(Code::Invalid, QStringLiteral("provider_account is longer than 255 characters"));
    if (error.ok())
        error = checkRefundReason(input.reason);
    if (error.ok())
        error = checkReasons(input);
    return error;
}

// A positive amount in minor units of currency.
LedgerError checkAmount(qint64 amount, const QString &currency, const QString &invalid, std::optional<Money> *money)
{
    QString moneyError;
    *money = Money::fromMinorUnits(amount, currency, &moneyError);
    if (!*money)
        return err(Code::Invalid, moneyError.isEmpty() ? invalid : moneyError);
    if ((*money)->minorUnits() <= 0)
        return err(Code::Invalid, QStringLiteral("a refund amount must be positive"));
    return {};
}

// A changed resubmission of `stored` (invariant 5): recorded, the stored record never changes,
// and execution stops for a human — at once, or when the request in flight finishes.
LedgerError recordConflict(QSqlDatabase &db, const QDateTime &now, const ActionRow &stored, const QString &requestedBy,
                           const QString &clientReference, const QJsonObject &candidatePayload,
                           ProposalStore::ProposeResult *result)
{
    LedgerError e;
    result->status = ProposalStore::ProposeResult::Status::Conflict;
    result->conflictingPayload = candidatePayload;
    int seq = 0;
    if (!nextSeq(db, QStringLiteral("conflicts"), stored.record.id, &seq, &e))
        return e;
    Statement conflict(db);
    if (!run(conflict,
             QStringLiteral("INSERT INTO conflicts (action_id, seq, submitted_by, at, stored_payload,"
                            " conflicting_payload) VALUES (?, ?, ?, ?, ?, ?)"),
             {stored.record.id, seq, requestedBy, toMs(now), stored.proposedPayload, compactJson(candidatePayload)},
             &e)) {
        return e;
    }
    const QString why = QStringLiteral("resubmission #%1 by %2 under client_reference \"%3\" changed the"
                                       " payload; the stored action is unchanged")
                            .arg(seq).arg(requestedBy, clientReference);
    e = AuditChain::append(db, now, stored.record.id, requestedBy, QStringLiteral("resubmission_conflict"), why,
                           result->storedPayload, candidatePayload);
    if (!e.ok())
        return e;

    QList<Attempt> attempts;
    if (!loadAttempts(db, stored.record.id, &attempts, &e))
        return e;
    const bool inFlight = stored.record.state == ActionState::Executing || openAttempt(attempts).has_value();
    ActionRow after = stored;
    QString event;
    if (inFlight) {
        // A request may be on the wire: the executor escalates when it finishes.
        if (stored.reviewRequested)
            return {};
        after.reviewRequested = true;
        event = QStringLiteral("review_requested");
    } else if (stored.record.state == ActionState::Pending || stored.record.state == ActionState::ConfirmationUnknown) {
        e = applyTrigger(after, Trigger::StopForReview, why);
        if (!e.ok())
            return e;
        event = QStringLiteral("state_changed");
    } else {
        return {}; // COMPLETED, REJECTED, REQUIRES_REVIEW: recorded, state unchanged
    }
    e = commitChange(db, now, stored, after, {QStringLiteral("system"), event, why, {}, {}});
    if (!e.ok())
        return e;
    result->record = after.record;
    result->reviewRequested = after.reviewRequested;
    return {};
}

// A fresh action id that no row has (ids are random; a clash is retried a few times).
LedgerError mintActionId(QSqlDatabase &db, QString *id)
{
    LedgerError e;
    for (int tries = 0;; ++tries) {
        *id = Ids::newActionId();
        ActionRow clash;
        if (!loadAction(db, *id, &clash, &e))
            return e.code() == Code::NotFound ? LedgerError() : e;
        if (tries > 3)
            return err(Code::Storage, QStringLiteral("could not mint a unique action id"));
    }
}

} // namespace

LedgerResult<ProposalStore::ProposeResult> ProposalStore::propose(const ProposalInput &input, const QString &requestedBy)
{
    LedgerError error = checkInput(input, requestedBy);
    if (!error.ok())
        return error;
    std::optional<Money> money;
    error = checkAmount(input.amount, input.currency, QStringLiteral("invalid amount or currency"), &money);
    if (!error.ok())
        return error;

    ActionRecord candidate;
    candidate.kind = input.kind;
    candidate.targetType = input.targetType;
    candidate.targetId = input.targetId;
    candidate.businessReference = input.businessReference;
    candidate.amount = money->minorUnits();
    candidate.currency = money->currency();
    candidate.reason = input.reason;
    candidate.provider = input.provider;
    candidate.providerAccount = input.providerAccount;
    candidate.requestedBy = requestedBy;
    candidate.clientReference = input.clientReference;
    candidate.parentId = input.parentId;
    candidate.justification = input.justification;
    candidate.contextUrl = input.contextUrl;
    candidate.facts = input.facts;
    const QJsonObject candidatePayload = submittedPayload(candidate);

    ProposeResult result;
    error = m_db.write("propose", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        result = ProposeResult();
        LedgerError e;
        Statement existing(db);
        if (!run(existing,
                 QStringLiteral("SELECT %1 FROM actions WHERE requested_by = ? AND client_reference = ?")
                     .arg(actionColumns()),
                 {requestedBy, input.clientReference}, &e)) {
            return e;
        }
        if (existing.next()) {
            const ActionRow stored = actionFromRow(existing);
            existing.finish();
            result.record = stored.record;
            result.storedPayload = parseJson(stored.proposedPayload);
            result.reviewRequested = stored.reviewRequested;
            if (canonicalPayload(result.storedPayload) == canonicalPayload(candidatePayload)) {
                result.status = ProposeResult::Status::Existing;
                return {};
            }
            return recordConflict(db, now, stored, requestedBy, input.clientReference, candidatePayload, &result);
        }
        existing.finish();

        if (!input.parentId.isEmpty()) {
            ActionRow parent;
            if (!loadAction(db, input.parentId, &parent, &e)) {
                if (e.code() == Code::NotFound)
                    return err(Code::Invalid, QStringLiteral("parent action %1 does not exist").arg(input.parentId));
                return e;
            }
        }
        if (input.charge) {
            ChargeStore::Recorded recorded;
            e = ChargeStore::recordIn(db, now, *input.charge, &recorded);
            if (!e.ok())
                return e;
        }
        ActionRow row;
        row.record = candidate;
        ActionRecord &r = row.record;
        // Issue 14: a new proposal must fit what its charge can still refund, counting every open
        // proposal on it (two racing proposals wait for each other on the charge's lock).
        e = ChargeStore::requireRoomIn(db, r, ChargeBudget::Stage::Proposal,
                                       QStringLiteral("a refund of %1 cannot be proposed").arg(r.targetId));
        if (!e.ok())
            return e;
        e = mintActionId(db, &r.id);
        if (!e.ok())
            return e;
        r.requestFingerprint = requestFingerprint(r.providerRequest());
        r.idempotencyKey.clear();
        r.approvalVersion = 0;
        r.state = ActionState::Pending;
        r.stateVersion = 1;
        r.createdAt = now;
        r.updatedAt = now;
        row.proposedPayload = compactJson(candidatePayload);
        Statement insert(db);
        if (!run(insert,
                 QStringLiteral("INSERT INTO actions (%1) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
                                " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                     .arg(actionColumns()),
                 {r.id, r.kind, toWire(r.targetType), r.targetId, text(r.businessReference), r.amount, r.currency,
                  text(r.reason), r.provider, text(r.providerAccount), r.requestedBy, r.clientReference,
                  textOrNull(r.parentId), r.requestFingerprint, text(r.idempotencyKey), r.approvalVersion,
                  toWire(r.state), r.stateVersion, text(r.reviewReason), toMs(r.createdAt), toMs(r.updatedAt),
                  text(r.justification), text(r.contextUrl), compactJson(factsToJson(r.facts)), 0,
                  textOrNull(QString()), msOrNull(std::optional<qint64>()), row.proposedPayload},
                 &e)) {
            return e;
        }
        QString why = QStringLiteral("proposed under client_reference \"%1\"").arg(r.clientReference);
        QJsonObject after = r.toJson();
        if (!input.note.isEmpty()) {
            why += QStringLiteral(": ") + input.note;
            after.insert(QStringLiteral("note"), input.note);
        }
        e = AuditChain::append(db, now, r.id, requestedBy, QStringLiteral("proposed"), why, {}, after);
        if (!e.ok())
            return e;
        // Issue 14: the policy's own approval, in this transaction: never a PENDING moment unapproved.
        if (input.policy) {
            e = ApprovalStore::autoApproveIn(db, now, *input.policy, &row, &result.autoApproval);
            if (!e.ok())
                return e;
        }
        result.status = ProposeResult::Status::Created;
        result.record = r;
        result.storedPayload = candidatePayload;
        return {};
    });
    return resultOf(error, result);
}

LedgerResult<ActionRecord> ProposalStore::amendBeforeSending(const QString &actionId, const QString &who,
                                                             qint64 newAmount, const QString &newReason,
                                                             qint64 expectedStateVersion)
{
    LedgerError error = requireText(who, QStringLiteral("who"));
    if (error.ok())
        error = checkRefundReason(newReason);
    if (!error.ok())
        return error;
    ActionRecord out;
    error = m_db.write("amend", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        ActionRow row;
        if (!loadInState(db, actionId, expectedStateVersion, ActionState::Pending, QStringLiteral("can be amended"),
                         &row, &e))
            return e;
        QList<Attempt> attempts;
        if (!loadAttempts(db, actionId, &attempts, &e))
            return e;
        if (!attempts.isEmpty())
            return err(Code::Forbidden, QStringLiteral("%1 has been sent; its payload is frozen (invariant 2)")
                                            .arg(actionId));
        std::optional<Money> money;
        e = checkAmount(newAmount, row.record.currency, QStringLiteral("invalid amount"), &money);
        if (!e.ok())
            return e;
        ActionRow after = row;
        after.record.amount = money->minorUnits();
        after.record.reason = newReason;
        after.record.requestFingerprint = requestFingerprint(after.record.providerRequest());
        // The old approval signed another request: a new approval must sign this one and mint its key.
        after.record.idempotencyKey.clear();
        // A larger amount must still fit, as a new proposal must.
        if (after.record.amount > row.record.amount) {
            e = ChargeStore::requireRoomIn(db, after.record, ChargeBudget::Stage::Proposal,
                                           QStringLiteral("%1 cannot be amended to that amount").arg(actionId));
            if (!e.ok())
                return e;
        }
        e = commitChange(db, now, row, after,
                         {who, QStringLiteral("amended"),
                          QStringLiteral("amended before sending; a new approval is required"), {}, {}});
        out = after.record;
        return e;
    });
    return resultOf(error, out);
}

LedgerResult<QList<ProposalStore::ResubmissionConflict>> ProposalStore::conflicts(const QString &actionId) const
{
    QList<ResubmissionConflict> out;
    const LedgerError error = m_db.query(
        QStringLiteral("SELECT action_id, seq, submitted_by, at, stored_payload, conflicting_payload"
                       " FROM conflicts WHERE action_id = ? ORDER BY seq"),
        {actionId}, [&](const Statement &q) {
            out.append(ResubmissionConflict{q.value(0).toString(), q.value(1).toInt(), q.value(2).toString(),
                                            fromMs(q.value(3).toLongLong()), parseJson(q.value(4).toString()),
                                            parseJson(q.value(5).toString())});
        });
    return resultOf(error, out);
}

} // namespace cs
