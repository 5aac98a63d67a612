// Issue 14's race, end to end: two agents propose twenty refunds each of one charge at once
// through a real countersignd (its executor on) against a real paysim, an approver approves every
// proposal that was accepted, all at once, and the executor sends them. The refunded total never
// exceeds what was captured, in paysim's own ground truth (GET /_sim/refunds), each action is sent
// at most once under exactly one key, and exactly as many proposals are accepted as the charge's
// budget holds — the rest are refused at proposal with 422 exceeds_refundable and write nothing.
#include "tests/api/apitestsupport.h"

#include <QDeadlineTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QTest>

class TestApiChargeRace : public QObject
{
    Q_OBJECT

private:
    ApiHarness m_harness;
    std::unique_ptr<ApiClient> m_client;
    // Sends every request at once and collects every answer (Qt runs up to six per host at a time,
    // so the server meets them concurrently).
    QList<ApiReply> all(const QList<QNetworkReply *> &replies)
    {
        QList<ApiReply> answers;
        for (QNetworkReply *reply : replies)
            answers << ApiClient::collect(reply, 60000);
        return answers;
    }

private slots:
    void initTestCase()
    {
        QString error;
        ApiHarness::Options options;
        options.withPaysim = true;
        QVERIFY2(m_harness.start(options, &error), qPrintable(error));
        m_client = std::make_unique<ApiClient>(m_harness.api());
    }

    void cleanupTestCase()
    {
        QVERIFY2(m_harness.countersignd().stop(), m_harness.countersignd().standardError().constData());
    }

    void twoAgentsTwentyProposalsOneCharge_data()
    {
        QTest::addColumn<qint64>("captured");
        QTest::addColumn<qint64>("each");
        // 40 × 1000 against 10000: exactly ten fit. 40 × 700 against 10000: fourteen (9800), and
        // what is left (200) is less than one more.
        QTest::newRow("ten fit") << qint64(10000) << qint64(1000);
        QTest::newRow("fourteen fit, 200 left") << qint64(10000) << qint64(700);
    }

    void twoAgentsTwentyProposalsOneCharge()
    {
        QFETCH(qint64, captured);
        QFETCH(qint64, each);
        const QString charge = m_harness.seedCharge(captured);
        QVERIFY(!charge.isEmpty());
        const LedgerCounts before = ledgerCounts(m_harness.ledger());

        QList<QNetworkReply *> sent;
        for (int i = 0; i < 20; ++i) {
            for (const QString &agent : {QStringLiteral("agent-7"), QStringLiteral("agent-8")}) {
                const QJsonObject proposal = ApiClient::proposal(QStringLiteral("%1-%2-%3").arg(charge, agent).arg(i), each, charge);
                sent << m_client->sendAsync("POST", QStringLiteral("/actions"), m_harness.token(agent),
                                            QJsonDocument(proposal).toJson(QJsonDocument::Compact),
                                            {{"Content-Type", "application/json"}});
            }
        }
        QStringList accepted;
        int refused = 0;
        for (const ApiReply &reply : all(sent)) {
            if (reply.status == 201) {
                accepted << reply.json.value(QStringLiteral("id")).toString();
            } else {
                QCOMPARE(reply.status, 422);
                QCOMPARE(reply.code(), QStringLiteral("exceeds_refundable"));
                QVERIFY2(reply.json.value(QStringLiteral("available")).toInteger(-1) < each, reply.body.constData());
                ++refused;
            }
        }
        const int fit = int(captured / each);
        QCOMPARE(accepted.size(), fit);
        QCOMPARE(refused, 40 - fit);
        QCOMPARE(ledgerCounts(m_harness.ledger()).actions - before.actions, qint64(fit));

        // Every accepted proposal approved at once by ana.
        QList<QNetworkReply *> approvals;
        for (const QString &id : accepted) {
            const ApiReply current = m_client->get(QStringLiteral("/actions/") + id, m_harness.token(QStringLiteral("ana")));
            QCOMPARE(current.status, 200);
            approvals << m_client->sendAsync("POST", QStringLiteral("/actions/%1/approvals").arg(id),
                                             m_harness.token(QStringLiteral("ana")), QByteArrayLiteral("{\"note\":\"race\"}"),
                                             {{"Content-Type", "application/json"}, {"If-Match", current.ifMatch()},
                                              {"Idempotency-Key", QByteArrayLiteral("race-approve-") + id.toLatin1()}});
        }
        QSet<QString> keys;
        for (const ApiReply &reply : all(approvals)) {
            QVERIFY2(reply.status == 200, reply.body.constData());
            keys << reply.json.value(QStringLiteral("approval")).toObject().value(QStringLiteral("idempotency_key")).toString();
        }
        QCOMPARE(keys.size(), fit); // one fresh key per action

        // The executor sends them all.
        QDeadlineTimer deadline(60000);
        QStringList unfinished = accepted;
        while (!unfinished.isEmpty() && !deadline.hasExpired()) {
            const QString id = unfinished.first();
            const QString state = m_client->get(QStringLiteral("/actions/") + id, m_harness.token(QStringLiteral("ana")))
                                      .json.value(QStringLiteral("state")).toString();
            QVERIFY2(state != u"REQUIRES_REVIEW" && state != u"REJECTED", qPrintable(id + u' ' + state));
            if (state == u"COMPLETED")
                unfinished.removeFirst();
            else
                QTest::qWait(50);
        }
        QVERIFY2(unfinished.isEmpty(), qPrintable(unfinished.join(u' ')));

        // paysim's ground truth: every refund it created for this charge.
        qint64 refunded = 0;
        QHash<QString, int> perAction;
        QSet<QString> sentKeys;
        for (const QJsonValue &value : m_harness.sim("GET", QStringLiteral("/_sim/refunds")).json.value(QStringLiteral("data")).toArray()) {
            const QJsonObject refund = value.toObject();
            if (refund.value(QStringLiteral("charge")).toString() != charge)
                continue;
            refunded += refund.value(QStringLiteral("amount")).toInteger();
            ++perAction[refund.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("countersign_action_id")).toString()];
            sentKeys << refund.value(QStringLiteral("idempotency_key")).toString();
        }
        QVERIFY2(refunded <= captured, qPrintable(QStringLiteral("refunded %1 of %2").arg(refunded).arg(captured)));
        QCOMPARE(refunded, fit * each);
        QCOMPARE(perAction.size(), fit);
        for (auto it = perAction.cbegin(); it != perAction.cend(); ++it) {
            QVERIFY2(accepted.contains(it.key()), qPrintable(it.key()));
            QCOMPARE(it.value(), 1);
        }
        QCOMPARE(sentKeys, keys); // what was sent went under the keys the approvals minted
        const ApiReply providerCharge = m_harness.sim("GET", QStringLiteral("/_sim/charges"));
        for (const QJsonValue &value : providerCharge.json.value(QStringLiteral("data")).toArray()) {
            if (value.toObject().value(QStringLiteral("id")).toString() == charge)
                QCOMPARE(value.toObject().value(QStringLiteral("amount_refunded")).toInteger(), refunded);
        }
    }
};

QTEST_GUILESS_MAIN(TestApiChargeRace)
#include "tst_api_charge_race.moc"
