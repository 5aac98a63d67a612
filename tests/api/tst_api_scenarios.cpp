// The seed scenarios end to end through the API, with countersignd's own executor and reconciler
// sending to a real paysim: a lost response ends in one refund and COMPLETED; a changed
// resubmission is refused with 409 and changes nothing; a provider idempotency_error stops in
// REQUIRES_REVIEW. Plus the signed provider webhook.
#include "tests/api/apitestsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QMessageAuthenticationCode>
#include <QTest>

using cs::ActionState;

class TestApiScenarios : public QObject
{
    Q_OBJECT

private:
    ApiHarness m_harness;
    std::unique_ptr<ApiClient> m_client;
    int m_serial = 0;
    static constexpr const char *kSecret = "whsec_countersign_api_test";

    QString token(const QString &user) const { return m_harness.token(user); }
    cs::ActionRecord record(const QString &id) { return m_harness.ledger().reader().action(id).value(); }
    int refundsAtProviderFor(const QString &actionId)
    {
        int count = 0;
        const ApiReply truth = m_harness.sim("GET", QStringLiteral("/_sim/refunds"));
        for (const QJsonValue &refund : truth.json.value(QStringLiteral("data")).toArray()) {
            if (refund.toObject().value(QStringLiteral("metadata")).toObject().value(QStringLiteral("countersign_action_id")).toString() == actionId)
                ++count;
        }
        return count;
    }
    void addFault(const QString &fault)
    {
        const ApiReply added = m_harness.sim("POST", QStringLiteral("/_sim/faults"),
                                             {{QStringLiteral("method"), QStringLiteral("POST")}, {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                              {QStringLiteral("times"), 1}, {QStringLiteral("fault"), fault}});
        QVERIFY2(added.status == 200 || added.status == 201, added.body.constData());
    }
    // Proposed by agent-7 on a fresh charge and approved by ana: the executor takes it from there.
    QString proposeAndApprove(qint64 amount, const QString &reference)
    {
        const QString charge = m_harness.seedCharge(amount);
        const ApiReply proposed = m_client->propose(token(QStringLiteral("agent-7")), ApiClient::proposal(reference, amount, charge));
        if (proposed.status != 201)
            return QString();
        const QString id = proposed.json.value(QStringLiteral("id")).toString();
        const ApiReply approved = m_client->approve(token(QStringLiteral("ana")), id, proposed.ifMatch(), "approve-" + reference.toLatin1());
        return approved.status == 200 ? id : QString();
    }
    QString stateOf(const QString &id)
    {
        return m_client->get(QStringLiteral("/actions/") + id, token(QStringLiteral("aud"))).json.value(QStringLiteral("state")).toString();
    }

private slots:
    void initTestCase()
    {
        QString error;
        QTemporaryDir dir;
        ApiHarness::Options options;
        options.withPaysim = true;
        const QString secretFile = QDir(QDir::tempPath()).filePath(QStringLiteral("cs-api-webhook-%1.secret").arg(QCoreApplication::applicationPid()));
        QFile secret(secretFile);
        QVERIFY(secret.open(QIODevice::WriteOnly));
        secret.write(kSecret);
        secret.close();
        const QString configFile = QDir(QDir::tempPath()).filePath(QStringLiteral("cs-api-exec-%1.json").arg(QCoreApplication::applicationPid()));
        QFile config(configFile);
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(QJsonDocument(QJsonObject{{QStringLiteral("workers"), 2},
                                               {QStringLiteral("request_timeout_ms"), 3000},
                                               {QStringLiteral("lease_duration_ms"), 15000},
                                               {QStringLiteral("idle_poll_ms"), 50},
                                               {QStringLiteral("backoff_base_ms"), 100},
                                               {QStringLiteral("backoff_max_ms"), 500}})
                         .toJson());
        config.close();
        options.extraServeArguments = {QStringLiteral("--webhook-secret-file"), secretFile,
                                       QStringLiteral("--execution-config"), configFile};
        QVERIFY2(m_harness.start(options, &error), qPrintable(error));
        QFile::remove(secretFile);
        QFile::remove(configFile);
        m_client = std::make_unique<ApiClient>(m_harness.api());
    }

    void cleanupTestCase()
    {
        QVERIFY2(m_harness.countersignd().stop(), m_harness.countersignd().standardError().constData());
    }

    void happyPath()
    {
        const QString id = proposeAndApprove(2000, QStringLiteral("happy-1"));
        QVERIFY(!id.isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(id), QStringLiteral("COMPLETED"), 15000);
        QCOMPARE(refundsAtProviderFor(id), 1);
    }

    // Seed scenario 1: the provider commits and the response is lost. Exactly one refund.
    void lostResponseEndsInOneRefundCompleted()
    {
        addFault(QStringLiteral("drop_response_after_commit"));
        const QString id = proposeAndApprove(4000, QStringLiteral("lost-1"));
        QVERIFY(!id.isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(id), QStringLiteral("COMPLETED"), 20000);
        QCOMPARE(refundsAtProviderFor(id), 1);
        const ApiReply detail = m_client->get(QStringLiteral("/actions/") + id, token(QStringLiteral("sam")));
        const QJsonArray attempts = detail.json.value(QStringLiteral("attempts")).toArray();
        QVERIFY(!attempts.isEmpty());
        for (const QJsonValue &attempt : attempts) // one key for every attempt
            QCOMPARE(attempt.toObject().value(QStringLiteral("idempotency_key")).toString(), record(id).idempotencyKey);
    }

    // countersignd gives the provider adapter the executor's deadline (request_timeout_ms, 3 s
    // here; the adapter's own default is 30 s): an answer that takes 5 s is not waited for, the
    // attempt is unknown after ~3 s, and the reconciler finds the one refund with the same key.
    void requestDeadlineComesFromTheExecutionConfig()
    {
        const ApiReply added = m_harness.sim("POST", QStringLiteral("/_sim/faults"),
                                             {{QStringLiteral("method"), QStringLiteral("POST")}, {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                              {QStringLiteral("times"), 1}, {QStringLiteral("fault"), QStringLiteral("delay_before_commit")},
                                              {QStringLiteral("delay_ms"), 5000}});
        QVERIFY2(added.status == 200 || added.status == 201, added.body.constData());
        const QString id = proposeAndApprove(2500, QStringLiteral("deadline-1"));
        QVERIFY(!id.isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(id), QStringLiteral("COMPLETED"), 30000);
        QCOMPARE(refundsAtProviderFor(id), 1);
        const ApiReply detail = m_client->get(QStringLiteral("/actions/") + id, token(QStringLiteral("sam")));
        const QJsonObject first = detail.json.value(QStringLiteral("attempts")).toArray().first().toObject();
        QCOMPARE(first.value(QStringLiteral("outcome")).toString(), QStringLiteral("unknown"));
        const qint64 waitedMs = QDateTime::fromString(first.value(QStringLiteral("started_at")).toString(), Qt::ISODateWithMs)
                                    .msecsTo(QDateTime::fromString(first.value(QStringLiteral("finished_at")).toString(), Qt::ISODateWithMs));
        QVERIFY2(waitedMs >= 2500 && waitedMs < 4500, qPrintable(QString::number(waitedMs)));
    }

    // Seed scenario 2, after execution: $45 under the $40's reference -> 409, the record unchanged.
    void changedResubmissionAfterCompletion()
    {
        const QString id = proposeAndApprove(4000, QStringLiteral("order-2001-refund"));
        QVERIFY(!id.isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(id), QStringLiteral("COMPLETED"), 15000);
        const cs::ActionRecord before = record(id);
        const ApiReply changed = m_client->propose(token(QStringLiteral("agent-7")),
                                                   ApiClient::proposal(QStringLiteral("order-2001-refund"), 4500, before.targetId));
        QCOMPARE(changed.status, 409);
        QCOMPARE(changed.code(), QStringLiteral("payload_mismatch"));
        const cs::ActionRecord after = record(id);
        QCOMPARE(after.amount, 4000);
        QCOMPARE(after.idempotencyKey, before.idempotencyKey);
        QCOMPARE(after.requestFingerprint, before.requestFingerprint);
        QCOMPARE(after.state, ActionState::Completed);
        QTest::qWait(300);
        QCOMPARE(refundsAtProviderFor(id), 1);
    }

    // Seed scenario 3: the provider answers idempotency_error -> REQUIRES_REVIEW, nothing minted.
    void idempotencyErrorRequiresReview()
    {
        addFault(QStringLiteral("idempotency_error"));
        const QString id = proposeAndApprove(3000, QStringLiteral("idem-err-1"));
        QVERIFY(!id.isEmpty());
        const QString key = record(id).idempotencyKey;
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(id), QStringLiteral("REQUIRES_REVIEW"), 15000);
        QCOMPARE(record(id).idempotencyKey, key);
        QCOMPARE(refundsAtProviderFor(id), 0);
        QVERIFY(!record(id).reviewReason.isEmpty());
    }

    void webhook()
    {
        const QString id = proposeAndApprove(1500, QStringLiteral("hook-1"));
        QVERIFY(!id.isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(id), QStringLiteral("COMPLETED"), 15000);
        const cs::ActionRecord r = record(id);
        const QJsonObject event{
            {QStringLiteral("id"), QStringLiteral("evt_api_test_1")},
            {QStringLiteral("object"), QStringLiteral("event")},
            {QStringLiteral("type"), QStringLiteral("refund.updated")},
            {QStringLiteral("created"), QDateTime::currentSecsSinceEpoch()},
            {QStringLiteral("data"), QJsonObject{{QStringLiteral("object"), QJsonObject{
                {QStringLiteral("id"), QStringLiteral("re_hooktest")}, {QStringLiteral("object"), QStringLiteral("refund")},
                {QStringLiteral("amount"), 1500}, {QStringLiteral("currency"), QStringLiteral("usd")},
                {QStringLiteral("status"), QStringLiteral("succeeded")}, {QStringLiteral("charge"), r.targetId},
                {QStringLiteral("metadata"), QJsonObject{{QStringLiteral("countersign_action_id"), id}}}}}}},
        };
        const QByteArray body = QJsonDocument(event).toJson(QJsonDocument::Compact);
        const QByteArray t = QByteArray::number(QDateTime::currentSecsSinceEpoch());
        const QByteArray v1 = QMessageAuthenticationCode::hash(t + '.' + body, kSecret, QCryptographicHash::Sha256).toHex();
        const LedgerCounts before = ledgerCounts(m_harness.ledger());
        const ApiReply forged = m_client->postRaw(QStringLiteral("/webhooks/provider"), QString(), body,
                                                  {{"Content-Type", "application/json"}, {"Stripe-Signature", "t=" + t + ",v1=" + QByteArray(64, 'a')}});
        QCOMPARE(forged.status, 400);
        QCOMPARE(forged.code(), QStringLiteral("invalid_signature"));
        QCOMPARE(ledgerCounts(m_harness.ledger()), before);
        const ApiReply accepted = m_client->postRaw(QStringLiteral("/webhooks/provider"), QString(), body,
                                                    {{"Content-Type", "application/json"}, {"Stripe-Signature", "t=" + t + ",v1=" + v1}});
        QVERIFY2(accepted.status == 200, accepted.body.constData());
        QCOMPARE(accepted.json.value(QStringLiteral("received")).toBool(), true);
        QCOMPARE(accepted.json.value(QStringLiteral("outcome")).toString(), QStringLiteral("recorded"));
        QCOMPARE(accepted.json.value(QStringLiteral("action_id")).toString(), id);
        const ApiReply duplicate = m_client->postRaw(QStringLiteral("/webhooks/provider"), QString(), body,
                                                     {{"Content-Type", "application/json"}, {"Stripe-Signature", "t=" + t + ",v1=" + v1}});
        QCOMPARE(duplicate.status, 200);
        QCOMPARE(duplicate.json.value(QStringLiteral("outcome")).toString(), QStringLiteral("duplicate"));
        bool webhookLookup = false;
        const QList<cs::ProviderLookup> lookups = m_harness.ledger().reader().lookups(id).value();
        for (const cs::ProviderLookup &lookup : lookups)
            webhookLookup = webhookLookup || lookup.method == cs::ProviderLookup::Method::Webhook;
        QVERIFY(webhookLookup);
    }
};

QTEST_GUILESS_MAIN(TestApiScenarios)
#include "tst_api_scenarios.moc"
