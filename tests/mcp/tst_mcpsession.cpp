// The MCP engine without a network: McpSession + McpTools over a fake backend that records every
// call. The JSON-RPC error table (one row per malformed message), the lifecycle, version
// negotiation, the tools' argument checks (nothing reaches the backend), SEP-1303 by revision,
// the shaping of results (no idempotency key), progress and cancellation of wait_for_decision —
// polling (countersign-mcp) and woken by an ActionChangeFeed (/mcp on countersignd, issue 34).
#include "server/mcp/actionchangefeed.h"
#include "server/mcp/mcpbackend.h"
#include "server/mcp/mcpsession.h"
#include "server/mcp/mcptools.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTimer>
#include <QtTest>

using namespace cs;

namespace {

class FakeBackend : public McpBackend
{
public:
    struct Call
    {
        QByteArray method;
        QString path;
        QJsonObject body;
    };
    QList<Call> calls;
    std::function<Reply(const Call &)> answer = [](const Call &) { return Reply{500, {}, {}, -1}; };

    void request(const QByteArray &method, const QString &path, const QJsonObject &body, Done done) override
    {
        calls.append(Call{method, path, body});
        const Reply reply = answer(calls.last());
        QTimer::singleShot(0, [done, reply] { done(reply); });
    }
};

QJsonObject action(const QString &state, const QString &key = QStringLiteral("csk_secret_v1"))
{
    return QJsonObject{{QStringLiteral("id"), QStringLiteral("act_aaaaaaaaaaaaaaaaaaaaaaaa")},
                       {QStringLiteral("state"), state},
                       {QStringLiteral("state_version"), 3},
                       {QStringLiteral("amount"), 4000},
                       {QStringLiteral("currency"), QStringLiteral("usd")},
                       {QStringLiteral("target"), QJsonObject{{QStringLiteral("charge"), QStringLiteral("ch_1")}}},
                       {QStringLiteral("client_reference"), QStringLiteral("r-1")},
                       {QStringLiteral("idempotency_key"), key},
                       {QStringLiteral("approvals"), QJsonArray{QJsonObject{{QStringLiteral("decision"), QStringLiteral("approved")},
                                                                            {QStringLiteral("decided_by"), QStringLiteral("ana")},
                                                                            {QStringLiteral("idempotency_key"), key}}}},
                       {QStringLiteral("attempts"), QJsonArray{QJsonObject{{QStringLiteral("outcome"), QStringLiteral("succeeded")},
                                                                           {QStringLiteral("provider_object_id"), QStringLiteral("re_1")},
                                                                           {QStringLiteral("idempotency_key"), key}}}}};
}

} // namespace

class TestMcpSession : public QObject
{
    Q_OBJECT

private:
    FakeBackend m_backend;
    std::unique_ptr<ActionChangeFeed> m_feed;
    std::unique_ptr<McpTools> m_tools;
    std::unique_ptr<McpSession> m_session;
    QList<QJsonObject> m_notes;

    // Sends one message; the answer (or an empty object for none).
    QJsonObject send(const QByteArray &message)
    {
        bool answered = false;
        QJsonObject answer;
        McpSession::Replier replier;
        replier.notify = [this](const QJsonObject &n) { m_notes.append(n); };
        replier.respond = [&](const std::optional<QJsonObject> &m) {
            answered = true;
            if (m)
                answer = *m;
        };
        m_session->receive(message, replier);
        if (!QTest::qWaitFor([&] { return answered; }, 10000))
            qWarning("no answer");
        return answer;
    }
    QJsonObject initialize(const QString &version = QStringLiteral("2025-06-18"))
    {
        const QJsonObject init = send(QJsonDocument(QJsonObject{
            {QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("id"), 0}, {QStringLiteral("method"), QStringLiteral("initialize")},
            {QStringLiteral("params"), QJsonObject{{QStringLiteral("protocolVersion"), version}, {QStringLiteral("capabilities"), QJsonObject()},
                                                   {QStringLiteral("clientInfo"), QJsonObject{{QStringLiteral("name"), QStringLiteral("t")}, {QStringLiteral("version"), QStringLiteral("1")}}}}}})
                                        .toJson(QJsonDocument::Compact));
        send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
        return init;
    }
    static int errorCode(const QJsonObject &answer) { return answer.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toInt(); }

