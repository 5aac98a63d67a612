// The timeline's labels where events crowd (issue 18, docs/screenshot-demo-scenario10.png): several
// lookups at one instant beside a broken gap, attempts and lookups within a second, a squeezed
// widget. Every label painted — marks, markers, ticks and the gaps' "≈ 23 h" — stays inside the
// widget and overlaps no other; lookups that say the same thing at once are summarised
// ("#2–#4 FOUND · failed (3 webhook events)"), their full text kept in the tooltip.
#include "models/actiondetail.h"
#include "ui/consoletranslations.h"
#include "ui/timelinewidget.h"

#include <QJsonObject>
#include <QTest>

using namespace cs;

namespace {

const QDateTime T0(QDate(2026, 12, 4), QTime(22, 43, 33), Qt::UTC);

AuditEvent stateChange(int seq, qint64 ms, const char *event, const char *before, const char *after, const QDateTime &t0 = T0)
{
    AuditEvent e;
    e.seq = seq;
    e.at = t0.addMSecs(ms);
    e.event = QString::fromLatin1(event);
    e.actor = QStringLiteral("exec-1");
    if (*before)
        e.before = QJsonObject{ { QStringLiteral("state"), QString::fromLatin1(before) } };
    e.after = QJsonObject{ { QStringLiteral("state"), QString::fromLatin1(after) } };
    return e;
}

ProviderLookup lookup(int seq, qint64 ms, ProviderLookup::Result result, const char *status,
                      ProviderLookup::Method method = ProviderLookup::Method::Webhook, const QDateTime &t0 = T0)
{
    ProviderLookup l;
    l.seq = seq;
    l.at = t0.addMSecs(ms);
    l.result = result;
    l.status = QString::fromLatin1(status);
    l.method = method;
    l.providerObjectId = QStringLiteral("re_cIxtVkRScqF64P3eTKBX98o");
    return l;
}

// Demo scenario 10 at its verdict: a refund completed pending, then three webhook events within a
// few milliseconds say it failed; re-proposed as a follow-up; the key window ends a day later.
ActionDetail refundThatFailed(const QList<ProviderLookup> &failedLookups)
{
    ActionDetail d;
    d.record.id = QStringLiteral("act_ino3rkbx6azvnoprhiagcptn");
    d.record.state = ActionState::Completed;
    d.record.currency = QStringLiteral("usd");
    d.record.createdAt = T0;
    d.audit = { stateChange(1, 0, "proposed", "", "PENDING"), stateChange(2, 1200, "state_changed", "PENDING", "EXECUTING"),
                stateChange(3, 1700, "state_changed", "EXECUTING", "COMPLETED") };
    Approval a;
    a.version = 1;
    a.decision = Approval::Decision::Approved;
    a.decidedBy = QStringLiteral("ben");
    a.decidedAt = T0.addMSecs(1000);
    d.approvals << a;
    Attempt attempt;
    attempt.seq = 1;
    attempt.startedAt = T0.addMSecs(1250);
    attempt.finishedAt = T0.addMSecs(1650);
    attempt.outcome = Attempt::Outcome::Succeeded;
    attempt.httpStatus = 200;
    d.attempts << attempt;
    d.lookups << lookup(1, 1700, ProviderLookup::Result::Found, "pending") << failedLookups;
    Settlement s;
    s.refundId = QStringLiteral("re_cIxtVkRScqF64P3eTKBX98o");
    s.status = QStringLiteral("failed");
    s.failureReason = QStringLiteral("lost_or_stolen_card");
    s.settledAt = failedLookups.isEmpty() ? T0.addSecs(2) : failedLookups.first().at;
    s.attention = Settlement::Attention::FollowedUp;
    s.resolvedBy = QStringLiteral("sue");
    s.resolvedAt = T0.addSecs(6);
    s.followUpId = QStringLiteral("act_achammrymrtzvw6fbvef7ir3");
    SettlementChange first;
    first.seq = 1;
    first.at = T0.addMSecs(1700);
    first.toStatus = QStringLiteral("pending");
    first.source = QStringLiteral("attempt");
    SettlementChange failed;
    failed.seq = 2;
    failed.at = s.settledAt;
    failed.fromStatus = QStringLiteral("pending");
    failed.toStatus = QStringLiteral("failed");
    failed.failureReason = s.failureReason;
    failed.source = QStringLiteral("webhook");
    s.history = { first, failed };
    d.settlement = s;
    d.keyWindowEndsAt = T0.addSecs(23 * 3600);
    return d;
}

// As in docs/screenshot-review.png: three attempts and three lookups within a second, several
// state changes at once, the key window a day away; "now" ten seconds after the proposal.
ActionDetail crowdedRetries()
{
    const QDateTime t0 = QDateTime::currentDateTimeUtc().addSecs(-10);
    ActionDetail d;
    d.record.id = QStringLiteral("act_y");
    d.record.state = ActionState::RequiresReview;
    d.record.createdAt = t0;
    for (int i = 1; i <= 3; ++i) {
        Attempt a;
        a.seq = i;
        a.startedAt = t0.addMSecs(100 + 500 * i);
        a.finishedAt = a.startedAt.addMSecs(5);
        a.outcome = Attempt::Outcome::Unknown;
        a.httpStatus = 503;
        d.attempts << a;
        d.lookups << lookup(i, 100 + 500 * i + 105, ProviderLookup::Result::Error, "", ProviderLookup::Method::RetrieveRefund, t0);
    }
    d.audit = { stateChange(1, 0, "proposed", "", "PENDING", t0), stateChange(2, 100, "state_changed", "PENDING", "EXECUTING", t0),
                stateChange(3, 200, "state_changed", "EXECUTING", "CONFIRMATION_UNKNOWN", t0),
                stateChange(4, 1400, "state_changed", "CONFIRMATION_UNKNOWN", "REQUIRES_REVIEW", t0) };
    d.keyWindowEndsAt = t0.addSecs(23 * 3600);
    return d;
}

} // namespace

