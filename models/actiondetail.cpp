#include "models/actiondetail.h"
#include "models/reviewexplanation.h"

#include "models/jsonfieldreader.h"
#include "models/refundstatus.h"

#include "models/displayformat.h"

#include <QCoreApplication>
#include <QJsonArray>

namespace cs {

using namespace wire;

namespace {

template <typename T>
bool readList(const QJsonObject &json, QLatin1String key, QList<T> *out, QString *error)
{
    const QJsonValue value = json.value(key);
    if (value.isUndefined() || value.isNull())
        return true; // older servers: treat as empty
    if (!value.isArray()) {
        *error = key + QLatin1String(": must be an array");
        return false;
    }
    const QJsonArray array = value.toArray();
    out->reserve(array.size());
    for (qsizetype i = 0; i < array.size(); ++i) {
        QString itemError;
        std::optional<T> item = T::fromJson(array.at(i).toObject(), &itemError);
        if (!item) {
            *error = QStringLiteral("%1[%2].%3").arg(key).arg(i).arg(itemError);
            return false;
        }
        out->append(std::move(*item));
    }
    return true;
}

PermissionEntry readPermission(const QJsonObject &permissions, QLatin1String key)
{
    const QJsonObject entry = permissions.value(key).toObject();
    PermissionEntry result;
    result.allowed = entry.value(QLatin1String("allowed")).toBool(false);
    result.reason = entry.value(QLatin1String("reason")).toString();
    return result;
}

std::optional<PayloadConflict> conflictFromJson(const QJsonObject &json, QString *error)
{
    FieldReader in(json);
    PayloadConflict conflict;
    conflict.seq = int(in.integer(QLatin1String("seq"), 0, std::numeric_limits<int>::max(),
                                  FieldReader::Need::Optional, 0));
    conflict.submittedBy = in.string(QLatin1String("submitted_by"));
    conflict.at = in.time(QLatin1String("at"));
    conflict.storedPayload = in.object(QLatin1String("stored_payload"));
    conflict.conflictingPayload = in.object(QLatin1String("conflicting_payload"));
    return finish(in, std::move(conflict), error);
}

} // namespace

ActionSummary ActionDetail::summary() const
{
    ActionSummary row;
    row.record = record;
    row.attemptCount = int(attempts.size());
    row.lastEventAt = audit.isEmpty() ? record.updatedAt : audit.constLast().at;
    row.possibleDuplicates = int(possibleDuplicates.size());
    if (settlement) {
        row.settlementStatus = settlement->status;
        row.settlementReview = settlement->needsReview();
    }
    row.discrepancy = discrepancy && discrepancy->isOpen();
    row.queued = record.isQueued();
    // The list's "1 of 2" (ActionSummary::approvalsRequired): the same as GET /actions says.
    if (quorum.isDualControl() && record.state == ActionState::Pending) {
        row.approvalsRequired = quorum.required;
        for (const Quorum::Signature &s : quorum.given)
            row.approvalsGiven.append({s.approver, s.signedAt});
    }
    return row;
}

std::optional<qint64> ActionDetail::committedAmount() const
{
    if (record.state == ActionState::Rejected)
        return 0;
    if (record.state != ActionState::Completed)
        return std::nullopt;
    if (settlement && settlement->moneyReturned())
        return 0; // accepted, then failed or canceled: no money moved
    for (auto it = lookups.crbegin(); it != lookups.crend(); ++it) {
        if (it->result == ProviderLookup::Result::Found
            && provesCommitted(it->status))
            return it->amount;
    }
    for (const Attempt &attempt : attempts) {
        if (attempt.outcome == Attempt::Outcome::Succeeded
            && attempt.requestFingerprint == record.requestFingerprint)
            return record.amount;
    }
    // COMPLETED without evidence in the detail (should not happen): the recorded amount.
    return record.amount;
}

const ProviderLookup *ActionDetail::lookup(int seq) const
{
    for (const ProviderLookup &l : lookups) {
        if (l.seq == seq)
            return &l;
    }
    return nullptr;
}

std::optional<ActionDetail> ActionDetail::fromJson(const QJsonObject &json, QString *error)
{
    const auto fail = [error](const QString &message) -> std::optional<ActionDetail> {
        if (error)
            *error = message;
        return std::nullopt;
    };
    QString problem;
    std::optional<ActionRecord> record = ActionRecord::fromJson(json, &problem);
    if (!record)
        return fail(problem);

    ActionDetail detail;
    detail.record = std::move(*record);
    detail.keyWindowEndsAt = timeFromWire(json.value(QLatin1String("key_window_ends_at")).toString());
    if (!readList(json, QLatin1String("attempts"), &detail.attempts, &problem)
        || !readList(json, QLatin1String("lookups"), &detail.lookups, &problem)
        || !readList(json, QLatin1String("approvals"), &detail.approvals, &problem)
        || !readList(json, QLatin1String("reconciliations"), &detail.reconciliations, &problem)
        || !readList(json, QLatin1String("audit"), &detail.audit, &problem))
        return fail(problem);

    const QJsonArray conflicts = json.value(QLatin1String("conflicts")).toArray();
    for (qsizetype i = 0; i < conflicts.size(); ++i) {
        std::optional<PayloadConflict> conflict = conflictFromJson(conflicts.at(i).toObject(), &problem);
        if (!conflict)
            return fail(QStringLiteral("conflicts[%1].%2").arg(i).arg(problem));
        detail.conflicts.append(std::move(*conflict));
    }

    const QJsonObject related = json.value(QLatin1String("related")).toObject();
    const QJsonValue parent = related.value(QLatin1String("parent"));
    if (parent.isObject()) {
        std::optional<ActionSummary> summary = ActionSummary::fromJson(parent.toObject(), &problem);
        if (!summary)
            return fail(QStringLiteral("related.parent.") + problem);
        detail.parent = std::move(*summary);
    }
    const QJsonArray followUps = related.value(QLatin1String("follow_ups")).toArray();
    for (qsizetype i = 0; i < followUps.size(); ++i) {
        std::optional<ActionSummary> summary = ActionSummary::fromJson(followUps.at(i).toObject(), &problem);
        if (!summary)
            return fail(QStringLiteral("related.follow_ups[%1].%2").arg(i).arg(problem));
        detail.followUps.append(std::move(*summary));
    }
    const QJsonArray duplicates = related.value(QLatin1String("possible_duplicates")).toArray();
    for (qsizetype i = 0; i < duplicates.size(); ++i) {
        std::optional<PossibleDuplicate> duplicate = PossibleDuplicate::fromJson(duplicates.at(i).toObject(), &problem);
        if (!duplicate)
            return fail(QStringLiteral("related.possible_duplicates[%1].%2").arg(i).arg(problem));
        detail.possibleDuplicates.append(std::move(*duplicate));
    }

    const QJsonObject permissions = json.value(QLatin1String("permissions")).toObject();
    detail.permissions.approve = readPermission(permissions, QLatin1String("approve"));
    detail.permissions.reject = readPermission(permissions, QLatin1String("reject"));
    detail.permissions.lookup = readPermission(permissions, QLatin1String("lookup"));
    detail.permissions.reconcile = readPermission(permissions, QLatin1String("reconcile"));
    detail.permissions.followUp = readPermission(permissions, QLatin1String("follow_up"));
    detail.permissions.closeSettlement = readPermission(permissions, QLatin1String("close_settlement"));
    detail.permissions.closeDiscrepancy = readPermission(permissions, QLatin1String("close_discrepancy"));
    if (const QJsonValue discrepancy = json.value(QLatin1String("discrepancy")); discrepancy.isObject()) {
        detail.discrepancy = Discrepancy::fromJson(discrepancy.toObject(), &problem);
        if (!detail.discrepancy)
            return fail(QStringLiteral("discrepancy.") + problem);
    }
    if (const QJsonValue settlement = json.value(QLatin1String("settlement")); settlement.isObject()) {
        detail.settlement = Settlement::fromJson(settlement.toObject(), &problem);
        if (!detail.settlement)
            return fail(QStringLiteral("settlement.") + problem);
    }

    if (const QJsonValue charge = json.value(QLatin1String("charge")); charge.isObject()) {
        detail.charge = ChargeView::fromJson(charge.toObject(), &problem);
        if (!detail.charge)
            return fail(QStringLiteral("charge.") + problem);
    }
    if (const QJsonValue requester = json.value(QLatin1String("requester_record")); requester.isObject()) {
        detail.requesterRecord = RequesterRecord::fromJson(requester.toObject(), &problem);
        if (!detail.requesterRecord)
            return fail(QStringLiteral("requester_record.") + problem);
    }
    std::optional<Quorum> quorum = Quorum::fromJson(json, &problem);
    if (!quorum)
        return fail(problem);
    detail.quorum = std::move(*quorum);
    return detail;
}

QStringList ActionDetail::describeChanges(const ActionDetail &before, const ActionDetail &after)
{
    const auto tr = [](const char *text) { return QCoreApplication::translate("cs::ActionDetail", text); };
    const ActionRecord &a = before.record;
    const ActionRecord &b = after.record;
    QStringList changes;
    if (a.state != b.state)
        changes << tr("state: %1 \u2192 %2").arg(display::stateName(a.state), display::stateName(b.state));
    for (qsizetype i = before.approvals.size(); i < after.approvals.size(); ++i) {
        const Approval &ap = after.approvals.at(i);
        if (ap.decision == Approval::Decision::Approved)
            changes << tr("approved (version %1) by %2").arg(ap.version).arg(display::decider(ap.decidedBy, ap.ruleId, ap.policyVersion));
        else
            changes << tr("rejected by %1: %2").arg(ap.decidedBy, ap.note);
    }
    for (qsizetype i = before.quorum.given.size(); i < after.quorum.given.size(); ++i)
        changes << tr("signed by %1 (%2 of %3 approvals)").arg(after.quorum.given.at(i).approver).arg(i + 1).arg(after.quorum.required);
    if (a.approvalVersion != b.approvalVersion && after.approvals.size() == before.approvals.size())
        changes << tr("approval version: %1 \u2192 %2").arg(a.approvalVersion).arg(b.approvalVersion);
    if (a.idempotencyKey != b.idempotencyKey)
        changes << tr("idempotency key: %1 \u2192 %2")
                       .arg(a.idempotencyKey.isEmpty() ? tr("none") : a.idempotencyKey,
                            b.idempotencyKey.isEmpty() ? tr("none") : b.idempotencyKey);
    for (qsizetype i = before.attempts.size(); i < after.attempts.size(); ++i) {
        const Attempt &at = after.attempts.at(i);
        changes << tr("attempt #%1 sent by %2 (%3)").arg(at.seq).arg(at.executor, toWire(at.outcome));
    }
    for (qsizetype i = before.lookups.size(); i < after.lookups.size(); ++i) {
        const ProviderLookup &l = after.lookups.at(i);
        changes << tr("lookup #%1 by %2: %3").arg(l.seq).arg(l.askedBy, toWire(l.result));
    }
    for (qsizetype i = before.reconciliations.size(); i < after.reconciliations.size(); ++i) {
        const Reconciliation &r = after.reconciliations.at(i);
        changes << tr("reconciled by %1: %2").arg(r.decidedBy, toWire(r.outcome));
    }
    for (qsizetype i = before.conflicts.size(); i < after.conflicts.size(); ++i)
        changes << tr("a changed resubmission was caught (#%1 by %2)").arg(after.conflicts.at(i).seq).arg(after.conflicts.at(i).submittedBy);
    if (a.reviewReason != b.reviewReason && !b.reviewReason.isEmpty()) // in words, not the server's raw text
        changes << tr("why it needs review: %1").arg(ReviewExplanation::forAction(after).sentence);
    for (qsizetype i = before.followUps.size(); i < after.followUps.size(); ++i)
        changes << tr("follow-up %1 proposed").arg(after.followUps.at(i).record.id);
    if (const std::optional<Settlement> &s = after.settlement) { // issue 18: what the refund did since
        for (qsizetype i = before.settlement ? before.settlement->history.size() : 0; i < s->history.size(); ++i) {
            const SettlementChange &c = s->history.at(i);
            changes << (c.failureReason.isEmpty() ? tr("refund %1: %2").arg(s->refundId, c.toStatus)
                                                  : tr("refund %1 %2: %3").arg(s->refundId, c.toStatus, c.failureReason));
        }
        const bool decided = !before.settlement || before.settlement->attention != s->attention;
        if (decided && s->attention == Settlement::Attention::Closed)
            changes << tr("refund failure closed by %1 without re-sending: %2").arg(s->resolvedBy, s->resolutionNote);
        else if (decided && s->attention == Settlement::Attention::FollowedUp)
            changes << tr("failed refund re-proposed by %1 as follow-up %2").arg(s->resolvedBy, s->followUpId);
    }
    if (const std::optional<Discrepancy> &d = after.discrepancy) { // issue 33
        const bool opened = d->isOpen() && (!before.discrepancy || !before.discrepancy->isOpen()
                                            || before.discrepancy->refundIds != d->refundIds);
        if (opened)
            changes << tr("%1: %2").arg(d->headline(), d->refundIds.join(QStringLiteral(", ")));
        else if (!d->isOpen() && before.discrepancy && before.discrepancy->isOpen())
            changes << tr("discrepancy closed by %1: %2").arg(d->resolvedBy, d->resolutionNote);
    }
    if (changes.isEmpty() && a.stateVersion != b.stateVersion)
        changes << tr("state version: %1 \u2192 %2").arg(a.stateVersion).arg(b.stateVersion);
    return changes;
}

const PermissionEntry *Permissions::entry(QStringView key) const
{
    if (key == QLatin1String("approve"))
        return &approve;
    if (key == QLatin1String("reject"))
        return &reject;
    if (key == QLatin1String("lookup"))
        return &lookup;
    if (key == QLatin1String("reconcile"))
        return &reconcile;
    if (key == QLatin1String("follow_up"))
        return &followUp;
    if (key == QLatin1String("close_settlement"))
        return &closeSettlement;
    if (key == QLatin1String("close_discrepancy"))
        return &closeDiscrepancy;
    return nullptr;
}

} // namespace cs
