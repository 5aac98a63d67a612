// The webhook receiver: Stripe-Signature verification (constant-time compare, replay window),
// duplicate events ignored, refund events stored as lookups and fed to CONFIRMATION_UNKNOWN
// actions — and paysim's own signed deliveries accepted end to end.

#include "server/webhookreceiver.h"
#include "simulator/webhooksignature.h"
#include "tests/execution/executiontestsupport.h"
#include "tests/support/testledger.h"

#include <QJsonDocument>
#include <QSqlQuery>
#include <QTest>

#include <memory>

using namespace cs;
using namespace cs::test;
using namespace std::chrono_literals;

namespace {

const QByteArray Secret = QByteArrayLiteral("whsec_countersign_test");

QByteArray refundEvent(const QString &eventId, const QString &type, const QString &actionId, qint64 amount,
                       const QString &status = QStringLiteral("succeeded"))
{
    QJsonObject metadata;
    if (!actionId.isEmpty())
        metadata.insert(QStringLiteral("countersign_action_id"), actionId);
    const QJsonObject refund{{QStringLiteral("id"), QStringLiteral("re_webhook1")},
                             {QStringLiteral("object"), QStringLiteral("refund")},
                             {QStringLiteral("amount"), amount},
                             {QStringLiteral("currency"), QStringLiteral("usd")},
                             {QStringLiteral("status"), status},
                             {QStringLiteral("metadata"), metadata}};
    const QJsonObject event{{QStringLiteral("id"), eventId},
                            {QStringLiteral("object"), QStringLiteral("event")},
                            {QStringLiteral("type"), type},
                            {QStringLiteral("created"), 1700000000},
                            {QStringLiteral("data"), QJsonObject{{QStringLiteral("object"), refund}}}};
    return QJsonDocument(event).toJson(QJsonDocument::Compact);
}

QByteArray signNow(const QByteArray &body, qint64 offsetSeconds = 0)
{
    return paysim::WebhookSignature::header(Secret, QDateTime::currentSecsSinceEpoch() + offsetSeconds, body);
}

} // namespace

class TestWebhookReceiver : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void verifiesSignatures_data();
    void verifiesSignatures();
    void refundEventSettlesUnknownAction_data();
    void refundEventSettlesUnknownAction();
    void duplicateEventsAreIgnored();
    void eventsForNobodyAreKeptOrIgnored();
    void badSignatureChangesNothing();
    void inFlightAttemptOnlyStoresAndNudgesReconciler();
    void lockedLedgerAsksForRedeliveryAndStoresNothing();
    void paysimDeliveriesAreAccepted();

private:
    ActionRecord unknownAction(const QString &reference, qint64 amount = 4000);

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_location; // the ledger's (a file, or a PostgreSQL database's URI)
    std::unique_ptr<Ledger> m_ledger;
    std::unique_ptr<WebhookReceiver> m_receiver;
    QDateTime m_signedAt; // verifiesSignatures' "now"
};

void TestWebhookReceiver::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    m_ledger = std::make_unique<Ledger>();
    m_location = ledgerLocation(m_dir->filePath(QStringLiteral("ledger.db")));
    QVERIFY(m_ledger->open(m_location).ok());
    m_receiver = std::make_unique<WebhookReceiver>(m_ledger->evidence(), m_ledger->reader(), WebhookReceiver::Options{Secret, 300s});
}

void TestWebhookReceiver::cleanup()
{
    m_receiver.reset();
    m_ledger.reset();
    m_dir.reset();
}

ActionRecord TestWebhookReceiver::unknownAction(const QString &reference, qint64 amount)
{
    const ActionRecord action = approvedRefund(*m_ledger, QStringLiteral("ch_webhook"), amount, reference);
    const auto claim = m_ledger->execution().claim(action.id, QStringLiteral("exec"), 60s);
    ExecutionStore::AttemptResult lost;
    lost.outcome = Attempt::Outcome::Unknown;
    const auto finished = m_ledger->execution().finishAttempt(action.id, claim->attempt.seq, lost, Trigger::OutcomeUnknown,
                                                  QStringLiteral("timeout"), QStringLiteral("exec"));
    return finished.ok() ? finished->record : ActionRecord();
}

