#include "server/api/actionservice.h"

#include "models/chargewarnings.h"
#include "models/refundstatus.h"

#include "server/api/apilog.h"
#include "server/api/decisionparser.h"
#include "server/api/listqueryparser.h"
#include "server/api/problem.h"
#include "server/api/proposalparser.h"
#include "server/executionlog.h"

#include "server/providerclient.h"

#include <QJsonArray>

namespace cs {

namespace {

QJsonArray toArray(const QList<QJsonObject> &objects)
{
    QJsonArray array;
    for (const QJsonObject &object : objects)
        array.append(object);
    return array;
}

template <typename T>
QJsonArray jsonList(const QList<T> &items)
{
    QJsonArray array;
    for (const T &item : items)
        array.append(item.toJson());
    return array;
}

// The action a request path names (/api/v1/actions/{id}/…): what its failure's log line is about.
ActionTag actionInPath(const QString &instance)
{
    const QStringList parts = instance.split(u'/');
    const qsizetype at = parts.indexOf(QStringLiteral("actions"));
    return ActionTag{at >= 0 ? parts.value(at + 1) : QString()};
}

ApiResponse problem(const QString &code, const QString &detail, const QString &instance)
{
    return Problem(code, detail).toResponse(instance);
}

ApiResponse validationFailed(const QList<FieldError> &errors, const QString &instance)
{
    return Problem(QStringLiteral("validation_failed"),
                   errors.size() == 1 ? QStringLiteral("1 field is invalid")
                                      : QStringLiteral("%1 fields are invalid").arg(errors.size()))
        .withErrors(errors)
        .toResponse(instance);
}

// The first steps of every mutation of an existing action, in the contract's order: the body
// (422 validation_failed, from the parser's result and errors), the action (404), If-Match (412).
template <typename Request>
struct MutationStart
{
    std::optional<ApiResponse> refused;
    std::optional<Request> request; // set unless refused
    ActionRecord record;
};

template <typename Request>
MutationStart<Request> startMutation(const ActionService &service, std::optional<Request> request,
                                     const QList<FieldError> &errors, const User &user, const QString &id,
                                     qint64 ifMatch, const QString &instance)
{
    MutationStart<Request> start;
    if (!request) {
        start.refused = validationFailed(errors, instance);
        return start;
    }
    auto loaded = service.loadForMutation(user, id, ifMatch, instance);
    if (auto *answer = std::get_if<ApiResponse>(&loaded))
        start.refused = std::move(*answer);
    else
        start = {std::nullopt, std::move(request), std::get<ActionRecord>(std::move(loaded))};
    return start;
}

std::optional<Approval> approvalVersion(const QList<Approval> &approvals, int version)
{
    for (const Approval &approval : approvals) {
        if (approval.version == version)
            return approval;
    }
    return std::nullopt;
}

} // namespace

ActionService::ActionService(Stores stores, ProviderClient *provider, Config config)
    : m_proposals(stores.proposals), m_approvals(stores.approvals), m_evidence(stores.evidence), m_reader(stores.reader),
      m_charges(stores.charges), m_provider(provider), m_config(std::move(config)),
      m_views(m_config.keyWindow, m_config.keyWindowSafetyMargin)
{
    if (m_provider && stores.execution) {
        ExecutionConfig config;
        config.keyWindow = m_config.keyWindow;
        config.keyWindowMargin = m_config.keyWindowSafetyMargin;
        m_lookups = std::make_unique<Reconciler>(Reconciler::Stores{*stores.execution, *m_evidence, *m_reader},
                                                 *m_provider, config);
    }
}

// --- shared answers ---------------------------------------------------------------------------

ApiResponse ActionService::ledgerFailure(const LedgerError &error, const QString &instance) const
{
    using Code = LedgerError::Code;
    switch (error.code()) {
    case Code::NotFound:
        return problem(QStringLiteral("not_found"), error.message(), instance);
    case Code::IllegalTransition:
        return problem(QStringLiteral("illegal_state"), error.message(), instance);
    case Code::Conflict:
    case Code::LeaseLost:
        return problem(QStringLiteral("in_flight"), error.message(), instance);
    case Code::Invalid:
        return Problem(QStringLiteral("validation_failed"), error.message())
            .withErrors({FieldError{QStringLiteral("body"), error.message()}})
            .toResponse(instance);
    case Code::Busy:
        qCWarning(lcApi) << actionInPath(instance) << "ledger busy:" << error.toString();
        return Problem(QStringLiteral("unavailable"), QStringLiteral("the ledger stayed locked; nothing was written"))
            .withHeader("Retry-After", "2")
            .toResponse(instance);
    case Code::Unavailable:
        qCWarning(lcApi) << actionInPath(instance) << "ledger unreachable:" << error.toString();
        return Problem(QStringLiteral("unavailable"),
                       QStringLiteral("the ledger database cannot be reached; retry with the same Idempotency-Key"))
            .withHeader("Retry-After", "2")
            .toResponse(instance);
    case Code::StaleVersion:
        return problem(QStringLiteral("stale_state_version"), error.message(), instance);
    case Code::Forbidden:
        return problem(QStringLiteral("illegal_state"), error.message(), instance);
    case Code::OverBudget:
        return exceedsRefundable(error, instance);
    case Code::CannotWrite:
    case Code::Damaged:
        qCWarning(lcApi) << actionInPath(instance) << "ledger cannot write:" << error.toString();
        return storageProblem(error, QStringLiteral("nothing was written"))->toResponse(instance);
    case Code::Storage:
    case Code::None:
        break;
    }
    qCWarning(lcApi) << actionInPath(instance) << "ledger failure:" << error.toString();
    return problem(QStringLiteral("internal"), QStringLiteral("an unexpected ledger failure; nothing was written"),
                   instance);
}

ApiResponse ActionService::exceedsRefundable(const LedgerError &error, const QString &instance)
{
    const QJsonObject &budget = error.detail();
    return Problem(QStringLiteral("exceeds_refundable"), error.message())
        .with(QStringLiteral("captured"), budget.value(QLatin1String("captured")))
        .with(QStringLiteral("refunded"), budget.value(QLatin1String("refunded_at_provider")))
        .with(QStringLiteral("reserved"), budget.value(QLatin1String("reserved")))
        .with(QStringLiteral("requested"), budget.value(QLatin1String("requested")))
        .with(QStringLiteral("available"), budget.value(QLatin1String("available")))
        .with(QStringLiteral("currency"), budget.value(QLatin1String("currency")))
        .with(QStringLiteral("budget"), budget)
        .toResponse(instance);
}

ApiResponse ActionService::mutationFailure(const LedgerError &error, const QString &id, qint64 ifMatch,
                                           const QString &instance) const
{
    if (error.code() == LedgerError::Code::StaleVersion) {
        if (const auto current = m_reader->action(id); current.ok())
            return stale(*current, ifMatch, instance);
    }
    return ledgerFailure(error, instance);
}

ApiResponse ActionService::stale(const ActionRecord &current, qint64 ifMatch, const QString &instance) const
{
    return Problem(QStringLiteral("stale_state_version"),
                   QStringLiteral("If-Match \"%1\" is stale; %2 is at state_version %3")
                       .arg(ifMatch).arg(current.id).arg(current.stateVersion))
        .with(QStringLiteral("current_state_version"), current.stateVersion)
        .with(QStringLiteral("current_state"), toWire(current.state))
        .withHeader("ETag", etagFor(current.stateVersion))
        .toResponse(instance);
}

std::variant<ApiResponse, ActionRecord> ActionService::loadForMutation(const User &user, const QString &id, qint64 ifMatch,
                                                                       const QString &instance) const
{
    const auto loaded = load(user, id, instance);
    if (const auto *answer = std::get_if<ApiResponse>(&loaded))
        return *answer;
    const ActionRecord record = std::get<ActionReader::Summary>(loaded).record;
    if (record.stateVersion != ifMatch)
        return stale(record, ifMatch, instance);
    return record;
}

ApiResponse ActionService::decided(const ActionRecord &record, QJsonObject body) const
{
    // The approval row the decision wrote (its version is the record's approval_version).
    std::optional<Approval> approval;
    if (const auto approvals = m_reader->approvals(record.id); approvals.ok())
        approval = approvalVersion(*approvals, record.approvalVersion);
    body.insert(QStringLiteral("approval"), approval ? approval->toJson() : QJsonObject());
    return withAction(200, body, record);
}

ApiResponse ActionService::refusal(const ActionPolicy::Verdict &verdict, const ActionRecord &record,
                                   const QString &instance) const
{
    Problem p(verdict.code, verdict.reason);
    if (verdict.code == u"illegal_state") {
        p.with(QStringLiteral("current_state"), toWire(record.state));
        p.with(QStringLiteral("current_state_version"), record.stateVersion);
    }
    return p.toResponse(instance);
}

std::variant<ApiResponse, ActionReader::Summary> ActionService::load(const User &user, const QString &id,
                                                                     const QString &instance) const
{
    const auto summary = m_reader->summary(id);
    if (!summary.ok()) {
        if (summary.code() == LedgerError::Code::NotFound)
            return problem(QStringLiteral("not_found"), QStringLiteral("no action %1").arg(id), instance);
        return ledgerFailure(summary.error(), instance);
    }
    if (user.role == Role::Agent && summary->record.requestedBy != user.name)
        return problem(QStringLiteral("not_found"), QStringLiteral("no action %1").arg(id), instance);
    return *summary;
}

QJsonObject ActionService::actionJson(const ActionRecord &record) const
{
    const auto summary = m_reader->summary(record.id);
    return m_views.action(record, summary.ok() ? summary->firstAttemptAt : QDateTime());
}

// approvals_required, approvals_given ([{approver, signed_at}]) and approval_rule ({policy_version,
// rule_id}): where the action stands with the approval policy (docs/POLICY.md).
void ActionService::insertQuorum(const ApprovalStore::Quorum &quorum, QJsonObject *json)
{
    json->insert(QStringLiteral("approvals_required"), quorum.requirement.approvals);
    json->insert(QStringLiteral("approvals_given"), signersToJson(quorum.given));
    json->insert(QStringLiteral("approval_rule"),
                 QJsonObject{{QStringLiteral("policy_version"), quorum.requirement.policyVersion},
                             {QStringLiteral("rule_id"), quorum.requirement.ruleId}});
}

ApiResponse ActionService::withAction(int status, QJsonObject body, const ActionRecord &record) const
{
    body.insert(QStringLiteral("action"), actionJson(record));
    return ApiResponse::json(status, body, {{"ETag", etagFor(record.stateVersion)}});
}

// --- reads --------------------------------------------------------------------------------------

ApiResponse ActionService::list(const User &user, const QUrlQuery &query, const QString &instance) const
{
    const auto parsed = ListQueryParser::parse(query, user);
    if (const auto *refused = std::get_if<Problem>(&parsed))
        return refused->toResponse(instance);
    const auto &[listQuery, filters] = std::get<ListQueryParser::Parsed>(parsed);

    const auto page = m_reader->list(listQuery);
    if (!page.ok())
        return ledgerFailure(page.error(), instance);
    const auto counts = m_reader->counts(user.role == Role::Agent ? user.name : QString());
    if (!counts.ok())
        return ledgerFailure(counts.error(), instance);
    const auto settlementReview = m_reader->settlementReviewCount(user.role == Role::Agent ? user.name : QString());
    if (!settlementReview.ok())
        return ledgerFailure(settlementReview.error(), instance);
    const auto discrepancies = m_reader->discrepancyCount(user.role == Role::Agent ? user.name : QString());
    if (!discrepancies.ok())
        return ledgerFailure(discrepancies.error(), instance);
    const auto queued = m_reader->queuedCount(user.role == Role::Agent ? user.name : QString());
    if (!queued.ok())
        return ledgerFailure(queued.error(), instance);
    // Dual control's "1 of 2" for the page's PENDING rows, in one read.
    QList<ActionRecord> records;
    for (const ActionReader::Summary &row : page->rows)
        records << row.record;
    const auto quorums = m_approvals->awaitingQuorums(records);
    if (!quorums.ok())
        return ledgerFailure(quorums.error(), instance);
    QJsonArray data;
    for (const ActionReader::Summary &row : page->rows) {
        const auto quorum = quorums->constFind(row.record.id);
        data.append(ActionViews::summary(row, quorum == quorums->cend() ? nullptr : &*quorum));
    }
    QJsonObject body{
        {QStringLiteral("data"), data},
        {QStringLiteral("next_cursor"), page->hasMore ? QJsonValue(ListQueryParser::cursorAfter(page->rows.constLast(), filters))
                                                      : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("counts"), ActionViews::counts(*counts, *settlementReview, *discrepancies, *queued)},
    };
    return ApiResponse::json(200, body);
}

ApiResponse ActionService::get(const User &user, const QString &id, const QString &instance) const
{
    const auto loaded = load(user, id, instance);
    if (const auto *answer = std::get_if<ApiResponse>(&loaded))
        return *answer;
    const ActionReader::Summary summary = std::get<ActionReader::Summary>(loaded);
    const ActionRecord &record = summary.record;

    const auto attempts = m_reader->attempts(id);
    const auto lookups = m_reader->lookups(id);
    const auto approvals = m_reader->approvals(id);
    const auto reconciliations = m_reader->reconciliations(id);
    const auto audit = m_reader->audit(id);
    const auto conflicts = m_proposals->conflicts(id);
    const auto followUps = m_reader->followUps(id);
    const auto settlement = m_reader->settlement(id);
    const auto discrepancy = m_reader->discrepancy(id);
    for (const LedgerError *error : {&attempts.error(), &lookups.error(), &approvals.error(), &reconciliations.error(),
                                     &audit.error(), &conflicts.error(), &followUps.error(), &settlement.error(),
                                     &discrepancy.error()}) {
        if (!error->ok())
            return ledgerFailure(*error, instance);
    }

    QJsonObject json = m_views.action(record, summary.firstAttemptAt);
    json.insert(QStringLiteral("attempts"), jsonList(*attempts));
    json.insert(QStringLiteral("lookups"), jsonList(*lookups));
    json.insert(QStringLiteral("approvals"), jsonList(*approvals));
    const auto quorum = m_approvals->quorum(id);
    if (!quorum.ok())
        return ledgerFailure(quorum.error(), instance);
    insertQuorum(*quorum, &json);
    json.insert(QStringLiteral("reconciliations"), jsonList(*reconciliations));
    json.insert(QStringLiteral("audit"), jsonList(*audit));
    QJsonArray conflictArray;
    for (const ProposalStore::ResubmissionConflict &c : *conflicts) {
        conflictArray.append(QJsonObject{
            {QStringLiteral("seq"), c.seq},
            {QStringLiteral("submitted_by"), c.submittedBy},
            {QStringLiteral("at"), toWireTime(c.at)},
            {QStringLiteral("stored_payload"), c.storedPayload},
            {QStringLiteral("conflicting_payload"), c.conflictingPayload},
        });
    }
    json.insert(QStringLiteral("conflicts"), conflictArray);
    json.insert(QStringLiteral("settlement"), *settlement ? QJsonValue((*settlement)->toJson()) : QJsonValue(QJsonValue::Null));
    json.insert(QStringLiteral("discrepancy"),
                *discrepancy ? QJsonValue((*discrepancy)->toJson()) : QJsonValue(QJsonValue::Null));

    QStringList relatedIds;
    for (const ActionRecord &f : *followUps)
        relatedIds << f.id;
    if (!record.parentId.isEmpty())
        relatedIds.prepend(record.parentId);
    const auto related = m_reader->summaries(relatedIds);
    if (!related.ok())
        return ledgerFailure(related.error(), instance);
    QJsonValue parent = QJsonValue::Null;
    QList<QJsonObject> followUpJson;
    for (const ActionReader::Summary &s : *related) {
        if (s.record.id == record.parentId)
            parent = ActionViews::summary(s);
        else
            followUpJson.append(ActionViews::summary(s));
    }
    const auto duplicates = m_reader->possibleDuplicates(id);
    if (!duplicates.ok())
        return ledgerFailure(duplicates.error(), instance);
    json.insert(QStringLiteral("related"),
                QJsonObject{{QStringLiteral("parent"), parent},
                            {QStringLiteral("follow_ups"), toArray(followUpJson)},
                            {QStringLiteral("possible_duplicates"),
                             ActionViews::possibleDuplicates(record, *duplicates, QDateTime::currentDateTimeUtc())}});

    const auto charge = chargeView(record, QDateTime::currentDateTimeUtc());
    if (!charge.ok())
        return ledgerFailure(charge.error(), instance);
    json.insert(QStringLiteral("charge"), *charge);
    const auto requester = m_reader->requesterRecord(record.requestedBy, QDateTime::currentDateTimeUtc());
    if (!requester.ok())
        return ledgerFailure(requester.error(), instance);
    json.insert(QStringLiteral("requester_record"), requesterRecordJson(*requester));

    json.insert(QStringLiteral("permissions"),
                QJsonObject{
                    {QStringLiteral("approve"), ActionViews::permission(ActionPolicy::approve(user, record, *attempts, *approvals))},
                    {QStringLiteral("reject"), ActionViews::permission(ActionPolicy::reject(user, record))},
                    {QStringLiteral("lookup"), ActionViews::permission(ActionPolicy::lookup(user))},
                    {QStringLiteral("reconcile"),
                     ActionViews::permission(ActionPolicy::reconcile(user, record, *lookups, *attempts, true))},
                    {QStringLiteral("follow_up"), ActionViews::permission(ActionPolicy::followUp(user, record, *followUps))},
                    {QStringLiteral("close_settlement"),
                     ActionViews::permission(ActionPolicy::closeSettlement(user, record, *settlement))},
                    {QStringLiteral("close_discrepancy"),
                     ActionViews::permission(ActionPolicy::closeDiscrepancy(user, *discrepancy))},
                });
    return ApiResponse::json(200, json, {{"ETag", etagFor(record.stateVersion)}});
}

// --- mutations ----------------------------------------------------------------------------------

ApiResponse ActionService::propose(const User &user, const QJsonObject &body, const QString &instance)
{
    QList<FieldError> errors;
    std::optional<ProposalStore::ProposalInput> input = ProposalParser::parse(body, &errors);
    if (!input)
        return validationFailed(errors, instance);
    input->provider = m_config.providerName;
    input->providerAccount = m_config.providerAccount;
    if (readsCharges()) {
        // A resubmission is answered from the ledger: no provider read, nothing that could fail.
        const auto existing = m_reader->proposalId(user.name, input->clientReference);
        if (!existing.ok())
            return ledgerFailure(existing.error(), instance);
        if (existing->isEmpty())
            input->charge = m_provider->retrieveCharge(input->targetType, input->targetId, QStringLiteral("proposal"));
    }
    input->policy = m_approvals->policy(); // auto-approval (docs/POLICY.md)
    const auto result = m_proposals->propose(*input, user.name);
    if (!result.ok())
        return ledgerFailure(result.error(), instance);
    const ActionRecord &record = result->record;
    switch (result->status) {
    case ProposalStore::ProposeResult::Status::Created: {
        QJsonObject body = actionJson(record);
        if (result->autoApproval) {
            // Approved by the policy in the proposal's transaction: the answer carries the approval.
            body.insert(QStringLiteral("approval"), result->autoApproval->toJson());
            qCInfo(lcApi) << record.id << "auto-approved by rule" << result->autoApproval->ruleId;
            if (m_config.approved)
                m_config.approved();
        }
        ApiResponse response = ApiResponse::json(201, body);
        response.headers = {{"Location", QStringLiteral("/api/v1/actions/%1").arg(record.id).toLatin1()},
                            {"ETag", etagFor(record.stateVersion)}};
        qCInfo(lcApi) << record.id << "proposed by" << user.name;
        return response;
    }
    case ProposalStore::ProposeResult::Status::Existing:
        return ApiResponse::json(200, actionJson(record), {{"ETag", etagFor(record.stateVersion)}});
    case ProposalStore::ProposeResult::Status::Conflict:
        break;
    }
    int conflictSeq = 0;
    if (const auto conflicts = m_proposals->conflicts(record.id); conflicts.ok()) {
        for (const auto &c : *conflicts) {
            if (c.submittedBy == user.name)
                conflictSeq = std::max(conflictSeq, c.seq);
        }
    }
    qCWarning(lcApi) << record.id << "resubmitted by" << user.name << "with a changed payload";
    return Problem(QStringLiteral("payload_mismatch"),
                   QStringLiteral("client_reference \"%1\" already names %2 with a different payload; the stored"
                                  " action is unchanged and was flagged for review")
                       .arg(input->clientReference, record.id))
        .with(QStringLiteral("action_id"), record.id)
        .with(QStringLiteral("conflict_seq"), conflictSeq)
        .toResponse(instance);
}

ApiResponse ActionService::approve(const User &user, const QString &id, qint64 ifMatch, const QJsonObject &body,
                                   const QString &instance)
{
    QList<FieldError> errors;
    const auto start = startMutation(*this, DecisionParser::approval(body, &errors), errors, user, id, ifMatch, instance);
    if (start.refused)
        return *start.refused;
    const auto &[refused, request, record] = start;
    const auto attempts = m_reader->attempts(id);
    const auto approvals = m_reader->approvals(id);
    if (!attempts.ok())
        return ledgerFailure(attempts.error(), instance);
    if (!approvals.ok())
        return ledgerFailure(approvals.error(), instance);
    const ActionPolicy::Verdict verdict = ActionPolicy::approve(user, record, *attempts, *approvals);
    if (!verdict.allowed)
        return refusal(verdict, record, instance);

    const auto approved = m_approvals->approve(id, user.name, request->note, ifMatch);
    if (!approved.ok()) {
        // The checks above ran on the version If-Match names; the ledger refuses only if the
        // action moved in between (another process).
        if (approved.code() == LedgerError::Code::StaleVersion)
            return mutationFailure(approved.error(), id, ifMatch, instance);
        if (approved.code() == LedgerError::Code::Forbidden)
            return problem(approved.error().message().contains(QStringLiteral("four-eyes")) ? QStringLiteral("four_eyes")
                                                                                             : QStringLiteral("already_sent"),
                           approved.error().message(), instance);
        if (approved.code() == LedgerError::Code::Invalid
            && approved.error().detail().value(QStringLiteral("problem")).toString() == u"note_required") {
            // Issue 14: a possible duplicate is approved only with a note; nothing was written.
            return Problem(QStringLiteral("note_required"), approved.error().message())
                .withErrors({FieldError{QStringLiteral("note"),
                                        QStringLiteral("required: say why this refund and its possible duplicates are"
                                                       " all intended")}})
                .with(QStringLiteral("possible_duplicates"),
                      approved.error().detail().value(QStringLiteral("possible_duplicates")))
                .toResponse(instance);
        }
        if (approved.code() == LedgerError::Code::Conflict) {
            // A quorum's refusals name themselves (already_signed, already_approved).
            const QString named = approved.error().detail().value(QStringLiteral("problem")).toString();
            if (!named.isEmpty())
                return problem(named, approved.error().message(), instance);
            if (approved.error().message().contains(QStringLiteral("fingerprint")))
                return problem(QStringLiteral("fingerprint_mismatch"), approved.error().message(), instance);
        }
        return ledgerFailure(approved.error(), instance);
    }
    const auto quorum = m_approvals->quorum(id);
    if (!quorum.ok())
        return ledgerFailure(quorum.error(), instance);
    if (approved->idempotencyKey.isEmpty()) {
        // A quorum's signature: still PENDING, no key yet (202, docs/POLICY.md).
        qCInfo(lcApi) << id << "signed by" << user.name << ":" << quorum->given.size() << "of" << quorum->requirement.approvals;
        QJsonObject signed_{{QStringLiteral("approval"), QJsonValue::Null}};
        insertQuorum(*quorum, &signed_);
        return withAction(202, signed_, *approved);
    }
    qCInfo(lcApi) << id << "approved by" << user.name << "version" << approved->approvalVersion;
    if (m_config.approved)
        m_config.approved();
    QJsonObject standing;
    insertQuorum(*quorum, &standing);
    return decided(*approved, standing);
}

ApiResponse ActionService::reject(const User &user, const QString &id, qint64 ifMatch, const QJsonObject &body,
                                  const QString &instance)
{
    QList<FieldError> errors;
    const auto start = startMutation(*this, DecisionParser::rejection(body, &errors), errors, user, id, ifMatch, instance);
    if (start.refused)
        return *start.refused;
    const auto &[refused, request, record] = start;
    const ActionPolicy::Verdict verdict = ActionPolicy::reject(user, record);
    if (!verdict.allowed)
        return refusal(verdict, record, instance);
    const auto rejected = m_approvals->reject(id, user.name, request->reason, request->note, ifMatch);
    if (!rejected.ok()) {
        return mutationFailure(rejected.error(), id, ifMatch, instance);
    }
    qCInfo(lcApi) << id << "rejected by" << user.name;
    return decided(*rejected);
}

ApiResponse ActionService::reconcile(const User &user, const QString &id, qint64 ifMatch, const QJsonObject &body,
                                     const QString &instance)
{
    QList<FieldError> errors;
    const auto start =
        startMutation(*this, DecisionParser::reconciliation(body, &errors), errors, user, id, ifMatch, instance);
    if (start.refused)
        return *start.refused;
    const auto &[refused, request, record] = start;
    const ActionPolicy::Verdict verdict = ActionPolicy::reconcile(user, record, {}, {}, false);
    if (!verdict.allowed)
        return refusal(verdict, record, instance);
    if (!request->evidenceLookupSeq)
        return problem(QStringLiteral("no_evidence"),
                       QStringLiteral("a reconciliation needs evidence_lookup_seq: the lookup that supports the outcome"),
                       instance);
    const auto reconciled = m_evidence->reconcile(id, user.name, request->outcome, *request->evidenceLookupSeq,
                                                request->note, ifMatch);
    if (!reconciled.ok()) {
        if (reconciled.code() == LedgerError::Code::StaleVersion)
            return mutationFailure(reconciled.error(), id, ifMatch, instance);
        if (reconciled.code() == LedgerError::Code::Forbidden)
            return problem(QStringLiteral("no_evidence"), reconciled.error().message(), instance);
        return ledgerFailure(reconciled.error(), instance);
    }
    qCInfo(lcApi) << id << "reconciled by" << user.name << toWire(request->outcome);
    return withAction(200, QJsonObject{{QStringLiteral("reconciliation"), reconciled->reconciliation.toJson()}},
                      reconciled->record);
}

ApiResponse ActionService::followUp(const User &user, const QString &id, qint64 ifMatch, const QJsonObject &body,
                                    const QString &instance)
{
    QList<FieldError> errors;
    const auto start = startMutation(*this, DecisionParser::followUp(body, &errors), errors, user, id, ifMatch, instance);
    if (start.refused)
        return *start.refused;
    const auto &[refused, request, parent] = start;
    const auto followUps = m_reader->followUps(id);
    if (!followUps.ok())
        return ledgerFailure(followUps.error(), instance);
    const ActionPolicy::Verdict verdict = ActionPolicy::followUp(user, parent, *followUps);
    if (!verdict.allowed)
        return refusal(verdict, parent, instance);

    // What the provider confirmed for the parent and its follow-ups (DESIGN.md, "Follow-ups").
    qint64 committed = 0;
    QList<ActionRecord> family = *followUps;
    family.prepend(parent);
    for (const ActionRecord &action : std::as_const(family)) {
        if (action.state != ActionState::Completed)
            continue; // REJECTED counts 0
        // Accepted, then failed or canceled at the provider (issue 18): no money moved.
        const auto settlement = m_reader->settlement(action.id);
        if (!settlement.ok())
            return ledgerFailure(settlement.error(), instance);
        if (*settlement && (*settlement)->moneyReturned())
            continue;
        const auto lookups = m_reader->lookups(action.id);
        if (!lookups.ok())
            return ledgerFailure(lookups.error(), instance);
        std::optional<qint64> confirmed;
        for (const ProviderLookup &lookup : *lookups) {
            if (ActionPolicy::supportsCommitted(lookup))
                confirmed = lookup.amount; // the latest wins
        }
        // Else the amount of the exact request a 2xx answered. A COMPLETED action always has one
        // of the two; if neither were found its own amount is still the safe assumption (it can
        // only make the remainder smaller).
        committed += confirmed.value_or(action.amount);
    }
    const qint64 remaining = request->desiredTotalAmount - committed;
    if (remaining <= 0)
        return Problem(QStringLiteral("no_remaining_amount"),
                       QStringLiteral("the provider confirmed %1 of the desired %2 %3: nothing remains")
                           .arg(committed).arg(request->desiredTotalAmount).arg(parent.currency))
            .toResponse(instance);

    ProposalStore::ProposalInput input;
    input.kind = parent.kind;
    input.targetType = parent.targetType;
    input.targetId = parent.targetId;
    input.businessReference = parent.businessReference;
    input.amount = remaining;
    input.currency = parent.currency;
    input.reason = parent.reason;
    input.provider = parent.provider;
    input.providerAccount = parent.providerAccount;
    input.parentId = parent.id;
    input.note = request->note;
    input.clientReference = request->clientReference.isEmpty()
        ? QStringLiteral("%1/follow-up/%2").arg(parent.id).arg(followUps->size() + 1)
        : request->clientReference;
    const auto result = m_proposals->propose(input, user.name);
    if (!result.ok())
        return ledgerFailure(result.error(), instance);
    const ActionRecord &record = result->record;
    if (result->status == ProposalStore::ProposeResult::Status::Conflict)
        return Problem(QStringLiteral("payload_mismatch"),
                       QStringLiteral("client_reference \"%1\" already names %2 with a different payload")
                           .arg(input.clientReference, record.id))
            .with(QStringLiteral("action_id"), record.id)
            .toResponse(instance);
    // The follow-up decides the parent's open settlement review item (a refund that failed after
    // COMPLETED, re-proposed). A separate transaction: if this one is lost, a retry of the same
    // follow-up (same client_reference) answers the same action and marks it then.
    if (record.parentId == parent.id) {
        const auto marked = m_evidence->markSettlementFollowedUp(parent.id, record.id, user.name);
        if (!marked.ok())
            qCWarning(lcApi) << parent.id << "follow-up" << record.id << "proposed, but its settlement review item"
                             << "could not be marked:" << marked.error().toString();
    }
    const int status = result->status == ProposalStore::ProposeResult::Status::Created ? 201 : 200;
    ApiResponse response = ApiResponse::json(status, actionJson(record));
    response.headers = {{"Location", QStringLiteral("/api/v1/actions/%1").arg(record.id).toLatin1()},
                        {"ETag", etagFor(record.stateVersion)}};
    qCInfo(lcApi) << record.id << "proposed by" << user.name << "as a follow-up of" << parent.id << "for" << remaining;
    return response;
}

ApiResponse ActionService::closeSettlement(const User &user, const QString &id, qint64 ifMatch,
                                           const QJsonObject &body, const QString &instance)
{
    QList<FieldError> errors;
    const auto start =
        startMutation(*this, DecisionParser::settlementClose(body, &errors), errors, user, id, ifMatch, instance);
    if (start.refused)
        return *start.refused;
    const auto &[refused, note, record] = start;
    const auto settlement = m_reader->settlement(id);
    if (!settlement.ok())
        return ledgerFailure(settlement.error(), instance);
    const ActionPolicy::Verdict verdict = ActionPolicy::closeSettlement(user, record, *settlement);
    if (!verdict.allowed)
        return refusal(verdict, record, instance);
    const auto closed = m_evidence->closeSettlement(id, user.name, *note, ifMatch);
    if (!closed.ok())
        return closeFailure(closed.error(), id, ifMatch, instance);
    qCInfo(lcApi) << id << "settlement review item closed by" << user.name;
    return withAction(200, QJsonObject{{QStringLiteral("settlement"), closed->settlement.toJson()}}, closed->record);
}

// A close of an attention item the ledger refused: 412 for a stale If-Match, 409 illegal_state when
// nothing is open (decided meanwhile), else as any ledger failure.
ApiResponse ActionService::closeFailure(const LedgerError &error, const QString &id, qint64 ifMatch,
                                        const QString &instance) const
{
    if (error.code() == LedgerError::Code::StaleVersion)
        return mutationFailure(error, id, ifMatch, instance);
    if (error.code() == LedgerError::Code::Conflict)
        return problem(QStringLiteral("illegal_state"), error.message(), instance);
    return ledgerFailure(error, instance);
}

ApiResponse ActionService::closeDiscrepancy(const User &user, const QString &id, qint64 ifMatch,
                                            const QJsonObject &body, const QString &instance)
{
    QList<FieldError> errors;
    const auto start =
        startMutation(*this, DecisionParser::settlementClose(body, &errors), errors, user, id, ifMatch, instance);
    if (start.refused)
        return *start.refused;
    const auto &[refused, note, record] = start;
    const auto discrepancy = m_reader->discrepancy(id);
    if (!discrepancy.ok())
        return ledgerFailure(discrepancy.error(), instance);
    const ActionPolicy::Verdict verdict = ActionPolicy::closeDiscrepancy(user, *discrepancy);
    if (!verdict.allowed)
        return refusal(verdict, record, instance);
    const auto closed = m_evidence->closeDiscrepancy(id, user.name, *note, ifMatch);
    if (!closed.ok())
        return closeFailure(closed.error(), id, ifMatch, instance);
    qCInfo(lcApi) << id << "discrepancy closed by" << user.name;
    return withAction(200, QJsonObject{{QStringLiteral("discrepancy"), closed->discrepancy.toJson()}}, closed->record);
}

// --- the charge ---------------------------------------------------------------------------------

bool ActionService::readsCharges() const
{
    return m_charges && m_provider && m_provider->readsCharges();
}

QJsonObject ActionService::requesterRecordJson(const ActionReader::RequesterRecord &record)
{
    const auto window = [](const ActionReader::RequesterWindow &w) {
        QJsonArray totals;
        for (const auto &t : w.totals) {
            totals.append(QJsonObject{{QStringLiteral("currency"), t.currency},
                                      {QStringLiteral("count"), t.count},
                                      {QStringLiteral("amount"), t.total}});
        }
        // Shares in [0, 1], null when nothing was proposed (no share of nothing).
        const auto share = [&w](qint64 part) {
            return w.count > 0 ? QJsonValue(double(part) / double(w.count)) : QJsonValue(QJsonValue::Null);
        };
        return QJsonObject{
            {QStringLiteral("since"), toWireTime(w.since)},
            {QStringLiteral("count"), w.count},
            {QStringLiteral("totals"), totals},
            {QStringLiteral("rejected"), w.rejected},
            {QStringLiteral("rejected_share"), share(w.rejected)},
            {QStringLiteral("sent_to_review"), w.sentToReview},
            {QStringLiteral("sent_to_review_share"), share(w.sentToReview)},
        };
    };
    return QJsonObject{{QStringLiteral("requested_by"), record.requestedBy},
                       {QStringLiteral("today"), window(record.today)},
                       {QStringLiteral("week"), window(record.week)}};
}

LedgerResult<QJsonObject> ActionService::chargeJson(const ActionRecord &record, const ChargeStore::Recorded &shown,
                                                    const QDateTime &now) const
{
    const auto budget =
        m_charges->budget(record.targetType, record.targetId, ChargeBudget::Stage::Approval, record.id);
    if (!budget.ok())
        return budget.error();
    QJsonObject budgetJson = budget->toJson();
    // This action's side of the budget, so that the console need not recompute it.
    budgetJson.insert(QStringLiteral("requested"), record.amount);
    budgetJson.insert(QStringLiteral("requested_currency"), record.currency);
    budgetJson.insert(QStringLiteral("fits"), budget->fits(record.amount, record.currency));
    QJsonArray warnings;
    for (const ChargeWarning &w : chargeWarnings(shown.snapshot, record.amount, now))
        warnings.append(QJsonObject{{QStringLiteral("code"), toWire(w.kind)}, {QStringLiteral("text"), w.text}});
    QJsonObject snapshot = shown.snapshot.toJson();
    snapshot.insert(QStringLiteral("seq"), shown.seq);
    return QJsonObject{{QStringLiteral("snapshot"), snapshot},
                       {QStringLiteral("budget"), budgetJson},
                       {QStringLiteral("warnings"), warnings}};
}

LedgerResult<QJsonValue> ActionService::chargeView(const ActionRecord &record, const QDateTime &now) const
{
    if (!m_charges)
        return QJsonValue(QJsonValue::Null);
    const auto shown = m_charges->shown(record.targetType, record.targetId);
    if (!shown.ok())
        return shown.error();
    if (!shown->has_value())
        return QJsonValue(QJsonValue::Null);
    const auto json = chargeJson(record, **shown, now);
    if (!json.ok())
        return json.error();
    return QJsonValue(*json);
}

std::variant<ApiResponse, ActionRecord> ActionService::prepareChargeLookup(const User &user, const QString &id,
                                                                           const QJsonObject &body,
                                                                           const QString &instance) const
{
    QList<FieldError> errors;
    if (!DecisionParser::lookup(body, &errors))
        return validationFailed(errors, instance);
    const auto loaded = load(user, id, instance);
    if (const auto *answer = std::get_if<ApiResponse>(&loaded))
        return *answer;
    if (!readsCharges())
        return Problem(QStringLiteral("unavailable"),
                       QStringLiteral("this countersignd has no provider that reads charges; nothing was recorded"))
            .withHeader("Retry-After", "60")
            .toResponse(instance);
    return std::get<ActionReader::Summary>(loaded).record;
}

ApiResponse ActionService::runChargeLookup(const User &user, const ActionRecord &record, const QString &instance)
{
    const ChargeSnapshot read = m_provider->retrieveCharge(record.targetType, record.targetId, user.name);
    const auto recorded = m_charges->record(read);
    if (!recorded.ok())
        return ledgerFailure(recorded.error(), instance);
    qCInfo(lcApi) << record.id << "charge read by" << user.name << toWire(recorded->snapshot.result);
    if (recorded->snapshot.result == ChargeSnapshot::Result::Error) {
        QJsonObject snapshot = recorded->snapshot.toJson();
        snapshot.insert(QStringLiteral("seq"), recorded->seq);
        return Problem(QStringLiteral("provider_unavailable"),
                       QStringLiteral("the provider did not answer for %1: %2; the failed read is recorded as evidence")
                           .arg(record.targetId, recorded->snapshot.excerpt))
            .with(QStringLiteral("snapshot"), snapshot)
            .toResponse(instance);
    }
    // What this read said (NOT_FOUND included), and the budget as it stands now.
    const auto body = chargeJson(record, *recorded, QDateTime::currentDateTimeUtc());
    if (!body.ok())
        return ledgerFailure(body.error(), instance);
    return ApiResponse::json(201, *body);
}

// --- lookups ------------------------------------------------------------------------------------

std::variant<ApiResponse, ActionRecord> ActionService::prepareLookup(const User &user, const QString &id,
                                                                     qint64 ifMatch, const QJsonObject &body,
                                                                     const QString &instance) const
{
    QList<FieldError> errors;
    const bool valid = DecisionParser::lookup(body, &errors);
    const auto start = startMutation(*this, valid ? std::optional(true) : std::nullopt, errors, user, id, ifMatch, instance);
    if (start.refused)
        return *start.refused;
    const ActionRecord &record = start.record;
    const ActionPolicy::Verdict verdict = ActionPolicy::lookup(user);
    if (!verdict.allowed)
        return refusal(verdict, record, instance);
    if (!hasProvider())
        return Problem(QStringLiteral("unavailable"),
                       QStringLiteral("no provider client is configured in this countersignd; nothing was recorded"))
            .withHeader("Retry-After", "60")
            .toResponse(instance);
    return record;
}

ApiResponse ActionService::runLookup(const User &user, const QString &id, const QString &instance)
{
    if (!m_lookups)
        return Problem(QStringLiteral("unavailable"),
                       QStringLiteral("no provider client is configured in this countersignd; nothing was recorded"))
            .withHeader("Retry-After", "60")
            .toResponse(instance);
    const auto recorded = m_lookups->lookUpNow(id, user.name);
    if (!recorded.ok())
        return ledgerFailure(recorded.error(), instance);
    qCInfo(lcApi) << id << "looked up by" << user.name << toWire(recorded->lookup.result);
    return withAction(200, QJsonObject{{QStringLiteral("lookup"), recorded->lookup.toJson()}}, recorded->record);
}

} // namespace cs
