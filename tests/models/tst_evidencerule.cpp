// The one evidence rule (models/evidencerule.h, issue 33): what a look-up, a webhook event, an
// attempt's answer or a replayed answer proves about an action. One row per evidence case; the
// rows where the three old copies disagreed (an amount or currency mismatch) say "contradictory"
// for every source.
#include "models/evidencerule.h"

#include <QTest>

using namespace cs;

Q_DECLARE_METATYPE(cs::EvidenceVerdict)

namespace {

ActionRecord action()
{
    ActionRecord a;
    a.id = QStringLiteral("act_aaaaaaaaaaaaaaaaaaaaaaaa");
    a.targetType = TargetType::Charge;
    a.targetId = QStringLiteral("ch_1");
    a.amount = 4000;
    a.currency = QStringLiteral("usd");
    return a;
}

// "re_1 succeeded 4000 usd ch_1 [pi_…]": id, status, amount, then currency, charge, payment
// intent when given ("-" leaves a field empty).
RefundSighting seen(const QString &spec, const QString &source)
{
    const QStringList f = spec.split(QLatin1Char(' '));
    const auto field = [&f](int i) { return f.value(i) == u"-" ? QString() : f.value(i); };
    RefundSighting s;
    s.refundId = field(0);
    s.status = field(1);
    s.amount = f.value(2).toLongLong();
    s.currency = field(3);
    s.chargeId = field(4);
    s.paymentIntentId = field(5);
    s.source = source;
    return s;
}

} // namespace

class TstEvidenceRule : public QObject
{
    Q_OBJECT
private slots:
    void verdict_data();
    void verdict();
    void paymentIntentTarget();
    void sightingsOfKeepsFoundOnly();
    void refundNamedByAttemptsIsTheLastNamed();
    void aLookupCarriesOnlyWhatItShows();
};

void TstEvidenceRule::verdict_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<QStringList>("sightings");
    QTest::addColumn<QString>("known");
    QTest::addColumn<EvidenceVerdict>("expected");
    QTest::addColumn<bool>("duplicate");

    using V = EvidenceVerdict;
    // Each evidence case, from every source that can carry it.
    const QStringList sources = {QStringLiteral("lookup"), QStringLiteral("webhook"), QStringLiteral("attempt"),
                                 QStringLiteral("replay")};
    for (const QString &src : sources) {
        const auto row = [&src](const char *what) -> QTestData & { return QTest::newRow(qPrintable(src + QStringLiteral(": ") + QLatin1String(what))); };
        row("nothing shown proves nothing") << src << QStringList() << QString() << V::Inconclusive << false;
        row("succeeded, the action's money") << src << QStringList{QStringLiteral("re_1 succeeded 4000 usd ch_1")} << QString() << V::Committed << false;
        row("pending is committed (followed until it settles)") << src << QStringList{QStringLiteral("re_1 pending 4000 usd ch_1")} << QString() << V::Committed << false;
        row("failed: no money moved") << src << QStringList{QStringLiteral("re_1 failed 4000 usd ch_1")} << QString() << V::NotCommitted << false;
        row("canceled: no money moved") << src << QStringList{QStringLiteral("re_1 canceled 4000 usd ch_1")} << QString() << V::NotCommitted << false;
        row("requires_action exists, proves neither") << src << QStringList{QStringLiteral("re_1 requires_action 4000 usd ch_1")} << QString() << V::Unsettled << false;
        row("an unknown status exists, proves neither") << src << QStringList{QStringLiteral("re_1 reversed 4000 usd ch_1")} << QString() << V::Unsettled << false;
        row("another amount is contradictory") << src << QStringList{QStringLiteral("re_1 succeeded 4500 usd ch_1")} << QString() << V::Contradictory << false;
        row("another currency is contradictory") << src << QStringList{QStringLiteral("re_1 succeeded 4000 eur ch_1")} << QString() << V::Contradictory << false;
        row("another charge is contradictory") << src << QStringList{QStringLiteral("re_1 succeeded 4000 usd ch_2")} << QString() << V::Contradictory << false;
        row("another amount, even failed, is contradictory") << src << QStringList{QStringLiteral("re_1 failed 100 usd ch_1")} << QString() << V::Contradictory << false;
        row("currency and charge not said: not compared") << src << QStringList{QStringLiteral("re_1 succeeded 4000 - -")} << QString() << V::Committed << false;
        row("the refund already on record") << src << QStringList{QStringLiteral("re_1 succeeded 4000 usd ch_1")} << QStringLiteral("re_1") << V::Committed << false;
        row("another refund than the one on record: two refunds") << src << QStringList{QStringLiteral("re_2 succeeded 4000 usd ch_1")} << QStringLiteral("re_1") << V::Contradictory << true;
    }
    // Several reports together: what the ledger holds for an action.
    QTest::newRow("two refunds carry the action's id") << QStringLiteral("lookup")
        << QStringList{QStringLiteral("re_1 succeeded 4000 usd ch_1"), QStringLiteral("re_2 succeeded 4000 usd ch_1")}
        << QString() << V::Contradictory << true;
    QTest::newRow("two refunds, one failed: still two") << QStringLiteral("webhook")
        << QStringList{QStringLiteral("re_1 failed 4000 usd ch_1"), QStringLiteral("re_2 succeeded 4000 usd ch_1")}
        << QString() << V::Contradictory << true;
    QTest::newRow("one refund reported twice is one") << QStringLiteral("webhook")
        << QStringList{QStringLiteral("re_1 pending 4000 usd ch_1"), QStringLiteral("re_1 succeeded 4000 usd ch_1")}
        << QString() << V::Committed << false;
    QTest::newRow("a later failure of the one refund wins") << QStringLiteral("webhook")
        << QStringList{QStringLiteral("re_1 succeeded 4000 usd ch_1"), QStringLiteral("re_1 failed 4000 usd ch_1")}
        << QString() << V::NotCommitted << false;
    QTest::newRow("reordered reports: the failure still wins") << QStringLiteral("webhook")
        << QStringList{QStringLiteral("re_1 failed 4000 usd ch_1"), QStringLiteral("re_1 pending 4000 usd ch_1")}
        << QString() << V::NotCommitted << false;
    QTest::newRow("one report of another amount spoils the rest") << QStringLiteral("lookup")
        << QStringList{QStringLiteral("re_1 succeeded 4500 usd ch_1"), QStringLiteral("re_1 succeeded 4000 usd ch_1")}
        << QString() << V::Contradictory << false;
}

