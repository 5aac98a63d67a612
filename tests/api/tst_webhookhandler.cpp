#include "server/api/webhookhandler.h"

#include <QTest>

using namespace cs;

Q_DECLARE_METATYPE(cs::WebhookReceiver::Status)

// The answer of POST /webhooks/provider for each thing the receiver can do with a delivery
// (server/api/webhookhandler.cpp; before, countersignd's main). One row per status.
class TestWebhookHandler : public QObject
{
    Q_OBJECT
private slots:
    void answer_data();
    void answer();
};

void TestWebhookHandler::answer_data()
{
    QTest::addColumn<WebhookReceiver::Status>("status");
    QTest::addColumn<int>("receiverHttp");
    QTest::addColumn<int>("http");
    QTest::addColumn<QString>("outcome");
    QTest::addColumn<QString>("problem");
    QTest::addColumn<bool>("namesAction");
    using S = WebhookReceiver::Status;
    QTest::newRow("accepted") << S::Accepted << 200 << 200 << "recorded" << "" << true;
    QTest::newRow("duplicate") << S::Duplicate << 200 << 200 << "duplicate" << "" << false;
    QTest::newRow("ignored") << S::Ignored << 200 << 200 << "ignored" << "" << false;
    QTest::newRow("unmatched") << S::Unmatched << 200 << 200 << "unmatched" << "" << false;
    QTest::newRow("bad signature") << S::BadSignature << 400 << 400 << "" << "invalid_signature" << true;
    QTest::newRow("malformed") << S::Malformed << 400 << 400 << "" << "invalid_parameter" << true;
    QTest::newRow("failed, busy") << S::Failed << 503 << 503 << "" << "unavailable" << true;
    QTest::newRow("failed") << S::Failed << 500 << 500 << "" << "internal" << true;
    QTest::newRow("failed, odd status") << S::Failed << 200 << 500 << "" << "internal" << true;
}

void TestWebhookHandler::answer()
{
    QFETCH(WebhookReceiver::Status, status);
    QFETCH(int, receiverHttp);
    QFETCH(int, http);
    QFETCH(QString, outcome);
    QFETCH(QString, problem);
    QFETCH(bool, namesAction);
    WebhookReceiver::Result result;
    result.status = status;
    result.httpStatus = receiverHttp;
    result.actionId = QStringLiteral("act_1");
    result.message = QStringLiteral("why");
    const WebhookResult out = toWebhookResult(result);
    QCOMPARE(out.httpStatus, http);
    QCOMPARE(out.outcome, outcome);
    QCOMPARE(out.problemCode, problem);
    QCOMPARE(out.actionId, namesAction ? QStringLiteral("act_1") : QString());
    // A failure's detail says what the sender should do, never the ledger's own words (they
    // name the database): those are logged.
    if (status == WebhookReceiver::Status::Failed)
        QCOMPARE(out.detail, http == 503 ? QStringLiteral("the ledger is busy, cannot be reached or cannot write; nothing was recorded: deliver"
                                                        " the event again")
                                         : QStringLiteral("an unexpected ledger failure; nothing was recorded: deliver the event again"));
    else
        QCOMPARE(out.detail, QStringLiteral("why"));
}

QTEST_APPLESS_MAIN(TestWebhookHandler)
#include "tst_webhookhandler.moc"
