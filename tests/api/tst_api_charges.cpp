// The provider's view of a charge through the API (issues 14 and 19), with a real countersignd and
// a real paysim on 127.0.0.1: a proposal reads its charge and records the snapshot, the detail
// shows it with the budget, the warnings and the requester's record; POST …/charge-lookups reads
// it again on an approver's request; a refund made at the provider outside Countersign shrinks the
// budget and refuses a proposal that no longer fits; a provider that does not answer is recorded
// as ERROR evidence (502 for the approver's read, the proposal still accepted); a resubmission
// reads nothing. The executor is off (--no-executor): nothing here is sent. The charge view
// (issue 17): GET /charges/{id} lists every action on a charge or its payment intent with the
// newest read and the budget at the proposal stage, POST /charges/{id}/lookups reads it again,
// agents may not read it, and what Countersign knows nothing about is 404 without asking the
// provider.
#include "tests/api/apitestsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

class TestApiCharges : public QObject
{
    Q_OBJECT

private:
    ApiHarness m_harness;
    std::unique_ptr<ApiClient> m_client;
    int m_serial = 0;

    QString token(const QString &user) const { return m_harness.token(user); }
    QString nextReference(const QString &prefix) { return QStringLiteral("%1-%2").arg(prefix).arg(++m_serial); }
    // A refund made in the provider's dashboard: straight to paysim, no Countersign metadata.
    int refundOutside(const QString &charge, qint64 amount)
    {
        return m_harness
            .refundAtPaysim(QStringLiteral("charge=%1&amount=%2").arg(charge).arg(amount).toLatin1(),
                            nextReference(QStringLiteral("dashboard")).toLatin1())
            .status;
    }
    // A refund made at the provider by Countersign's executor would carry the action's id.
    QString refundFor(const QString &charge, qint64 amount, const QString &actionId)
    {
        const QByteArray form =
            QStringLiteral("charge=%1&amount=%2&metadata[countersign_action_id]=%3").arg(charge).arg(amount).arg(actionId).toLatin1();
        return m_harness.refundAtPaysim(form, actionId.toLatin1()).json.value(QStringLiteral("id")).toString();
    }
    // The charge and its payment intent, as paysim made them.
    QPair<QString, QString> seedChargeWithIntent(qint64 amount)
    {
        const ApiReply reply = m_harness.sim("POST", QStringLiteral("/_sim/charges"),
                                             {{QStringLiteral("count"), 1}, {QStringLiteral("amount"), amount}});
        const QJsonObject charge = reply.json.value(QStringLiteral("data")).toArray().first().toObject();
        return {charge.value(QStringLiteral("id")).toString(), charge.value(QStringLiteral("payment_intent")).toString()};
    }
    ApiReply chargeView(const QString &id, const QString &user)
    {
        return m_client->get(QStringLiteral("/charges/") + id, token(user));
    }
    ApiReply chargeViewLookup(const QString &id, const QString &user, const QJsonObject &body = {})
    {
        return m_client->post(QStringLiteral("/charges/%1/lookups").arg(id), token(user), body,
                              {{"Idempotency-Key", nextReference(QStringLiteral("view-read")).toLatin1()}});
    }
    static QStringList actionIds(const QJsonObject &view)
    {
        QStringList ids;
        for (const QJsonValue &a : view.value(QStringLiteral("actions")).toArray())
            ids << a.toObject().value(QStringLiteral("id")).toString();
        return ids;
    }
    static QStringList reservationIds(const QJsonObject &view)
    {
        QStringList ids;
        for (const QJsonValue &r : view.value(QStringLiteral("budget")).toObject().value(QStringLiteral("reservations")).toArray())
            ids << r.toObject().value(QStringLiteral("action_id")).toString();
        return ids;
    }

