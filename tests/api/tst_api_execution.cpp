// The stop switch through the API (issue 14; docs/API.md, "Pausing execution"), against a real
// countersignd whose executor sends to a real paysim: who may read, pause and resume; bad bodies
// refused with the field named and nothing written; a pause of one agent holds its approved
// action while a younger one of another agent is sent, and the resume lets it go; the audit log
// says who and why; a client Idempotency-Key replays a pause; and the event stream announces
// pauses and resumes (`execution.changed`).
#include "tests/api/apitestsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

class TestApiExecution : public QObject
{
    Q_OBJECT

private:
    ApiHarness m_harness;
    std::unique_ptr<ApiClient> m_client;
    int m_serial = 0;

    QString token(const QString &user) const { return m_harness.token(user); }
    ApiReply pause(const QString &user, const QJsonObject &body, const QByteArray &key = {})
    {
        const QByteArray k = key.isEmpty() ? "pause-" + QByteArray::number(++m_serial) : key;
        return m_client->post(QStringLiteral("/execution/pauses"), token(user), body, {{"Idempotency-Key", k}});
    }
    ApiReply resume(const QString &user, const QString &id, const QJsonObject &body = {})
    {
        return m_client->post(QStringLiteral("/execution/pauses/%1/resume").arg(id), token(user), body,
                              {{"Idempotency-Key", "resume-" + QByteArray::number(++m_serial)}});
    }
    QString proposeAndApprove(const QString &agent, const QString &reference)
    {
        const ApiReply proposed =
            m_client->propose(token(agent), ApiClient::proposal(reference, 1500, m_harness.seedCharge(5000)));
        if (proposed.status != 201)
            return QString();
        const QString id = proposed.json.value(QStringLiteral("id")).toString();
        const ApiReply approved = m_client->approve(token(QStringLiteral("ana")), id, proposed.ifMatch());
        return approved.status == 200 ? id : QString();
    }
    QString stateOf(const QString &id)
    {
        return m_client->get(QStringLiteral("/actions/") + id, token(QStringLiteral("aud")))
            .json.value(QStringLiteral("state")).toString();
    }
    QJsonArray pausesInForce()
    {
        return m_client->get(QStringLiteral("/execution"), token(QStringLiteral("aud"))).json.value(QStringLiteral("pauses")).toArray();
    }
    void resumeAll()
    {
        for (const QJsonValue &p : pausesInForce())
            QCOMPARE(resume(QStringLiteral("root"), p.toObject().value(QStringLiteral("id")).toString()).status, 200);
    }

private slots:
    void initTestCase()
    {
        QString error;
        ApiHarness::Options options;
        options.withPaysim = true;
        const QString configFile = QDir(QDir::tempPath()).filePath(
            QStringLiteral("cs-api-execution-%1.json").arg(QCoreApplication::applicationPid()));
        QFile config(configFile);
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(QJsonDocument(QJsonObject{{QStringLiteral("workers"), 2},
                                               {QStringLiteral("request_timeout_ms"), 3000},
                                               {QStringLiteral("lease_duration_ms"), 15000},
                                               {QStringLiteral("idle_poll_ms"), 50}})
                         .toJson());
        config.close();
        options.extraServeArguments = {QStringLiteral("--execution-config"), configFile,
                                       QStringLiteral("--sse-poll-ms"), QStringLiteral("50")};
        QVERIFY2(m_harness.start(options, &error), qPrintable(error));
        QFile::remove(configFile);
        m_client = std::make_unique<ApiClient>(m_harness.api());
    }

    void cleanupTestCase()
    {
        QVERIFY2(m_harness.countersignd().stop(), m_harness.countersignd().standardError().constData());
    }

    void cleanup() { resumeAll(); }

    void roles_data()
    {
        QTest::addColumn<QString>("user");
        QTest::addColumn<int>("pauseStatus");
        QTest::newRow("agent: reads, may not pause") << QStringLiteral("agent-7") << 403;
        QTest::newRow("approver: reads, may not pause") << QStringLiteral("ana") << 403;
        QTest::newRow("auditor: reads, may not pause") << QStringLiteral("aud") << 403;
        QTest::newRow("supervisor: pauses") << QStringLiteral("sam") << 201;
        QTest::newRow("admin: pauses") << QStringLiteral("root") << 201;
    }

