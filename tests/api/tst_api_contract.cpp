// The REST API against a real countersignd (and paysim for look-ups) on loopback: the role matrix
// cell by cell, four-eyes, If-Match (428 / 400 / 412), client Idempotency-Key replay, strict input
// validation with "nothing written" proven on the ledger, list paging and filters, look-ups,
// reconciliation and follow-ups.
#include "tests/api/apitestsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>
#include <QUrlQuery>

using cs::ActionState;
using cs::Attempt;
using cs::Trigger;

class TestApiContract : public QObject
{
    Q_OBJECT

private:
    ApiHarness m_harness;
    std::unique_ptr<ApiClient> m_client;
    int m_serial = 0;

    QString token(const QString &user) const { return m_harness.token(user); }
    QString nextReference(const QString &what) { return QStringLiteral("%1-%2").arg(what).arg(++m_serial); }

    // A fresh PENDING action proposed by `agent`; returns its reply.
    ApiReply freshAction(const QString &agent = QStringLiteral("agent-7"), qint64 amount = 4000)
    {
        return m_client->propose(token(agent), ApiClient::proposal(nextReference(QStringLiteral("ref")), amount));
    }
    QString idOf(const ApiReply &reply) const
    {
        return reply.json.contains(QStringLiteral("action"))
            ? reply.json.value(QStringLiteral("action")).toObject().value(QStringLiteral("id")).toString()
            : reply.json.value(QStringLiteral("id")).toString();
    }
    cs::ActionRecord record(const QString &id) { return m_harness.ledger().reader().action(id).value(); }
    QByteArray etag(const QString &id) { return '"' + QByteArray::number(record(id).stateVersion) + '"'; }

    // An action in CONFIRMATION_UNKNOWN (approved by ana, one attempt with an unknown outcome).
    QString unknownAction(qint64 amount = 4000, const QString &charge = QStringLiteral("ch_3Pq8Xk2eZvKYlo2C1b4a9dEf"))
    {
        const ApiReply proposed = m_client->propose(token(QStringLiteral("agent-7")),
                                                    ApiClient::proposal(nextReference(QStringLiteral("unk")), amount, charge));
        const QString id = idOf(proposed);
        m_client->approve(token(QStringLiteral("ana")), id, proposed.ifMatch());
        QString error;
        if (!driveAttempt(m_harness.ledger(), id, Attempt::Outcome::Unknown, Trigger::OutcomeUnknown, &error))
            qWarning() << error;
        return id;
    }
    QString completedAction(qint64 amount = 4000)
    {
        const ApiReply proposed = freshAction(QStringLiteral("agent-7"), amount);
        const QString id = idOf(proposed);
        m_client->approve(token(QStringLiteral("ana")), id, proposed.ifMatch());
        QString error;
        if (!driveAttempt(m_harness.ledger(), id, Attempt::Outcome::Succeeded, Trigger::ProviderSucceeded, &error,
                          QStringLiteral("re_test_%1").arg(m_serial)))
            qWarning() << error;
        return id;
    }
    // Creates the refund at paysim exactly as the executor would have (its request body).
    int createRefundAtProvider(const QString &id)
    {
        const cs::ActionRecord r = record(id);
        return m_harness.refundAtPaysim(r.providerRequest().formBody(), r.idempotencyKey.toLatin1()).status;
    }

private slots:
    void initTestCase()
    {
        QString error;
        ApiHarness::Options options;
        options.withPaysim = true;
        // The test plays the executor's part itself (driveAttempt), so the service must not.
        options.extraServeArguments = {QStringLiteral("--no-executor")};
        QVERIFY2(m_harness.start(options, &error), qPrintable(error));
        m_client = std::make_unique<ApiClient>(m_harness.api());
    }

    void cleanupTestCase()
    {
        // SIGTERM drains and exits 0.
        QVERIFY2(m_harness.countersignd().stop(), m_harness.countersignd().standardError().constData());
    }

