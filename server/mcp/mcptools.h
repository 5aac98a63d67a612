#pragma once

#include "server/api/problem.h"
#include "server/mcp/actionchangefeed.h"
#include "server/mcp/mcpbackend.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>
#include <memory>

namespace cs {

// The four tools an agent has (docs/AGENTS.md, issue 15): propose_refund, get_action,
// wait_for_decision, list_my_actions — their input and output JSON schemas and annotations
// (definitions()), the strict check of their flat arguments, the REST calls they make through an
// McpBackend, and the CallToolResult they answer (structuredContent matching the output schema and
// a short text; an error result, isError true, carries no structuredContent and says what happened
// in its text, with the details as JSON in a second text item).
//
// Bad arguments never reach the backend. A result never holds an idempotency key: results are built
// member by member from the REST views, and whatever is passed through is stripped of them again.
// wait_for_decision (DecisionWait) reads its action again when a commit may have changed it, given
// an ActionChangeFeed (setChangeFeed: /mcp on countersignd), and every poll interval otherwise
// (countersign-mcp over HTTP). Not thread-safe; one thread with an event loop.
class McpTools : public QObject
{
    Q_OBJECT
public:
    explicit McpTools(McpBackend *backend, QObject *parent = nullptr);

    // What wakes wait_for_decision (null: it polls). Must outlive the calls that use it, or be
    // reset before it goes.
    void setChangeFeed(ActionChangeFeed *changes) { m_changes = changes; }

    static QJsonArray definitions(); // the `tools` of tools/list
    static bool exists(const QString &name);

    // wait_for_decision's poll (or progress) interval and its bounds (seconds).
    static constexpr int PollIntervalMs = 1000;
    static constexpr int MaxWaitSeconds = 60;
    static constexpr int DefaultWaitSeconds = 25;

    struct Context
    {
        // Protocol revision 2025-11-25 (SEP-1303): argument errors are a tool result with isError,
        // so the model reads them; earlier revisions: a JSON-RPC -32602 error naming the fields.
        bool argumentErrorsAsResults = false;
        // Set when the request carried _meta.progressToken: (progress, total, message).
        std::function<void(double, double, const QString &)> progress;
        // Set to true by notifications/cancelled: a waiting tool stops; the answer is dropped.
        std::shared_ptr<bool> cancelled = std::make_shared<bool>(false);
        // wait_for_decision: how often progress is told and, without a change feed, how often the
        // action is read again (with one: only after a failed read). Tests shorten it.
        int pollIntervalMs = PollIntervalMs;
    };

    struct Outcome
    {
        bool invalidParams = false;   // answer JSON-RPC -32602 with `message` and `errors`
        QString message;
        QList<FieldError> errors;
        QJsonObject result;           // the CallToolResult otherwise
        bool cancelled = false;       // the request was cancelled: answer nothing
    };
    using Done = std::function<void(const Outcome &)>;

    // `done` is called exactly once, later or (for bad arguments) at once.
    void call(const QString &name, const QJsonObject &arguments, const Context &context, Done done);

    // The argument check alone (exposed for the unit tests): every problem, with the field named.
    static QList<FieldError> checkArguments(const QString &name, const QJsonObject &arguments,
                                            QJsonObject *restBody = nullptr);

    // A REST action (POST /actions answer or GET /actions/{id} detail) as the tools show it.
    static QJsonObject actionView(const QJsonObject &action);
    // Removes every member named idempotency_key, at any depth.
    static QJsonValue withoutKeys(const QJsonValue &value);

private:
    void propose(const QJsonObject &body, const Done &done);
    void reportMismatch(const QJsonObject &problem, const QJsonObject &sent, const Done &done);
    void getAction(const QString &id, const Done &done);
    void waitForDecision(const QString &id, int timeoutSeconds, const Context &context, const Done &done);
    void listMine(const QJsonObject &arguments, const Done &done);

    McpBackend *m_backend;
    QPointer<ActionChangeFeed> m_changes;
};

} // namespace cs