    // The provider answers 503 to the next `times` reads of a charge (GET /v1/charges/…).
    QString failChargeReads(int times)
    {
        const ApiReply added = m_harness.sim("POST", QStringLiteral("/_sim/faults"),
                                             {{QStringLiteral("method"), QStringLiteral("GET")},
                                              {QStringLiteral("path"), QStringLiteral("/v1/charges*")},
                                              {QStringLiteral("times"), times},
                                              {QStringLiteral("fault"), QStringLiteral("outage_503")}});
        const QJsonArray ids = added.json.value(QStringLiteral("added")).toArray();
        return ids.isEmpty() ? QString() : ids.first().toVariant().toString();
    }
    int faultMatches(const QString &ruleId)
    {
        for (const QJsonValue &rule : m_harness.sim("GET", QStringLiteral("/_sim/faults")).json.value(QStringLiteral("rules")).toArray()) {
            if (rule.toObject().value(QStringLiteral("id")).toVariant().toString() == ruleId)
                return rule.toObject().value(QStringLiteral("matched")).toInt();
        }
        return -1;
    }
    ApiReply propose(const QString &agent, const QString &reference, qint64 amount, const QString &charge)
    {
        return m_client->propose(token(agent), ApiClient::proposal(reference, amount, charge));
    }
    QJsonObject detail(const QString &id, const QString &user = QStringLiteral("ana"))
    {
        return m_client->get(QStringLiteral("/actions/") + id, token(user)).json;
    }
    ApiReply chargeLookup(const QString &id, const QString &user)
    {
        return m_client->post(QStringLiteral("/actions/%1/charge-lookups").arg(id), token(user), QJsonObject(),
                              {{"Idempotency-Key", nextReference(QStringLiteral("read")).toLatin1()}});
    }
    static QStringList warningCodes(const QJsonObject &charge)
    {
        QStringList codes;
        for (const QJsonValue &w : charge.value(QStringLiteral("warnings")).toArray()) {
            codes << w.toObject().value(QStringLiteral("code")).toString();
            if (w.toObject().value(QStringLiteral("text")).toString().isEmpty())
                codes << QStringLiteral("(a warning without its sentence)");
        }
        return codes;
    }

private slots:
    void initTestCase()
    {
        QString error;
        ApiHarness::Options options;
        options.withPaysim = true;
        options.extraServeArguments = {QStringLiteral("--no-executor")};
        QVERIFY2(m_harness.start(options, &error), qPrintable(error));
        m_client = std::make_unique<ApiClient>(m_harness.api());
    }

    void cleanupTestCase()
    {
        QVERIFY2(m_harness.countersignd().stop(), m_harness.countersignd().standardError().constData());
    }

    // The proposal reads its charge; the detail shows the snapshot, the budget and the record.
    void proposalRecordsTheCharge()
    {
        const QString charge = m_harness.seedCharge(10000, {{QStringLiteral("card"), QJsonObject{{QStringLiteral("brand"), QStringLiteral("visa")},
                                                                                     {QStringLiteral("last4"), QStringLiteral("4242")}}}});
        QVERIFY(!charge.isEmpty());
        const ApiReply proposed = propose(QStringLiteral("agent-7"), nextReference(QStringLiteral("p")), 3000, charge);
        QCOMPARE(proposed.status, 201);
        const QString id = proposed.json.value(QStringLiteral("id")).toString();

        const auto stored = m_harness.ledger().charges().latest(charge);
        QVERIFY(stored.ok() && stored->has_value());
        QCOMPARE((*stored)->snapshot.result, cs::ChargeSnapshot::Result::Found);
        QCOMPARE((*stored)->snapshot.askedBy, QStringLiteral("proposal"));

        const QJsonObject json = detail(id);
        const QJsonObject view = json.value(QStringLiteral("charge")).toObject();
        const QJsonObject snapshot = view.value(QStringLiteral("snapshot")).toObject();
        QCOMPARE(snapshot.value(QStringLiteral("result")).toString(), QStringLiteral("FOUND"));
        QCOMPARE(snapshot.value(QStringLiteral("charge_id")).toString(), charge);
        QCOMPARE(snapshot.value(QStringLiteral("amount_captured")).toInteger(), 10000);
        QCOMPARE(snapshot.value(QStringLiteral("asked_by")).toString(), QStringLiteral("proposal"));
        QCOMPARE(snapshot.value(QStringLiteral("seq")).toInt(), (*stored)->seq);
        const QJsonObject budget = view.value(QStringLiteral("budget")).toObject();
        QCOMPARE(budget.value(QStringLiteral("stage")).toString(), QStringLiteral("approval"));
        QCOMPARE(budget.value(QStringLiteral("known")).toBool(), true);
        QCOMPARE(budget.value(QStringLiteral("captured")).toInteger(), 10000);
        QCOMPARE(budget.value(QStringLiteral("reserved")).toInteger(), 0); // this action is left out
        QCOMPARE(budget.value(QStringLiteral("requested")).toInteger(), 3000);
        QCOMPARE(budget.value(QStringLiteral("fits")).toBool(), true);
        QCOMPARE(warningCodes(view), QStringList());

        const QJsonObject record = json.value(QStringLiteral("requester_record")).toObject();
        QCOMPARE(record.value(QStringLiteral("requested_by")).toString(), QStringLiteral("agent-7"));
        for (const char *window : {"today", "week"}) {
            const QJsonObject w = record.value(QLatin1String(window)).toObject();
            QVERIFY2(w.value(QStringLiteral("count")).toInteger() >= 1, window);
            QVERIFY(w.contains(QStringLiteral("since")));
            QVERIFY(w.value(QStringLiteral("rejected_share")).isDouble());
            QVERIFY(w.value(QStringLiteral("sent_to_review_share")).isDouble());
            bool usd = false;
            for (const QJsonValue &t : w.value(QStringLiteral("totals")).toArray())
                usd = usd || (t.toObject().value(QStringLiteral("currency")).toString() == u"usd"
                              && t.toObject().value(QStringLiteral("amount")).toInteger() >= 3000);
            QVERIFY2(usd, window);
        }
    }