    void healthAndMe()
    {
        const ApiReply health = m_client->get(QStringLiteral("/health"), QString());
        QCOMPARE(health.status, 200);
        QCOMPARE(health.json.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
        const ApiReply me = m_client->get(QStringLiteral("/me"), token(QStringLiteral("sam")));
        QCOMPARE(me.status, 200);
        QCOMPARE(me.json.value(QStringLiteral("user")).toString(), QStringLiteral("sam"));
        QCOMPARE(me.json.value(QStringLiteral("role")).toString(), QStringLiteral("supervisor"));
        const ApiReply anonymous = m_client->get(QStringLiteral("/me"), QString());
        QCOMPARE(anonymous.status, 401);
        QCOMPARE(anonymous.code(), QStringLiteral("unauthenticated"));
        QCOMPARE(anonymous.header("WWW-Authenticate"), QByteArray("Bearer realm=\"countersign\""));
        const ApiReply unknown = m_client->get(QStringLiteral("/me"), QStringLiteral("cst_not_a_token"));
        QCOMPARE(unknown.status, 401);
        QVERIFY(unknown.header("WWW-Authenticate").contains("invalid_token"));
        QCOMPARE(unknown.header("Content-Type"), QByteArray("application/problem+json"));
    }

    // Every cell of docs/API.md's role × endpoint matrix.
    void roleMatrix_data()
    {
        QTest::addColumn<QString>("endpoint");
        QTest::addColumn<QString>("user");
        QTest::addColumn<int>("expected");
        QTest::addColumn<QString>("code");
        const QStringList users = {QStringLiteral("agent-7"), QStringLiteral("ana"), QStringLiteral("sam"),
                                   QStringLiteral("aud"), QStringLiteral("root")};
        // Expected status per user (agent, approver, supervisor, auditor, admin); 403 = forbidden.
        const QList<QPair<QString, QList<int>>> matrix = {
            {QStringLiteral("GET /me"), {200, 200, 200, 200, 200}},
            {QStringLiteral("GET /actions"), {200, 200, 200, 200, 200}},
            {QStringLiteral("GET /actions/{id}"), {200, 200, 200, 200, 200}},
            {QStringLiteral("POST /actions"), {201, 403, 403, 403, 201}},
            {QStringLiteral("POST /actions/{id}/approvals"), {403, 200, 403, 403, 200}},
            {QStringLiteral("POST /actions/{id}/rejections"), {403, 200, 403, 403, 200}},
            {QStringLiteral("POST /actions/{id}/lookups"), {403, 403, 200, 403, 200}},
            {QStringLiteral("POST /actions/{id}/reconciliations"), {403, 403, 409, 403, 409}}, // allowed: PENDING → illegal_state
            {QStringLiteral("POST /actions/{id}/follow-ups"), {403, 403, 409, 403, 409}},      // allowed: outcome_unknown
            {QStringLiteral("GET /events"), {200, 200, 200, 200, 200}},
        };
        for (const auto &row : matrix) {
            for (int i = 0; i < users.size(); ++i) {
                const int expected = row.second.at(i);
                QString code;
                if (expected == 403)
                    code = QStringLiteral("forbidden");
                else if (row.first.endsWith(u"reconciliations"))
                    code = QStringLiteral("illegal_state");
                else if (row.first.endsWith(u"follow-ups"))
                    code = QStringLiteral("outcome_unknown");
                QTest::addRow("%s as %s", qPrintable(row.first), qPrintable(users.at(i)))
                    << row.first << users.at(i) << expected << code;
            }
        }
        // "own": an agent reading another agent's action gets 404, naming another requester 403.
        QTest::addRow("GET /actions/{id} of another agent") << QStringLiteral("GET /actions/{id} foreign")
                                                            << QStringLiteral("agent-8") << 404 << QStringLiteral("not_found");
        QTest::addRow("GET /actions?requested_by=other as agent") << QStringLiteral("GET /actions?requested_by=agent-7")
                                                                  << QStringLiteral("agent-8") << 403 << QStringLiteral("forbidden");
    }

    void roleMatrix()
    {
        QFETCH(QString, endpoint);
        QFETCH(QString, user);
        QFETCH(int, expected);
        QFETCH(QString, code);
        const ApiReply action = freshAction();
        QCOMPARE(action.status, 201);
        const QString id = idOf(action);
        const Headers ifMatch = {{"If-Match", action.ifMatch()}};
        const LedgerCounts before = ledgerCounts(m_harness.ledger());
        ApiReply reply;
        const QString t = token(user);
        if (endpoint == u"GET /me") {
            reply = m_client->get(QStringLiteral("/me"), t);
        } else if (endpoint == u"GET /actions") {
            reply = m_client->get(QStringLiteral("/actions"), t);
        } else if (endpoint.startsWith(u"GET /actions?")) {
            reply = m_client->get(endpoint.mid(4), t);
        } else if (endpoint.startsWith(u"GET /actions/{id}")) {
            reply = m_client->get(QStringLiteral("/actions/") + id, t);
        } else if (endpoint == u"POST /actions") {
            reply = m_client->propose(t, ApiClient::proposal(nextReference(QStringLiteral("matrix"))));
        } else if (endpoint.endsWith(u"approvals")) {
            reply = m_client->post(QStringLiteral("/actions/%1/approvals").arg(id), t, {{QStringLiteral("note"), QStringLiteral("ok")}}, ifMatch);
        } else if (endpoint.endsWith(u"rejections")) {
            reply = m_client->post(QStringLiteral("/actions/%1/rejections").arg(id), t,
                                   {{QStringLiteral("reason"), QStringLiteral("duplicate")}, {QStringLiteral("note"), QStringLiteral("duplicate request")}}, ifMatch);
        } else if (endpoint.endsWith(u"lookups")) {
            reply = m_client->post(QStringLiteral("/actions/%1/lookups").arg(id), t, {}, ifMatch);
        } else if (endpoint.endsWith(u"reconciliations")) {
            reply = m_client->post(QStringLiteral("/actions/%1/reconciliations").arg(id), t,
                                   {{QStringLiteral("outcome"), QStringLiteral("committed")},
                                    {QStringLiteral("evidence_lookup_seq"), 1},
                                    {QStringLiteral("note"), QStringLiteral("seen at the provider")}},
                                   ifMatch);
        } else if (endpoint.endsWith(u"follow-ups")) {
            reply = m_client->post(QStringLiteral("/actions/%1/follow-ups").arg(id), t,
                                   {{QStringLiteral("desired_total_amount"), 4500}, {QStringLiteral("note"), QStringLiteral("owed 45")}},
                                   ifMatch);
        } else if (endpoint == u"GET /events") {
            QNetworkReply *stream = m_client->sendAsync("GET", QStringLiteral("/events"), t, {}, {{"Accept", "text/event-stream"}});
            QTRY_VERIFY_WITH_TIMEOUT(stream->attribute(QNetworkRequest::HttpStatusCodeAttribute).isValid(), 5000);
            reply.status = stream->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            QVERIFY(stream->header(QNetworkRequest::ContentTypeHeader).toString().startsWith(u"text/event-stream"));
            stream->abort();
            stream->deleteLater();
        } else {
            QFAIL("unknown endpoint");
        }
        QVERIFY2(reply.status == expected, qPrintable(QStringLiteral("%1 %2").arg(reply.status).arg(QString::fromUtf8(reply.body))));
        if (!code.isEmpty())
            QCOMPARE(reply.code(), code);
        if (expected >= 400)
            QCOMPARE(ledgerCounts(m_harness.ledger()), before); // a refusal writes nothing
    }

    void fourEyes()
    {
        const ApiReply own = m_client->propose(token(QStringLiteral("root")), ApiClient::proposal(nextReference(QStringLiteral("root"))));
        QCOMPARE(own.status, 201);
        const QString id = idOf(own);
        const ApiReply detail = m_client->get(QStringLiteral("/actions/") + id, token(QStringLiteral("root")));
        const QJsonObject approve = detail.json.value(QStringLiteral("permissions")).toObject().value(QStringLiteral("approve")).toObject();
        QCOMPARE(approve.value(QStringLiteral("allowed")).toBool(), false);
        QVERIFY(approve.value(QStringLiteral("reason")).toString().contains(QStringLiteral("four-eyes")));
        const LedgerCounts before = ledgerCounts(m_harness.ledger());
        const ApiReply refused = m_client->approve(token(QStringLiteral("root")), id, own.ifMatch());
        QCOMPARE(refused.status, 403);
        QCOMPARE(refused.code(), QStringLiteral("four_eyes"));
        QCOMPARE(ledgerCounts(m_harness.ledger()), before);
        QCOMPARE(record(id).approvalVersion, 0);
        const ApiReply approved = m_client->approve(token(QStringLiteral("ana")), id, own.ifMatch());
        QCOMPARE(approved.status, 200);
        QCOMPARE(approved.json.value(QStringLiteral("approval")).toObject().value(QStringLiteral("decided_by")).toString(), QStringLiteral("ana"));
        // Approving twice: the version moved (412) — with the new version: already_approved.
        const ApiReply again = m_client->approve(token(QStringLiteral("bob")), id, approved.ifMatch());
        QCOMPARE(again.status, 409);
        QCOMPARE(again.code(), QStringLiteral("already_approved"));
        QCOMPARE(record(id).approvalVersion, 1);
    }

    void ifMatch_data()
    {
        QTest::addColumn<QByteArray>("header"); // "-" for none; "{v}" / "{stale}" substituted
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        QTest::newRow("missing -> 428") << QByteArray("-") << 428 << QStringLiteral("if_match_required");
        QTest::newRow("star -> 428") << QByteArray("*") << 428 << QStringLiteral("if_match_required");
        QTest::newRow("not an entity tag -> 400") << QByteArray("1") << 400 << QStringLiteral("invalid_parameter");
        QTest::newRow("letters -> 400") << QByteArray("\"abc\"") << 400 << QStringLiteral("invalid_parameter");
        QTest::newRow("two tags -> 400") << QByteArray("\"1\", \"2\"") << 400 << QStringLiteral("invalid_parameter");
        QTest::newRow("stale -> 412") << QByteArray("{stale}") << 412 << QStringLiteral("stale_state_version");
        QTest::newRow("ahead -> 412") << QByteArray("\"99\"") << 412 << QStringLiteral("stale_state_version");
        QTest::newRow("current -> 200") << QByteArray("{v}") << 200 << QString();
        QTest::newRow("weak current -> 200") << QByteArray("W/{v}") << 200 << QString();
    }

    void ifMatch()
    {
        QFETCH(QByteArray, header);
        QFETCH(int, status);
        QFETCH(QString, code);
        const ApiReply action = freshAction();
        const QString id = idOf(action);
        QByteArray value = header;
        value.replace("{v}", action.ifMatch());
        value.replace("{stale}", "\"0\"");
        Headers headers;
        if (header != "-")
            headers.append({"If-Match", value});
        const LedgerCounts before = ledgerCounts(m_harness.ledger());
        const ApiReply reply = m_client->post(QStringLiteral("/actions/%1/rejections").arg(id), token(QStringLiteral("bob")),
                                              {{QStringLiteral("reason"), QStringLiteral("not_eligible")}}, headers);
        QVERIFY2(reply.status == status, reply.body.constData());
        if (!code.isEmpty()) {
            QCOMPARE(reply.code(), code);
            QCOMPARE(ledgerCounts(m_harness.ledger()), before);
            QCOMPARE(record(id).state, ActionState::Pending);
        }
        if (status == 412) {
            QCOMPARE(reply.json.value(QStringLiteral("current_state_version")).toInteger(), 1);
            QCOMPARE(reply.json.value(QStringLiteral("current_state")).toString(), QStringLiteral("PENDING"));
            QCOMPARE(reply.header("ETag"), QByteArray("\"1\""));
        }
        if (status == 200) {
            QCOMPARE(record(id).state, ActionState::Rejected);
            QCOMPARE(reply.header("ETag"), QByteArray("\"2\""));
        }
    }

    // A console whose response was lost resends with the same Idempotency-Key: one approval.
    void idempotencyKeyReplay()
    {
        const ApiReply action = freshAction();
        const QString id = idOf(action);
        const ApiReply first = m_client->approve(token(QStringLiteral("ana")), id, action.ifMatch(), "console-intent-1");
        QCOMPARE(first.status, 200);
        QVERIFY(first.header("Idempotent-Replayed").isEmpty());
        const LedgerCounts after = ledgerCounts(m_harness.ledger());
        const ApiReply resent = m_client->approve(token(QStringLiteral("ana")), id, action.ifMatch(), "console-intent-1");
        QCOMPARE(resent.status, 200);
        QCOMPARE(resent.header("Idempotent-Replayed"), QByteArray("true"));
        QCOMPARE(resent.body, first.body);
        QCOMPARE(resent.header("ETag"), first.header("ETag"));
        QCOMPARE(ledgerCounts(m_harness.ledger()), after); // one effect
        QCOMPARE(m_harness.ledger().reader().approvals(id)->size(), 1);
        // Without the key the blind resend is stale, never a second approval.
        const ApiReply blind = m_client->approve(token(QStringLiteral("ana")), id, action.ifMatch());
        QCOMPARE(blind.status, 412);
        // Same key, another request: 422, nothing written.
        const ApiReply other = freshAction();
        const ApiReply reused = m_client->approve(token(QStringLiteral("ana")), idOf(other), other.ifMatch(), "console-intent-1");
        QCOMPARE(reused.status, 422);
        QCOMPARE(reused.code(), QStringLiteral("idempotency_key_reuse"));
        QCOMPARE(record(idOf(other)).approvalVersion, 0);
        // Keys are per user: bob may use the same key for his own intent.
        const ApiReply bobs = m_client->approve(token(QStringLiteral("bob")), idOf(other), other.ifMatch(), "console-intent-1");
        QCOMPARE(bobs.status, 200);
        // A stored refusal is replayed too (412 is stored).
        const ApiReply stale1 = m_client->approve(token(QStringLiteral("bob")), id, "\"1\"", "stale-intent");
        QCOMPARE(stale1.status, 412);
        const ApiReply stale2 = m_client->approve(token(QStringLiteral("bob")), id, "\"1\"", "stale-intent");
        QCOMPARE(stale2.status, 412);
        QCOMPARE(stale2.header("Idempotent-Replayed"), QByteArray("true"));
        // Proposals: the resend gets the stored 201 with its Location.
        const QJsonObject proposal = ApiClient::proposal(nextReference(QStringLiteral("idem")));
        const ApiReply created = m_client->post(QStringLiteral("/actions"), token(QStringLiteral("agent-7")), proposal,
                                                {{"Idempotency-Key", "agent-run-77"}});
        QCOMPARE(created.status, 201);
        const ApiReply replayed = m_client->post(QStringLiteral("/actions"), token(QStringLiteral("agent-7")), proposal,
                                                 {{"Idempotency-Key", "agent-run-77"}});
        QCOMPARE(replayed.status, 201);
        QCOMPARE(replayed.header("Location"), created.header("Location"));
        QCOMPARE(replayed.header("Idempotent-Replayed"), QByteArray("true"));
        // A 4xx that is not stored (400) runs again: the corrected request with the same key works.
        const ApiReply badKeyFirst = m_client->postRaw(QStringLiteral("/actions"), token(QStringLiteral("agent-7")), "{oops",
                                                       {{"Content-Type", "application/json"}, {"Idempotency-Key", "agent-run-78"}});
        QCOMPARE(badKeyFirst.status, 400);
        const ApiReply corrected = m_client->post(QStringLiteral("/actions"), token(QStringLiteral("agent-7")),
                                                  ApiClient::proposal(nextReference(QStringLiteral("idem"))),
                                                  {{"Idempotency-Key", "agent-run-78"}});
        QCOMPARE(corrected.status, 201);
    }

    // Malformed, wrongly typed, out-of-range, unknown, oversized: a clear 4xx and nothing written.
    void badInput_data()
    {
        QTest::addColumn<QByteArray>("verb");
        QTest::addColumn<QString>("path");     // {id}: a fresh action of agent-7
        QTest::addColumn<QString>("user");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QByteArray>("contentType");
        QTest::addColumn<QByteArray>("extraHeader"); // "Name: value" or empty
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("field");    // a field named in `errors`, or empty

        const QByteArray json = "application/json";
        const auto proposal = [](const char *member, const QJsonValue &value) {
            QJsonObject p = ApiClient::proposal(QStringLiteral("bad-input"));
            if (value.isUndefined())
                p.remove(QLatin1String(member));
            else
                p.insert(QLatin1String(member), value);
            return QJsonDocument(p).toJson(QJsonDocument::Compact);
        };
        const QString a = QStringLiteral("agent-7");
        const QString actions = QStringLiteral("/actions");
        QTest::newRow("malformed JSON") << QByteArray("POST") << actions << a << QByteArray("{\"kind\": \"refund\",") << json << QByteArray() << 400 << QStringLiteral("malformed_json") << QString();
        QTest::newRow("JSON array") << QByteArray("POST") << actions << a << QByteArray("[1,2]") << json << QByteArray() << 400 << QStringLiteral("malformed_json") << QString();
        QTest::newRow("empty body") << QByteArray("POST") << actions << a << QByteArray() << json << QByteArray() << 400 << QStringLiteral("malformed_json") << QString();
        QTest::newRow("amount as string") << QByteArray("POST") << actions << a << proposal("amount", QStringLiteral("4000")) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("amount");
        QTest::newRow("fractional amount") << QByteArray("POST") << actions << a << proposal("amount", 40.5) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("amount");
        QTest::newRow("negative amount") << QByteArray("POST") << actions << a << proposal("amount", -4000) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("amount");
        QTest::newRow("zero amount") << QByteArray("POST") << actions << a << proposal("amount", 0) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("amount");
        QTest::newRow("amount over 10^12") << QByteArray("POST") << actions << a << proposal("amount", 1e12 + 1) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("amount");
        QTest::newRow("amount overflowing int64") << QByteArray("POST") << actions << a
            << QByteArray(R"({"kind":"refund","target":{"charge":"ch_x1"},"amount":99999999999999999999999,"currency":"usd","client_reference":"o"})")
            << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("amount");
        QTest::newRow("unknown currency") << QByteArray("POST") << actions << a << proposal("currency", QStringLiteral("xyz")) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("currency");
        QTest::newRow("currency as number") << QByteArray("POST") << actions << a << proposal("currency", 840) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("currency");
        QTest::newRow("provider chosen by the agent") << QByteArray("POST") << actions << a << proposal("provider", QStringLiteral("stripe")) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("provider");
        QTest::newRow("missing target") << QByteArray("POST") << actions << a << proposal("target", QJsonValue::Undefined) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("target");
        QTest::newRow("two targets") << QByteArray("POST") << actions << a << proposal("target", QJsonObject{{QStringLiteral("charge"), QStringLiteral("ch_a")}, {QStringLiteral("payment_intent"), QStringLiteral("pi_b")}}) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("target");
        QTest::newRow("malformed charge id") << QByteArray("POST") << actions << a << proposal("target", QJsonObject{{QStringLiteral("charge"), QStringLiteral("re_123")}}) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("target.charge");
        QTest::newRow("kind not refund") << QByteArray("POST") << actions << a << proposal("kind", QStringLiteral("payout")) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("kind");
        QTest::newRow("unknown reason") << QByteArray("POST") << actions << a << proposal("reason", QStringLiteral("because")) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("reason");
        QTest::newRow("client_reference too long") << QByteArray("POST") << actions << a << proposal("client_reference", QString(256, u'x')) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("client_reference");
        QTest::newRow("null client_reference") << QByteArray("POST") << actions << a << proposal("client_reference", QJsonValue::Null) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("client_reference");
        // The agent's reasons (issue 19): bounded, typed, https only, the member named.
        const auto facts = [&](const QJsonObject &value) { return proposal("facts", value); };
        QTest::newRow("justification too long") << QByteArray("POST") << actions << a << proposal("justification", QString(2001, u'x')) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("justification");
        QTest::newRow("justification with a bell") << QByteArray("POST") << actions << a << proposal("justification", QStringLiteral("ring\x07")) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("justification");
        QTest::newRow("justification as number") << QByteArray("POST") << actions << a << proposal("justification", 7) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("justification");
        QTest::newRow("context_url http") << QByteArray("POST") << actions << a << proposal("context_url", QStringLiteral("http://tickets.example.com/1")) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("context_url");
        QTest::newRow("context_url javascript") << QByteArray("POST") << actions << a << proposal("context_url", QStringLiteral("javascript:alert(1)")) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("context_url");
        QTest::newRow("context_url relative") << QByteArray("POST") << actions << a << proposal("context_url", QStringLiteral("/tickets/1")) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("context_url");
        QTest::newRow("context_url without host") << QByteArray("POST") << actions << a << proposal("context_url", QStringLiteral("https:///tickets/1")) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("context_url");
        QTest::newRow("context_url with user info") << QByteArray("POST") << actions << a << proposal("context_url", QStringLiteral("https://bob:secret@tickets.example.com/1")) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("context_url");
        QTest::newRow("context_url too long") << QByteArray("POST") << actions << a << proposal("context_url", QString(QStringLiteral("https://example.com/") + QString(2030, u'a'))) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("context_url");
        QTest::newRow("context_url with a space") << QByteArray("POST") << actions << a << proposal("context_url", QStringLiteral("https://example.com/a b")) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("context_url");
        QTest::newRow("facts not an object") << QByteArray("POST") << actions << a << proposal("facts", QJsonArray{QStringLiteral("x")}) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("facts");
        QJsonObject eleven;
        for (int i = 0; i < 11; ++i)
            eleven.insert(QStringLiteral("k%1").arg(i), QStringLiteral("v"));
        QTest::newRow("facts with 11 members") << QByteArray("POST") << actions << a << facts(eleven) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("facts");
        QTest::newRow("fact key upper case") << QByteArray("POST") << actions << a << facts({{QStringLiteral("Order"), QStringLiteral("1")}}) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("facts.Order");
        QTest::newRow("fact key too long") << QByteArray("POST") << actions << a << facts({{QString(41, u'k'), QStringLiteral("1")}}) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QString(QStringLiteral("facts.") + QString(41, u'k'));
        QTest::newRow("fact key empty") << QByteArray("POST") << actions << a << facts({{QString(), QStringLiteral("1")}}) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("facts.");
        QTest::newRow("fact value a number") << QByteArray("POST") << actions << a << facts({{QStringLiteral("order_total"), 4000}}) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("facts.order_total");
        QTest::newRow("fact value too long") << QByteArray("POST") << actions << a << facts({{QStringLiteral("said"), QString(201, u'x')}}) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("facts.said");
        QTest::newRow("fact value with a newline") << QByteArray("POST") << actions << a << facts({{QStringLiteral("said"), QStringLiteral("two\nlines")}}) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("facts.said");
        QTest::newRow("fact value an object") << QByteArray("POST") << actions << a << facts({{QStringLiteral("said"), QJsonObject()}}) << json << QByteArray() << 422 << QStringLiteral("validation_failed") << QStringLiteral("facts.said");
        QTest::newRow("oversized body") << QByteArray("POST") << actions << a << QByteArray(70000, ' ') + proposal("kind", QStringLiteral("refund")) << json << QByteArray() << 413 << QStringLiteral("payload_too_large") << QString();
        QTest::newRow("form body") << QByteArray("POST") << actions << a << QByteArray("kind=refund&amount=4000") << QByteArray("application/x-www-form-urlencoded") << QByteArray() << 415 << QStringLiteral("unsupported_media_type") << QString();
        QTest::newRow("latin-1 charset") << QByteArray("POST") << actions << a << proposal("kind", QStringLiteral("refund")) << QByteArray("application/json; charset=iso-8859-1") << QByteArray() << 415 << QStringLiteral("unsupported_media_type") << QString();
        QTest::newRow("Idempotency-Key with spaces") << QByteArray("POST") << actions << a << proposal("kind", QStringLiteral("refund")) << json << QByteArray("Idempotency-Key: two words") << 400 << QStringLiteral("invalid_parameter") << QStringLiteral("Idempotency-Key");
        QTest::newRow("approve unknown id") << QByteArray("POST") << QStringLiteral("/actions/act_aaaaaaaaaaaaaaaaaaaaaaaa/approvals") << QStringLiteral("ana") << QByteArray("{}") << json << QByteArray("If-Match: \"1\"") << 404 << QStringLiteral("not_found") << QString();
        QTest::newRow("approve malformed id") << QByteArray("POST") << QStringLiteral("/actions/nonsense/approvals") << QStringLiteral("ana") << QByteArray("{}") << json << QByteArray("If-Match: \"1\"") << 404 << QStringLiteral("not_found") << QString();
        QTest::newRow("get unknown id") << QByteArray("GET") << QStringLiteral("/actions/act_aaaaaaaaaaaaaaaaaaaaaaaa") << QStringLiteral("aud") << QByteArray() << QByteArray() << QByteArray() << 404 << QStringLiteral("not_found") << QString();
        QTest::newRow("approval with unknown member") << QByteArray("POST") << QStringLiteral("/actions/{id}/approvals") << QStringLiteral("ana") << QByteArray(R"({"note":"ok","amount":1})") << json << QByteArray("If-Match: {etag}") << 422 << QStringLiteral("validation_failed") << QStringLiteral("amount");
        QTest::newRow("approval note as number") << QByteArray("POST") << QStringLiteral("/actions/{id}/approvals") << QStringLiteral("ana") << QByteArray(R"({"note":7})") << json << QByteArray("If-Match: {etag}") << 422 << QStringLiteral("validation_failed") << QStringLiteral("note");
        QTest::newRow("blank rejection reason") << QByteArray("POST") << QStringLiteral("/actions/{id}/rejections") << QStringLiteral("ana") << QByteArray(R"({"reason":"   "})") << json << QByteArray("If-Match: {etag}") << 422 << QStringLiteral("validation_failed") << QStringLiteral("reason");
        QTest::newRow("rejection without reason") << QByteArray("POST") << QStringLiteral("/actions/{id}/rejections") << QStringLiteral("ana") << QByteArray(R"({"note":"no"})") << json << QByteArray("If-Match: {etag}") << 422 << QStringLiteral("validation_failed") << QStringLiteral("reason");
        QTest::newRow("rejection with free text as reason") << QByteArray("POST") << QStringLiteral("/actions/{id}/rejections") << QStringLiteral("ana") << QByteArray(R"({"reason":"customer withdrew"})") << json << QByteArray("If-Match: {etag}") << 422 << QStringLiteral("validation_failed") << QStringLiteral("reason");
        QTest::newRow("rejection other without note") << QByteArray("POST") << QStringLiteral("/actions/{id}/rejections") << QStringLiteral("ana") << QByteArray(R"({"reason":"other"})") << json << QByteArray("If-Match: {etag}") << 422 << QStringLiteral("validation_failed") << QStringLiteral("note");
        QTest::newRow("rejection other with blank note") << QByteArray("POST") << QStringLiteral("/actions/{id}/rejections") << QStringLiteral("ana") << QByteArray(R"({"reason":"other","note":"  "})") << json << QByteArray("If-Match: {etag}") << 422 << QStringLiteral("validation_failed") << QStringLiteral("note");
        QTest::newRow("lookup body not empty") << QByteArray("POST") << QStringLiteral("/actions/{id}/lookups") << QStringLiteral("sam") << QByteArray(R"({"force":true})") << json << QByteArray("If-Match: {etag}") << 422 << QStringLiteral("validation_failed") << QStringLiteral("force");
        QTest::newRow("reconcile unknown outcome") << QByteArray("POST") << QStringLiteral("/actions/{id}/reconciliations") << QStringLiteral("sam") << QByteArray(R"({"outcome":"maybe","evidence_lookup_seq":1,"note":"x"})") << json << QByteArray("If-Match: {etag}") << 422 << QStringLiteral("validation_failed") << QStringLiteral("outcome");
        QTest::newRow("follow-up negative total") << QByteArray("POST") << QStringLiteral("/actions/{id}/follow-ups") << QStringLiteral("sam") << QByteArray(R"({"desired_total_amount":-5,"note":"x"})") << json << QByteArray("If-Match: {etag}") << 422 << QStringLiteral("validation_failed") << QStringLiteral("desired_total_amount");
        QTest::newRow("unknown route") << QByteArray("GET") << QStringLiteral("/refunds") << a << QByteArray() << QByteArray() << QByteArray() << 404 << QStringLiteral("not_found") << QString();
        QTest::newRow("wrong method") << QByteArray("DELETE") << QStringLiteral("/actions") << a << QByteArray() << QByteArray() << QByteArray() << 405 << QStringLiteral("method_not_allowed") << QString();
        QTest::newRow("limit 0") << QByteArray("GET") << QStringLiteral("/actions?limit=0") << QStringLiteral("ana") << QByteArray() << QByteArray() << QByteArray() << 400 << QStringLiteral("invalid_parameter") << QStringLiteral("limit");
        QTest::newRow("limit 201") << QByteArray("GET") << QStringLiteral("/actions?limit=201") << QStringLiteral("ana") << QByteArray() << QByteArray() << QByteArray() << 400 << QStringLiteral("invalid_parameter") << QStringLiteral("limit");
        QTest::newRow("unknown state") << QByteArray("GET") << QStringLiteral("/actions?state=DONE") << QStringLiteral("ana") << QByteArray() << QByteArray() << QByteArray() << 400 << QStringLiteral("invalid_parameter") << QStringLiteral("state");
        QTest::newRow("forged cursor") << QByteArray("GET") << QStringLiteral("/actions?cursor=bm9wZQ") << QStringLiteral("ana") << QByteArray() << QByteArray() << QByteArray() << 400 << QStringLiteral("invalid_parameter") << QStringLiteral("cursor");
        QTest::newRow("unknown sort") << QByteArray("GET") << QStringLiteral("/actions?sort=-state") << QStringLiteral("ana") << QByteArray() << QByteArray() << QByteArray() << 400 << QStringLiteral("invalid_parameter") << QStringLiteral("sort");
        QTest::newRow("sort twice") << QByteArray("GET") << QStringLiteral("/actions?sort=amount&sort=-amount") << QStringLiteral("ana") << QByteArray() << QByteArray() << QByteArray() << 400 << QStringLiteral("invalid_parameter") << QStringLiteral("sort");
        QTest::newRow("empty sort") << QByteArray("GET") << QStringLiteral("/actions?sort=") << QStringLiteral("ana") << QByteArray() << QByteArray() << QByteArray() << 400 << QStringLiteral("invalid_parameter") << QStringLiteral("sort");
        QTest::newRow("unknown parameter") << QByteArray("GET") << QStringLiteral("/actions?status=PENDING") << QStringLiteral("ana") << QByteArray() << QByteArray() << QByteArray() << 400 << QStringLiteral("invalid_parameter") << QStringLiteral("status");
        QTest::newRow("bad Last-Event-ID") << QByteArray("GET") << QStringLiteral("/events") << QStringLiteral("ana") << QByteArray() << QByteArray() << QByteArray("Last-Event-ID: abc") << 400 << QStringLiteral("invalid_parameter") << QStringLiteral("Last-Event-ID");
        QTest::newRow("auditor posting an approval: 403 first") << QByteArray("POST") << QStringLiteral("/actions/{id}/approvals") << QStringLiteral("aud") << QByteArray("{oops") << QByteArray("text/plain") << QByteArray() << 403 << QStringLiteral("forbidden") << QString();
    }

    void badInput()
    {
        QFETCH(QByteArray, verb);
        QFETCH(QString, path);
        QFETCH(QString, user);
        QFETCH(QByteArray, body);
        QFETCH(QByteArray, contentType);
        QFETCH(QByteArray, extraHeader);
        QFETCH(int, status);
        QFETCH(QString, code);
        QFETCH(QString, field);
        if (path.contains(u"{id}")) {
            const ApiReply action = freshAction();
            path.replace(QStringLiteral("{id}"), idOf(action));
            extraHeader.replace("{etag}", action.ifMatch());
        }
        Headers headers;
        if (!contentType.isEmpty())
            headers.append({"Content-Type", contentType});
        if (!extraHeader.isEmpty()) {
            const qsizetype colon = extraHeader.indexOf(':');
            headers.append({extraHeader.left(colon), extraHeader.mid(colon + 1).trimmed()});
        }
        const LedgerCounts before = ledgerCounts(m_harness.ledger());
        const ApiReply reply = m_client->send(verb, path, token(user), body, headers);
        QVERIFY2(reply.status == status, qPrintable(QStringLiteral("%1 %2").arg(reply.status).arg(QString::fromUtf8(reply.body))));
        QCOMPARE(reply.header("Content-Type"), QByteArray("application/problem+json"));
        QCOMPARE(reply.code(), code);
        QCOMPARE(reply.json.value(QStringLiteral("status")).toInt(), status);
        QCOMPARE(reply.json.value(QStringLiteral("type")).toString(), QStringLiteral("urn:countersign:problem:") + code);
        if (!field.isEmpty()) {
            bool named = false;
            for (const QJsonValue &error : reply.json.value(QStringLiteral("errors")).toArray())
                named = named || error.toObject().value(QStringLiteral("field")).toString() == field;
            QVERIFY2(named, reply.body.constData());
        }
        QCOMPARE(ledgerCounts(m_harness.ledger()), before); // nothing written
    }

    void validationListsEveryField()
    {
        const ApiReply reply = m_client->postRaw(QStringLiteral("/actions"), token(QStringLiteral("agent-7")),
                                                 R"({"kind":"loan","amount":"1","currency":"zz","provider":"x"})",
                                                 {{"Content-Type", "application/json; charset=UTF-8"}});
        QCOMPARE(reply.status, 422);
        QStringList fields;
        for (const QJsonValue &error : reply.json.value(QStringLiteral("errors")).toArray())
            fields << error.toObject().value(QStringLiteral("field")).toString();
        fields.sort();
        QCOMPARE(fields, (QStringList{QStringLiteral("amount"), QStringLiteral("client_reference"), QStringLiteral("currency"),
                                      QStringLiteral("kind"), QStringLiteral("provider"), QStringLiteral("target")}));
    }

    // Seed scenario: $40, then $45 under one reference -> 409; the record keeps $40, its key and
    // its fingerprint, and the conflicting payload is kept as evidence.
    void changedResubmission()
    {
        const QString reference = nextReference(QStringLiteral("order-1042-refund"));
        const ApiReply first = m_client->propose(token(QStringLiteral("agent-7")), ApiClient::proposal(reference, 4000));
        QCOMPARE(first.status, 201);
        QCOMPARE(first.header("ETag"), QByteArray("\"1\""));
        QVERIFY(first.header("Location").endsWith(idOf(first).toLatin1()));
        const QString id = idOf(first);
        const LedgerCounts before = ledgerCounts(m_harness.ledger());
        const ApiReply same = m_client->propose(token(QStringLiteral("agent-7")), ApiClient::proposal(reference, 4000));
        QCOMPARE(same.status, 200);
        QCOMPARE(idOf(same), id);
        QCOMPARE(ledgerCounts(m_harness.ledger()), before); // identical: nothing written
        QCOMPARE(m_client->approve(token(QStringLiteral("ana")), id, first.ifMatch()).status, 200);
        const cs::ActionRecord approved = record(id);
        const ApiReply changed = m_client->propose(token(QStringLiteral("agent-7")), ApiClient::proposal(reference, 4500));
        QCOMPARE(changed.status, 409);
        QCOMPARE(changed.code(), QStringLiteral("payload_mismatch"));
        QCOMPARE(changed.json.value(QStringLiteral("action_id")).toString(), id);
        QCOMPARE(changed.json.value(QStringLiteral("conflict_seq")).toInt(), 1);
        const cs::ActionRecord after = record(id);
        QCOMPARE(after.amount, 4000);
        QCOMPARE(after.idempotencyKey, approved.idempotencyKey);
        QCOMPARE(after.requestFingerprint, approved.requestFingerprint);
        QCOMPARE(after.state, ActionState::RequiresReview);
        const ApiReply detail = m_client->get(QStringLiteral("/actions/") + id, token(QStringLiteral("aud")));
        const QJsonArray conflicts = detail.json.value(QStringLiteral("conflicts")).toArray();
        QCOMPARE(conflicts.size(), 1);
        QCOMPARE(conflicts.first().toObject().value(QStringLiteral("conflicting_payload")).toObject().value(QStringLiteral("amount")).toInteger(), 4500);
    }

    // Issue 19: the agent's reasons are stored with the proposal, returned by the detail, kept in
    // the "proposed" audit row, compared on resubmission — and never part of the provider request:
    // the same proposal with and without them has the same request_fingerprint.
    void agentReasons()
    {
        const QJsonObject facts{{QStringLiteral("customer_said"), QStringLiteral("the parcel never arrived")},
                                {QStringLiteral("order_total"), QStringLiteral("USD 99.00")}};
        const QString url = QStringLiteral("https://support.example.com/tickets/4821?tab=1#note-3");
        const QString justification = QStringLiteral("Carrier confirms loss.\n\tTracking 1Z999.");
        const auto withReasons = [&](const QString &reference) {
            QJsonObject p = ApiClient::proposal(reference, 4000);
            p.insert(QStringLiteral("justification"), justification);
            p.insert(QStringLiteral("context_url"), url);
            p.insert(QStringLiteral("facts"), facts);
            return p;
        };
        const QString reference = nextReference(QStringLiteral("reasons"));
        const ApiReply created = m_client->propose(token(QStringLiteral("agent-7")), withReasons(reference));
        QCOMPARE(created.status, 201);
        const QString id = idOf(created);
        QCOMPARE(created.json.value(QStringLiteral("justification")).toString(), justification);

        const ApiReply detail = m_client->get(QStringLiteral("/actions/") + id, token(QStringLiteral("agent-7")));
        QCOMPARE(detail.status, 200); // the agent reads its own action, reasons included
        QCOMPARE(detail.json.value(QStringLiteral("justification")).toString(), justification);
        QCOMPARE(detail.json.value(QStringLiteral("context_url")).toString(), url);
        QCOMPARE(detail.json.value(QStringLiteral("facts")).toObject(), facts);
        const cs::ActionRecord stored = record(id);
        QCOMPARE(stored.justification, justification);
        QCOMPARE(stored.contextUrl, url);
        QCOMPARE(stored.facts.value(QStringLiteral("customer_said")), QStringLiteral("the parcel never arrived"));
        for (const auto &[name, value] : stored.providerRequest().fields)
            QVERIFY2(!value.contains(QStringLiteral("parcel")) && !value.contains(QStringLiteral("support.example.com"))
                         && !value.contains(QStringLiteral("Carrier")), qPrintable(name));

        const QJsonObject proposedAudit = detail.json.value(QStringLiteral("audit")).toArray().first().toObject();
        QCOMPARE(proposedAudit.value(QStringLiteral("event")).toString(), QStringLiteral("proposed"));
        QCOMPARE(proposedAudit.value(QStringLiteral("after")).toObject().value(QStringLiteral("justification")).toString(),
                 justification);
        QCOMPARE(proposedAudit.value(QStringLiteral("after")).toObject().value(QStringLiteral("facts")).toObject(), facts);

        // The same proposal without reasons, under another reference: the same provider request.
        const ApiReply bare = m_client->propose(token(QStringLiteral("agent-7")),
                                                ApiClient::proposal(nextReference(QStringLiteral("bare")), 4000));
        QCOMPARE(bare.status, 201);
        const cs::ActionRecord bareRecord = record(idOf(bare));
        QVERIFY(!bareRecord.hasReasons());
        QCOMPARE(bare.json.value(QStringLiteral("facts")).toObject(), QJsonObject());
        QCOMPARE(bare.json.value(QStringLiteral("context_url")).toString(), QString());
        // (the action id is in the request's metadata, so compare with this action's id swapped in)
        cs::ActionRecord swapped = bareRecord;
        swapped.id = id;
        QCOMPARE(cs::requestFingerprint(swapped.providerRequest()), stored.requestFingerprint);
        QCOMPARE(cs::requestFingerprint(bareRecord.providerRequest()), bareRecord.requestFingerprint);

        // Resubmitted as it was: the same action, nothing written.
        const LedgerCounts before = ledgerCounts(m_harness.ledger());
        const ApiReply same = m_client->propose(token(QStringLiteral("agent-7")), withReasons(reference));
        QCOMPARE(same.status, 200);
        QCOMPARE(idOf(same), id);
        QCOMPARE(ledgerCounts(m_harness.ledger()), before);

        // Resubmitted with changed reasons: the changed-resubmission path (409, flagged, unchanged).
        for (const char *member : {"justification", "context_url", "facts"}) {
            QJsonObject changed = withReasons(reference);
            if (QLatin1String(member) == QLatin1String("facts"))
                changed.insert(QLatin1String(member), QJsonObject{{QStringLiteral("order_total"), QStringLiteral("USD 9.00")}});
            else if (QLatin1String(member) == QLatin1String("context_url"))
                changed.insert(QLatin1String(member), QStringLiteral("https://support.example.com/tickets/1"));
            else
                changed.remove(QLatin1String(member));
            const ApiReply refused = m_client->propose(token(QStringLiteral("agent-7")), changed);
            QVERIFY2(refused.status == 409, member);
            QCOMPARE(refused.code(), QStringLiteral("payload_mismatch"));
            QCOMPARE(refused.json.value(QStringLiteral("action_id")).toString(), id);
        }
        const cs::ActionRecord after = record(id);
        QCOMPARE(after.justification, justification);
        QCOMPARE(after.contextUrl, url);
        QCOMPARE(after.facts, stored.facts);
        QCOMPARE(after.requestFingerprint, stored.requestFingerprint);
        QCOMPARE(after.state, ActionState::RequiresReview);
        const QJsonArray conflicts = m_client->get(QStringLiteral("/actions/") + id, token(QStringLiteral("aud")))
                                         .json.value(QStringLiteral("conflicts")).toArray();
        QCOMPARE(conflicts.size(), 3);
        QCOMPARE(conflicts.first().toObject().value(QStringLiteral("stored_payload")).toObject()
                     .value(QStringLiteral("justification")).toString(), justification);
        QVERIFY(!conflicts.first().toObject().value(QStringLiteral("conflicting_payload")).toObject()
                     .contains(QStringLiteral("justification")));
    }

    // Issue 19: a rejection's reason and note are stored with it, in the action's approvals list,
    // and the agent reads them on its own action.
    void rejectionReasons()
    {
        const ApiReply proposed = freshAction();
        const QString id = idOf(proposed);
        const ApiReply rejected = m_client->post(QStringLiteral("/actions/%1/rejections").arg(id), token(QStringLiteral("ana")),
                                                 {{QStringLiteral("reason"), QStringLiteral("wrong_amount")},
                                                  {QStringLiteral("note"), QStringLiteral("the order was 35.00")}},
                                                 {{"If-Match", proposed.ifMatch()}});
        QCOMPARE(rejected.status, 200);
        const QJsonObject approval = rejected.json.value(QStringLiteral("approval")).toObject();
        QCOMPARE(approval.value(QStringLiteral("decision")).toString(), QStringLiteral("rejected"));
        QCOMPARE(approval.value(QStringLiteral("reason")).toString(), QStringLiteral("wrong_amount"));
        QCOMPARE(approval.value(QStringLiteral("note")).toString(), QStringLiteral("the order was 35.00"));
        const ApiReply seen = m_client->get(QStringLiteral("/actions/") + id, token(QStringLiteral("agent-7")));
        QCOMPARE(seen.status, 200);
        QCOMPARE(seen.json.value(QStringLiteral("state")).toString(), QStringLiteral("REJECTED"));
        const QJsonObject listed = seen.json.value(QStringLiteral("approvals")).toArray().first().toObject();
        QCOMPARE(listed.value(QStringLiteral("reason")).toString(), QStringLiteral("wrong_amount"));
        QCOMPARE(listed.value(QStringLiteral("note")).toString(), QStringLiteral("the order was 35.00"));
        QCOMPARE(record(id).state, ActionState::Rejected);

        // Every reason of the list is accepted; a note is optional but for "other".
        for (const QString &reason : cs::Approval::rejectionReasons()) {
            const ApiReply next = freshAction();
            QJsonObject body{{QStringLiteral("reason"), reason}};
            if (reason == u"other")
                body.insert(QStringLiteral("note"), QStringLiteral("the customer asked us to stop"));
            const ApiReply r = m_client->post(QStringLiteral("/actions/%1/rejections").arg(idOf(next)),
                                              token(QStringLiteral("ana")), body, {{"If-Match", next.ifMatch()}});
            QVERIFY2(r.status == 200, qPrintable(reason + QString::fromUtf8(r.body)));
        }
    }

    void listPagingAndFilters()
    {
        const QString marker = nextReference(QStringLiteral("pagetest"));
        for (int i = 0; i < 5; ++i) {
            QJsonObject p = ApiClient::proposal(QStringLiteral("%1-%2").arg(marker).arg(i), 1000 + i);
            p.insert(QStringLiteral("business_reference"), marker);
            QCOMPARE(m_client->propose(token(QStringLiteral("agent-8")), p).status, 201);
        }
        QStringList seen;
        QString cursor;
        int pages = 0;
        do {
            const QString query = QStringLiteral("/actions?q=%1&limit=2%2").arg(marker, cursor.isEmpty() ? QString() : QStringLiteral("&cursor=") + cursor);
            const ApiReply page = m_client->get(query, token(QStringLiteral("ana")));
            QCOMPARE(page.status, 200);
            for (const QJsonValue &row : page.json.value(QStringLiteral("data")).toArray())
                seen << row.toObject().value(QStringLiteral("id")).toString();
            cursor = page.json.value(QStringLiteral("next_cursor")).toString();
            if (pages == 0) {
                // A cursor only works with the filters it was issued for.
                const ApiReply other = m_client->get(QStringLiteral("/actions?limit=2&cursor=") + cursor, token(QStringLiteral("ana")));
                QCOMPARE(other.status, 400);
            }
            ++pages;
        } while (!cursor.isEmpty() && pages < 10);
        QCOMPARE(pages, 3);
        QCOMPARE(seen.size(), 5);
        QCOMPARE(QSet<QString>(seen.begin(), seen.end()).size(), 5);
        // Newest first.
        const ApiReply all = m_client->get(QStringLiteral("/actions?q=%1").arg(marker), token(QStringLiteral("aud")));
        const QJsonArray rows = all.json.value(QStringLiteral("data")).toArray();
        QCOMPARE(rows.first().toObject().value(QStringLiteral("amount")).toInteger(), 1004);
        QCOMPARE(rows.first().toObject().value(QStringLiteral("attempt_count")).toInt(), 0);
        QVERIFY(!rows.first().toObject().value(QStringLiteral("last_event_at")).toString().isEmpty());
        // An agent sees only its own actions, and counts count only them.
        const ApiReply mine = m_client->get(QStringLiteral("/actions?limit=200"), token(QStringLiteral("agent-8")));
        QCOMPARE(mine.status, 200);
        for (const QJsonValue &row : mine.json.value(QStringLiteral("data")).toArray())
            QCOMPARE(row.toObject().value(QStringLiteral("requested_by")).toString(), QStringLiteral("agent-8"));
        qint64 total = 0;
        // The six states: settlement_review, discrepancies and queued are not states (queued is part of PENDING).
        for (const char *state : {"PENDING", "EXECUTING", "CONFIRMATION_UNKNOWN", "COMPLETED", "REJECTED", "REQUIRES_REVIEW"})
            total += mine.json.value(QStringLiteral("counts")).toObject().value(QLatin1String(state)).toInteger();
        QCOMPARE(total, qint64(mine.json.value(QStringLiteral("data")).toArray().size()));
        QCOMPARE(m_client->get(QStringLiteral("/actions?requested_by=agent-8"), token(QStringLiteral("agent-8"))).status, 200);
        // State filters: queue = PENDING, CONFIRMATION_UNKNOWN, REQUIRES_REVIEW.
        const ApiReply queue = m_client->get(QStringLiteral("/actions?state=queue,COMPLETED&limit=200"), token(QStringLiteral("ana")));
        QCOMPARE(queue.status, 200);
        for (const QJsonValue &row : queue.json.value(QStringLiteral("data")).toArray()) {
            const QString state = row.toObject().value(QStringLiteral("state")).toString();
            QVERIFY2(state != u"REJECTED" && state != u"EXECUTING", qPrintable(state));
        }
        const QJsonObject counts = queue.json.value(QStringLiteral("counts")).toObject();
        QCOMPARE(counts.size(), 9); // the six states, settlement_review, discrepancies and queued (not states)
        QVERIFY(counts.value(QStringLiteral("settlement_review")).isDouble());
        QVERIFY(counts.value(QStringLiteral("discrepancies")).isDouble());
        QVERIFY(counts.value(QStringLiteral("queued")).isDouble());
    }

    void listSorted()
    {
        // Amounts in three exponents: 12.00 usd, 1,100 jpy, 11.000 bhd, 1.5 usd, 1,200 jpy.
        const QString marker = nextReference(QStringLiteral("sorttest"));
        const QList<std::pair<qint64, QString>> amounts = {{1200, QStringLiteral("usd")}, {1100, QStringLiteral("jpy")},
                                                          {11000, QStringLiteral("bhd")}, {150, QStringLiteral("usd")},
                                                          {1200, QStringLiteral("jpy")}};
        for (int i = 0; i < amounts.size(); ++i) {
            QJsonObject p = ApiClient::proposal(QStringLiteral("%1-%2").arg(marker).arg(i), amounts.at(i).first);
            p.insert(QStringLiteral("business_reference"), marker);
            p.insert(QStringLiteral("currency"), amounts.at(i).second);
            const ApiReply created = m_client->propose(token(QStringLiteral("agent-8")), p);
            QVERIFY2(created.status == 201, created.body.constData());
        }
        // By currency, then minor units, both in the sort's direction, paged by 2: the cursor
        // carries the currency (the pages change currency between and within them).
        const auto pagedOrder = [&](const QString &sort, QStringList *order) {
            QString cursor;
            for (int pages = 0; pages < 10; ++pages) {
                const QString query = QStringLiteral("/actions?q=%1&sort=%2&limit=2%3")
                                          .arg(marker, sort, cursor.isEmpty() ? QString() : QStringLiteral("&cursor=") + cursor);
                const ApiReply page = m_client->get(query, token(QStringLiteral("ana")));
                QVERIFY2(page.status == 200, page.body.constData());
                for (const QJsonValue &row : page.json.value(QStringLiteral("data")).toArray()) {
                    const QJsonObject o = row.toObject();
                    *order << QStringLiteral("%1 %2").arg(o.value(QStringLiteral("amount")).toInteger()).arg(o.value(QStringLiteral("currency")).toString());
                }
                if (pages == 0) {
                    // The cursor belongs to this order: another sort (or the default) refuses it.
                    const QString next = page.json.value(QStringLiteral("next_cursor")).toString();
                    for (const QString &other : {sort.startsWith(u'-') ? QStringLiteral("&sort=amount") : QStringLiteral("&sort=-amount"),
                                                 QString()}) {
                        const ApiReply refused = m_client->get(
                            QStringLiteral("/actions?q=%1&limit=2%2&cursor=%3").arg(marker, other, next), token(QStringLiteral("ana")));
                        QCOMPARE(refused.status, 400);
                    }
                }
                cursor = page.json.value(QStringLiteral("next_cursor")).toString();
                if (cursor.isEmpty())
                    break;
            }
        };
        QStringList descending;
        pagedOrder(QStringLiteral("-amount"), &descending);
        QCOMPARE(descending, (QStringList{QStringLiteral("1200 usd"), QStringLiteral("150 usd"), QStringLiteral("1200 jpy"),
                                          QStringLiteral("1100 jpy"), QStringLiteral("11000 bhd")}));
        QStringList ascending;
        pagedOrder(QStringLiteral("amount"), &ascending);
        QCOMPARE(ascending, (QStringList{QStringLiteral("11000 bhd"), QStringLiteral("1100 jpy"), QStringLiteral("1200 jpy"),
                                         QStringLiteral("150 usd"), QStringLiteral("1200 usd")}));
        // Oldest first, and by attempt count / last event (all equal here but for the tie-break).
        const ApiReply oldest = m_client->get(QStringLiteral("/actions?q=%1&sort=created_at").arg(marker), token(QStringLiteral("ana")));
        QCOMPARE(oldest.json.value(QStringLiteral("data")).toArray().first().toObject().value(QStringLiteral("amount")).toInteger(), 1200);
        QCOMPARE(oldest.json.value(QStringLiteral("data")).toArray().last().toObject().value(QStringLiteral("currency")).toString(), QStringLiteral("jpy"));
        for (const char *sort : {"attempt_count", "-attempt_count", "last_event_at", "-last_event_at"}) {
            const ApiReply page = m_client->get(QStringLiteral("/actions?q=%1&sort=%2").arg(marker, QLatin1String(sort)), token(QStringLiteral("ana")));
            QCOMPARE(page.status, 200);
            QCOMPARE(page.json.value(QStringLiteral("data")).toArray().size(), 5);
        }
    }

    // q that is a canonical decimal number also finds the actions of that amount in their own
    // currency, or'ed with the text: "199" finds 199.00 usd, 199 jpy and the order ord-199x-…
    // (text), not 1,990.00 usd; "199.00" the two amounts only; "199,00" (not canonical) neither.
    void listSearchesAmounts()
    {
        // No digit in any text of these actions but the order's "199" (ids are base32: no 1 or 9),
        // so each is found by its amount or by that order only.
        const auto letters = [](int n) {
            QString out;
            for (; n > 0; n /= 26)
                out += QChar(u'a' + n % 26);
            return out;
        };
        const QString order = QStringLiteral("ord-199x-") + letters(++m_serial);
        QStringList ids;
        for (const auto &[amount, currency, business] :
             {std::tuple{19900, "usd", "amt-a"}, std::tuple{199, "jpy", "amt-b"}, std::tuple{199000, "usd", "amt-c"},
              std::tuple{500, "usd", ""}}) {
            QJsonObject p = ApiClient::proposal(QStringLiteral("amount-") + letters(++m_serial), amount,
                                                QStringLiteral("ch_amount") + QLatin1String(currency) + letters(int(ids.size()) + 1));
            p.insert(QStringLiteral("currency"), QLatin1String(currency));
            p.insert(QStringLiteral("business_reference"), *business ? QLatin1String(business) : order);
            const ApiReply created = m_client->propose(token(QStringLiteral("agent-8")), p);
            QVERIFY2(created.status == 201, created.body.constData());
            ids << created.json.value(QStringLiteral("id")).toString();
        }
        const auto found = [&](const QString &q, const QString &user, const QString &sort) {
            QStringList rows;
            QString cursor;
            for (int pages = 0; pages < 50; ++pages) {
                const ApiReply page = m_client->get(QStringLiteral("/actions?q=%1&limit=3&sort=%2%3")
                                                        .arg(QString::fromLatin1(QUrl::toPercentEncoding(q)), sort,
                                                             cursor.isEmpty() ? QString() : QStringLiteral("&cursor=") + cursor),
                                                    token(user));
                if (page.status != 200)
                    return QStringList{QStringLiteral("status %1").arg(page.status)};
                for (const QJsonValue &row : page.json.value(QStringLiteral("data")).toArray()) {
                    const QString id = row.toObject().value(QStringLiteral("id")).toString();
                    if (ids.contains(id))
                        rows << QStringLiteral("#%1").arg(ids.indexOf(id));
                }
                cursor = page.json.value(QStringLiteral("next_cursor")).toString();
                if (cursor.isEmpty())
                    break;
            }
            rows.sort();
            return rows;
        };
        for (const QString &user : {QStringLiteral("ana"), QStringLiteral("agent-8")}) {
            for (const QString &sort : {QStringLiteral("-created_at"), QStringLiteral("-amount")}) {
                QCOMPARE(found(QStringLiteral("199"), user, sort), (QStringList{QStringLiteral("#0"), QStringLiteral("#1"), QStringLiteral("#3")}));
                QCOMPARE(found(QStringLiteral("199.00"), user, sort), (QStringList{QStringLiteral("#0"), QStringLiteral("#1")}));
                QCOMPARE(found(QStringLiteral("199.0"), user, sort), (QStringList{QStringLiteral("#0"), QStringLiteral("#1")}));
                QCOMPARE(found(QStringLiteral("1990"), user, sort), QStringList{QStringLiteral("#2")});
                QCOMPARE(found(QStringLiteral("199,00"), user, sort), QStringList());
                QCOMPARE(found(QStringLiteral("19"), user, sort), QStringList{QStringLiteral("#3")}); // the walk: text only here
            }
        }
        // Its own actions only, for an agent: agent-7 finds none of agent-8's.
        QCOMPARE(found(QStringLiteral("199"), QStringLiteral("agent-7"), QStringLiteral("-created_at")), QStringList());
    }

    // "Look up now" asks paysim through the Stripe adapter and follows the reconciler's rules.
    void lookupCompletesAnUnknownAction()
    {
        const QString charge = m_harness.seedCharge(4000);
        QVERIFY(!charge.isEmpty());
        const QString id = unknownAction(4000, charge);
        QCOMPARE(record(id).state, ActionState::ConfirmationUnknown);
        QCOMPARE(createRefundAtProvider(id), 200); // the lost request had committed
        const QByteArray version = etag(id);
        const ApiReply looked = m_client->post(QStringLiteral("/actions/%1/lookups").arg(id), token(QStringLiteral("sam")), {},
                                               {{"If-Match", version}, {"Idempotency-Key", "look-1"}});
        QVERIFY2(looked.status == 200, looked.body.constData());
        const QJsonObject lookup = looked.json.value(QStringLiteral("lookup")).toObject();
        QCOMPARE(lookup.value(QStringLiteral("result")).toString(), QStringLiteral("FOUND"));
        QCOMPARE(lookup.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(lookup.value(QStringLiteral("asked_by")).toString(), QStringLiteral("sam"));
        QCOMPARE(looked.json.value(QStringLiteral("action")).toObject().value(QStringLiteral("state")).toString(), QStringLiteral("COMPLETED"));
        QCOMPARE(record(id).state, ActionState::Completed);
        QVERIFY(!looked.json.value(QStringLiteral("action")).toObject().value(QStringLiteral("key_window_ends_at")).isNull());
        // The same key again: replayed, no second lookup.
        const ApiReply again = m_client->post(QStringLiteral("/actions/%1/lookups").arg(id), token(QStringLiteral("sam")), {},
                                              {{"If-Match", version}, {"Idempotency-Key", "look-1"}});
        QCOMPARE(again.status, 200);
        QCOMPARE(again.header("Idempotent-Replayed"), QByteArray("true"));
        QCOMPARE(m_harness.ledger().reader().lookups(id)->size(), 1);
    }

    void reconcileNeedsEvidence()
    {
        const QString id = unknownAction();
        QVERIFY(m_harness.ledger().execution().transition(id, Trigger::StopForReview, QStringLiteral("test"), QStringLiteral("window passed")).ok());
        QCOMPARE(record(id).state, ActionState::RequiresReview);
        const QString path = QStringLiteral("/actions/%1/reconciliations").arg(id);
        // No evidence at all.
        ApiReply reply = m_client->post(path, token(QStringLiteral("sam")),
                                        {{QStringLiteral("outcome"), QStringLiteral("not_committed")},
                                         {QStringLiteral("evidence_lookup_seq"), QJsonValue::Null},
                                         {QStringLiteral("note"), QStringLiteral("nothing there")}},
                                        {{"If-Match", etag(id)}});
        QCOMPARE(reply.status, 422);
        QCOMPARE(reply.code(), QStringLiteral("no_evidence"));
        // Look up now: nothing at the provider (NOT_FOUND never rejects by itself).
        const ApiReply looked = m_client->post(QStringLiteral("/actions/%1/lookups").arg(id), token(QStringLiteral("sam")), {},
                                               {{"If-Match", etag(id)}});
        QVERIFY2(looked.status == 200, looked.body.constData());
        QCOMPARE(looked.json.value(QStringLiteral("lookup")).toObject().value(QStringLiteral("result")).toString(), QStringLiteral("NOT_FOUND"));
        QCOMPARE(record(id).state, ActionState::RequiresReview);
        const int seq = looked.json.value(QStringLiteral("lookup")).toObject().value(QStringLiteral("seq")).toInt();
        // NOT_FOUND does not support "committed".
        reply = m_client->post(path, token(QStringLiteral("sam")),
                               {{QStringLiteral("outcome"), QStringLiteral("committed")}, {QStringLiteral("evidence_lookup_seq"), seq},
                                {QStringLiteral("note"), QStringLiteral("sure")}},
                               {{"If-Match", etag(id)}});
        QCOMPARE(reply.status, 422);
        QCOMPARE(reply.code(), QStringLiteral("no_evidence"));
        QCOMPARE(record(id).state, ActionState::RequiresReview);
        const ApiReply detail = m_client->get(QStringLiteral("/actions/") + id, token(QStringLiteral("sam")));
        QCOMPARE(detail.json.value(QStringLiteral("permissions")).toObject().value(QStringLiteral("reconcile")).toObject().value(QStringLiteral("allowed")).toBool(), true);
        reply = m_client->post(path, token(QStringLiteral("sam")),
                               {{QStringLiteral("outcome"), QStringLiteral("not_committed")}, {QStringLiteral("evidence_lookup_seq"), seq},
                                {QStringLiteral("note"), QStringLiteral("not at the provider after the last attempt")}},
                               {{"If-Match", etag(id)}});
        QVERIFY2(reply.status == 200, reply.body.constData());
        QCOMPARE(reply.json.value(QStringLiteral("reconciliation")).toObject().value(QStringLiteral("outcome")).toString(), QStringLiteral("not_committed"));
        QCOMPARE(record(id).state, ActionState::Rejected);
        // Not REQUIRES_REVIEW any more.
        reply = m_client->post(path, token(QStringLiteral("sam")),
                               {{QStringLiteral("outcome"), QStringLiteral("not_committed")}, {QStringLiteral("evidence_lookup_seq"), seq},
                                {QStringLiteral("note"), QStringLiteral("again")}},
                               {{"If-Match", etag(id)}});
        QCOMPARE(reply.status, 409);
        QCOMPARE(reply.code(), QStringLiteral("illegal_state"));
    }

    void followUps()
    {
        const QString parent = completedAction(4000);
        const QString path = QStringLiteral("/actions/%1/follow-ups").arg(parent);
        const QJsonObject body{{QStringLiteral("desired_total_amount"), 4500}, {QStringLiteral("note"), QStringLiteral("customer is owed 45.00")}};
        const ApiReply created = m_client->post(path, token(QStringLiteral("sam")), body, {{"If-Match", etag(parent)}});
        QVERIFY2(created.status == 201, created.body.constData());
        QCOMPARE(created.json.value(QStringLiteral("amount")).toInteger(), 500);
        QCOMPARE(created.json.value(QStringLiteral("parent_id")).toString(), parent);
        QCOMPARE(created.json.value(QStringLiteral("requested_by")).toString(), QStringLiteral("sam"));
        QCOMPARE(created.json.value(QStringLiteral("client_reference")).toString(), parent + QStringLiteral("/follow-up/1"));
        QCOMPARE(created.header("ETag"), QByteArray("\"1\""));
        const QString followUp = idOf(created);
        // While the follow-up's outcome is unknown, no second one.
        ApiReply refused = m_client->post(path, token(QStringLiteral("sam")), body, {{"If-Match", etag(parent)}});
        QCOMPARE(refused.status, 409);
        QCOMPARE(refused.code(), QStringLiteral("outcome_unknown"));
        // Not of a follow-up.
        refused = m_client->post(QStringLiteral("/actions/%1/follow-ups").arg(followUp), token(QStringLiteral("sam")), body,
                                 {{"If-Match", etag(followUp)}});
        QCOMPARE(refused.status, 409);
        QCOMPARE(refused.code(), QStringLiteral("not_original_action"));
        // Nothing remains when the desired total is already refunded.
        const QString other = completedAction(4000);
        refused = m_client->post(QStringLiteral("/actions/%1/follow-ups").arg(other), token(QStringLiteral("sam")),
                                 {{QStringLiteral("desired_total_amount"), 4000}, {QStringLiteral("note"), QStringLiteral("same")}},
                                 {{"If-Match", etag(other)}});
        QCOMPARE(refused.status, 422);
        QCOMPARE(refused.code(), QStringLiteral("no_remaining_amount"));
        const ApiReply detail = m_client->get(QStringLiteral("/actions/") + parent, token(QStringLiteral("aud")));
        QCOMPARE(detail.json.value(QStringLiteral("related")).toObject().value(QStringLiteral("follow_ups")).toArray().size(), 1);
        const ApiReply childDetail = m_client->get(QStringLiteral("/actions/") + followUp, token(QStringLiteral("aud")));
        QCOMPARE(childDetail.json.value(QStringLiteral("related")).toObject().value(QStringLiteral("parent")).toObject().value(QStringLiteral("id")).toString(), parent);
        // The note is kept: the follow-up's "proposed" audit event.
        const QJsonObject proposed = childDetail.json.value(QStringLiteral("audit")).toArray().first().toObject();
        QCOMPARE(proposed.value(QStringLiteral("event")).toString(), QStringLiteral("proposed"));
        QCOMPARE(proposed.value(QStringLiteral("actor")).toString(), QStringLiteral("sam"));
        QVERIFY2(proposed.value(QStringLiteral("reason")).toString().endsWith(QStringLiteral(": customer is owed 45.00")),
                 qPrintable(proposed.value(QStringLiteral("reason")).toString()));
        QCOMPARE(proposed.value(QStringLiteral("after")).toObject().value(QStringLiteral("note")).toString(),
                 QStringLiteral("customer is owed 45.00"));
    }

    void detailShape()
    {
        const QString id = completedAction(2500);
        const ApiReply detail = m_client->get(QStringLiteral("/actions/") + id, token(QStringLiteral("sam")));
        QCOMPARE(detail.status, 200);
        QCOMPARE(detail.header("ETag"), etag(id));
        for (const char *member : {"attempts", "lookups", "approvals", "reconciliations", "audit", "conflicts"})
            QVERIFY2(detail.json.value(QLatin1String(member)).isArray(), member);
        QCOMPARE(detail.json.value(QStringLiteral("attempts")).toArray().size(), 1);
        QCOMPARE(detail.json.value(QStringLiteral("approvals")).toArray().size(), 1);
        QVERIFY(detail.json.value(QStringLiteral("audit")).toArray().size() >= 4);
        const QJsonObject permissions = detail.json.value(QStringLiteral("permissions")).toObject();
        QCOMPARE(permissions.value(QStringLiteral("lookup")).toObject().value(QStringLiteral("allowed")).toBool(), true);
        QCOMPARE(permissions.value(QStringLiteral("approve")).toObject().value(QStringLiteral("allowed")).toBool(), false);
        QCOMPARE(permissions.value(QStringLiteral("follow_up")).toObject().value(QStringLiteral("allowed")).toBool(), true);
        QVERIFY(detail.json.value(QStringLiteral("related")).toObject().value(QStringLiteral("parent")).isNull());
        QVERIFY(detail.json.value(QStringLiteral("key_window_ends_at")).isString());
    }

    void webhookWithoutReceiver()
    {
        const ApiReply wrongType = m_client->postRaw(QStringLiteral("/webhooks/provider"), QString(), "x=1",
                                                     {{"Content-Type", "application/x-www-form-urlencoded"}});
        QCOMPARE(wrongType.status, 415);
        // TODO(integration): once the webhook receiver is wired this is 400 invalid_signature.
        const ApiReply unsigned_ = m_client->postRaw(QStringLiteral("/webhooks/provider"), QString(), "{}",
                                                     {{"Content-Type", "application/json"}});
        QVERIFY2(unsigned_.status == 503 || unsigned_.status == 400, unsigned_.body.constData());
    }
};

QTEST_GUILESS_MAIN(TestApiContract)
#include "tst_api_contract.moc"