    void roles()
    {
        QFETCH(QString, user);
        QFETCH(int, pauseStatus);
        const ApiReply state = m_client->get(QStringLiteral("/execution"), token(user));
        QCOMPARE(state.status, 200);
        QCOMPARE(state.json.value(QStringLiteral("paused")).toBool(), false);
        const LedgerCounts before = ledgerCounts(m_harness.ledger());
        const ApiReply paused = pause(user, {{QStringLiteral("scope"), QStringLiteral("all")},
                                             {QStringLiteral("reason"), QStringLiteral("drill")}});
        QCOMPARE(paused.status, pauseStatus);
        if (pauseStatus == 403) {
            QCOMPARE(paused.code(), QStringLiteral("forbidden"));
            QCOMPARE(ledgerCounts(m_harness.ledger()), before);
            return;
        }
        QCOMPARE(paused.json.value(QStringLiteral("paused_by")).toString(), user);
        QCOMPARE(paused.json.value(QStringLiteral("in_force")).toBool(), true);
        const QString id = paused.json.value(QStringLiteral("id")).toString();
        // Everyone sees it; only supervisors and admins resume it.
        const ApiReply seen = m_client->get(QStringLiteral("/execution"), token(QStringLiteral("agent-7")));
        QCOMPARE(seen.json.value(QStringLiteral("paused")).toBool(), true);
        QCOMPARE(seen.json.value(QStringLiteral("summary")).toString(),
                 QStringLiteral("Execution paused: all \u2014 by %1: drill").arg(user));
        QCOMPARE(resume(QStringLiteral("ana"), id).status, 403);
        const ApiReply resumed = resume(user, id, {{QStringLiteral("note"), QStringLiteral("drill over")}});
        QCOMPARE(resumed.status, 200);
        QCOMPARE(resumed.json.value(QStringLiteral("in_force")).toBool(), false);
        QCOMPARE(resumed.json.value(QStringLiteral("resume_note")).toString(), QStringLiteral("drill over"));
        const ApiReply again = resume(user, id);
        QCOMPARE(again.status, 409);
        QCOMPARE(again.code(), QStringLiteral("already_resumed"));
    }

    void badBodies_data()
    {
        QTest::addColumn<QJsonObject>("body");
        QTest::addColumn<QString>("field");
        const QString reason = QStringLiteral("reason");
        QTest::newRow("no scope") << QJsonObject{{reason, QStringLiteral("x")}} << QStringLiteral("scope");
        QTest::newRow("an unknown scope") << QJsonObject{{QStringLiteral("scope"), QStringLiteral("provider")}, {reason, QStringLiteral("x")}}
                                          << QStringLiteral("scope");
        QTest::newRow("no reason") << QJsonObject{{QStringLiteral("scope"), QStringLiteral("all")}} << reason;
        QTest::newRow("a blank reason") << QJsonObject{{QStringLiteral("scope"), QStringLiteral("all")}, {reason, QStringLiteral("  ")}}
                                        << reason;
        QTest::newRow("agent scope, no agent") << QJsonObject{{QStringLiteral("scope"), QStringLiteral("agent")}, {reason, QStringLiteral("x")}}
                                               << QStringLiteral("agent");
        QTest::newRow("account scope, no account")
            << QJsonObject{{QStringLiteral("scope"), QStringLiteral("account")}, {reason, QStringLiteral("x")}} << QStringLiteral("account");
        QTest::newRow("all with an agent") << QJsonObject{{QStringLiteral("scope"), QStringLiteral("all")},
                                                          {QStringLiteral("agent"), QStringLiteral("agent-7")},
                                                          {reason, QStringLiteral("x")}}
                                           << QStringLiteral("agent");
        QTest::newRow("an unknown member") << QJsonObject{{QStringLiteral("scope"), QStringLiteral("all")}, {reason, QStringLiteral("x")},
                                                          {QStringLiteral("until"), QStringLiteral("tomorrow")}}
                                           << QStringLiteral("until");
        QTest::newRow("a number for a reason") << QJsonObject{{QStringLiteral("scope"), QStringLiteral("all")}, {reason, 4}} << reason;
    }

    void badBodies()
    {
        QFETCH(QJsonObject, body);
        QFETCH(QString, field);
        const LedgerCounts before = ledgerCounts(m_harness.ledger());
        const ApiReply refused = pause(QStringLiteral("sam"), body);
        QCOMPARE(refused.status, 422);
        QCOMPARE(refused.code(), QStringLiteral("validation_failed"));
        QCOMPARE(refused.header("Content-Type"), QByteArray("application/problem+json"));
        QStringList fields;
        for (const QJsonValue &e : refused.json.value(QStringLiteral("errors")).toArray())
            fields << e.toObject().value(QStringLiteral("field")).toString();
        QVERIFY2(fields.contains(field), qPrintable(fields.join(u',')));
        QCOMPARE(ledgerCounts(m_harness.ledger()), before);
        QVERIFY(pausesInForce().isEmpty());
    }

