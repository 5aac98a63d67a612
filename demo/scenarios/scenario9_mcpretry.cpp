// Scenario 9, "An agent on MCP retries after a lost answer" (issue 15): an LLM agent connected over
// MCP (Streamable HTTP at /mcp, the agent's own token) proposes a $75 refund and its host loses the
// answer — the host drops the call after Countersign recorded the proposal, before the result
// reached the model. Following the server's instructions it calls propose_refund again with the same
// arguments and the same client_reference: the same action, nothing new recorded. It then waits
// with wait_for_decision (progress over SSE) while an approver approves; the wait ends COMPLETED
// with the provider's refund id. The provider holds one refund.
#include "demo/demoscenario.h"
#include "demo/demostack.h"
#include "demo/scenarios/scenarios.h"

#include <QJsonDocument>

namespace cs::demo {

class McpRetryScenario final : public DemoScenario
{
public:
    using DemoScenario::DemoScenario;

    QList<Step> steps() override
    {
        return {step([this] { return connect(); }), step([this] { return lostAnswer(); }),
                step([this] { return retry(); }), step([this] { return waitWhileApproved(); }),
                step([this] { return judge(); })};
    }

private:
    struct State {
        QString charge;
        QString reference;
        QByteArray session;      // Mcp-Session-Id
        QByteArray version;      // the negotiated protocol revision
        int nextId = 1;
        QString lostAction;      // what the ledger held when the answer was lost ("" if nothing yet)
        QString action;          // what the retry answered
        bool retryCreated = true;
        QJsonObject waited;      // wait_for_decision's structuredContent
        int progress = 0;        // progress notifications received while waiting
    } m;

    static constexpr qint64 Amount = 7500;

    // ---- MCP over HTTP, as an agent host does it -------------------------------------------------

    QUrl mcpUrl() const { return QUrl(m_stack->backendUrl().toString() + QStringLiteral("/mcp")); }

    DemoHttp::Headers mcpHeaders() const
    {
        DemoHttp::Headers headers{
            qMakePair(QByteArray("Authorization"), QByteArray("Bearer " + m_stack->tokens().value(m_agent).toUtf8())),
            qMakePair(QByteArray("Content-Type"), QByteArray("application/json")),
            qMakePair(QByteArray("Accept"), QByteArray("application/json, text/event-stream"))};
        if (!m.session.isEmpty())
            headers.append(qMakePair(QByteArray("Mcp-Session-Id"), m.session));
        if (!m.version.isEmpty())
            headers.append(qMakePair(QByteArray("MCP-Protocol-Version"), m.version));
        return headers;
    }

    QJsonObject request(const QString &method, const QJsonObject &params)
    {
        return QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                           {QStringLiteral("id"), m.nextId++},
                           {QStringLiteral("method"), method},
                           {QStringLiteral("params"), params}};
    }

    QJsonObject toolCall(const QString &tool, const QJsonObject &arguments, const QJsonObject &meta = QJsonObject())
    {
        QJsonObject params{{QStringLiteral("name"), tool}, {QStringLiteral("arguments"), arguments}};
        if (!meta.isEmpty())
            params.insert(QStringLiteral("_meta"), meta);
        return request(QStringLiteral("tools/call"), params);
    }

    QJsonObject proposeArguments() const
    {
        return QJsonObject{{QStringLiteral("charge"), m.charge},
                           {QStringLiteral("amount"), QJsonValue(Amount)},
                           {QStringLiteral("currency"), QStringLiteral("usd")},
                           {QStringLiteral("reason"), QStringLiteral("requested_by_customer")},
                           {QStringLiteral("business_reference"), m.reference},
                           {QStringLiteral("client_reference"), m.reference}};
    }

    Async<HttpReply> post(QJsonObject message)
    {
        const QByteArray body = QJsonDocument(message).toJson(QJsonDocument::Compact);
        const DemoHttp::Headers headers = mcpHeaders();
        const QUrl url = mcpUrl();
        co_return co_await awaitCallback<HttpReply>([&](std::function<void(HttpReply)> resume) {
            m_http.request("POST", url, headers, body, [resume = std::move(resume)](const HttpReply &r) { resume(r); }, 65000);
        });
    }

