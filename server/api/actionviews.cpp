#include "actionviews.h"

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

QJsonObject ActionViews::summary(const ActionReader::Summary &summary)
{
    const ActionRecord &r = summary.record;
    return QJsonObject{
        {QStringLiteral("id"), r.id},
        {QStringLiteral("state"), toWire(r.state)},
        {QStringLiteral("state_version"), r.stateVersion},
        {QStringLiteral("amount"), r.amount},
        {QStringLiteral("currency"), r.currency},
        {QStringLiteral("target"), targetToJson(r.targetType, r.targetId)},
        {QStringLiteral("business_reference"), r.businessReference},
        {QStringLiteral("requested_by"), r.requestedBy},
        {QStringLiteral("created_at"), toWireTime(r.createdAt)},
        {QStringLiteral("updated_at"), toWireTime(r.updatedAt)},
        {QStringLiteral("attempt_count"), summary.attemptCount},
        {QStringLiteral("last_event_at"), toWireTime(summary.lastEventAt)},
        {QStringLiteral("review_reason"), r.reviewReason},
    };
}

QJsonObject ActionViews::counts(const QMap<ActionState, qint64> &counts)
{
    QJsonObject json;
    for (auto it = counts.constBegin(); it != counts.constEnd(); ++it)
        json.insert(toWire(it.key()), it.value());
    return json;
}

QJsonObject ActionViews::permission(const ActionPolicy::Verdict &verdict)
{
    return QJsonObject{{QStringLiteral("allowed"), verdict.allowed},
                       {QStringLiteral("reason"), verdict.allowed ? QString() : verdict.reason}};
}

} // namespace cs