    // The agent's record counts what it proposed, what approvers rejected, per currency.
    void requesterRecordCounts()
    {
        // agent-8 proposes only here.
        const QString charge = m_harness.seedCharge(50000);
        const ApiReply a = propose(QStringLiteral("agent-8"), nextReference(QStringLiteral("r")), 1000, charge);
        const ApiReply b = propose(QStringLiteral("agent-8"), nextReference(QStringLiteral("r")), 2500, charge);
        QCOMPARE(a.status, 201);
        QCOMPARE(b.status, 201);
        const QString rejected = b.json.value(QStringLiteral("id")).toString();
        const ApiReply no = m_client->post(QStringLiteral("/actions/%1/rejections").arg(rejected), token(QStringLiteral("bob")),
                                           QJsonObject{{QStringLiteral("reason"), QStringLiteral("duplicate")}},
                                           {{"If-Match", b.ifMatch()}, {"Idempotency-Key", "reject-record"}});
        QVERIFY2(no.status == 200, no.body.constData());
        const QJsonObject week = detail(a.json.value(QStringLiteral("id")).toString())
                                     .value(QStringLiteral("requester_record")).toObject().value(QStringLiteral("week")).toObject();
        QCOMPARE(week.value(QStringLiteral("count")).toInteger(), 2);
        QCOMPARE(week.value(QStringLiteral("rejected")).toInteger(), 1);
        QCOMPARE(week.value(QStringLiteral("rejected_share")).toDouble(), 0.5);
        QCOMPARE(week.value(QStringLiteral("sent_to_review")).toInteger(), 0);
        const QJsonArray totals = week.value(QStringLiteral("totals")).toArray();
        QCOMPARE(totals.size(), 1);
        QCOMPARE(totals.first().toObject().value(QStringLiteral("amount")).toInteger(), 3500);
        QCOMPARE(totals.first().toObject().value(QStringLiteral("count")).toInteger(), 2);
    }

    // A refund made at the provider outside Countersign shrinks the budget at the next read, and a
    // proposal that no longer fits is refused with the budget, nothing written.
    void outsideRefundShrinksTheBudget()
    {
        const QString charge = m_harness.seedCharge(10000);
        const ApiReply first = propose(QStringLiteral("agent-7"), nextReference(QStringLiteral("o")), 3000, charge);
        QCOMPARE(first.status, 201);
        const QString id = first.json.value(QStringLiteral("id")).toString();
        QCOMPARE(refundOutside(charge, 6000), 200);

        const ApiReply read = chargeLookup(id, QStringLiteral("ana"));
        QVERIFY2(read.status == 201, read.body.constData());
        QCOMPARE(read.json.value(QStringLiteral("snapshot")).toObject().value(QStringLiteral("asked_by")).toString(), QStringLiteral("ana"));
        QCOMPARE(read.json.value(QStringLiteral("snapshot")).toObject().value(QStringLiteral("amount_refunded")).toInteger(), 6000);
        const QJsonObject budget = read.json.value(QStringLiteral("budget")).toObject();
        QCOMPARE(budget.value(QStringLiteral("refunded_at_provider")).toInteger(), 6000);
        QCOMPARE(budget.value(QStringLiteral("available")).toInteger(), 4000);
        QCOMPARE(budget.value(QStringLiteral("fits")).toBool(), true);
        QVERIFY(warningCodes(read.json).contains(QStringLiteral("refunds_made")));
        // The detail now shows the approver's read.
        QCOMPARE(detail(id).value(QStringLiteral("charge")).toObject().value(QStringLiteral("snapshot")).toObject()
                     .value(QStringLiteral("asked_by")).toString(), QStringLiteral("ana"));

        const LedgerCounts before = ledgerCounts(m_harness.ledger());
        const QString reference = nextReference(QStringLiteral("o"));
        const ApiReply refused = propose(QStringLiteral("agent-8"), reference, 1500, charge);
        QVERIFY2(refused.status == 422, refused.body.constData());
        QCOMPARE(refused.code(), QStringLiteral("exceeds_refundable"));
        QCOMPARE(refused.json.value(QStringLiteral("captured")).toInteger(), 10000);
        QCOMPARE(refused.json.value(QStringLiteral("refunded")).toInteger(), 6000);
        QCOMPARE(refused.json.value(QStringLiteral("reserved")).toInteger(), 3000);
        QCOMPARE(refused.json.value(QStringLiteral("requested")).toInteger(), 1500);
        QCOMPARE(refused.json.value(QStringLiteral("available")).toInteger(), 1000);
        QCOMPARE(ledgerCounts(m_harness.ledger()), before);
        QCOMPARE(*m_harness.ledger().reader().proposalId(QStringLiteral("agent-8"), reference), QString());
        // What still fits is accepted.
        QCOMPARE(propose(QStringLiteral("agent-8"), nextReference(QStringLiteral("o")), 1000, charge).status, 201);
    }