    // The JSON-RPC messages of an answer: one JSON object, or the `data:` of each SSE event.
    static QList<QJsonObject> messagesOf(const HttpReply &r)
    {
        if (!r.header("Content-Type").startsWith("text/event-stream"))
            return {r.json()};
        QList<QJsonObject> messages;
        for (const QByteArray &line : r.body.split('\n')) {
            if (line.startsWith("data:"))
                messages.append(QJsonDocument::fromJson(line.mid(5).trimmed()).object());
        }
        return messages;
    }

    // The response among messages (the one with an id), or an empty object.
    static QJsonObject responseOf(const QList<QJsonObject> &messages)
    {
        for (const QJsonObject &message : messages) {
            if (message.contains(QLatin1String("id")))
                return message;
        }
        return QJsonObject();
    }

    // A tool's result: structuredContent when the call succeeded; empty (with fail()) otherwise.
    QJsonObject toolResult(const HttpReply &r, const QString &tool)
    {
        const QJsonObject response = responseOf(messagesOf(r));
        const QJsonObject result = response.value(QLatin1String("result")).toObject();
        if (r.status != 200 || result.isEmpty() || result.value(QLatin1String("isError")).toBool()) {
            fail(QStringLiteral("%1 over MCP → HTTP %2: %3").arg(tool).arg(r.status).arg(QString::fromUtf8(r.body.left(400))));
            return QJsonObject();
        }
        return result.value(QLatin1String("structuredContent")).toObject();
    }

    // The agent's actions under this run's reference (business and client reference are the same
    // here; a list row carries the business one), as the supervisor sees them in the queue.
    Async<QJsonArray> actionsUnderReference()
    {
        const QString path = QStringLiteral("/actions?q=") + m.reference;
        const HttpReply r = co_await api(m_supervisor, Verb::Get, path);
        QJsonArray mine;
        for (const QJsonValue &value : arr(r.json(), "data")) {
            const QJsonObject row = value.toObject();
            if (str(row, "business_reference") == m.reference && str(row, "requested_by") == m_agent)
                mine.append(row);
        }
        co_return mine;
    }

    // ---- the steps -------------------------------------------------------------------------------

    Async<bool> connect()
    {
        const QJsonArray none;
        if (!co_await setFaults(none))
            co_return false;
        m.charge = co_await newCharge(Amount);
        if (m.charge.isEmpty())
            co_return false;
        m.reference = reference(QStringLiteral("order"), m.charge);
        const QJsonObject params{
            {QStringLiteral("protocolVersion"), QStringLiteral("2025-11-25")},
            {QStringLiteral("capabilities"), QJsonObject()},
            {QStringLiteral("clientInfo"), QJsonObject{{QStringLiteral("name"), QStringLiteral("countersign-demo-agent")},
                                                       {QStringLiteral("version"), QStringLiteral("1")}}}};
        const HttpReply r = co_await post(request(QStringLiteral("initialize"), params));
        const QJsonObject result = responseOf(messagesOf(r)).value(QLatin1String("result")).toObject();
        m.session = r.header("Mcp-Session-Id");
        m.version = result.value(QLatin1String("protocolVersion")).toString().toLatin1();
        if (r.status != 200 || m.session.isEmpty() || m.version.isEmpty()) {
            fail(QStringLiteral("MCP initialize at %1 → HTTP %2: %3").arg(mcpUrl().toString()).arg(r.status).arg(QString::fromUtf8(r.body.left(400))));
            co_return false;
        }
        const QJsonObject initialized{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                                      {QStringLiteral("method"), QStringLiteral("notifications/initialized")}};
        const HttpReply ack = co_await post(initialized);
        if (ack.status != 202) {
            fail(QStringLiteral("notifications/initialized → HTTP %1").arg(ack.status));
            co_return false;
        }
        say(NarrationKind::Step, QStringLiteral("A customer paid %1 (%2) for a chair that arrived broken. Agent %3, an LLM "
                                                "agent, reaches Countersign over MCP at %4 with its own token (protocol %5).")
                                     .arg(money(Amount), m.charge, m_agent, mcpUrl().toString(), QString::fromLatin1(m.version)));
        // The sentence of the server's instructions this scenario is about.
        const QString instructions = result.value(QLatin1String("instructions")).toString();
        const qsizetype start = instructions.indexOf(QLatin1String("A timeout"));
        const qsizetype end = start < 0 ? -1 : instructions.indexOf(QLatin1String(". "), start);
        say(NarrationKind::Observation, QStringLiteral("The server's instructions tell the model: \"%1\"")
                                            .arg(end < 0 ? instructions.left(240) : instructions.mid(start, end - start + 1)));
        co_return true;
    }

