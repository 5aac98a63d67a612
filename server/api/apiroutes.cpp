#include "server/api/apiroutes.h"

#include "server/api/actionservice.h"
#include "server/api/chargeservice.h"
#include "server/api/eventstream.h"
#include "server/api/policyservice.h"
#include "server/api/readiness.h"
#include "server/api/executionservice.h"
#include "server/ledger/actionreader.h"

#include <QJsonObject>

namespace cs {

namespace {

using Access = ApiRoutes::Access;
using Body = RequestPreconditions::Body;
using Call = ApiRoutes::Call;
using Op = ActionPolicy::Operation;
using Reply = ApiRoutes::Reply;
using Services = ApiRoutes::Services;

// --- handlers: one per endpoint, in the table's order -------------------------------------------

Reply health(const Call &, const Services &s)
{
    const auto seq = s.reader->latestAuditSeq();
    const QJsonObject body{{QStringLiteral("status"), seq.ok() ? QStringLiteral("ok") : QStringLiteral("unavailable")},
                           {QStringLiteral("version"), s.version}};
    return ApiResponse::json(seq.ok() ? 200 : 503, body, seq.ok() ? HeaderList() : HeaderList{{"Retry-After", "5"}});
}

// Liveness: this process's HTTP thread answers. Touches nothing else (a busy ledger or a
// provider outage must not get a healthy process restarted).
Reply live(const Call &, const Services &s)
{
    static const QDateTime started = QDateTime::currentDateTimeUtc();
    const QJsonObject body{{QStringLiteral("status"), QStringLiteral("alive")},
                           {QStringLiteral("version"), s.version},
                           {QStringLiteral("uptime_seconds"), started.secsTo(QDateTime::currentDateTimeUtc())}};
    return ApiResponse::json(200, body);
}

// Readiness: the ledger writable and the provider reachable (server/api/readiness.h), checked
// on a worker thread (it may wait for both).
Reply ready(const Call &, const Services &s)
{
    return Reply::later([readiness = s.readiness] { return readiness->check(); });
}

Reply me(const Call &c, const Services &)
{
    return ApiResponse::json(200, QJsonObject{{QStringLiteral("user"), c.user.name},
                                              {QStringLiteral("role"), toWire(c.user.role)}});
}

Reply listActions(const Call &c, const Services &s)
{
    return s.actions->list(c.user, c.query, c.instance);
}

// On a worker thread when a new proposal first reads its charge from the provider (one HTTP
// call); answered here when this countersignd reads no charges.
Reply propose(const Call &c, const Services &s)
{
    if (!s.actions->readsCharges())
        return s.actions->propose(c.user, c.checked.json, c.instance);
    return Reply::later([service = s.actions, user = c.user, body = c.checked.json, instance = c.instance] {
        return service->propose(user, body, instance);
    });
}

Reply getAction(const Call &c, const Services &s)
{
    return s.actions->get(c.user, c.actionId, c.instance);
}

Reply approve(const Call &c, const Services &s)
{
    return s.actions->approve(c.user, c.actionId, c.checked.ifMatch, c.checked.json, c.instance);
}

Reply reject(const Call &c, const Services &s)
{
    return s.actions->reject(c.user, c.actionId, c.checked.ifMatch, c.checked.json, c.instance);
}

// The checks here; the provider call on a worker thread (it may wait for the provider's timeout).
Reply lookup(const Call &c, const Services &s)
{
    auto prepared = s.actions->prepareLookup(c.user, c.actionId, c.checked.ifMatch, c.checked.json, c.instance);
    if (auto *refused = std::get_if<ApiResponse>(&prepared))
        return *refused;
    return Reply::later([service = s.actions, user = c.user, id = c.actionId, instance = c.instance] {
        return service->runLookup(user, id, instance);
    });
}

// The checks here; the provider's read of the charge and its recording on a worker thread.
Reply chargeLookup(const Call &c, const Services &s)
{
    auto prepared = s.actions->prepareChargeLookup(c.user, c.actionId, c.checked.json, c.instance);
    if (auto *refused = std::get_if<ApiResponse>(&prepared))
        return *refused;
    return Reply::later([service = s.actions, user = c.user, record = std::get<cs::ActionRecord>(prepared),
                         instance = c.instance] { return service->runChargeLookup(user, record, instance); });
}

Reply reconcile(const Call &c, const Services &s)
{
    return s.actions->reconcile(c.user, c.actionId, c.checked.ifMatch, c.checked.json, c.instance);
}

Reply followUp(const Call &c, const Services &s)
{
    return s.actions->followUp(c.user, c.actionId, c.checked.ifMatch, c.checked.json, c.instance);
}

Reply closeDiscrepancy(const Call &c, const Services &s)
{
    return s.actions->closeDiscrepancy(c.user, c.actionId, c.checked.ifMatch, c.checked.json, c.instance);
}

Reply closeSettlement(const Call &c, const Services &s)
{
    return s.actions->closeSettlement(c.user, c.actionId, c.checked.ifMatch, c.checked.json, c.instance);
}

// The charge view: what Countersign recorded about one charge, and every action on it.
Reply getCharge(const Call &c, const Services &s)
{
    return s.charges->get(c.actionId, c.instance);
}

// The checks here; the provider's read of the charge and its recording on a worker thread.
Reply chargeViewLookup(const Call &c, const Services &s)
{
    auto prepared = s.charges->prepareLookup(c.actionId, c.checked.json, c.instance);
    if (auto *refused = std::get_if<ApiResponse>(&prepared))
        return *refused;
    return Reply::later([service = s.charges, user = c.user, target = std::get<ChargeService::Target>(prepared),
                         instance = c.instance] { return service->runLookup(user, target, instance); });
}

Reply getPolicy(const Call &, const Services &s)
{
    return PolicyService::current(*s.approvals);
}

Reply reloadPolicy(const Call &c, const Services &s)
{
    return PolicyService::reloadAnswer(s.policy, *s.approvals, c.user.name, c.instance);
}

// The stop switch (ExecutionService).
Reply executionState(const Call &c, const Services &s)
{
    return s.execution->state(c.instance);
}

Reply pauseExecution(const Call &c, const Services &s)
{
    return s.execution->pause(c.user, c.checked.json, c.instance);
}

Reply resumeExecution(const Call &c, const Services &s)
{
    return s.execution->resume(c.user, c.actionId, c.checked.json, c.instance);
}

// A stream that opens keeps the socket; only a refusal is answered here.
Reply events(const Call &c, const Services &s)
{
    const auto lastEventId = RequestPreconditions::lastEventId(c.headers);
    if (const auto *refused = std::get_if<Problem>(&lastEventId))
        return refused->toResponse(c.instance);
    if (!c.socket || !s.events->open(c.socket, c.user, std::get<std::optional<qint64>>(lastEventId)))
        return Problem(QStringLiteral("unavailable"), QStringLiteral("the audit log cannot be read")).toResponse(c.instance);
    return Reply::tookSocket();
}

// The receiver verifies the signature and may write the ledger: on a worker thread.
Reply providerWebhook(const Call &c, const Services &s)
{
    if (!s.webhook) {
        return Problem(QStringLiteral("unavailable"),
                       QStringLiteral("no webhook receiver is configured in this countersignd; nothing was recorded"))
            .withHeader("Retry-After", "60")
            .toResponse(c.instance);
    }
    const QByteArray signature = RequestPreconditions::header(c.headers, "Stripe-Signature").value_or(QByteArray());
    return Reply::later([handler = s.webhook, body = c.body, signature, instance = c.instance] {
        const WebhookResult result = handler(body, signature);
        if (result.httpStatus == 200) {
            QJsonObject ack{{QStringLiteral("received"), true}, {QStringLiteral("outcome"), result.outcome}};
            if (!result.actionId.isEmpty())
                ack.insert(QStringLiteral("action_id"), result.actionId);
            return ApiResponse::json(200, ack);
        }
        const QString code = result.problemCode.isEmpty() ? QStringLiteral("internal") : result.problemCode;
        Problem problem(code, result.detail);
        if (code == u"unavailable")
            problem.withHeader("Retry-After", "5");
        return problem.toResponse(instance);
    });
}

// Whether `path` (below base) fits `pattern`; *id gets the {id} segment.
bool fits(const QString &pattern, const QString &path, QString *id)
{
    const QList<QStringView> want = QStringView(pattern).split(u'/');
    const QList<QStringView> have = QStringView(path).split(u'/');
    if (want.size() != have.size())
        return false;
    for (qsizetype i = 0; i < want.size(); ++i) {
        if (want.at(i) == u"{id}") {
            if (have.at(i).isEmpty())
                return false;
            *id = have.at(i).toString();
        } else if (want.at(i) != have.at(i)) {
            return false;
        }
    }
    return true;
}

} // namespace

Reply Reply::later(std::function<ApiResponse()> work)
{
    Reply reply;
    reply.work = std::move(work);
    return reply;
}

Reply Reply::tookSocket()
{
    return Reply();
}

// clang-format off
const QList<ApiRoutes::Endpoint> &ApiRoutes::endpoints()
{
    using Needs = RequestPreconditions::Needs;
    static const Needs nothing{.body = Body::None, .ifMatch = false, .idempotencyKey = false};
    // A mutation takes a JSON body and a client Idempotency-Key; one of an existing action If-Match.
    static const Needs proposal{.body = Body::Json, .ifMatch = false, .idempotencyKey = true};
    static const Needs mutation{.body = Body::Json, .ifMatch = true, .idempotencyKey = true};
    static const Needs lookupNeeds{.body = Body::OptionalJson, .ifMatch = true, .idempotencyKey = true};
    static const Needs chargeLookupNeeds{.body = Body::OptionalJson, .ifMatch = false, .idempotencyKey = true};
    static const Needs webhookNeeds{.body = Body::Raw, .ifMatch = false, .idempotencyKey = false};
    // Reloading the policy file twice is loading it twice (the second is the same version again).
    static const Needs reloadNeeds{.body = Body::OptionalJson, .ifMatch = false, .idempotencyKey = false};
    static const Needs resumeNeeds{.body = Body::OptionalJson, .ifMatch = false, .idempotencyKey = true};

    static const QList<Endpoint> table = {
        {.method = "GET",  .path = QStringLiteral("/health"),                       .access = Access::Public,
         .operation = Op::Me,          .needs = nothing,      .handler = health},
        {.method = "GET",  .path = QStringLiteral("/health/live"),                  .access = Access::Public,
         .operation = Op::Me,          .needs = nothing,      .handler = live},
        {.method = "GET",  .path = QStringLiteral("/health/ready"),                 .access = Access::Public,
         .operation = Op::Me,          .needs = nothing,      .handler = ready},
        {.method = "GET",  .path = QStringLiteral("/me"),                           .access = Access::Token,
         .operation = Op::Me,          .needs = nothing,      .handler = me},
        {.method = "GET",  .path = QStringLiteral("/actions"),                      .access = Access::Token,
         .operation = Op::ListActions, .needs = nothing,      .handler = listActions},
        {.method = "POST", .path = QStringLiteral("/actions"),                      .access = Access::Token,
         .operation = Op::Propose,     .needs = proposal,     .handler = propose},
        {.method = "GET",  .path = QStringLiteral("/actions/{id}"),                 .access = Access::Token,
         .operation = Op::GetAction,   .needs = nothing,      .handler = getAction},
        {.method = "POST", .path = QStringLiteral("/actions/{id}/approvals"),       .access = Access::Token,
         .operation = Op::Approve,     .needs = mutation,     .handler = approve},
        {.method = "POST", .path = QStringLiteral("/actions/{id}/rejections"),      .access = Access::Token,
         .operation = Op::Reject,      .needs = mutation,     .handler = reject},
        {.method = "POST", .path = QStringLiteral("/actions/{id}/lookups"),         .access = Access::Token,
         .operation = Op::Lookup,      .needs = lookupNeeds,  .handler = lookup},
        {.method = "POST", .path = QStringLiteral("/actions/{id}/charge-lookups"),  .access = Access::Token,
         .operation = Op::ChargeLookup, .needs = chargeLookupNeeds, .handler = chargeLookup},
        {.method = "POST", .path = QStringLiteral("/actions/{id}/reconciliations"), .access = Access::Token,
         .operation = Op::Reconcile,   .needs = mutation,     .handler = reconcile},
        {.method = "POST", .path = QStringLiteral("/actions/{id}/follow-ups"),      .access = Access::Token,
         .operation = Op::FollowUp,    .needs = mutation,     .handler = followUp},
        {.method = "POST", .path = QStringLiteral("/actions/{id}/settlement/close"), .access = Access::Token,
         .operation = Op::CloseSettlement, .needs = mutation, .handler = closeSettlement},
        {.method = "POST", .path = QStringLiteral("/actions/{id}/discrepancy/close"), .access = Access::Token,
         .operation = Op::CloseDiscrepancy, .needs = mutation, .handler = closeDiscrepancy},
        {.method = "GET",  .path = QStringLiteral("/charges/{id}"),                 .access = Access::Token,
         .operation = Op::ReadCharge,  .needs = nothing,      .handler = getCharge},
        {.method = "POST", .path = QStringLiteral("/charges/{id}/lookups"),         .access = Access::Token,
         .operation = Op::ChargeLookup, .needs = chargeLookupNeeds, .handler = chargeViewLookup},
        {.method = "GET",  .path = QStringLiteral("/events"),                       .access = Access::Token,
         .operation = Op::Events,      .needs = nothing,      .handler = events},
        {.method = "GET",  .path = QStringLiteral("/policy"),                       .access = Access::Token,
         .operation = Op::ReadPolicy,  .needs = nothing,      .handler = getPolicy},
        {.method = "POST", .path = QStringLiteral("/policy/reload"),                .access = Access::Token,
         .operation = Op::ReloadPolicy, .needs = reloadNeeds, .handler = reloadPolicy},
        {.method = "GET",  .path = QStringLiteral("/execution"),                    .access = Access::Token,
         .operation = Op::ReadExecution, .needs = nothing,    .handler = executionState},
        {.method = "POST", .path = QStringLiteral("/execution/pauses"),             .access = Access::Token,
         .operation = Op::PauseExecution, .needs = proposal,  .handler = pauseExecution},
        {.method = "POST", .path = QStringLiteral("/execution/pauses/{id}/resume"), .access = Access::Token,
         .operation = Op::PauseExecution, .needs = resumeNeeds, .handler = resumeExecution},
        // Public: Stripe-Signature is its authentication (checked by the webhook handler).
        {.method = "POST", .path = QStringLiteral("/webhooks/provider"),            .access = Access::Public,
         .operation = Op::Me,          .needs = webhookNeeds, .handler = providerWebhook},
    };
    return table;
}
// clang-format on

std::variant<ApiRoutes::Match, Problem> ApiRoutes::match(const QByteArray &method, const QString &path)
{
    QByteArray allowed;
    if (path.startsWith(base) && path.mid(base.size()).startsWith(u'/')) {
        const QString below = path.mid(base.size());
        for (const Endpoint &endpoint : endpoints()) {
            Match match{&endpoint, QString()};
            if (!fits(endpoint.path, below, &match.actionId))
                continue;
            if (endpoint.method == method)
                return match;
            allowed += (allowed.isEmpty() ? "" : ", ") + endpoint.method;
        }
    }
    if (allowed.isEmpty())
        return Problem(QStringLiteral("not_found"), QStringLiteral("no route %1").arg(path));
    return Problem(QStringLiteral("method_not_allowed"),
                   QStringLiteral("%1 does not allow %2").arg(path, QString::fromLatin1(method)))
        .withHeader("Allow", allowed);
}

} // namespace cs