    void unknownAndDuplicatePauses()
    {
        const ApiReply unknown = resume(QStringLiteral("sam"), QStringLiteral("pau_doesnotexist"));
        QCOMPARE(unknown.status, 404);
        QCOMPARE(unknown.code(), QStringLiteral("not_found"));
        const QJsonObject body{{QStringLiteral("scope"), QStringLiteral("account")},
                               {QStringLiteral("account"), QStringLiteral("acct_x")},
                               {QStringLiteral("reason"), QStringLiteral("incident")}};
        const ApiReply first = pause(QStringLiteral("sam"), body, "dup-1");
        QCOMPARE(first.status, 201);
        // The same request resent with its key: the same answer, one pause.
        const ApiReply replayed = pause(QStringLiteral("sam"), body, "dup-1");
        QCOMPARE(replayed.status, 201);
        QCOMPARE(replayed.json, first.json);
        // A second pause of the same account while the first is in force.
        const ApiReply second = pause(QStringLiteral("root"), body);
        QCOMPARE(second.status, 409);
        QCOMPARE(second.code(), QStringLiteral("already_paused"));
        QVERIFY(second.json.value(QStringLiteral("detail")).toString().contains(first.json.value(QStringLiteral("id")).toString()));
        QCOMPARE(pausesInForce().size(), 1);
    }

    // agent-7's action is approved first and held; agent-8's, approved after it, is sent: the
    // executor claims the oldest first, so agent-7's would have gone before it unless paused.
    void pauseOfAnAgentHoldsOnlyItsActions()
    {
        const ApiReply paused = pause(QStringLiteral("sam"), {{QStringLiteral("scope"), QStringLiteral("agent")},
                                                              {QStringLiteral("agent"), QStringLiteral("agent-7")},
                                                              {QStringLiteral("reason"), QStringLiteral("agent-7 loops")}});
        QCOMPARE(paused.status, 201);
        const QString held = proposeAndApprove(QStringLiteral("agent-7"), QStringLiteral("held-1"));
        const QString sent = proposeAndApprove(QStringLiteral("agent-8"), QStringLiteral("sent-1"));
        QVERIFY(!held.isEmpty() && !sent.isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(sent), QStringLiteral("COMPLETED"), 15000);
        QCOMPARE(stateOf(held), QStringLiteral("PENDING"));
        const auto attempts = m_harness.ledger().reader().attempts(held);
        QVERIFY(attempts.ok() && attempts->isEmpty());

        const ApiReply resumed = resume(QStringLiteral("sam"), paused.json.value(QStringLiteral("id")).toString(),
                                        {{QStringLiteral("note"), QStringLiteral("fixed")}});
        QCOMPARE(resumed.status, 200);
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(held), QStringLiteral("COMPLETED"), 15000);

        // The audit log: who and why.
        const auto log = m_harness.ledger().reader().auditLog(0, 100000);
        QVERIFY(log.ok());
        QStringList seen;
        for (const cs::AuditEvent &event : *log) {
            if (event.event.startsWith(QLatin1String("execution_")) && event.reason.contains(QLatin1String("agent-7")))
                seen << event.actor + QLatin1Char(' ') + event.event + QLatin1String(": ") + event.reason;
        }
        QVERIFY2(seen.contains(QStringLiteral("sam execution_resumed: resumed agent agent-7: fixed")), qPrintable(seen.join(u'\n')));
        QVERIFY(m_harness.ledger().reader().verifyAudit()->ok);
    }

    void eventStreamAnnouncesPauses()
    {
        QNetworkReply *stream = m_client->sendAsync("GET", QStringLiteral("/events"), token(QStringLiteral("agent-8")), {},
                                                    {{"Accept", "text/event-stream"}});
        stream->setReadBufferSize(0);
        QByteArray received;
        connect(stream, &QNetworkReply::readyRead, stream, [&] { received += stream->readAll(); });
        QTRY_VERIFY_WITH_TIMEOUT(received.contains("retry:"), 5000);
        const ApiReply paused = pause(QStringLiteral("sam"), {{QStringLiteral("scope"), QStringLiteral("all")},
                                                              {QStringLiteral("reason"), QStringLiteral("provider incident")}});
        QCOMPARE(paused.status, 201);
        QTRY_VERIFY_WITH_TIMEOUT(received.contains("event: execution.changed"), 5000);
        QVERIFY(received.contains("\"event\":\"execution_paused\""));
        QVERIFY(received.contains("\"reason\":\"provider incident\""));
        QVERIFY(received.contains("\"actor\":\"sam\""));
        QCOMPARE(resume(QStringLiteral("sam"), paused.json.value(QStringLiteral("id")).toString()).status, 200);
        QTRY_VERIFY_WITH_TIMEOUT(received.contains("\"event\":\"execution_resumed\""), 5000);
        stream->abort();
        stream->deleteLater();
    }
};

QTEST_GUILESS_MAIN(TestApiExecution)
#include "tst_api_execution.moc"
