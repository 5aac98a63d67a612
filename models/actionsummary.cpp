#include "models/actionsummary.h"
#include "models/jsonfieldreader.h"
#include "models/money.h"
#include "models/displayformat.h"

#include <utility>

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
    json.insert(QLatin1String("possible_duplicate"), possibleDuplicate());
    json.insert(QLatin1String("possible_duplicates"), possibleDuplicates);
    json.insert(QLatin1String("settlement_status"),
                settlementStatus.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(settlementStatus));
    json.insert(QLatin1String("settlement_review"), settlementReview);
    json.insert(QLatin1String("discrepancy"), discrepancy);
    json.insert(QLatin1String("queued"), queued);
    if (approvalsRequired > 1) {
        json.insert(QLatin1String("approvals_required"), approvalsRequired);
        json.insert(QLatin1String("approvals_given"), signersToJson(approvalsGiven));
    }
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
    summary.possibleDuplicates = int(in.integer(QLatin1String("possible_duplicates"), 0,
                                                std::numeric_limits<int>::max(),
                                                FieldReader::Need::Optional, 0));
    summary.settlementStatus = in.string(QLatin1String("settlement_status"));
    summary.settlementReview = in.boolean(QLatin1String("settlement_review"));
    summary.discrepancy = in.boolean(QLatin1String("discrepancy"));
    summary.queued = in.boolean(QLatin1String("queued"));
    summary.approvalsRequired = int(in.integer(QLatin1String("approvals_required"), 0, 1000,
                                               FieldReader::Need::Optional, 0));
    const auto given = signersFromJson(json.value(QLatin1String("approvals_given")));
    if (!given) {
        if (error)
            *error = QStringLiteral("approvals_given: expected an array of {approver, signed_at}");
        return std::nullopt;
    }
    summary.approvalsGiven = *given;
    return finish(in, std::move(summary), error);
}

QString PossibleDuplicate::sentenceFor(const ActionRecord &of, const ActionRecord &other, bool sameBusinessReference,
                                       const QDateTime &now)
{
    const QString what = sameBusinessReference ? QStringLiteral("order %1").arg(other.businessReference)
                                               : QStringLiteral("charge %1").arg(other.targetId);
    const bool before = std::pair(other.createdAt, other.id) < std::pair(of.createdAt, of.id);
    return QStringLiteral("%1 %2 has %3 %4 by %5, %6")
        .arg(what, before ? QStringLiteral("already") : QStringLiteral("also"),
             display::money(other.amount, other.currency), toWire(other.state), other.requestedBy,
             display::relative(other.createdAt, now));
}

QJsonObject PossibleDuplicate::toJson() const
{
    QJsonObject json = summary.toJson();
    json.insert(QLatin1String("relation"), QStringLiteral("possible_duplicate"));
    json.insert(QLatin1String("same"), same);
    json.insert(QLatin1String("sentence"), sentence);
    return json;
}

std::optional<PossibleDuplicate> PossibleDuplicate::fromJson(const QJsonObject &json, QString *error)
{
    QJsonObject row = json;
    for (const char *member : {"relation", "same", "sentence"})
        row.remove(QLatin1String(member));
    std::optional<ActionSummary> summary = ActionSummary::fromJson(row, error);
    if (!summary)
        return std::nullopt;
    PossibleDuplicate out;
    out.summary = std::move(*summary);
    out.same = json.value(QLatin1String("same")).toString();
    out.sentence = json.value(QLatin1String("sentence")).toString();
    if (json.value(QLatin1String("relation")).toString() != u"possible_duplicate") {
        if (error)
            *error = QStringLiteral("relation: expected \"possible_duplicate\"");
        return std::nullopt;
    }
    return out;
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
    json.insert(QLatin1String("settlement_review"), QJsonValue(m_settlementReview));
    json.insert(QLatin1String("discrepancies"), QJsonValue(m_discrepancies));
    json.insert(QLatin1String("queued"), QJsonValue(m_queued));
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
    counts.setSettlementReview(in.integer(QLatin1String("settlement_review"), 0, std::numeric_limits<qint64>::max(),
                                          FieldReader::Need::Optional, 0));
    counts.setDiscrepancies(in.integer(QLatin1String("discrepancies"), 0, std::numeric_limits<qint64>::max(),
                                       FieldReader::Need::Optional, 0));
    counts.setQueued(in.integer(QLatin1String("queued"), 0, std::numeric_limits<qint64>::max(),
                                FieldReader::Need::Optional, 0));
    return finish(in, counts, error);
}

} // namespace cs