void TestWebhookReceiver::verifiesSignatures_data()
{
    QTest::addColumn<QByteArray>("header");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<bool>("valid");

    const QByteArray body = refundEvent(QStringLiteral("evt_1"), QStringLiteral("refund.created"), QStringLiteral("act_x"), 1);
    // The rows are checked against this same "now" (m_signedAt), not the clock when each row runs:
    // init() may take a second or more per row (a fresh PostgreSQL database), which must not
    // push "299 s old" past the tolerance.
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    m_signedAt = QDateTime::fromSecsSinceEpoch(now, Qt::UTC);
    using paysim::WebhookSignature;
    QTest::newRow("valid") << WebhookSignature::header(Secret, now, body) << body << true;
    QTest::newRow("299 s old: inside the tolerance") << WebhookSignature::header(Secret, now - 299, body) << body << true;
    QTest::newRow("301 s old: a replay, refused") << WebhookSignature::header(Secret, now - 301, body) << body << false;
    QTest::newRow("from the future beyond the tolerance") << WebhookSignature::header(Secret, now + 400, body) << body
                                                          << false;
    QTest::newRow("wrong secret") << WebhookSignature::header("whsec_other", now, body) << body << false;
    QTest::newRow("tampered body") << WebhookSignature::header(Secret, now, body) << QByteArray(body).replace("\"amount\":1", "\"amount\":9")
                                   << false;
    QTest::newRow("timestamp changed") << QByteArray(WebhookSignature::header(Secret, now, body)).replace("t=", "t=1") << body
                                       << false;
    QTest::newRow("one of two v1 signatures matches")
        << "t=" + QByteArray::number(now) + ",v1=" + QByteArray(64, 'a') + ",v1=" + WebhookSignature::sign(Secret, now, body)
        << body << true;
    QTest::newRow("v0 only") << "t=" + QByteArray::number(now) + ",v0=" + WebhookSignature::sign(Secret, now, body) << body
                             << false;
    QTest::newRow("no timestamp") << "v1=" + WebhookSignature::sign(Secret, now, body) << body << false;
    QTest::newRow("empty header") << QByteArray() << body << false;
    QTest::newRow("garbage") << QByteArray("t=abc,v1=zz") << body << false;
}

void TestWebhookReceiver::verifiesSignatures()
{
    QFETCH(QByteArray, header);
    QFETCH(QByteArray, body);
    QFETCH(bool, valid);
    QString why;
    QCOMPARE(WebhookReceiver::verify(header, body, Secret, m_signedAt, 300s, &why), valid);
    QCOMPARE(why.isEmpty(), valid);
    // Our signer and paysim's agree byte for byte.
    QCOMPARE(WebhookReceiver::sign(Secret, 1700000000, body), paysim::WebhookSignature::sign(Secret, 1700000000, body));
}

void TestWebhookReceiver::refundEventSettlesUnknownAction_data()
{
    QTest::addColumn<qint64>("amount");
    QTest::addColumn<QString>("status");
    QTest::addColumn<QString>("state");

    QTest::newRow("refund.created succeeded -> COMPLETED") << qint64(4000) << "succeeded" << "COMPLETED";
    QTest::newRow("pending -> COMPLETED") << qint64(4000) << "pending" << "COMPLETED";
    QTest::newRow("failed -> REJECTED") << qint64(4000) << "failed" << "REJECTED";
    QTest::newRow("another amount -> REQUIRES_REVIEW") << qint64(3999) << "succeeded" << "REQUIRES_REVIEW";
    // Issue 33, one evidence rule: a refund that exists with a status proving neither outcome is a
    // human's, from a webhook as from a look-up (it used to be stored only).
    QTest::newRow("requires_action -> REQUIRES_REVIEW") << qint64(4000) << "requires_action" << "REQUIRES_REVIEW";
}