    // The tools woken by m_feed, as on /mcp, with this poll (progress) interval.
    void useFeed(int pollIntervalMs)
    {
        m_feed = std::make_unique<ActionChangeFeed>();
        m_tools->setChangeFeed(m_feed.get());
        McpSession::Options options;
        options.pollIntervalMs = pollIntervalMs;
        m_session = std::make_unique<McpSession>(m_tools.get(), options);
    }
    // A wait_for_decision sent without waiting for its answer; `answered` is set when it comes.
    void startWait(const QByteArray &id, int timeoutSeconds, bool *answered, QJsonObject *answer, bool progress = false)
    {
        McpSession::Replier replier;
        replier.notify = [this](const QJsonObject &n) { m_notes.append(n); };
        replier.respond = [answered, answer](const std::optional<QJsonObject> &m) {
            *answered = true;
            if (m)
                *answer = *m;
        };
        const QByteArray meta = progress ? QByteArray(R"(,"_meta":{"progressToken":"p"})") : QByteArray();
        m_session->receive(R"({"jsonrpc":"2.0","id":")" + id + R"(","method":"tools/call","params":{"name":"wait_for_decision","arguments":{"action_id":"act_aaaaaaaaaaaaaaaaaaaaaaaa","timeout_seconds":)"
                               + QByteArray::number(timeoutSeconds) + "}" + meta + "}}",
                           replier);
    }
    static QString stateOf(const QJsonObject &answer)
    {
        return answer.value(QStringLiteral("result")).toObject().value(QStringLiteral("structuredContent")).toObject()
            .value(QStringLiteral("state")).toString();
    }

private slots:
    void init()
    {
        m_backend.calls.clear();
        m_backend.answer = [](const FakeBackend::Call &) { return McpBackend::Reply{500, {}, {}, -1}; };
        m_session.reset();
        m_tools = std::make_unique<McpTools>(&m_backend);
        m_feed.reset();
        McpSession::Options options;
        options.pollIntervalMs = 20;
        m_session = std::make_unique<McpSession>(m_tools.get(), options);
        m_notes.clear();
    }