    void warnings_data()
    {
        QTest::addColumn<QJsonObject>("look");
        QTest::addColumn<qint64>("outside"); // refunded at the provider before the proposal
        QTest::addColumn<qint64>("amount");
        QTest::addColumn<QString>("code");

        QTest::newRow("disputed") << QJsonObject{{QStringLiteral("disputed"), true}} << qint64(0) << qint64(1000)
                                  << QStringLiteral("disputed");
        QTest::newRow("over half of the charge") << QJsonObject() << qint64(0) << qint64(5001) << QStringLiteral("over_half");
        QTest::newRow("older than the refund window")
            << QJsonObject{{QStringLiteral("age_seconds"), qint64(200) * 86400}} << qint64(0) << qint64(1000)
            << QStringLiteral("past_refund_window");
        QTest::newRow("refunds already made") << QJsonObject() << qint64(2000) << qint64(1000) << QStringLiteral("refunds_made");
    }

    void warnings()
    {
        QFETCH(QJsonObject, look);
        QFETCH(qint64, outside);
        QFETCH(qint64, amount);
        QFETCH(QString, code);
        const QString charge = m_harness.seedCharge(10000, look);
        QVERIFY(!charge.isEmpty());
        if (outside > 0)
            QCOMPARE(refundOutside(charge, outside), 200);
        const ApiReply proposed = propose(QStringLiteral("agent-7"), nextReference(QStringLiteral("w")), amount, charge);
        QVERIFY2(proposed.status == 201, proposed.body.constData());
        const QStringList codes = warningCodes(detail(proposed.json.value(QStringLiteral("id")).toString())
                                                   .value(QStringLiteral("charge")).toObject());
        QCOMPARE(codes, QStringList{code});
    }

    // A charge the provider does not know: the proposal is accepted, the NOT_FOUND read recorded
    // and shown as a warning (the approver rejects it; the provider would refuse it anyway).
    void unknownChargeIsShown()
    {
        const QString charge = QStringLiteral("ch_3QnoSuchCharge00000000");
        const ApiReply proposed = propose(QStringLiteral("agent-7"), nextReference(QStringLiteral("n")), 1000, charge);
        QVERIFY2(proposed.status == 201, proposed.body.constData());
        const QJsonObject view = detail(proposed.json.value(QStringLiteral("id")).toString()).value(QStringLiteral("charge")).toObject();
        QCOMPARE(view.value(QStringLiteral("snapshot")).toObject().value(QStringLiteral("result")).toString(), QStringLiteral("NOT_FOUND"));
        QCOMPARE(view.value(QStringLiteral("budget")).toObject().value(QStringLiteral("known")).toBool(), false);
        QCOMPARE(warningCodes(view), QStringList{QStringLiteral("no_provider_view")});
    }

    void chargeLookupRoles_data()
    {
        QTest::addColumn<QString>("user");
        QTest::addColumn<int>("status");
        QTest::newRow("agent: 403") << QStringLiteral("agent-7") << 403;
        QTest::newRow("auditor: 403") << QStringLiteral("aud") << 403;
        QTest::newRow("approver: 201") << QStringLiteral("bob") << 201;
        QTest::newRow("supervisor: 201") << QStringLiteral("sam") << 201;
        QTest::newRow("admin: 201") << QStringLiteral("root") << 201;
    }