void TestWebhookReceiver::refundEventSettlesUnknownAction()
{
    QFETCH(qint64, amount);
    QFETCH(QString, status);
    QFETCH(QString, state);
    const ActionRecord action = unknownAction(QStringLiteral("hook"));
    QCOMPARE(action.state, ActionState::ConfirmationUnknown);
    const QByteArray body = refundEvent(QStringLiteral("evt_a1"), QStringLiteral("refund.created"), action.id, amount, status);
    const WebhookReceiver::Result result = m_receiver->handle(signNow(body), body);
    QCOMPARE(toString(result.status), QStringLiteral("accepted"));
    QCOMPARE(result.httpStatus, 200);
    QCOMPARE(toWire(m_ledger->reader().action(action.id)->state), state);
    const QList<ProviderLookup> lookups = m_ledger->reader().lookups(action.id).value();
    QCOMPARE(lookups.size(), 1);
    QCOMPARE(lookups.first().method, ProviderLookup::Method::Webhook);
    QCOMPARE(lookups.first().askedBy, QStringLiteral("webhook"));
    QCOMPARE(lookups.first().providerObjectId, QStringLiteral("re_webhook1"));
    QCOMPARE(lookups.first().amount, amount);
    QVERIFY(m_ledger->evidence().webhookEvent(QStringLiteral("evt_a1"))->has_value());
}

void TestWebhookReceiver::duplicateEventsAreIgnored()
{
    const ActionRecord action = unknownAction(QStringLiteral("dup"));
    const QByteArray body = refundEvent(QStringLiteral("evt_dup"), QStringLiteral("refund.created"), action.id, 4000);
    QCOMPARE(toString(m_receiver->handle(signNow(body), body).status), QStringLiteral("accepted"));
    const qint64 version = m_ledger->reader().action(action.id)->stateVersion;
    // Redelivered (Stripe retries, or a replay inside the tolerance): nothing happens again.
    const WebhookReceiver::Result again = m_receiver->handle(signNow(body, -5), body);
    QCOMPARE(toString(again.status), QStringLiteral("duplicate"));
    QCOMPARE(again.httpStatus, 200);
    QCOMPARE(m_ledger->reader().lookups(action.id)->size(), 1);
    QCOMPARE(m_ledger->reader().action(action.id)->stateVersion, version);
}

void TestWebhookReceiver::eventsForNobodyAreKeptOrIgnored()
{
    // Refund events of no action here — one naming no action, one naming an action this ledger
    // does not know — are kept and listed on their charge: "unmatched", as API.md says (issue 34).
    const auto onCharge = [](QByteArray body, const QString &charge) {
        QJsonObject event = QJsonDocument::fromJson(body).object();
        QJsonObject data = event.value(QLatin1String("data")).toObject();
        QJsonObject refund = data.value(QLatin1String("object")).toObject();
        refund.insert(QStringLiteral("charge"), charge);
        data.insert(QStringLiteral("object"), refund);
        event.insert(QStringLiteral("data"), data);
        return QJsonDocument(event).toJson(QJsonDocument::Compact);
    };
    const QByteArray foreign = onCharge(refundEvent(QStringLiteral("evt_foreign"), QStringLiteral("refund.created"), QString(), 100),
                                        QStringLiteral("ch_unmatched"));
    QCOMPARE(toString(m_receiver->handle(signNow(foreign), foreign).status), QStringLiteral("unmatched"));
    const QByteArray unknown = onCharge(refundEvent(QStringLiteral("evt_unknown"), QStringLiteral("refund.created"),
                                                    QStringLiteral("act_aaaaaaaaaaaaaaaaaaaaaaaa"), 100),
                                        QStringLiteral("ch_unmatched"));
    QCOMPARE(toString(m_receiver->handle(signNow(unknown), unknown).status), QStringLiteral("unmatched"));
    const auto listed = m_ledger->evidence().unmatchedRefundEvents(QStringLiteral("ch_unmatched"), 10);
    QVERIFY(listed.ok());
    QStringList listedIds;
    for (const auto &event : *listed)
        listedIds << event.eventId;
    listedIds.sort();
    QCOMPARE(listedIds, (QStringList{QStringLiteral("evt_foreign"), QStringLiteral("evt_unknown")}));
    QJsonObject charge = QJsonDocument::fromJson(foreign).object();
    charge.insert(QStringLiteral("id"), QStringLiteral("evt_charge"));
    charge.insert(QStringLiteral("type"), QStringLiteral("charge.succeeded"));
    const QByteArray chargeBody = QJsonDocument(charge).toJson(QJsonDocument::Compact);
    QCOMPARE(toString(m_receiver->handle(signNow(chargeBody), chargeBody).status), QStringLiteral("ignored"));
    QCOMPARE(toString(m_receiver->handle(signNow(unknown), unknown).status), QStringLiteral("duplicate"));
    QVERIFY(m_ledger->evidence().webhookEvent(QStringLiteral("evt_charge"))->has_value());
    const QByteArray notAnEvent = QByteArrayLiteral("{\"hello\":1}");
    QCOMPARE(toString(m_receiver->handle(signNow(notAnEvent), notAnEvent).status), QStringLiteral("malformed"));
}

