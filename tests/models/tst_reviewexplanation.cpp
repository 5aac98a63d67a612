// The provider's answers and the server's stops in words for people (models/reviewexplanation.h):
// one row per reason an action waits for review, built from the record (attempts, look-ups,
// conflicts, approvals, the charge), never the server's raw text; that text and the provider's
// answer go to the details. And what one look-up found, for the look-up dialog.
#include "models/actiondetail.h"
#include "models/displayformat.h"
#include "models/lookupsummary.h"
#include "models/lookuptablemodel.h"
#include "models/reviewexplanation.h"
#include "tests/models/reviewtestdata.h"

#include <QTest>

using namespace cs;

namespace {

const QDateTime T0 = QDateTime(QDate(2026, 11, 29), QTime(13, 17, 0), Qt::UTC);
const QString Json503 = QStringLiteral("{ \"error\": { \"message\": \"The service is temporarily unavailable\", \"type\": \"api_error\" } }");

ProviderLookup lookup(int seq, int secondsAfterT0, ProviderLookup::Result result, int http = 200)
{
    ProviderLookup l;
    l.actionId = QStringLiteral("act_1");
    l.seq = seq;
    l.at = T0.addSecs(secondsAfterT0);
    l.askedBy = QStringLiteral("reconciler");
    l.result = result;
    l.httpStatus = http;
    if (result == ProviderLookup::Result::Found) {
        l.providerObjectId = QStringLiteral("re_%1").arg(seq);
        l.status = QStringLiteral("succeeded");
        l.amount = 4000;
        l.currency = QStringLiteral("usd");
    }
    if (result == ProviderLookup::Result::Error && http >= 500)
        l.excerpt = Json503;
    return l;
}

// An action the reconciler stopped for review at T0 + 10 min after one attempt of unknown outcome.
ActionDetail inReview(const QString &reason)
{
    ActionDetail d = test::stoppedForReview(QStringLiteral("act_1"), T0, T0.addSecs(600), reason);
    d.record.requestFingerprint = QString(64, QLatin1Char('a'));
    return d;
}

QList<ProviderLookup> failures(int count, int http)
{
    QList<ProviderLookup> out;
    for (int i = 0; i < count; ++i)
        out << lookup(i + 1, 82 + i * 7, ProviderLookup::Result::Error, http);
    return out;
}

} // namespace

class TstReviewExplanation : public QObject
{
    Q_OBJECT

private slots:
    void forAction_data();
    void forAction();
    void forLookup_data();
    void forLookup();
};