    void chargeLookupRoles()
    {
        QFETCH(QString, user);
        QFETCH(int, status);
        const QString charge = m_harness.seedCharge(4000);
        const ApiReply proposed = propose(QStringLiteral("agent-7"), nextReference(QStringLiteral("role")), 1000, charge);
        QCOMPARE(proposed.status, 201);
        const ApiReply read = chargeLookup(proposed.json.value(QStringLiteral("id")).toString(), user);
        QVERIFY2(read.status == status, read.body.constData());
        if (status == 403)
            QCOMPARE(read.code(), QStringLiteral("forbidden"));
    }

    void chargeLookupUnknownAction()
    {
        const ApiReply read = chargeLookup(QStringLiteral("act_01JDOESNOTEXIST0000000000"), QStringLiteral("ana"));
        QCOMPARE(read.status, 404);
        QCOMPARE(read.code(), QStringLiteral("not_found"));
        const ApiReply body = m_client->post(QStringLiteral("/actions/act_x/charge-lookups"), token(QStringLiteral("ana")),
                                             QJsonObject{{QStringLiteral("force"), true}}, {{"Idempotency-Key", "read-bad-body"}});
        QCOMPARE(body.status, 422);
        QCOMPARE(body.code(), QStringLiteral("validation_failed"));
    }

    // The provider does not answer: the approver's read is 502 with the ERROR snapshot recorded;
    // a proposal meanwhile is accepted, its failed read recorded and shown as a warning.
    void providerFailure()
    {
        const QString charge = m_harness.seedCharge(8000);
        const ApiReply proposed = propose(QStringLiteral("agent-7"), nextReference(QStringLiteral("f")), 1000, charge);
        QCOMPARE(proposed.status, 201);
        const QString id = proposed.json.value(QStringLiteral("id")).toString();

        const QString rule = failChargeReads(2);
        QVERIFY(!rule.isEmpty());
        const ApiReply read = chargeLookup(id, QStringLiteral("ana"));
        QVERIFY2(read.status == 502, read.body.constData());
        QCOMPARE(read.code(), QStringLiteral("provider_unavailable"));
        QCOMPARE(read.json.value(QStringLiteral("snapshot")).toObject().value(QStringLiteral("result")).toString(), QStringLiteral("ERROR"));
        const auto stored = m_harness.ledger().charges().latest(charge);
        QVERIFY(stored.ok() && stored->has_value());
        QCOMPARE((*stored)->snapshot.result, cs::ChargeSnapshot::Result::Error);
        QCOMPARE((*stored)->snapshot.askedBy, QStringLiteral("ana"));
        // The detail keeps showing the FOUND read: the budget rests on it.
        QCOMPARE(detail(id).value(QStringLiteral("charge")).toObject().value(QStringLiteral("snapshot")).toObject()
                     .value(QStringLiteral("result")).toString(), QStringLiteral("FOUND"));

        const QString other = m_harness.seedCharge(8000);
        const ApiReply during = propose(QStringLiteral("agent-7"), nextReference(QStringLiteral("f")), 1000, other);
        QVERIFY2(during.status == 201, during.body.constData());
        const QJsonObject view = detail(during.json.value(QStringLiteral("id")).toString()).value(QStringLiteral("charge")).toObject();
        QCOMPARE(view.value(QStringLiteral("snapshot")).toObject().value(QStringLiteral("result")).toString(), QStringLiteral("ERROR"));
        QCOMPARE(warningCodes(view), QStringList{QStringLiteral("no_provider_view")});
        QCOMPARE(faultMatches(rule), 2);
    }

