#include "server/api/actionviews.h"

#include "models/actionsummary.h"

#include <QJsonValue>

namespace cs {

namespace {

QJsonValue timeOrNull(const QDateTime &time)
{
    return time.isValid() ? QJsonValue(toWireTime(time)) : QJsonValue(QJsonValue::Null);
}

} // namespace

ActionViews::ActionViews(std::chrono::milliseconds keyWindow, std::chrono::milliseconds safetyMargin)
    : m_keyWindow(keyWindow), m_safetyMargin(safetyMargin)
{
}

QDateTime ActionViews::keyWindowEndsAt(const QDateTime &firstAttemptAt) const
{
    if (!firstAttemptAt.isValid())
        return QDateTime();
    return firstAttemptAt.addMSecs((m_keyWindow - m_safetyMargin).count());
}

QJsonObject ActionViews::action(const ActionRecord &record, const QDateTime &firstAttemptAt) const
{
    QJsonObject json = record.toJson();
    json.insert(QStringLiteral("key_window_ends_at"), timeOrNull(keyWindowEndsAt(firstAttemptAt)));
    return json;
}

QJsonObject ActionViews::summary(const ActionReader::Summary &summary, const ApprovalStore::Quorum *quorum)
{
    ActionSummary row;
    row.record = summary.record;
    row.attemptCount = summary.attemptCount;
    row.lastEventAt = summary.lastEventAt;
    row.possibleDuplicates = summary.possibleDuplicates;
    row.settlementStatus = summary.settlementStatus;
    row.settlementReview = summary.settlementReview;
    row.discrepancy = summary.discrepancyOpen;
    row.queued = summary.record.isQueued();
    if (quorum && quorum->requirement.approvals > 1) {
        row.approvalsRequired = quorum->requirement.approvals;
        row.approvalsGiven = quorum->given;
    }
    return row.toJson();
}

QJsonArray ActionViews::possibleDuplicates(const ActionRecord &of,
                                           const QList<ActionReader::PossibleDuplicate> &duplicates, const QDateTime &now)
{
    QJsonArray out;
    for (const ActionReader::PossibleDuplicate &d : duplicates) {
        ActionSummary row;
        row.record = d.other.record;
        row.attemptCount = d.other.attemptCount;
        row.lastEventAt = d.other.lastEventAt;
        row.settlementStatus = d.other.settlementStatus;
        row.settlementReview = d.other.settlementReview;
        row.discrepancy = d.other.discrepancyOpen;
        row.queued = d.other.record.isQueued();
        const PossibleDuplicate wire{
            row, d.sameBusinessReference ? QStringLiteral("business_reference") : QStringLiteral("charge"),
            PossibleDuplicate::sentenceFor(of, d.other.record, d.sameBusinessReference, now)};
        out.append(wire.toJson());
    }
    return out;
}

QJsonObject ActionViews::counts(const QMap<ActionState, qint64> &counts, qint64 settlementReview, qint64 discrepancies,
                                qint64 queued)
{
    StateCounts wire;
    for (auto it = counts.constBegin(); it != counts.constEnd(); ++it)
        wire.setCount(it.key(), it.value());
    wire.setSettlementReview(settlementReview);
    wire.setDiscrepancies(discrepancies);
    wire.setQueued(queued);
    return wire.toJson();
}

QJsonObject ActionViews::permission(const ActionPolicy::Verdict &verdict)
{
    return QJsonObject{{QStringLiteral("allowed"), verdict.allowed},
                       {QStringLiteral("reason"), verdict.allowed ? QString() : verdict.reason}};
}

} // namespace cs