void TstReviewExplanation::forAction_data()
{
    QTest::addColumn<ActionDetail>("detail");
    QTest::addColumn<QString>("sentence");

    const QString from = display::time(T0.addSecs(82));
    const QString to12 = display::timeAfter(T0.addSecs(82 + 11 * 7), T0.addSecs(82));
    const QString to3 = display::timeAfter(T0.addSecs(82 + 2 * 7), T0.addSecs(82));
    const QString gaveUp = QStringLiteral("gave up after 12 reconciliation rounds: the provider lookups failed (ERROR HTTP 503 %1")
                               .arg(Json503.left(40));

    ActionDetail d = inReview(gaveUp);
    d.lookups = failures(12, 503);
    QTest::newRow("12 look-ups met HTTP 503: unavailable, the count and the span")
        << d << QStringLiteral("paysim was unavailable (HTTP 503) \u2014 12 look-ups failed between %1 and %2.").arg(from, to12);
    d.lookups << lookup(13, 1200, ProviderLookup::Result::Found);
    QTest::newRow("a FOUND look-up since the stop is said after why it stopped")
        << d << QStringLiteral("paysim was unavailable (HTTP 503) \u2014 12 look-ups failed between %1 and %2. "
                               "Since then, look-up #13 found a refund of 40.00 USD (succeeded).").arg(from, to12);
    d = inReview(gaveUp);
    d.lookups = failures(1, 503);
    QTest::newRow("one failure: a look-up failed at")
        << d << QStringLiteral("paysim was unavailable (HTTP 503) \u2014 a look-up failed at %1.").arg(from);
    d.record.provider.clear();
    QTest::newRow("no provider name: the provider")
        << d << QStringLiteral("The provider was unavailable (HTTP 503) \u2014 a look-up failed at %1.").arg(from);
    d = inReview(gaveUp);
    d.lookups = failures(3, 0);
    QTest::newRow("no HTTP answer") << d
        << QStringLiteral("paysim did not answer \u2014 3 look-ups failed between %1 and %2.").arg(from, to3);
    d.lookups = failures(3, 404);
    QTest::newRow("an HTTP error that is not an outage") << d
        << QStringLiteral("paysim answered with an error (HTTP 404) \u2014 3 look-ups failed between %1 and %2.").arg(from, to3);
    d.lookups = failures(3, 503);
    d.lookups.insert(0, lookup(20, 30, ProviderLookup::Result::NotFound));
    QTest::newRow("the newest look-up failed: the failures, not the older NOT_FOUND") << d
        << QStringLiteral("paysim was unavailable (HTTP 503) \u2014 3 look-ups failed between %1 and %2.").arg(from, to3);

    d = inReview(QStringLiteral("provider answered idempotency_error: the key csk_1 was used for a different request."));
    d.attempts.first().outcome = Attempt::Outcome::IdempotencyMismatch;
    d.attempts.first().httpStatus = 400;
    QTest::newRow("idempotency_error") << d
        << QStringLiteral("paysim refused the refund: its key had already been used for a different request, so nothing "
                          "more is sent with it.");
    d = inReview(QStringLiteral("the provider refused our credentials (HTTP 401 {\"error\": …}): this request was not executed"));
    d.attempts.first().outcome = Attempt::Outcome::Rejected;
    d.attempts.first().httpStatus = 401;
    QTest::newRow("credentials refused") << d
        << QStringLiteral("paysim refused Countersign's credentials (HTTP 401): the refund was not made. Fix the "
                          "credentials, then decide.");

    d = inReview(QStringLiteral("the provider holds 2 refunds for this action (re_1, re_2): contradictory evidence"));
    d.lookups = { lookup(1, 100, ProviderLookup::Result::Found), lookup(2, 100, ProviderLookup::Result::Found) };
    QTest::newRow("two refunds for one action") << d
        << QStringLiteral("paysim holds 2 refunds for this action, where there should be one.");
    d.lookups = { lookup(1, 100, ProviderLookup::Result::Found) };
    d.lookups.first().amount = 3000;
    QTest::newRow("a refund of another amount") << d
        << QStringLiteral("paysim holds a refund for this action that does not match it: its amount, currency or "
                          "charge differs.");
    d.lookups.first().amount = 4000;
    d.lookups.first().status = QStringLiteral("requires_action");
    QTest::newRow("a refund whose status proves neither outcome") << d
        << QStringLiteral("paysim holds a refund for this action with status requires_action, which shows neither outcome.");

    d = inReview(QStringLiteral("resubmission #1 by agent-7 under client_reference \"r\" changed the payload"));
    PayloadConflict conflict;
    conflict.seq = 1;
    conflict.submittedBy = QStringLiteral("agent-7");
    conflict.at = T0.addSecs(300);
    d.conflicts = { conflict };
    QTest::newRow("a changed resubmission (payload mismatch)") << d
        << QStringLiteral("agent-7 resubmitted this refund with different details; the refund as first proposed is "
                          "unchanged.");
    d.conflicts.first().at = T0.addSecs(900);
    d.lookups = { lookup(1, 100, ProviderLookup::Result::NotFound) };
    QTest::newRow("a resubmission after the stop did not stop it") << d
        << QStringLiteral("paysim shows no refund for this action, and retries with the same key stayed inconclusive.");

    d = inReview(QStringLiteral("the provider answered charge_already_refunded but after 5 lookups no refund carries "
                                "this action's id"));
    d.attempts.first().errorCode = QStringLiteral("charge_already_refunded");
    d.lookups = { lookup(1, 100, ProviderLookup::Result::NotFound) };
    QTest::newRow("charge_already_refunded without this action's refund") << d
        << QStringLiteral("paysim said the charge was already refunded, but none of its refunds carries this action's "
                          "id: it may have been refunded outside Countersign.");

    d = inReview(QStringLiteral("the key window passed on our clock (…), and the provider shows no refund for this action"));
    d.lookups = { lookup(1, 100, ProviderLookup::Result::NotFound) };
    d.keyWindowEndsAt = T0.addSecs(60);
    QTest::newRow("key window expired, no refund shown") << d
        << QStringLiteral("paysim shows no refund for this action, and the time for a safe retry ended at %1: sending "
                          "again could refund twice.").arg(display::time(T0.addSecs(60)));

    d = inReview(QStringLiteral("over the charge's refundable amount: captured 99.00 USD …; nothing was sent"));
    d.attempts.clear();
    d.charge = ChargeView();
    d.charge->fits = false;
    QTest::newRow("over the charge's budget, nothing sent") << d
        << QStringLiteral("40.00 USD is more than is left to refund on this charge, so nothing was sent.");
    d.charge.reset();
    Approval approval;
    approval.version = 1;
    approval.decision = Approval::Decision::Approved;
    approval.approvedFingerprint = QString(64, QLatin1Char('b'));
    d.approvals = { approval };
    QTest::newRow("changed since it was approved (fingerprint drift), nothing sent") << d
        << QStringLiteral("The refund on record no longer matches what was approved, so nothing was sent.");
    d.approvals.first().approvedFingerprint = d.record.requestFingerprint;
    QTest::newRow("stopped before sending, for another reason") << d
        << QStringLiteral("Countersign stopped this refund before sending it; nothing was sent.");

    d = inReview(QStringLiteral("stopped for review"));
    QTest::newRow("nothing on record says why") << d
        << QStringLiteral("Countersign stopped this refund for a person to decide.");
}

