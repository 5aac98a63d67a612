#include "models/actionsummary.h"
#include "models/jsonfieldreader.h"
#include "models/money.h"

#include <limits>

namespace cs {

using namespace wire;

namespace {
constexpr std::array<ActionState, 6> AllStates{
    ActionState::Pending,   ActionState::Executing, ActionState::ConfirmationUnknown,
    ActionState::Completed, ActionState::Rejected,  ActionState::RequiresReview,
};
} // namespace

qint64 ActionSummary::scaledAmount() const
{
    return Money::tenThousandths(record.amount, record.currency);
}

QJsonObject ActionSummary::toJson() const
{
    QJsonObject json;
    json.insert(QLatin1String("id"), record.id);
    json.insert(QLatin1String("state"), toWire(record.state));
    json.insert(QLatin1String("state_version"), QJsonValue(record.stateVersion));
    json.insert(QLatin1String("amount"), QJsonValue(record.amount));
    json.insert(QLatin1String("currency"), record.currency);
    json.insert(QLatin1String("target"), targetToJson(record.targetType, record.targetId));
    json.insert(QLatin1String("business_reference"), record.businessReference);
    json.insert(QLatin1String("requested_by"), record.requestedBy);
    json.insert(QLatin1String("created_at"), timeToJson(record.createdAt));
    json.insert(QLatin1String("updated_at"), timeToJson(record.updatedAt));
    json.insert(QLatin1String("attempt_count"), attemptCount);
    json.insert(QLatin1String("last_event_at"), timeToJson(lastEventAt));
    json.insert(QLatin1String("review_reason"), record.reviewReason);
    // No parent_id: resources/openapi.yaml's ActionSummary has none (the Action has it).
    return json;
}

std::optional<ActionSummary> ActionSummary::fromJson(const QJsonObject &json, QString *error)
{
    QJsonObject withKind = json;
    if (!withKind.contains(QLatin1String("kind")))
        withKind.insert(QLatin1String("kind"), QStringLiteral("refund"));
    std::optional<ActionRecord> record = ActionRecord::fromJson(withKind, error);
    if (!record)
        return std::nullopt;

    FieldReader in(json);
    ActionSummary summary;
    summary.record = std::move(*record);
    summary.attemptCount = int(in.integer(QLatin1String("attempt_count"), 0,
                                          std::numeric_limits<int>::max(),
                                          FieldReader::Need::Optional, 0));
    summary.lastEventAt = in.time(QLatin1String("last_event_at"));
    return finish(in, std::move(summary), error);
}

qint64 StateCounts::queueTotal() const
{
    return count(ActionState::Pending) + count(ActionState::ConfirmationUnknown)
        + count(ActionState::RequiresReview);
}

qint64 StateCounts::total() const
{
    qint64 sum = 0;
    for (qint64 c : m_counts)
        sum += c;
    return sum;
}

QJsonObject StateCounts::toJson() const
{
    QJsonObject json;
    for (ActionState state : AllStates)
        json.insert(toWire(state), QJsonValue(count(state)));
    return json;
}

std::optional<StateCounts> StateCounts::fromJson(const QJsonObject &json, QString *error)
{
    FieldReader in(json);
    StateCounts counts;
    for (ActionState state : AllStates) {
        const QString key = toWire(state);
        const QByteArray latin = key.toLatin1();
        counts.setCount(state, in.integer(QLatin1String(latin.constData(), latin.size()), 0,
                                          std::numeric_limits<qint64>::max(),
                                          FieldReader::Need::Optional, 0));
    }
    return finish(in, counts, error);
}

} // namespace cs