void TestWebhookReceiver::badSignatureChangesNothing()
{
    const ActionRecord action = unknownAction(QStringLiteral("forged"));
    const QByteArray body = refundEvent(QStringLiteral("evt_forged"), QStringLiteral("refund.created"), action.id, 4000);
    const QByteArray forged = paysim::WebhookSignature::header("whsec_attacker", QDateTime::currentSecsSinceEpoch(), body);
    const WebhookReceiver::Result result = m_receiver->handle(forged, body);
    QCOMPARE(toString(result.status), QStringLiteral("bad_signature"));
    QCOMPARE(result.httpStatus, 400);
    QCOMPARE(m_ledger->reader().action(action.id)->state, ActionState::ConfirmationUnknown);
    QVERIFY(m_ledger->reader().lookups(action.id)->isEmpty());
    QVERIFY(!m_ledger->evidence().webhookEvent(QStringLiteral("evt_forged"))->has_value()); // a real delivery is still accepted later
    const QByteArray old = paysim::WebhookSignature::header(Secret, QDateTime::currentSecsSinceEpoch() - 3600, body);
    QCOMPARE(toString(m_receiver->handle(old, body).status), QStringLiteral("bad_signature"));
    QCOMPARE(toString(m_receiver->handle(signNow(body), body).status), QStringLiteral("accepted"));
}

void TestWebhookReceiver::inFlightAttemptOnlyStoresAndNudgesReconciler()
{
    const ActionRecord action = unknownAction(QStringLiteral("in-flight"));
    // The reconciler holds the lease and its same-key retry is in flight.
    QVERIFY(m_ledger->evidence().scheduleReconciliation(action.id, 3, m_ledger->currentTime().addSecs(600), QStringLiteral("later")).ok());
    QVERIFY(m_ledger->execution().acquireLease(action.id, QStringLiteral("reconciler-1"), 60s).ok());
    QVERIFY(m_ledger->execution().beginRetryAttempt(action.id, QStringLiteral("reconciler-1")).ok());

    const QByteArray body = refundEvent(QStringLiteral("evt_inflight"), QStringLiteral("refund.created"), action.id, 4000);
    const WebhookReceiver::Result result = m_receiver->handle(signNow(body), body);
    QCOMPARE(toString(result.status), QStringLiteral("accepted"));
    QCOMPARE(m_ledger->reader().action(action.id)->state, ActionState::ConfirmationUnknown); // the retry decides first
    QCOMPARE(m_ledger->reader().lookups(action.id)->size(), 1);
    const auto schedule = m_ledger->evidence().reconcileSchedule(action.id);
    QCOMPARE(schedule->tries, 3);
    QVERIFY(schedule->nextCheckAt <= m_ledger->currentTime()); // look again now
}

