#include "server/api/chargeservice.h"

#include "server/api/actionservice.h"
#include "server/api/actionviews.h"
#include "server/api/apilog.h"
#include "server/api/decisionparser.h"
#include "server/api/problem.h"
#include "server/ledger/actionreader.h"
#include "server/ledger/approvalstore.h"
#include "server/providerclient.h"

#include <QJsonArray>
#include <QRegularExpression>

namespace cs {

namespace {

QJsonObject snapshotJson(const ChargeStore::Recorded &recorded)
{
    QJsonObject json = recorded.snapshot.toJson();
    json.insert(QStringLiteral("seq"), recorded.seq);
    return json;
}

} // namespace

std::optional<ChargeService::Target> ChargeService::parseTarget(const QString &id)
{
    // The proposal's own patterns (ProposalParser): a view can only be of what a proposal may name.
    static const QRegularExpression charge(QStringLiteral("\\Ach_[A-Za-z0-9_]{1,250}\\z"));
    static const QRegularExpression intent(QStringLiteral("\\Api_[A-Za-z0-9_]{1,250}\\z"));
    if (charge.match(id).hasMatch())
        return Target{TargetType::Charge, id};
    if (intent.match(id).hasMatch())
        return Target{TargetType::PaymentIntent, id};
    return std::nullopt;
}

std::variant<ApiResponse, ChargeService::Target> ChargeService::checkedTarget(const QString &id,
                                                                             const QString &instance) const
{
    const std::optional<Target> target = parseTarget(id);
    if (!target) {
        return Problem(QStringLiteral("invalid_parameter"),
                       QStringLiteral("%1 is neither a charge (ch_…) nor a payment intent (pi_…)").arg(id))
            .withErrors({FieldError{QStringLiteral("id"),
                                    QStringLiteral("must be a charge id such as \"ch_3Pq8Xk2eZvKYlo2C\" or a payment intent "
                                                   "id such as \"pi_3Pq8Xk2eZvKYlo2C\"")}})
            .toResponse(instance);
    }
    return *target;
}

LedgerResult<QJsonObject> ChargeService::view(const Target &target, const ChargeStore::Recorded *fresh) const
{
    const auto shown = m_charges->shown(target.type, target.id);
    if (!shown.ok())
        return shown.error();
    // The charge and its payment intent as the newest FOUND read named them (a payment intent
    // never read: itself only).
    QString chargeId = target.type == TargetType::Charge ? target.id : QString();
    QString intentId = target.type == TargetType::PaymentIntent ? target.id : QString();
    if (shown->has_value() && (*shown)->snapshot.result == ChargeSnapshot::Result::Found) {
        chargeId = (*shown)->snapshot.chargeId;
        if (!(*shown)->snapshot.paymentIntentId.isEmpty())
            intentId = (*shown)->snapshot.paymentIntentId;
    }
    QStringList targets{target.id};
    for (const QString &other : {chargeId, intentId}) {
        if (!other.isEmpty() && !targets.contains(other))
            targets << other;
    }
    const auto actions = m_reader->onTargets(targets, kMaxActions);
    if (!actions.ok())
        return actions.error();
    // Issue 18: refunds of this charge Countersign never asked for, as the provider's webhook
    // events announced them (made in the dashboard, by another system), newest first.
    QJsonArray unmatched;
    if (m_evidence && !chargeId.isEmpty()) {
        const auto events = m_evidence->unmatchedRefundEvents(chargeId);
        if (!events.ok())
            return events.error();
        for (const EvidenceStore::WebhookEvent &e : *events) {
            QJsonObject row = e.summary;
            row.insert(QStringLiteral("event_id"), e.eventId);
            row.insert(QStringLiteral("type"), e.type);
            row.insert(QStringLiteral("refund_id"), e.refundId);
            row.insert(QStringLiteral("received_at"), toWireTime(e.receivedAt));
            unmatched.append(row);
        }
    }
    if (!fresh && !shown->has_value() && actions->rows.isEmpty() && unmatched.isEmpty())
        return LedgerError(LedgerError::Code::NotFound,
                           QStringLiteral("Countersign has no action on %1 and never read it").arg(target.id));
    // The proposal stage: every action Countersign may still send counts, so `available` is what a
    // new proposal may ask for (a proposal over it is 422 exceeds_refundable).
    const auto budget = m_charges->budget(target.type, target.id, ChargeBudget::Stage::Proposal);
    if (!budget.ok())
        return budget.error();

    QList<ActionRecord> records;
    for (const ActionReader::Summary &row : actions->rows)
        records << row.record;
    const auto quorums = m_approvals ? m_approvals->awaitingQuorums(records)
                                     : LedgerResult<QHash<QString, ApprovalStore::Quorum>>(QHash<QString, ApprovalStore::Quorum>());
    if (!quorums.ok())
        return quorums.error();
    QJsonArray actionArray;
    for (const ActionReader::Summary &row : actions->rows) {
        const auto quorum = quorums->constFind(row.record.id);
        actionArray.append(ActionViews::summary(row, quorum == quorums->cend() ? nullptr : &*quorum));
    }

    QJsonValue snapshot = QJsonValue::Null;
    if (fresh)
        snapshot = snapshotJson(*fresh);
    else if (shown->has_value())
        snapshot = snapshotJson(**shown);
    return QJsonObject{
        {QStringLiteral("id"), target.id},
        {QStringLiteral("target_type"), toWire(target.type)},
        {QStringLiteral("charge_id"), chargeId},
        {QStringLiteral("payment_intent_id"), intentId},
        {QStringLiteral("snapshot"), snapshot},
        {QStringLiteral("budget"), budget->toJson()},
        {QStringLiteral("actions"), actionArray},
        {QStringLiteral("actions_truncated"), actions->hasMore},
        {QStringLiteral("unmatched_refund_events"), unmatched},
    };
}

ApiResponse ChargeService::get(const QString &id, const QString &instance) const
{
    const auto checked = checkedTarget(id, instance);
    if (const auto *refused = std::get_if<ApiResponse>(&checked))
        return *refused;
    const auto json = view(std::get<Target>(checked), nullptr);
    if (!json.ok())
        return m_actions->ledgerFailure(json.error(), instance);
    return ApiResponse::json(200, *json);
}

std::variant<ApiResponse, ChargeService::Target> ChargeService::prepareLookup(const QString &id, const QJsonObject &body,
                                                                             const QString &instance) const
{
    QList<FieldError> errors;
    if (!DecisionParser::lookup(body, &errors)) {
        return Problem(QStringLiteral("validation_failed"), QStringLiteral("1 field is invalid"))
            .withErrors(errors)
            .toResponse(instance);
    }
    const auto checked = checkedTarget(id, instance);
    if (std::holds_alternative<ApiResponse>(checked))
        return checked;
    const Target target = std::get<Target>(checked);
    // Known to Countersign? The same rule as the view's 404, before anything is asked.
    const auto json = view(target, nullptr);
    if (!json.ok())
        return m_actions->ledgerFailure(json.error(), instance);
    if (!m_actions->readsCharges())
        return Problem(QStringLiteral("unavailable"),
                       QStringLiteral("this countersignd has no provider that reads charges; nothing was recorded"))
            .withHeader("Retry-After", "60")
            .toResponse(instance);
    return target;
}

ApiResponse ChargeService::runLookup(const User &user, const Target &target, const QString &instance)
{
    const ChargeSnapshot read = m_provider->retrieveCharge(target.type, target.id, user.name);
    const auto recorded = m_charges->record(read);
    if (!recorded.ok())
        return m_actions->ledgerFailure(recorded.error(), instance);
    qCInfo(lcApi) << target.id << "charge read by" << user.name << "from the charge view" << toWire(recorded->snapshot.result);
    if (recorded->snapshot.result == ChargeSnapshot::Result::Error) {
        return Problem(QStringLiteral("provider_unavailable"),
                       QStringLiteral("the provider did not answer for %1: %2; the failed read is recorded as evidence")
                           .arg(target.id, recorded->snapshot.excerpt))
            .with(QStringLiteral("snapshot"), snapshotJson(*recorded))
            .toResponse(instance);
    }
    const auto json = view(target, &*recorded);
    if (!json.ok())
        return m_actions->ledgerFailure(json.error(), instance);
    return ApiResponse::json(201, *json);
}

} // namespace cs