    // Everything on one charge: a refund made outside Countersign, one COMPLETED action (its refund
    // at the provider names it), one PENDING proposed through the payment intent, one REJECTED.
    // Before a fresh read the COMPLETED refund is held in Countersign; after it, the provider
    // counts it: `available` stays the same, the money moves from reserved to refunded.
    void chargeViewShowsEverything()
    {
        const auto [charge, intent] = seedChargeWithIntent(10000);
        QVERIFY(charge.startsWith(u"ch_") && intent.startsWith(u"pi_"));
        QCOMPARE(refundOutside(charge, 2000), 200);
        const ApiReply done = propose(QStringLiteral("agent-7"), nextReference(QStringLiteral("v")), 3000, charge);
        QCOMPARE(done.status, 201);
        const QString doneId = done.json.value(QStringLiteral("id")).toString();
        QJsonObject byIntent = ApiClient::proposal(nextReference(QStringLiteral("v")), 1500);
        byIntent.insert(QStringLiteral("target"), QJsonObject{{QStringLiteral("payment_intent"), intent}});
        const ApiReply pending = m_client->propose(token(QStringLiteral("agent-8")), byIntent);
        QVERIFY2(pending.status == 201, pending.body.constData());
        const QString pendingId = pending.json.value(QStringLiteral("id")).toString();
        const ApiReply no = propose(QStringLiteral("agent-8"), nextReference(QStringLiteral("v")), 500, charge);
        QCOMPARE(no.status, 201);
        const QString rejectedId = no.json.value(QStringLiteral("id")).toString();
        QCOMPARE(m_client->post(QStringLiteral("/actions/%1/rejections").arg(rejectedId), token(QStringLiteral("bob")),
                                QJsonObject{{QStringLiteral("reason"), QStringLiteral("duplicate")}},
                                {{"If-Match", no.ifMatch()}, {"Idempotency-Key", nextReference(QStringLiteral("no")).toLatin1()}})
                     .status,
                 200);
        QCOMPARE(m_client->approve(token(QStringLiteral("ana")), doneId, done.ifMatch()).status, 200);
        const QString refund = refundFor(charge, 3000, doneId);
        QVERIFY(refund.startsWith(u"re_"));
        QString error;
        QVERIFY2(driveAttempt(m_harness.ledger(), doneId, cs::Attempt::Outcome::Succeeded, cs::Trigger::ProviderSucceeded,
                              &error, refund),
                 qPrintable(error));

        const ApiReply view = chargeView(charge, QStringLiteral("aud"));
        QVERIFY2(view.status == 200, view.body.constData());
        QCOMPARE(view.json.value(QStringLiteral("id")).toString(), charge);
        QCOMPARE(view.json.value(QStringLiteral("target_type")).toString(), QStringLiteral("charge"));
        QCOMPARE(view.json.value(QStringLiteral("charge_id")).toString(), charge);
        QCOMPARE(view.json.value(QStringLiteral("payment_intent_id")).toString(), intent);
        QCOMPARE(actionIds(view.json), (QStringList{doneId, pendingId, rejectedId})); // oldest first, REJECTED too
        QStringList states;
        for (const QJsonValue &a : view.json.value(QStringLiteral("actions")).toArray())
            states << a.toObject().value(QStringLiteral("state")).toString();
        QCOMPARE(states, (QStringList{QStringLiteral("COMPLETED"), QStringLiteral("PENDING"), QStringLiteral("REJECTED")}));
        QCOMPARE(view.json.value(QStringLiteral("actions_truncated")).toBool(), false);
        const QJsonObject snapshot = view.json.value(QStringLiteral("snapshot")).toObject();
        QCOMPARE(snapshot.value(QStringLiteral("result")).toString(), QStringLiteral("FOUND"));
        QCOMPARE(snapshot.value(QStringLiteral("amount_refunded")).toInteger(), 2000); // read before the action's refund
        QVERIFY(snapshot.value(QStringLiteral("seq")).toInt() > 0);
        QJsonObject budget = view.json.value(QStringLiteral("budget")).toObject();
        QCOMPARE(budget.value(QStringLiteral("stage")).toString(), QStringLiteral("proposal"));
        QCOMPARE(budget.value(QStringLiteral("captured")).toInteger(), 10000);
        QCOMPARE(budget.value(QStringLiteral("refunded_at_provider")).toInteger(), 2000);
        QCOMPARE(budget.value(QStringLiteral("reserved")).toInteger(), 4500);
        QCOMPARE(budget.value(QStringLiteral("available")).toInteger(), 3500);
        QCOMPARE(reservationIds(view.json), (QStringList{doneId, pendingId}));

        // The same charge through its payment intent: the same actions and figures.
        const ApiReply viaIntent = chargeView(intent, QStringLiteral("ana"));
        QVERIFY2(viaIntent.status == 200, viaIntent.body.constData());
        QCOMPARE(viaIntent.json.value(QStringLiteral("target_type")).toString(), QStringLiteral("payment_intent"));
        QCOMPARE(viaIntent.json.value(QStringLiteral("charge_id")).toString(), charge);
        QCOMPARE(actionIds(viaIntent.json), actionIds(view.json));
        QCOMPARE(viaIntent.json.value(QStringLiteral("budget")).toObject().value(QStringLiteral("available")).toInteger(), 3500);

        // Refresh: the provider now lists both refunds; the one Countersign made names its action.
        const auto before = m_harness.ledger().charges().latest(charge);
        const ApiReply fresh = chargeViewLookup(charge, QStringLiteral("sam"));
        QVERIFY2(fresh.status == 201, fresh.body.constData());
        const QJsonObject read = fresh.json.value(QStringLiteral("snapshot")).toObject();
        QCOMPARE(read.value(QStringLiteral("asked_by")).toString(), QStringLiteral("sam"));
        QCOMPARE(read.value(QStringLiteral("seq")).toInt(), (*before)->seq + 1);
        QCOMPARE(read.value(QStringLiteral("amount_refunded")).toInteger(), 5000);
        QStringList madeBy;
        for (const QJsonValue &r : read.value(QStringLiteral("refunds")).toArray())
            madeBy << r.toObject().value(QStringLiteral("action_id")).toString();
        madeBy.sort();
        QCOMPARE(madeBy, (QStringList{QString(), doneId}));
        budget = fresh.json.value(QStringLiteral("budget")).toObject();
        QCOMPARE(budget.value(QStringLiteral("refunded_at_provider")).toInteger(), 5000);
        QCOMPARE(budget.value(QStringLiteral("reserved")).toInteger(), 1500);
        QCOMPARE(budget.value(QStringLiteral("available")).toInteger(), 3500);
        QCOMPARE(reservationIds(fresh.json), QStringList{pendingId});
        QCOMPARE(actionIds(fresh.json), actionIds(view.json));
        const auto after = m_harness.ledger().charges().latest(charge);
        QCOMPARE((*after)->snapshot.askedBy, QStringLiteral("sam"));
        // GET shows the recorded read from now on.
        QCOMPARE(chargeView(charge, QStringLiteral("aud")).json.value(QStringLiteral("snapshot")).toObject()
                     .value(QStringLiteral("asked_by")).toString(), QStringLiteral("sam"));
    }