// The ledger is locked past its bounded retries (another writer holds it): the delivery is
// answered 503, so the provider delivers it again, and nothing of it is stored; the redelivery
// is taken once the lock is gone.
void TestWebhookReceiver::lockedLedgerAsksForRedeliveryAndStoresNothing()
{
    const ActionRecord action = unknownAction(QStringLiteral("locked"));
    Ledger impatient;
    Ledger::Options options;
    options.busyTimeoutMs = 50;
    options.busyRetries = 2;
    options.recoverExpiredLeasesOnOpen = false;
    QVERIFY(impatient.open(m_location, options).ok());
    WebhookReceiver receiver(impatient.evidence(), impatient.reader(), WebhookReceiver::Options{Secret, 300s});
    const QByteArray body = refundEvent(QStringLiteral("evt_locked"), QStringLiteral("refund.created"), action.id, 4000);
    const QString name = QStringLiteral("webhook-locker");
    {
        QString error;
        QSqlDatabase raw = openRawDatabase(m_location, name, &error);
        QVERIFY2(raw.isValid() && raw.isOpen(), qPrintable(error));
        QSqlQuery lock(raw);
        if (onPostgres()) {
            QVERIFY(lock.exec(QStringLiteral("BEGIN")));
            QVERIFY(lock.exec(QStringLiteral("LOCK TABLE webhook_events IN ACCESS EXCLUSIVE MODE")));
        } else {
            QVERIFY(lock.exec(QStringLiteral("BEGIN IMMEDIATE")));
        }
        const WebhookReceiver::Result locked = receiver.handle(signNow(body), body);
        QCOMPARE(toString(locked.status), QStringLiteral("failed"));
        QCOMPARE(locked.httpStatus, 503);
        QVERIFY(lock.exec(QStringLiteral("ROLLBACK")));
    }
    QSqlDatabase::removeDatabase(name);
    QVERIFY(!m_ledger->evidence().webhookEvent(QStringLiteral("evt_locked"))->has_value());
    QVERIFY(m_ledger->reader().lookups(action.id)->isEmpty());
    QCOMPARE(m_ledger->reader().action(action.id)->state, ActionState::ConfirmationUnknown);

    const WebhookReceiver::Result again = receiver.handle(signNow(body), body);
    QCOMPARE(toString(again.status), QStringLiteral("accepted"));
    QCOMPARE(again.httpStatus, 200);
    QCOMPARE(m_ledger->reader().action(action.id)->state, ActionState::Completed);
}

// paysim signs and delivers its own events; the receiver, behind a minimal HTTP route, turns the
// refund.created of a lost answer into COMPLETED.
void TestWebhookReceiver::paysimDeliveriesAreAccepted()
{
    WebhookEndpoint endpoint(*m_receiver);
    QVERIFY(endpoint.listen());
    paysim::PaysimConfig config;
    config.webhookUrl = endpoint.url();
    config.webhookSecret = Secret;
    Paysim sim(config);
    QVERIFY(sim.start());
    const QString charge = sim.seedCharge(10000);
    QTRY_VERIFY_WITH_TIMEOUT(!endpoint.results.isEmpty(), 5000); // charge.succeeded, ignored
    QCOMPARE(toString(endpoint.results.first().status), QStringLiteral("ignored"));

    const ActionRecord action = approvedRefund(*m_ledger, charge, 4000, QStringLiteral("delivered"));
    const auto claim = m_ledger->execution().claim(action.id, QStringLiteral("exec"), 60s);
    QVERIFY(claim.ok());
    QVERIFY(sim.addFault(QJsonObject{{QStringLiteral("method"), QStringLiteral("POST")},
                                     {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                     {QStringLiteral("fault"), QStringLiteral("drop_response_after_commit")}}));
    // Deliveries wait until the attempt is recorded: one arriving while the attempt is open is only
    // stored (inFlightAttemptOnlyStoresAndNudgesReconciler covers that case).
    endpoint.hold();
    StripeClient client(providerConfig(sim.url(), 400));
    const RefundOutcome lost = client.createRefund(claim->record.providerRequest(), claim->attempt.idempotencyKey);
    QCOMPARE(lost.outcome, Attempt::Outcome::Unknown);
    ExecutionStore::AttemptResult result;
    result.outcome = Attempt::Outcome::Unknown;
    QVERIFY(m_ledger->execution().finishAttempt(action.id, claim->attempt.seq, result, Trigger::OutcomeUnknown,
                                    QStringLiteral("dropped"), QStringLiteral("exec")).ok());
    QTRY_VERIFY_WITH_TIMEOUT(endpoint.held() >= 1, 5000); // refund.created (and charge.refunded)
    endpoint.release();

    QTRY_COMPARE_WITH_TIMEOUT(toWire(m_ledger->reader().action(action.id)->state), QStringLiteral("COMPLETED"), 5000);
    const QList<ProviderLookup> lookups = m_ledger->reader().lookups(action.id).value();
    QVERIFY(!lookups.isEmpty());
    QCOMPARE(lookups.first().method, ProviderLookup::Method::Webhook);
    QCOMPARE(lookups.first().providerObjectId,
             sim.refundsFor(action.id).first().toObject().value(QStringLiteral("id")).toString());
    QCOMPARE(sim.refundsFor(action.id).size(), 1);
}

QTEST_GUILESS_MAIN(TestWebhookReceiver)
#include "tst_webhookreceiver.moc"