    Async<bool> lostAnswer()
    {
        say(NarrationKind::Step, QStringLiteral("The agent calls propose_refund: %1 on %2, client_reference \"%3\".")
                                     .arg(money(Amount), m.charge, m.reference));
        const QByteArray body = QJsonDocument(toolCall(QStringLiteral("propose_refund"), proposeArguments())).toJson(QJsonDocument::Compact);
        const std::function<void()> hangUp = m_http.requestThenHangUp("POST", mcpUrl(), mcpHeaders(), body);
        // The host drops the connection once Countersign has recorded the proposal (bounded: if it
        // never shows up, the answer is dropped anyway and the retry below must create it).
        for (int waited = 0; waited < 5000 && m.lostAction.isEmpty(); waited += 50) {
            const QJsonArray found = co_await actionsUnderReference();
            if (!found.isEmpty())
                m.lostAction = str(found.first().toObject(), "id");
            else
                co_await pause(50);
        }
        hangUp();
        say(NarrationKind::Problem, QStringLiteral("The answer is lost on its way to the model: the agent's host drops the "
                                                   "call (a timeout, a crash, a broken connection). The model cannot tell "
                                                   "whether it proposed."));
        if (!m.lostAction.isEmpty())
            focus(m.lostAction); // the console selects it in the queue
        if (m.lostAction.isEmpty())
            say(NarrationKind::Observation, QStringLiteral("Countersign had recorded nothing yet under \"%1\".").arg(m.reference));
        else
            say(NarrationKind::Observation, QStringLiteral("Countersign had already recorded it: %1, PENDING, under \"%2\" — "
                                                           "the answer was lost, not the proposal.")
                                                .arg(m.lostAction, m.reference));
        say(NarrationKind::Problem, QStringLiteral("An agent that takes a lost answer for a failure proposes again under a new "
                                                   "reference, and two refunds of one chair wait in the queue (with Stripe's "
                                                   "own create_refund tool, two refunds at the provider)."));
        co_return true;
    }

    Async<bool> retry()
    {
        const HttpReply r = co_await post(toolCall(QStringLiteral("propose_refund"), proposeArguments()));
        const QJsonObject result = toolResult(r, QStringLiteral("propose_refund"));
        if (result.isEmpty())
            co_return false;
        m.action = str(result, "action_id");
        focus(m.action);
        m.retryCreated = result.value(QLatin1String("created")).toBool();
        const QString text = responseOf(messagesOf(r)).value(QLatin1String("result")).toObject()
                                 .value(QLatin1String("content")).toArray().at(0).toObject().value(QLatin1String("text")).toString();
        if (!m.lostAction.isEmpty() && (m.retryCreated || m.action != m.lostAction)) {
            say(NarrationKind::Problem, QStringLiteral("The retry answered %1 (created: %2) beside %3.")
                                            .arg(m.action, m.retryCreated ? QStringLiteral("true") : QStringLiteral("false"), m.lostAction));
            co_return true; // the verdict says it failed
        }
        say(NarrationKind::Cure, QStringLiteral("As the instructions say, the agent calls propose_refund again with exactly the "
                                                "same arguments. Countersign answers the same action: \"%1\"")
                                     .arg(text));
        co_return true;
    }