    // Agents may not read a charge's view (it lists every requester's actions), not even of a
    // charge they proposed on; auditors read it but may not ask the provider.
    void chargeViewRoles_data()
    {
        QTest::addColumn<QString>("user");
        QTest::addColumn<int>("read");
        QTest::addColumn<int>("lookup");
        QTest::newRow("agent, its own charge: 403, 403") << QStringLiteral("agent-7") << 403 << 403;
        QTest::newRow("another agent: 403, 403") << QStringLiteral("agent-8") << 403 << 403;
        QTest::newRow("approver: 200, 201") << QStringLiteral("ana") << 200 << 201;
        QTest::newRow("supervisor: 200, 201") << QStringLiteral("sam") << 200 << 201;
        QTest::newRow("auditor: 200, 403") << QStringLiteral("aud") << 200 << 403;
        QTest::newRow("admin: 200, 201") << QStringLiteral("root") << 200 << 201;
    }

    void chargeViewRoles()
    {
        QFETCH(QString, user);
        QFETCH(int, read);
        QFETCH(int, lookup);
        const QString charge = m_harness.seedCharge(4000);
        QCOMPARE(propose(QStringLiteral("agent-7"), nextReference(QStringLiteral("vr")), 1000, charge).status, 201);
        const ApiReply got = chargeView(charge, user);
        QVERIFY2(got.status == read, got.body.constData());
        if (read == 403) {
            QCOMPARE(got.code(), QStringLiteral("forbidden"));
            QVERIFY(!got.json.contains(QStringLiteral("actions")));
        } else {
            QCOMPARE(actionIds(got.json).size(), 1);
        }
        const LedgerCounts before = ledgerCounts(m_harness.ledger());
        const ApiReply asked = chargeViewLookup(charge, user);
        QVERIFY2(asked.status == lookup, asked.body.constData());
        if (lookup == 403) {
            QCOMPARE(asked.code(), QStringLiteral("forbidden"));
            QCOMPARE(ledgerCounts(m_harness.ledger()), before);
        } else {
            QCOMPARE(ledgerCounts(m_harness.ledger()).auditRows, before.auditRows + 1); // one charge_read
        }
    }

