#pragma once

#include "server/api/actionpolicy.h"
#include "server/api/apiresponse.h"
#include "server/api/problem.h"
#include "server/api/requestpreconditions.h"
#include "server/api/role.h"
#include "server/api/webhookhandler.h"

#include <QByteArray>
#include <QList>
#include <QPointer>
#include <QString>
#include <QUrlQuery>

#include <functional>
#include <optional>
#include <variant>

class QTcpSocket;

namespace cs {

class Readiness;

class ActionReader;
class ActionService;
class ApprovalStore;
class ChargeService;
class EventStream;
class PolicyService;
class ExecutionService;

// What the API offers, in one table (resources/openapi.yaml `paths:`, under /api/v1): per
// endpoint its method, path pattern, who may call it (ActionPolicy::Operation), the request
// preconditions the server checks before the handler (RequestPreconditions::Needs), and the
// handler. Adding an endpoint touches the table (apiroutes.cpp), a handler beside it (usually one
// ActionService function) and its tests — nothing in ApiServer.
//
// ApiServer does the rest in a fixed order: draining (503), match() (404 / 405 with Allow), the
// bearer token and the role (401 / 403, unless Access::Public), the preconditions (413, 415, 400),
// the client Idempotency-Key (replay, 422, 409), If-Match (428), then the handler.
//
// The one path parameter is `{id}`, a non-empty segment (the action id, a charge or payment
// intent id, or a pause id). Handlers run on the HTTP
// server's thread; Reply::work runs on a worker thread.
class ApiRoutes
{
public:
    static constexpr QStringView base = u"/api/v1";

    enum class Access {
        Public, // no Authorization needed (health, the provider's webhook)
        Token,  // a bearer token whose role may call the endpoint's operation (401, 403)
    };

    // The request as the handler sees it, after the preconditions passed.
    struct Call
    {
        QString instance; // the request path: every problem's `instance`
        QUrlQuery query;
        HeaderList headers;
        QByteArray body;       // as received (the webhook verifies its signature over it)
        QString actionId;      // the path's {id}, if the pattern has one
        User user;             // the caller; empty for Access::Public
        RequestPreconditions::Passed checked; // the JSON body, If-Match, Idempotency-Key
        QPointer<QTcpSocket> socket;          // for a handler that keeps the connection (GET /events)
    };

    // The server's parts a handler may use. The pointers outlive every call.
    struct Services
    {
        ActionService *actions = nullptr;
        ChargeService *charges = nullptr;      // the charge view
        ExecutionService *execution = nullptr; // the stop switch
        const ActionReader *reader = nullptr;
        EventStream *events = nullptr;
        WebhookHandler webhook; // unset: the webhook answers 503
        const ApprovalStore *approvals = nullptr; // the policy in force
        PolicyService *policy = nullptr;          // unset: countersignd runs without --policy
        Readiness *readiness = nullptr;           // GET /health/ready
        QString version;
    };

    // What a handler did: answered now (`response`), or asked for `work` to run on a worker thread
    // and be answered with its result (must be thread-safe), or neither: it took the socket.
    struct Reply
    {
        Reply(ApiResponse answer) : response(std::move(answer)) {} // implicit: most handlers just answer
        static Reply later(std::function<ApiResponse()> work);
        static Reply tookSocket();

        std::optional<ApiResponse> response;
        std::function<ApiResponse()> work;

    private:
        Reply() = default;
    };

    using Handler = Reply (*)(const Call &call, const Services &services);

    struct Endpoint
    {
        QByteArray method; // GET, POST
        QString path;      // under base, as in openapi.yaml: "/actions/{id}/approvals"
        Access access = Access::Token;
        ActionPolicy::Operation operation = ActionPolicy::Operation::Me; // the role check; unused for Public
        RequestPreconditions::Needs needs;
        Handler handler = nullptr;
    };

    static const QList<Endpoint> &endpoints();

    struct Match
    {
        const Endpoint *endpoint = nullptr;
        QString actionId;
    };
    // The endpoint for a method (upper case, as ApiServer passes it) and a request path (with
    // base), or 404 not_found / 405 method_not_allowed with an Allow header naming the path's
    // methods in table order.
    static std::variant<Match, Problem> match(const QByteArray &method, const QString &path);
};

} // namespace cs