    Async<bool> waitWhileApproved()
    {
        // wait_for_decision with a progress token: the answer becomes an SSE stream of progress
        // notifications that ends with the result. It runs while the approver decides.
        // In an exercise a person approves: the agent waits as long as the tool allows (60 s).
        const int waitSeconds = inExercise() ? 60 : 30;
        const QJsonObject arguments{{QStringLiteral("action_id"), m.action}, {QStringLiteral("timeout_seconds"), waitSeconds}};
        const QJsonObject meta{{QStringLiteral("progressToken"), QString(u"wait-" + m.action)}};
        auto waited = std::make_shared<std::optional<HttpReply>>();
        auto resumeWait = std::make_shared<std::function<void(HttpReply)>>();
        m_http.request("POST", mcpUrl(), mcpHeaders(),
                       QJsonDocument(toolCall(QStringLiteral("wait_for_decision"), arguments, meta)).toJson(QJsonDocument::Compact),
                       [waited, resumeWait](const HttpReply &r) {
                           if (*resumeWait)
                               (*resumeWait)(r);
                           else
                               *waited = r;
                       },
                       (waitSeconds + 35) * 1000);
        say(NarrationKind::Step, QStringLiteral("The agent calls wait_for_decision on %1 (up to %2 s) and waits; nothing is "
                                                "sent until a human approves.")
                                     .arg(m.action)
                                     .arg(waitSeconds));
        co_await pause(1000); // the trainer sees the agent waiting
        if (!co_await decideApproval(m.action, true,
                                     QStringLiteral("The agent called propose_refund twice with the same reference: "
                                                    "it is one action, so approving it sends one refund.")))
            co_return false;
        const HttpReply r = co_await awaitCallback<HttpReply>([&](std::function<void(HttpReply)> resume) {
            if (*waited) {
                const HttpReply early = **waited;
                m_http.after(0, [resume = std::move(resume), early] { resume(early); });
            } else {
                *resumeWait = std::move(resume);
            }
        });
        for (const QJsonObject &message : messagesOf(r)) {
            if (message.value(QLatin1String("method")).toString() == QLatin1String("notifications/progress"))
                ++m.progress;
        }
        m.waited = toolResult(r, QStringLiteral("wait_for_decision"));
        if (m.waited.isEmpty())
            co_return false;
        say(NarrationKind::Observation,
            QStringLiteral("The wait ends %1 with refund %2 (%3 progress notification(s) over %4 while it waited, %5 s). The "
                           "agent never saw the idempotency key Countersign minted at the approval.")
                .arg(str(m.waited, "state"), str(m.waited, "refund_id"))
                .arg(m.progress)
                .arg(QString::fromLatin1(r.header("Content-Type").split(';').first()))
                .arg(m.waited.value(QLatin1String("waited_seconds")).toDouble(), 0, 'f', 1));
        co_return true;
    }

    Async<bool> judge()
    {
        const CheckResult checked = co_await check(m.action, ActionState::Completed, 1);
        const QJsonArray mine = co_await actionsUnderReference();
        const ActionSnapshot detail = co_await action(m.action);
        const bool sameAction = m.lostAction.isEmpty() ? m.retryCreated : (!m.retryCreated && m.action == m.lostAction);
        const bool waitedToTheEnd = str(m.waited, "state") == QLatin1String("COMPLETED")
            && str(m.waited, "refund_id") == providerObject(detail.json) && !m.waited.value(QLatin1String("timed_out")).toBool();
        // The agent is done with the session: DELETE ends it, as a well-behaved host does.
        const DemoHttp::Headers headers = mcpHeaders();
        const QUrl url = mcpUrl();
        const HttpReply closed = co_await awaitCallback<HttpReply>([&](std::function<void(HttpReply)> resume) {
            m_http.request("DELETE", url, headers, QByteArray(), [resume = std::move(resume)](const HttpReply &r) { resume(r); });
        });
        setVerdict(checked.ok && sameAction && mine.size() == 1 && waitedToTheEnd && closed.status == 204,
                   checked.line + QStringLiteral(" | %1 action(s) under the reference, the retry %2 | wait_for_decision %3 %4 | "
                                                 "session closed: HTTP %5")
                                      .arg(mine.size())
                                      .arg(m.retryCreated ? QStringLiteral("created one") : QStringLiteral("answered the same"))
                                      .arg(str(m.waited, "state"), str(m.waited, "refund_id"))
                                      .arg(closed.status));
        co_return true;
    }
};

std::unique_ptr<Scenario> makeMcpRetryScenario(DemoStack *stack)
{
    return std::make_unique<McpRetryScenario>(stack, 9);
}

} // namespace cs::demo