void TstEvidenceRule::verdict()
{
    QFETCH(QString, source);
    QFETCH(QStringList, sightings);
    QFETCH(QString, known);
    QFETCH(EvidenceVerdict, expected);
    QFETCH(bool, duplicate);

    QList<RefundSighting> list;
    for (const QString &spec : std::as_const(sightings))
        list << seen(spec, source);
    const EvidenceFinding f = judgeEvidence(action(), list, known);
    QCOMPARE(toWire(f.verdict), toWire(expected));
    QCOMPARE(f.duplicate, duplicate);
    QCOMPARE(f.refundShown(), expected != EvidenceVerdict::Inconclusive);
    QVERIFY2(!f.reason.isEmpty(), "every verdict says why");
    if (duplicate) {
        QVERIFY2(f.refundIds.size() >= 2, qPrintable(f.refundIds.join(u',')));
        QVERIFY2(f.reason.contains(QLatin1String("refunds for this action")), qPrintable(f.reason));
    }
    if (expected == EvidenceVerdict::Committed || expected == EvidenceVerdict::NotCommitted)
        QCOMPARE(f.refundId, QStringLiteral("re_1"));
}

void TstEvidenceRule::paymentIntentTarget()
{
    ActionRecord a = action();
    a.targetType = TargetType::PaymentIntent;
    a.targetId = QStringLiteral("pi_1");
    // The refund's charge is the intent's latest charge: not compared for a payment-intent target.
    QCOMPARE(judgeEvidence(a, {seen(QStringLiteral("re_1 succeeded 4000 usd ch_9 pi_1"), {})}).verdict,
             EvidenceVerdict::Committed);
    QCOMPARE(judgeEvidence(a, {seen(QStringLiteral("re_1 succeeded 4000 usd ch_9 pi_2"), {})}).verdict,
             EvidenceVerdict::Contradictory);
}

void TstEvidenceRule::sightingsOfKeepsFoundOnly()
{
    ProviderLookup found;
    found.seq = 3;
    found.method = ProviderLookup::Method::Webhook;
    found.result = ProviderLookup::Result::Found;
    found.providerObjectId = QStringLiteral("re_1");
    found.status = QStringLiteral("succeeded");
    found.amount = 4000;
    found.currency = QStringLiteral("usd");
    found.excerpt = QStringLiteral("event evt_123 refund.created: re_1 succeeded (4000 usd)");
    ProviderLookup failed;
    failed.seq = 4;
    failed.result = ProviderLookup::Result::Error;
    ProviderLookup missing;
    missing.seq = 5;
    missing.result = ProviderLookup::Result::NotFound;
    const QList<RefundSighting> s = sightingsOf({found, failed, missing});
    QCOMPARE(s.size(), 1);
    QCOMPARE(s.first().refundId, QStringLiteral("re_1"));
    QCOMPARE(s.first().source, QStringLiteral("lookup #3, webhook evt_123"));
}

void TstEvidenceRule::refundNamedByAttemptsIsTheLastNamed()
{
    Attempt a1;
    a1.providerObjectId = QStringLiteral("re_1");
    Attempt a2; // answered without naming one (a timeout)
    QCOMPARE(refundNamedByAttempts({}), QString());
    QCOMPARE(refundNamedByAttempts({a1, a2}), QStringLiteral("re_1"));
    Attempt a3;
    a3.providerObjectId = QStringLiteral("re_3");
    QCOMPARE(refundNamedByAttempts({a1, a2, a3}), QStringLiteral("re_3"));
}

// A verdict that rests on an older report (a webhook said succeeded; this look-up says
// requires_action) cannot be carried by this look-up: the ledger would refuse it.
void TstEvidenceRule::aLookupCarriesOnlyWhatItShows()
{
    ProviderLookup now;
    now.result = ProviderLookup::Result::Found;
    now.providerObjectId = QStringLiteral("re_1");
    now.amount = 4000;
    now.status = QStringLiteral("requires_action");
    const EvidenceFinding committed = judgeEvidence(
        action(), {seen(QStringLiteral("re_1 succeeded 4000 usd ch_1"), {}), sightingOf(now)});
    QCOMPARE(committed.verdict, EvidenceVerdict::Committed);
    QVERIFY(!carriesVerdict(now, committed));
    now.status = QStringLiteral("pending");
    QVERIFY(carriesVerdict(now, committed));
    now.status = QStringLiteral("failed");
    const EvidenceFinding failed = judgeEvidence(action(), {sightingOf(now)});
    QVERIFY(carriesVerdict(now, failed));
    QVERIFY(!carriesVerdict(now, committed));
    const EvidenceFinding review = judgeEvidence(action(), {seen(QStringLiteral("re_1 succeeded 4500 usd ch_1"), {})});
    QVERIFY(carriesVerdict(now, review)); // a review needs nothing of the look-up
}

QTEST_APPLESS_MAIN(TstEvidenceRule)
#include "tst_evidencerule.moc"