    void jsonRpcErrors_data()
    {
        QTest::addColumn<QByteArray>("message");
        QTest::addColumn<int>("code");
        QTest::addColumn<QJsonValue>("id");
        QTest::addColumn<QString>("field");
        const QJsonValue null(QJsonValue::Null);
        QTest::newRow("not JSON → parse error") << QByteArray("nope") << -32700 << null << QString();
        QTest::newRow("truncated → parse error") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"ping")") << -32700 << null << QString();
        QTest::newRow("invalid UTF-8 outside strings → parse error") << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\xff\"method\":\"ping\"}") << -32700 << null << QString();
        QTest::newRow("trailing bytes → parse error") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"ping"} x)") << -32700 << null << QString();
        QTest::newRow("a batch → invalid request") << QByteArray(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])") << -32600 << null << QString();
        QTest::newRow("a string → invalid request") << QByteArray(R"("ping")") << -32600 << null << QString();
        QTest::newRow("no jsonrpc → invalid request") << QByteArray(R"({"id":1,"method":"ping"})") << -32600 << QJsonValue(1) << QString();
        QTest::newRow("jsonrpc 1.0 → invalid request") << QByteArray(R"({"jsonrpc":"1.0","id":1,"method":"ping"})") << -32600 << QJsonValue(1) << QString();
        QTest::newRow("null id → invalid request") << QByteArray(R"({"jsonrpc":"2.0","id":null,"method":"ping"})") << -32600 << null << QString();
        QTest::newRow("fractional id → invalid request") << QByteArray(R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})") << -32600 << null << QString();
        QTest::newRow("object id → invalid request") << QByteArray(R"({"jsonrpc":"2.0","id":{},"method":"ping"})") << -32600 << null << QString();
        QTest::newRow("no method → invalid request") << QByteArray(R"({"jsonrpc":"2.0","id":"a"})") << -32600 << QJsonValue(QStringLiteral("a")) << QString();
        QTest::newRow("numeric method → invalid request") << QByteArray(R"({"jsonrpc":"2.0","id":2,"method":7})") << -32600 << QJsonValue(2) << QString();
        QTest::newRow("string params → invalid request") << QByteArray(R"({"jsonrpc":"2.0","id":2,"method":"ping","params":"x"})") << -32600 << QJsonValue(2) << QString();
        QTest::newRow("array params → invalid params") << QByteArray(R"({"jsonrpc":"2.0","id":2,"method":"tools/list","params":[]})") << -32602 << QJsonValue(2) << QStringLiteral("params");
        QTest::newRow("duplicate id member → invalid request, id null") << QByteArray(R"({"jsonrpc":"2.0","id":1,"id":2,"method":"ping"})") << -32600 << null << QStringLiteral("id");
        QTest::newRow("duplicate method → invalid request") << QByteArray(R"({"jsonrpc":"2.0","id":3,"method":"ping","method":"tools/list"})") << -32600 << QJsonValue(3) << QStringLiteral("method");
        QTest::newRow("duplicate argument → invalid params naming it")
            << QByteArray(R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_action","arguments":{"action_id":"act_aaaaaaaaaaaaaaaaaaaaaaaa","action_id":"act_bbbbbbbbbbbbbbbbbbbbbbbb"}}})")
            << -32602 << QJsonValue(4) << QStringLiteral("action_id");
        QTest::newRow("unknown method → method not found") << QByteArray(R"({"jsonrpc":"2.0","id":5,"method":"resources/list"})") << -32601 << QJsonValue(5) << QString();
        QTest::newRow("unknown tool → invalid params") << QByteArray(R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"send_refund"}})") << -32602 << QJsonValue(6) << QStringLiteral("name");
        QTest::newRow("tool name missing → invalid params") << QByteArray(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}})") << -32602 << QJsonValue(7) << QStringLiteral("name");
        QTest::newRow("arguments not an object → invalid params") << QByteArray(R"({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"get_action","arguments":[1]}})") << -32602 << QJsonValue(8) << QStringLiteral("arguments");
        QTest::newRow("bad argument under 2025-06-18 → invalid params naming it")
            << QByteArray(R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"propose_refund","arguments":{"charge":"ch_1","amount":40.5,"currency":"usd","client_reference":"r"}}})")
            << -32602 << QJsonValue(9) << QStringLiteral("amount");
        QTest::newRow("amount 1e2 → invalid params") << QByteArray(R"({"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"propose_refund","arguments":{"charge":"ch_1","amount":1e2,"currency":"usd","client_reference":"r"}}})")
            << -32602 << QJsonValue(10) << QStringLiteral("amount");
        QTest::newRow("amount as a string → invalid params") << QByteArray(R"({"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"propose_refund","arguments":{"charge":"ch_1","amount":"4000","currency":"usd","client_reference":"r"}}})")
            << -32602 << QJsonValue(11) << QStringLiteral("amount");
        QTest::newRow("lone surrogate → invalid params") << QByteArray(R"({"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"propose_refund","arguments":{"charge":"ch_1","amount":1,"currency":"usd","client_reference":"r\ud800"}}})")
            << -32602 << QJsonValue(12) << QStringLiteral("client_reference");
        QTest::newRow("unknown argument → invalid params") << QByteArray(R"({"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"propose_refund","arguments":{"charge":"ch_1","amount":1,"currency":"usd","client_reference":"r","idempotency_key":"k"}}})")
            << -32602 << QJsonValue(13) << QStringLiteral("idempotency_key");
        QTest::newRow("both targets → invalid params naming charge") << QByteArray(R"({"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"propose_refund","arguments":{"charge":"ch_1","payment_intent":"pi_1","amount":1,"currency":"usd","client_reference":"r"}}})")
            << -32602 << QJsonValue(14) << QStringLiteral("charge");
        QTest::newRow("unknown currency → invalid params") << QByteArray(R"({"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"propose_refund","arguments":{"charge":"ch_1","amount":1,"currency":"xyz","client_reference":"r"}}})")
            << -32602 << QJsonValue(15) << QStringLiteral("currency");
        QTest::newRow("bad action id → invalid params") << QByteArray(R"({"jsonrpc":"2.0","id":"g","method":"tools/call","params":{"name":"get_action","arguments":{"action_id":"../me"}}})")
            << -32602 << QJsonValue(QStringLiteral("g")) << QStringLiteral("action_id");
        QTest::newRow("wait over 60 s → invalid params") << QByteArray(R"({"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"wait_for_decision","arguments":{"action_id":"act_aaaaaaaaaaaaaaaaaaaaaaaa","timeout_seconds":61}}})")
            << -32602 << QJsonValue(16) << QStringLiteral("timeout_seconds");
        QTest::newRow("list limit 0 → invalid params") << QByteArray(R"({"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"list_my_actions","arguments":{"limit":0}}})")
            << -32602 << QJsonValue(17) << QStringLiteral("limit");
        QTest::newRow("list unknown state → invalid params") << QByteArray(R"({"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":"list_my_actions","arguments":{"state":"DONE"}}})")
            << -32602 << QJsonValue(18) << QStringLiteral("state");
        QTest::newRow("initialize twice → invalid request") << QByteArray(R"({"jsonrpc":"2.0","id":19,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})")
            << -32600 << QJsonValue(19) << QString();
    }
    void jsonRpcErrors()
    {
        QFETCH(QByteArray, message);
        QFETCH(int, code);
        QFETCH(QJsonValue, id);
        QFETCH(QString, field);
        QCOMPARE(initialize().value(QStringLiteral("result")).toObject().value(QStringLiteral("protocolVersion")).toString(), QStringLiteral("2025-06-18"));
        const QJsonObject answer = send(message);
        QCOMPARE(answer.value(QStringLiteral("jsonrpc")).toString(), QStringLiteral("2.0"));
        QCOMPARE(errorCode(answer), code);
        QCOMPARE(answer.value(QStringLiteral("id")), id);
        QVERIFY(!answer.contains(QStringLiteral("result")));
        if (!field.isEmpty()) {
            const QJsonArray errors = answer.value(QStringLiteral("error")).toObject().value(QStringLiteral("data")).toObject().value(QStringLiteral("errors")).toArray();
            bool named = false;
            for (const QJsonValue &e : errors)
                named = named || e.toObject().value(QStringLiteral("field")).toString() == field;
            QVERIFY2(named, QJsonDocument(answer).toJson().constData());
        }
        QVERIFY2(m_backend.calls.isEmpty(), "a refused message reached the backend");
    }

    void notificationsAreNeverAnswered()
    {
        initialize();
        QVERIFY(send(R"({"jsonrpc":"2.0","method":"notifications/whatever"})").isEmpty());
        QVERIFY(send(R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"get_action"}})").isEmpty());
        QVERIFY(send(R"({"jsonrpc":"2.0","id":5,"result":{}})").isEmpty()); // a response to us
        QVERIFY(m_backend.calls.isEmpty());
    }

    void requestsBeforeInitialize()
    {
        QCOMPARE(errorCode(send(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})")), -32600);
        QVERIFY(send(R"({"jsonrpc":"2.0","id":2,"method":"ping"})").contains(QStringLiteral("result")));
    }

    void versionNegotiation_data()
    {
        QTest::addColumn<QString>("asked");
        QTest::addColumn<QString>("answered");
        QTest::newRow("2025-11-25 when asked") << QStringLiteral("2025-11-25") << QStringLiteral("2025-11-25");
        QTest::newRow("2025-06-18 when asked") << QStringLiteral("2025-06-18") << QStringLiteral("2025-06-18");
        QTest::newRow("an older one → the newest") << QStringLiteral("2024-11-05") << QStringLiteral("2025-11-25");
        QTest::newRow("an unknown one → the newest") << QStringLiteral("2099-01-01") << QStringLiteral("2025-11-25");
    }
    void versionNegotiation()
    {
        QFETCH(QString, asked);
        QFETCH(QString, answered);
        const QJsonObject result = initialize(asked).value(QStringLiteral("result")).toObject();
        QCOMPARE(result.value(QStringLiteral("protocolVersion")).toString(), answered);
        QVERIFY(result.value(QStringLiteral("capabilities")).toObject().contains(QStringLiteral("tools")));
        QVERIFY(result.value(QStringLiteral("instructions")).toString().contains(QStringLiteral("client_reference")));
        QCOMPARE(result.value(QStringLiteral("serverInfo")).toObject().value(QStringLiteral("name")).toString(), QStringLiteral("countersign"));
    }

    void argumentErrorsAreResultsUnder20251125()
    {
        initialize(QStringLiteral("2025-11-25"));
        const QJsonObject answer = send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"propose_refund","arguments":{"charge":"ch_1","amount":40.5,"currency":"usd"}}})");
        const QJsonObject result = answer.value(QStringLiteral("result")).toObject();
        QCOMPARE(result.value(QStringLiteral("isError")).toBool(), true);
        QVERIFY(!result.contains(QStringLiteral("structuredContent")));
        const QString text = result.value(QStringLiteral("content")).toArray().at(0).toObject().value(QStringLiteral("text")).toString();
        QVERIFY2(text.contains(QStringLiteral("amount")) && text.contains(QStringLiteral("client_reference")), qPrintable(text));
        QVERIFY(m_backend.calls.isEmpty());
        // Unknown tools stay protocol errors.
        QCOMPARE(errorCode(send(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope"}})")), -32602);
    }

    void toolsListHasSchemasAndAnnotations()
    {
        initialize();
        const QJsonArray tools = send(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})")
                                     .value(QStringLiteral("result")).toObject().value(QStringLiteral("tools")).toArray();
        QCOMPARE(tools.size(), 4);
        for (const QJsonValue &t : tools) {
            const QJsonObject tool = t.toObject();
            QCOMPARE(tool.value(QStringLiteral("inputSchema")).toObject().value(QStringLiteral("type")).toString(), QStringLiteral("object"));
            QCOMPARE(tool.value(QStringLiteral("outputSchema")).toObject().value(QStringLiteral("type")).toString(), QStringLiteral("object"));
            const QJsonObject annotations = tool.value(QStringLiteral("annotations")).toObject();
            const bool propose = tool.value(QStringLiteral("name")).toString() == u"propose_refund";
            QCOMPARE(annotations.value(QStringLiteral("readOnlyHint")).toBool(), !propose);
            if (propose) {
                QCOMPARE(annotations.value(QStringLiteral("idempotentHint")).toBool(), true);
                QCOMPARE(annotations.value(QStringLiteral("destructiveHint")).toBool(), false);
            }
        }
    }

    void proposeMapsToTheRestProposal()
    {
        initialize();
        m_backend.answer = [](const FakeBackend::Call &) { return McpBackend::Reply{201, action(QStringLiteral("PENDING"), QString()), {}, -1}; };
        const QJsonObject answer = send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"propose_refund","arguments":{"charge":"ch_1","amount":4000,"currency":"USD","reason":"duplicate","business_reference":"o-1","client_reference":"r-1","note":"why"}}})");
        QCOMPARE(m_backend.calls.size(), 1);
        const FakeBackend::Call call = m_backend.calls.first();
        QCOMPARE(call.method, QByteArray("POST"));
        QCOMPARE(call.path, QStringLiteral("/actions"));
        QCOMPARE(call.body.value(QStringLiteral("kind")).toString(), QStringLiteral("refund"));
        QCOMPARE(call.body.value(QStringLiteral("target")).toObject().value(QStringLiteral("charge")).toString(), QStringLiteral("ch_1"));
        QCOMPARE(call.body.value(QStringLiteral("amount")).toInteger(), 4000);
        QCOMPARE(call.body.value(QStringLiteral("justification")).toString(), QStringLiteral("why"));
        QVERIFY(!call.body.contains(QStringLiteral("note")));
        const QJsonObject structured = answer.value(QStringLiteral("result")).toObject().value(QStringLiteral("structuredContent")).toObject();
        QCOMPARE(structured.value(QStringLiteral("created")).toBool(), true);
        QCOMPARE(structured.value(QStringLiteral("action_id")).toString(), QStringLiteral("act_aaaaaaaaaaaaaaaaaaaaaaaa"));
    }

    void noResultCarriesAKey()
    {
        initialize();
        m_backend.answer = [](const FakeBackend::Call &) { return McpBackend::Reply{200, action(QStringLiteral("COMPLETED")), {}, -1}; };
        const QJsonObject answer = send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_action","arguments":{"action_id":"act_aaaaaaaaaaaaaaaaaaaaaaaa"}}})");
        const QByteArray bytes = QJsonDocument(answer).toJson(QJsonDocument::Compact);
        QVERIFY2(!bytes.contains("csk_secret") && !bytes.contains("idempotency_key"), bytes.constData());
        const QJsonObject structured = answer.value(QStringLiteral("result")).toObject().value(QStringLiteral("structuredContent")).toObject();
        QCOMPARE(structured.value(QStringLiteral("refund_id")).toString(), QStringLiteral("re_1"));
        QCOMPARE(structured.value(QStringLiteral("final")).toBool(), true);
        QCOMPARE(m_backend.calls.first().path, QStringLiteral("/actions/act_aaaaaaaaaaaaaaaaaaaaaaaa"));
    }

    // Issue 18: COMPLETED is not "arrived" while the refund is pending, nor "done" once it failed
    // afterwards; the agent is told which, and never to propose it again.
    void completedSaysWhatBecameOfTheRefund_data()
    {
        QTest::addColumn<QJsonObject>("settlement");
        QTest::addColumn<QString>("status");
        QTest::addColumn<QString>("says");
        const auto settlement = [](const char *status, const char *attention) {
            return QJsonObject{{QStringLiteral("refund_id"), QStringLiteral("re_1")},
                               {QStringLiteral("status"), QLatin1String(status)},
                               {QStringLiteral("failure_reason"), QStringLiteral("lost_or_stolen_card")},
                               {QStringLiteral("attention"), QLatin1String(attention)},
                               {QStringLiteral("follow_up_id"), QStringLiteral("act_bbbbbbbbbbbbbbbbbbbbbbbb")},
                               {QStringLiteral("resolution_note"), QStringLiteral("paid by bank transfer")}};
        };
        QTest::newRow("pending") << settlement("pending", "none") << "pending" << "on its way, not that it has arrived";
        QTest::newRow("succeeded") << settlement("succeeded", "none") << "succeeded" << "was made at the provider";
        QTest::newRow("failed, open") << settlement("failed", "open") << "failed"
                                      << "failed (lost_or_stolen_card): the customer has NOT been refunded. A human supervisor decides";
        QTest::newRow("failed, followed up") << settlement("failed", "followed_up") << "failed"
                                             << "re-proposed it as a new operation, act_bbbbbbbbbbbbbbbbbbbbbbbb";
        QTest::newRow("canceled, closed") << settlement("canceled", "closed") << "canceled" << "closed it without re-sending: paid by bank transfer";
        QTest::newRow("completed before settlements were followed") << QJsonObject() << "" << "was made at the provider";
    }

    void completedSaysWhatBecameOfTheRefund()
    {
        QFETCH(QJsonObject, settlement);
        QFETCH(QString, status);
        QFETCH(QString, says);
        initialize();
        m_backend.answer = [settlement](const FakeBackend::Call &) {
            QJsonObject detail = action(QStringLiteral("COMPLETED"));
            detail.insert(QStringLiteral("settlement"), settlement.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(settlement));
            return McpBackend::Reply{200, detail, {}, -1};
        };
        const QJsonObject answer = send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_action","arguments":{"action_id":"act_aaaaaaaaaaaaaaaaaaaaaaaa"}}})");
        const QJsonObject structured = answer.value(QStringLiteral("result")).toObject().value(QStringLiteral("structuredContent")).toObject();
        QCOMPARE(structured.value(QStringLiteral("refund_status")).toString(), status);
        QCOMPARE(structured.value(QStringLiteral("refund_id")).toString(), QStringLiteral("re_1"));
        const QString waiting = structured.value(QStringLiteral("waiting_for")).toString();
        QVERIFY2(waiting.contains(says), qPrintable(waiting));
        if (status == u"failed" && settlement.value(QStringLiteral("attention")).toString() == u"open")
            QVERIFY2(waiting.contains(QStringLiteral("Do not propose it again")), qPrintable(waiting));
    }

    void mismatchSaysWhatWasStoredAndSent()
    {
        initialize();
        m_backend.answer = [](const FakeBackend::Call &call) {
            if (call.method == "POST")
                return McpBackend::Reply{409, QJsonObject{{QStringLiteral("code"), QStringLiteral("payload_mismatch")},
                                                          {QStringLiteral("action_id"), QStringLiteral("act_aaaaaaaaaaaaaaaaaaaaaaaa")},
                                                          {QStringLiteral("conflict_seq"), 1}}, {}, -1};
            QJsonObject detail = action(QStringLiteral("REQUIRES_REVIEW"));
            const QJsonObject stored{{QStringLiteral("target"), QJsonObject{{QStringLiteral("charge"), QStringLiteral("ch_1")}}},
                                     {QStringLiteral("amount"), 4000}, {QStringLiteral("currency"), QStringLiteral("usd")}};
            QJsonObject sent = stored;
            sent.insert(QStringLiteral("amount"), 4500);
            detail.insert(QStringLiteral("conflicts"), QJsonArray{QJsonObject{{QStringLiteral("seq"), 1},
                                                                              {QStringLiteral("stored_payload"), stored},
                                                                              {QStringLiteral("conflicting_payload"), sent}}});
            return McpBackend::Reply{200, detail, {}, -1};
        };
        const QJsonObject result = send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"propose_refund","arguments":{"charge":"ch_1","amount":4500,"currency":"usd","client_reference":"r-1"}}})")
                                       .value(QStringLiteral("result")).toObject();
        QCOMPARE(result.value(QStringLiteral("isError")).toBool(), true);
        const QString text = result.value(QStringLiteral("content")).toArray().at(0).toObject().value(QStringLiteral("text")).toString();
        QVERIFY2(text.contains(QStringLiteral("stored: 40.00 USD")) && text.contains(QStringLiteral("you sent: 45.00 USD"))
                     && text.contains(QStringLiteral("human now reviews")) && text.contains(QStringLiteral("REQUIRES_REVIEW")),
                 qPrintable(text));
        QVERIFY(!text.contains(QStringLiteral("new client_reference")) || text.contains(QStringLiteral("Do not propose")));
        QCOMPARE(m_backend.calls.size(), 2);
    }

    void lostAnswerSaysCallAgainWithTheSameReference()
    {
        initialize();
        m_backend.answer = [](const FakeBackend::Call &) { return McpBackend::Reply{0, {}, QStringLiteral("no answer within the timeout"), -1}; };
        const QJsonObject result = send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"propose_refund","arguments":{"charge":"ch_1","amount":4500,"currency":"usd","client_reference":"r-1"}}})")
                                       .value(QStringLiteral("result")).toObject();
        QCOMPARE(result.value(QStringLiteral("isError")).toBool(), true);
        const QString text = result.value(QStringLiteral("content")).toArray().at(0).toObject().value(QStringLiteral("text")).toString();
        QVERIFY2(text.contains(QStringLiteral("exactly the same arguments")) && text.contains(QStringLiteral("Never switch to a new client_reference")), qPrintable(text));
    }

    void waitPollsWithProgressUntilSettled()
    {
        initialize();
        int polls = 0;
        m_backend.answer = [&polls](const FakeBackend::Call &) {
            ++polls;
            return McpBackend::Reply{200, action(polls < 4 ? QStringLiteral("PENDING") : QStringLiteral("COMPLETED")), {}, -1};
        };
        const QJsonObject answer = send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait_for_decision","arguments":{"action_id":"act_aaaaaaaaaaaaaaaaaaaaaaaa","timeout_seconds":10},"_meta":{"progressToken":"p1"}}})");
        const QJsonObject structured = answer.value(QStringLiteral("result")).toObject().value(QStringLiteral("structuredContent")).toObject();
        QCOMPARE(structured.value(QStringLiteral("state")).toString(), QStringLiteral("COMPLETED"));
        QCOMPARE(structured.value(QStringLiteral("timed_out")).toBool(), false);
        QCOMPARE(polls, 4);
        QCOMPARE(m_notes.size(), 3);
        double last = -1;
        for (const QJsonObject &n : std::as_const(m_notes)) {
            QCOMPARE(n.value(QStringLiteral("method")).toString(), QStringLiteral("notifications/progress"));
            const QJsonObject params = n.value(QStringLiteral("params")).toObject();
            QCOMPARE(params.value(QStringLiteral("progressToken")).toString(), QStringLiteral("p1"));
            QVERIFY(params.value(QStringLiteral("progress")).toDouble() > last);
            last = params.value(QStringLiteral("progress")).toDouble();
        }
    }

    void waitTimesOutWithTheStateSoFar()
    {
        initialize();
        m_backend.answer = [](const FakeBackend::Call &) { return McpBackend::Reply{200, action(QStringLiteral("PENDING")), {}, -1}; };
        const QJsonObject structured = send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait_for_decision","arguments":{"action_id":"act_aaaaaaaaaaaaaaaaaaaaaaaa","timeout_seconds":0}}})")
                                           .value(QStringLiteral("result")).toObject().value(QStringLiteral("structuredContent")).toObject();
        QCOMPARE(structured.value(QStringLiteral("timed_out")).toBool(), true);
        QCOMPARE(structured.value(QStringLiteral("state")).toString(), QStringLiteral("PENDING"));
        QVERIFY(m_notes.isEmpty()); // no progress token, no notifications
    }

    void cancelledWaitIsNotAnswered()
    {
        initialize();
        m_backend.answer = [](const FakeBackend::Call &) { return McpBackend::Reply{200, action(QStringLiteral("PENDING")), {}, -1}; };
        bool answered = false;
        std::optional<QJsonObject> answer;
        McpSession::Replier replier;
        replier.respond = [&](const std::optional<QJsonObject> &m) { answered = true; answer = m; };
        m_session->receive(R"({"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"wait_for_decision","arguments":{"action_id":"act_aaaaaaaaaaaaaaaaaaaaaaaa","timeout_seconds":30}}})", replier);
        QTRY_VERIFY(m_backend.calls.size() >= 2);
        QCOMPARE(m_session->inFlight(), 1);
        // The same id again while in flight is refused.
        QCOMPARE(errorCode(send(R"({"jsonrpc":"2.0","id":"w","method":"ping"})")), -32600);
        send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w","reason":"user"}})");
        QTRY_VERIFY(answered);
        QVERIFY(!answer.has_value());
        QCOMPARE(m_session->inFlight(), 0);
        const qsizetype calls = m_backend.calls.size();
        QTest::qWait(100);
        QCOMPARE(m_backend.calls.size(), calls); // polling stopped
    }

    // Woken by its action's change, not by a timer: with a minute between polls the decision is
    // answered at once, and a change of another action reads nothing.
    void wokenWaitReadsOnlyWhenItsActionChanges()
    {
        useFeed(60000);
        initialize();
        QString state = QStringLiteral("PENDING");
        m_backend.answer = [&state](const FakeBackend::Call &) { return McpBackend::Reply{200, action(state), {}, -1}; };
        bool answered = false;
        QJsonObject answer;
        startWait("w", 30, &answered, &answer);
        QTRY_COMPARE(m_backend.calls.size(), 1); // the start
        QCOMPARE(m_feed->subscriptions(), 1);
        m_feed->notify({QStringLiteral("act_bbbbbbbbbbbbbbbbbbbbbbbb")});
        QTest::qWait(50);
        QCOMPARE(m_backend.calls.size(), 1);
        state = QStringLiteral("REJECTED");
        m_feed->notify({QStringLiteral("act_bbbbbbbbbbbbbbbbbbbbbbbb"), QStringLiteral("act_aaaaaaaaaaaaaaaaaaaaaaaa")});
        QTRY_VERIFY_WITH_TIMEOUT(answered, 2000);
        QCOMPARE(stateOf(answer), QStringLiteral("REJECTED"));
        QCOMPARE(m_backend.calls.size(), 2);
        QCOMPARE(m_feed->subscriptions(), 0);
    }

    // Changes that arrive while a read runs are one more read after it, however many.
    void wakesDuringAReadAreOneRead()
    {
        useFeed(60000);
        initialize();
        m_backend.answer = [](const FakeBackend::Call &) { return McpBackend::Reply{200, action(QStringLiteral("PENDING")), {}, -1}; };
        bool answered = false;
        QJsonObject answer;
        startWait("w", 30, &answered, &answer);
        QTRY_COMPARE(m_backend.calls.size(), 1);
        QTest::qWait(20); // the start read is answered
        for (int i = 0; i < 5; ++i)
            m_feed->notify({QStringLiteral("act_aaaaaaaaaaaaaaaaaaaaaaaa")});
        QTRY_COMPARE(m_backend.calls.size(), 3);
        QTest::qWait(50);
        QCOMPARE(m_backend.calls.size(), 3);
        QVERIFY(!answered);
    }

    // Progress goes on at the interval from the last answer, without reading; a failed read is
    // tried again at the next interval, and only then.
    void wokenWaitTellsProgressAndRetriesOnlyFailures()
    {
        useFeed(20);
        initialize();
        int reads = 0;
        m_backend.answer = [&reads](const FakeBackend::Call &) {
            return ++reads == 1 ? McpBackend::Reply{503, {}, {}, -1} : McpBackend::Reply{200, action(QStringLiteral("PENDING")), {}, -1};
        };
        bool answered = false;
        QJsonObject answer;
        startWait("w", 30, &answered, &answer, true);
        QTRY_COMPARE(m_backend.calls.size(), 2); // the start, answered 503; the retry
        QTest::qWait(300);
        QCOMPARE(m_backend.calls.size(), 2);
        QVERIFY2(m_notes.size() >= 5, qPrintable(QString::number(m_notes.size())));
        const QString message = m_notes.last().value(QStringLiteral("params")).toObject().value(QStringLiteral("message")).toString();
        QVERIFY2(message.startsWith(QStringLiteral("PENDING: ")), qPrintable(message));
        QVERIFY(!answered);
    }

    // A cancelled wait ends its subscription (and the feed stops following its source).
    void cancelledWokenWaitUnsubscribes()
    {
        useFeed(20);
        initialize();
        QSignalSpy following(m_feed.get(), &ActionChangeFeed::following);
        QVERIFY(following.isValid());
        m_backend.answer = [](const FakeBackend::Call &) { return McpBackend::Reply{200, action(QStringLiteral("PENDING")), {}, -1}; };
        bool answered = false;
        QJsonObject answer;
        startWait("w", 30, &answered, &answer);
        QTRY_COMPARE(m_feed->subscriptions(), 1);
        QCOMPARE(following.size(), 1);
        QCOMPARE(following.at(0).at(0).toBool(), true);
        send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w","reason":"user"}})");
        QTRY_VERIFY(answered);
        QVERIFY(answer.isEmpty());
        QCOMPARE(m_feed->subscriptions(), 0);
        QCOMPARE(following.size(), 2);
        QCOMPARE(following.at(1).at(0).toBool(), false);
        QCOMPARE(m_backend.calls.size(), 1);
    }

    // The deadline is one read, answered with the state so far.
    void wokenWaitTimesOutWithOneRead()
    {
        useFeed(60000);
        initialize();
        m_backend.answer = [](const FakeBackend::Call &) { return McpBackend::Reply{200, action(QStringLiteral("PENDING")), {}, -1}; };
        bool answered = false;
        QJsonObject answer;
        startWait("w", 1, &answered, &answer);
        QTRY_VERIFY_WITH_TIMEOUT(answered, 3000);
        const QJsonObject structured = answer.value(QStringLiteral("result")).toObject().value(QStringLiteral("structuredContent")).toObject();
        QCOMPARE(structured.value(QStringLiteral("timed_out")).toBool(), true);
        QVERIFY(structured.value(QStringLiteral("waited_seconds")).toDouble() >= 1.0);
        QCOMPARE(m_backend.calls.size(), 2);
    }
};

QTEST_GUILESS_MAIN(TestMcpSession)
#include "tst_mcpsession.moc"