void TstReviewExplanation::forAction()
{
    QFETCH(ActionDetail, detail);
    QFETCH(QString, sentence);
    const Explanation e = ReviewExplanation::forAction(detail);
    QCOMPARE(e.sentence, sentence);
    QVERIFY2(!e.sentence.contains(QLatin1Char('{')), qPrintable(e.sentence));
    // The raw text is kept, for Details: the server's reason and the provider's newest answer.
    QVERIFY2(e.details.contains(detail.record.reviewReason.trimmed()), qPrintable(e.details));
    for (const ProviderLookup &l : detail.lookups) {
        if (l.excerpt == Json503) {
            QVERIFY2(e.details.contains(Json503), qPrintable(e.details));
            break;
        }
    }
}

void TstReviewExplanation::forLookup_data()
{
    QTest::addColumn<ProviderLookup>("lookup");
    QTest::addColumn<QString>("provider");
    QTest::addColumn<QString>("sentence");

    ProviderLookup found = lookup(3, 0, ProviderLookup::Result::Found);
    QTest::newRow("found") << found << QStringLiteral("paysim")
                           << QStringLiteral("Found: paysim holds a refund of 40.00 USD, succeeded.");
    found.status.clear();
    QTest::newRow("found, no status") << found << QStringLiteral("paysim")
                                      << QStringLiteral("Found: paysim holds a refund of 40.00 USD.");
    QTest::newRow("not found") << lookup(3, 0, ProviderLookup::Result::NotFound) << QStringLiteral("paysim")
                               << QStringLiteral("Not found: paysim holds no refund for this action.");
    QTest::newRow("HTTP 503") << lookup(3, 0, ProviderLookup::Result::Error, 503) << QStringLiteral("paysim")
                              << QStringLiteral("paysim did not answer (HTTP 503).");
    QTest::newRow("no HTTP answer") << lookup(3, 0, ProviderLookup::Result::Error, 0) << QStringLiteral("paysim")
                                    << QStringLiteral("paysim did not answer.");
    QTest::newRow("HTTP 404") << lookup(3, 0, ProviderLookup::Result::Error, 404) << QStringLiteral("paysim")
                              << QStringLiteral("paysim answered with an error (HTTP 404).");
    QTest::newRow("no provider name") << lookup(3, 0, ProviderLookup::Result::NotFound) << QString()
                                      << QStringLiteral("Not found: The provider holds no refund for this action.");
}

void TstReviewExplanation::forLookup()
{
    QFETCH(ProviderLookup, lookup);
    QFETCH(QString, provider);
    QFETCH(QString, sentence);
    const Explanation e = ReviewExplanation::forLookup(lookup, provider);
    QCOMPARE(e.sentence, sentence);
    QVERIFY(!e.sentence.contains(QLatin1Char('{')));
    QVERIFY2(e.details.startsWith(LookupTableModel::describe(lookup)), qPrintable(e.details));
    QVERIFY2(e.details.contains(lookup.excerpt), qPrintable(e.details));
}

QTEST_GUILESS_MAIN(TstReviewExplanation)
#include "tst_reviewexplanation.moc"