    // A charge Countersign knows nothing about is 404, and its look-up asks the provider nothing;
    // an id that is no charge or payment intent is 400; a body other than {} is 422.
    void chargeViewRefusals()
    {
        const QString unknown = m_harness.seedCharge(4000); // paysim knows it; Countersign does not
        const ApiReply missing = chargeView(unknown, QStringLiteral("ana"));
        QCOMPARE(missing.status, 404);
        QCOMPARE(missing.code(), QStringLiteral("not_found"));
        const QString rule = failChargeReads(1); // would be hit by any read
        const LedgerCounts before = ledgerCounts(m_harness.ledger());
        const ApiReply notAsked = chargeViewLookup(unknown, QStringLiteral("ana"));
        QCOMPARE(notAsked.status, 404);
        QCOMPARE(notAsked.code(), QStringLiteral("not_found"));
        QCOMPARE(faultMatches(rule), 0);
        QCOMPARE(ledgerCounts(m_harness.ledger()), before);
        QVERIFY(!m_harness.ledger().charges().latest(unknown)->has_value());
        m_harness.sim("DELETE", QStringLiteral("/_sim/faults"));

        for (const QString &bad : {QStringLiteral("act_01JDOESNOTEXIST0000000000"), QStringLiteral("re_1"), QStringLiteral("ch_"),
                                   QStringLiteral("ch_%24x")}) {
            const ApiReply malformed = chargeView(bad, QStringLiteral("ana"));
            QVERIFY2(malformed.status == 400, qPrintable(bad + QLatin1Char(' ') + QString::fromUtf8(malformed.body)));
            QCOMPARE(malformed.code(), QStringLiteral("invalid_parameter"));
            QCOMPARE(malformed.json.value(QStringLiteral("errors")).toArray().first().toObject().value(QStringLiteral("field")).toString(),
                     QStringLiteral("id"));
        }
        const QString known = m_harness.seedCharge(4000);
        QCOMPARE(propose(QStringLiteral("agent-7"), nextReference(QStringLiteral("vb")), 1000, known).status, 201);
        const ApiReply body = chargeViewLookup(known, QStringLiteral("ana"), {{QStringLiteral("force"), true}});
        QCOMPARE(body.status, 422);
        QCOMPARE(body.code(), QStringLiteral("validation_failed"));
    }

    // The provider does not answer the Refresh: 502 with the ERROR read, recorded; the view keeps
    // showing the FOUND read its budget rests on.
    void chargeViewProviderFailure()
    {
        const QString charge = m_harness.seedCharge(8000);
        QCOMPARE(propose(QStringLiteral("agent-7"), nextReference(QStringLiteral("vf")), 1000, charge).status, 201);
        const QString rule = failChargeReads(1);
        const ApiReply read = chargeViewLookup(charge, QStringLiteral("ana"));
        QVERIFY2(read.status == 502, read.body.constData());
        QCOMPARE(read.code(), QStringLiteral("provider_unavailable"));
        QCOMPARE(read.json.value(QStringLiteral("snapshot")).toObject().value(QStringLiteral("result")).toString(), QStringLiteral("ERROR"));
        QCOMPARE(faultMatches(rule), 1);
        const auto stored = m_harness.ledger().charges().latest(charge);
        QCOMPARE((*stored)->snapshot.result, cs::ChargeSnapshot::Result::Error);
        const ApiReply view = chargeView(charge, QStringLiteral("ana"));
        QCOMPARE(view.json.value(QStringLiteral("snapshot")).toObject().value(QStringLiteral("result")).toString(), QStringLiteral("FOUND"));
        QCOMPARE(view.json.value(QStringLiteral("budget")).toObject().value(QStringLiteral("known")).toBool(), true);
        m_harness.sim("DELETE", QStringLiteral("/_sim/faults"));
    }

    // Proposing again under the same client_reference with the same payload answers the existing
    // action (200) and asks the provider nothing, whatever the provider would say.
    void resubmissionReadsNothing()
    {
        const QString charge = m_harness.seedCharge(6000);
        const QString reference = nextReference(QStringLiteral("again"));
        const ApiReply first = propose(QStringLiteral("agent-7"), reference, 2000, charge);
        QCOMPARE(first.status, 201);
        const auto before = m_harness.ledger().charges().latest(charge);
        QVERIFY(before.ok() && before->has_value());

        const QString rule = failChargeReads(5);
        const ApiReply again = propose(QStringLiteral("agent-7"), reference, 2000, charge);
        QVERIFY2(again.status == 200, again.body.constData());
        QCOMPARE(again.json.value(QStringLiteral("id")).toString(), first.json.value(QStringLiteral("id")).toString());
        QCOMPARE(faultMatches(rule), 0);
        const auto after = m_harness.ledger().charges().latest(charge);
        QCOMPARE((*after)->seq, (*before)->seq);
        m_harness.sim("DELETE", QStringLiteral("/_sim/faults"));
    }
};

QTEST_GUILESS_MAIN(TestApiCharges)
#include "tst_api_charges.moc"