class TestTimeline : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        // The English plural forms ("3 webhook events"), as the console loads them.
        QVERIFY(installConsoleTranslations(QLocale(QLocale::English, QLocale::UnitedStates)).console);
    }

    void labelsNeverOverlap_data()
    {
        QTest::addColumn<ActionDetail>("detail");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height"); // 0: the size hint's
        QTest::addColumn<QString>("summary"); // a label that must be shown, "" for none

        const QList<ProviderLookup> threeWebhooks = { lookup(2, 2000, ProviderLookup::Result::Found, "failed"),
                                                      lookup(3, 2004, ProviderLookup::Result::Found, "failed"),
                                                      lookup(4, 2009, ProviderLookup::Result::Found, "failed") };
        const QString summary = QStringLiteral("#2\u2013#4 FOUND \u00b7 failed (3 webhook events)");
        QTest::newRow("three webhook events at once beside a day's gap (scenario 10), as wide as the demo's pane")
            << refundThatFailed(threeWebhooks) << 690 << 0 << summary;
        QTest::newRow("the same, wide") << refundThatFailed(threeWebhooks) << 1100 << 0 << summary;
        QTest::newRow("the same, narrow") << refundThatFailed(threeWebhooks) << 460 << 0 << QString();
        QTest::newRow("the same, squeezed below its size hint") << refundThatFailed(threeWebhooks) << 690 << 200 << QString();
        QTest::newRow("lookups at once that say different things")
            << refundThatFailed({ lookup(2, 2000, ProviderLookup::Result::Error, "", ProviderLookup::Method::RetrieveRefund),
                                  lookup(3, 2002, ProviderLookup::Result::NotFound, "", ProviderLookup::Method::ListByMetadata),
                                  lookup(4, 2005, ProviderLookup::Result::Found, "failed") })
            << 690 << 0 << QString();
        QTest::newRow("a look-up and a webhook event at once say the same")
            << refundThatFailed({ lookup(2, 2000, ProviderLookup::Result::Found, "failed", ProviderLookup::Method::RetrieveRefund),
                                  lookup(3, 2001, ProviderLookup::Result::Found, "failed") })
            << 690 << 0 << QStringLiteral("#2\u2013#3 FOUND \u00b7 failed (2 lookups)");
        QTest::newRow("three attempts and three lookups within a second") << crowdedRetries() << 700 << 0 << QString();
        QTest::newRow("the same, narrow") << crowdedRetries() << 430 << 0 << QString();
    }

    void labelsNeverOverlap()
    {
        QFETCH(ActionDetail, detail);
        QFETCH(int, width);
        QFETCH(int, height);
        QFETCH(QString, summary);

        TimelineWidget timeline;
        timeline.resize(width, height > 0 ? height : timeline.sizeHint().height());
        timeline.setDetail(detail);
        timeline.show();
        QVERIFY(QTest::qWaitForWindowExposed(&timeline));
        QVERIFY(!timeline.grab().isNull()); // paints

        QStringList labels = timeline.shownLabels();
        QList<QRectF> rects = timeline.shownLabelRects();
        QVERIFY(rects.size() >= 4);
        QVERIFY2(!timeline.axisLabels().isEmpty(), "no tick labels");
        labels << timeline.axisLabels();
        rects << timeline.axisLabelRects();
        QCOMPARE(labels.size(), rects.size());
        const QRectF inside(0, 0, timeline.width(), timeline.height());
        for (qsizetype i = 0; i < rects.size(); ++i) {
            QVERIFY2(inside.contains(rects.at(i)),
                     qPrintable(QStringLiteral("\"%1\" is cut off: %2,%3 %4\u00d7%5 in %6\u00d7%7")
                                    .arg(labels.at(i)).arg(rects.at(i).x()).arg(rects.at(i).y()).arg(rects.at(i).width())
                                    .arg(rects.at(i).height()).arg(timeline.width()).arg(timeline.height())));
            for (qsizetype j = i + 1; j < rects.size(); ++j)
                QVERIFY2(!rects.at(i).intersects(rects.at(j)),
                         qPrintable(QStringLiteral("\"%1\" overlaps \"%2\"").arg(labels.at(i), labels.at(j))));
        }
        if (!summary.isEmpty())
            QVERIFY2(labels.contains(summary), qPrintable(labels.join(u'|')));
    }
};

QTEST_MAIN(TestTimeline)
#include "tst_timeline.moc"
