// The charge view's window (issue 17) with fake data, offscreen: the header, the budget bar and
// its legend, the banner and the highlight of a refund made outside Countersign, the actions with
// their states (double-click and Enter select one), Refresh (its button, F5, what it says for a
// role that may not ask the provider), and what it says while loading, offline or refused.

#include "models/chargeactionmodel.h"
#include "models/chargeoverview.h"
#include "models/chargerefundmodel.h"
#include "models/chargesortfiltermodel.h"
#include "tests/support/quietoffscreen.h"
#include "ui/budgetbar.h"
#include "ui/chargewindow.h"
#include "ui/statepalette.h"

#include <QApplication>
#include <QCheckBox>
#include <QFrame>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using namespace cs;

namespace {

QJsonObject row(const QString &id, const char *state, qint64 amount, const char *by, const QDateTime &created)
{
    const QString at = toWireTime(created);
    return QJsonObject{
        {QStringLiteral("id"), id}, {QStringLiteral("state"), QLatin1String(state)}, {QStringLiteral("state_version"), 2},
        {QStringLiteral("target"), QJsonObject{{QStringLiteral("charge"), QStringLiteral("ch_3Pq8Xk2eZvKYlo2C")}}},
        {QStringLiteral("amount"), amount}, {QStringLiteral("currency"), QStringLiteral("usd")},
        {QStringLiteral("business_reference"), QStringLiteral("order-1150")}, {QStringLiteral("requested_by"), QLatin1String(by)},
        {QStringLiteral("review_reason"), QString()}, {QStringLiteral("attempt_count"), 0},
        {QStringLiteral("created_at"), at}, {QStringLiteral("updated_at"), at}, {QStringLiteral("last_event_at"), at},
        {QStringLiteral("possible_duplicate"), true}, {QStringLiteral("possible_duplicates"), 1},
    };
}

// 150.00 USD captured 41 days ago on a visa; 20.00 refunded in the provider's dashboard, 50.00 by
// act_done (COMPLETED), 30.00 reserved by act_wait (PENDING).
ChargeOverview fake(bool disputed = false)
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QJsonObject snapshot{
        {QStringLiteral("seq"), 4}, {QStringLiteral("target_type"), QStringLiteral("charge")},
        {QStringLiteral("target_id"), QStringLiteral("ch_3Pq8Xk2eZvKYlo2C")}, {QStringLiteral("charge_id"), QStringLiteral("ch_3Pq8Xk2eZvKYlo2C")},
        {QStringLiteral("payment_intent_id"), QStringLiteral("pi_3Pq8Xk2eZvKYlo2C")}, {QStringLiteral("asked_by"), QStringLiteral("sam")},
        {QStringLiteral("read_at"), toWireTime(now.addSecs(-180))}, {QStringLiteral("result"), QStringLiteral("FOUND")},
        {QStringLiteral("http_status"), 200}, {QStringLiteral("excerpt"), QString()}, {QStringLiteral("amount"), 15000},
        {QStringLiteral("amount_captured"), 15000}, {QStringLiteral("amount_refunded"), 7000}, {QStringLiteral("currency"), QStringLiteral("usd")},
        {QStringLiteral("created"), toWireTime(now.addDays(-41))}, {QStringLiteral("payment_method_brand"), QStringLiteral("visa")},
        {QStringLiteral("payment_method_last4"), QStringLiteral("4242")}, {QStringLiteral("disputed"), disputed},
        {QStringLiteral("refunds"),
         QJsonArray{QJsonObject{{QStringLiteral("id"), QStringLiteral("re_done")}, {QStringLiteral("amount"), 5000},
                                {QStringLiteral("status"), QStringLiteral("succeeded")}, {QStringLiteral("created"), toWireTime(now.addSecs(-3600))},
                                {QStringLiteral("action_id"), QStringLiteral("act_done")}},
                    QJsonObject{{QStringLiteral("id"), QStringLiteral("re_dashboard")}, {QStringLiteral("amount"), 2000},
                                {QStringLiteral("status"), QStringLiteral("succeeded")}, {QStringLiteral("created"), toWireTime(now.addDays(-2))},
                                {QStringLiteral("action_id"), QString()}}}},
    };
    QJsonObject budget{
        {QStringLiteral("stage"), QStringLiteral("proposal")}, {QStringLiteral("known"), true},
        {QStringLiteral("charge_id"), QStringLiteral("ch_3Pq8Xk2eZvKYlo2C")}, {QStringLiteral("currency"), QStringLiteral("usd")},
        {QStringLiteral("captured"), 15000}, {QStringLiteral("refunded_at_provider"), 7000}, {QStringLiteral("reserved"), 3000},
        {QStringLiteral("reservations"),
         QJsonArray{QJsonObject{{QStringLiteral("action_id"), QStringLiteral("act_wait")}, {QStringLiteral("state"), QStringLiteral("PENDING")},
                                {QStringLiteral("amount"), 3000}, {QStringLiteral("currency"), QStringLiteral("usd")},
                                {QStringLiteral("requested_by"), QStringLiteral("support-agent")}}}},
    };
    const QJsonObject json{
        {QStringLiteral("id"), QStringLiteral("ch_3Pq8Xk2eZvKYlo2C")}, {QStringLiteral("target_type"), QStringLiteral("charge")},
        {QStringLiteral("charge_id"), QStringLiteral("ch_3Pq8Xk2eZvKYlo2C")}, {QStringLiteral("payment_intent_id"), QStringLiteral("pi_3Pq8Xk2eZvKYlo2C")},
        {QStringLiteral("snapshot"), snapshot}, {QStringLiteral("budget"), budget}, {QStringLiteral("actions_truncated"), false},
        {QStringLiteral("actions"), QJsonArray{row(QStringLiteral("act_done"), "COMPLETED", 5000, "returns-agent", now.addDays(-1)),
                                               row(QStringLiteral("act_wait"), "PENDING", 3000, "support-agent", now.addSecs(-600)),
                                               row(QStringLiteral("act_no"), "REJECTED", 500, "support-agent", now.addSecs(-500))}},
    };
    QString error;
    const std::optional<ChargeOverview> o = ChargeOverview::fromJson(json, &error);
    if (!o)
        qFatal("fake: %s", qPrintable(error));
    return *o;
}

// A refund event from the provider's webhooks that matched no action (issue 18).
UnmatchedRefundEvent refundEvent(const char *id, const char *type, const char *refund, const char *status, qint64 amount,
                                 const char *failureReason, const QDateTime &received)
{
    const QJsonObject json{
        {QStringLiteral("event_id"), QLatin1String(id)}, {QStringLiteral("type"), QLatin1String(type)},
        {QStringLiteral("refund_id"), QLatin1String(refund)}, {QStringLiteral("received_at"), toWireTime(received)},
        {QStringLiteral("status"), QLatin1String(status)}, {QStringLiteral("amount"), amount},
        {QStringLiteral("currency"), QStringLiteral("usd")},
        {QStringLiteral("failure_reason"), failureReason ? QJsonValue(QLatin1String(failureReason)) : QJsonValue()},
        {QStringLiteral("payment_intent"), QStringLiteral("pi_3Pq8Xk2eZvKYlo2C")}, {QStringLiteral("named_action"), QString()}};
    QString error;
    const std::optional<UnmatchedRefundEvent> e = UnmatchedRefundEvent::fromJson(json, &error);
    if (!e)
        qFatal("refundEvent: %s", qPrintable(error));
    return *e;
}

// The colour at the middle of a cell's left padding, as painted.
QColor cellColour(QTableView *view, int row, int column)
{
    const QRect rect = view->visualRect(view->model()->index(row, column));
    const QImage image = view->viewport()->grab().toImage();
    return image.pixelColor(rect.left() + 2, rect.center().y());
}

int proxyRowOf(QTableView *view, int role, const QString &value)
{
    for (int r = 0; r < view->model()->rowCount(); ++r) {
        if (view->model()->index(r, 0).data(role).toString() == value)
            return r;
    }
    return -1;
}

} // namespace

class TestChargeWindow : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        cs::testsupport::installQuietOffscreen();
    }

    void showsTheCharge()
    {
        ChargeWindow w;
        w.setOverview(fake());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.titleLabel()->text().contains(QStringLiteral("ch_3Pq8Xk2eZvKYlo2C")));
        QVERIFY(w.windowTitle().contains(QStringLiteral("ch_3Pq8Xk2eZvKYlo2C")));
        const QString facts = w.factsLabel()->text();
        for (const QString &fact : {QStringLiteral("150.00 USD"), QStringLiteral("USD"), QStringLiteral("41 d ago"),
                                    QStringLiteral("visa \u2022\u2022\u2022\u2022 4242"), QStringLiteral("Dispute")})
            QVERIFY2(facts.contains(fact), qPrintable(fact + QStringLiteral(" not in ") + facts));
        QCOMPARE(w.disputeLabel()->text(), QStringLiteral("Not disputed"));
        QVERIFY(w.findChild<QLabel *>(QStringLiteral("chargeSubtitle"))->text().contains(QStringLiteral("pi_3Pq8Xk2eZvKYlo2C")));
        QVERIFY(w.lastReadLabel()->text().contains(QStringLiteral("3 min ago")));
        QVERIFY(w.lastReadLabel()->text().contains(QStringLiteral("by sam")));
        QVERIFY(!w.statusLabel()->isVisible()); // nothing happening
    }

    void disputedIsSaid()
    {
        ChargeWindow w;
        w.setOverview(fake(true));
        QCOMPARE(w.disputeLabel()->text(), QStringLiteral("Disputed"));
        QVERIFY(w.factsLabel()->text().contains(QStringLiteral("may pay twice")));
    }

    // The bar's segments are the server's figures: refunded 70.00, reserved 30.00, left 50.00.
    void budgetBar()
    {
        ChargeWindow w;
        w.setOverview(fake());
        w.show();
        QVERIFY(w.budgetBar()->hasBudget());
        const BudgetBar::Segments s = w.budgetBar()->segments();
        QCOMPARE(s.refunded, 7000);
        QCOMPARE(s.reserved, 3000);
        QCOMPARE(s.thisAction, 0);
        QCOMPARE(s.left, 5000);
        const QString legend = w.budgetLabel()->text();
        for (const QString &part : {QStringLiteral("refunded at the provider <b>70.00 USD</b>"), QStringLiteral("reserved in Countersign <b>30.00 USD</b>"),
                                    QStringLiteral("<b>50.00 USD left</b>"), QStringLiteral("of 150.00 USD captured")})
            QVERIFY2(legend.contains(part), qPrintable(part + QStringLiteral(" not in ") + legend));
        // Without a FOUND read: no bar, and the words say the budget is not known.
        ChargeOverview unknown = fake();
        unknown.budget = ChargeBudget();
        unknown.snapshot.reset();
        w.setOverview(unknown);
        QVERIFY(!w.budgetBar()->hasBudget());
        QVERIFY(!w.budgetBar()->isVisible());
        QVERIFY(w.budgetLabel()->text().contains(QStringLiteral("Budget not known")));
        QVERIFY(w.factsLabel()->text().contains(QStringLiteral("has not been asked")));
        QCOMPARE(w.lastReadLabel()->text(), QStringLiteral("Never read from the provider."));
    }

    // A refund nobody made through Countersign: the banner names it, its row is on the warning
    // fill with "made outside Countersign"; Countersign's own refund is not.
    void outsideRefundIsHighlighted()
    {
        ChargeWindow w;
        w.resize(1000, 760);
        w.setOverview(fake());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.outsideBanner()->isVisible());
        QVERIFY(w.outsideLabel()->text().contains(QStringLiteral("made outside Countersign")));
        QVERIFY(w.outsideLabel()->text().contains(QStringLiteral("re_dashboard")));
        QVERIFY(w.outsideLabel()->text().contains(QStringLiteral("20.00 USD")));
        QTableView *refunds = w.refundTable();
        const int outside = proxyRowOf(refunds, ChargeRefundModel::MadeOutsideRole, QStringLiteral("true"));
        const int ours = proxyRowOf(refunds, ChargeRefundModel::ActionIdRole, QStringLiteral("act_done"));
        QVERIFY(outside >= 0 && ours >= 0);
        QCOMPARE(refunds->model()->index(outside, ChargeRefundModel::MadeByColumn).data().toString(), QStringLiteral("made outside Countersign"));
        refunds->clearSelection();
        const QColor fill = StatePalette::warningFill(refunds->palette());
        QCOMPARE(cellColour(refunds, outside, ChargeRefundModel::StatusColumn), fill);
        QVERIFY(cellColour(refunds, ours, ChargeRefundModel::StatusColumn) != fill);
        // Only Countersign's refunds: no banner, no highlight.
        ChargeOverview own = fake();
        own.snapshot->refunds.removeLast();
        w.setOverview(own);
        QVERIFY(!w.outsideBanner()->isVisible());
        QCOMPARE(refunds->model()->rowCount(), 1);
        QVERIFY(cellColour(refunds, 0, ChargeRefundModel::StatusColumn) != fill);
    }

    // Issue 18: refunds the provider's webhooks announced and no action matched are listed, marked,
    // with their status and failure reason; one the read lists already is not shown twice.
    void webhookRefundsAreListed()
    {
        const QDateTime now = QDateTime::currentDateTimeUtc();
        ChargeOverview o = fake();
        o.unmatchedRefundEvents = {
            refundEvent("evt_3", "refund.failed", "re_3PqWeb", "failed", 4000, "lost_or_stolen_card", now.addSecs(-60)),
            refundEvent("evt_2", "refund.failed", "re_dashboard", "failed", 2000, "expired_or_canceled_card", now.addSecs(-90)),
            refundEvent("evt_1", "refund.created", "re_3PqWeb", "pending", 4000, nullptr, now.addSecs(-120)),
        };
        ChargeWindow w;
        w.resize(1000, 760);
        w.setOverview(o);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTableView *refunds = w.refundTable();
        QCOMPARE(refunds->model()->rowCount(), 3); // re_3PqWeb, re_done, re_dashboard: once each
        QStringList ids;
        for (int r = 0; r < refunds->model()->rowCount(); ++r)
            ids << refunds->model()->index(r, ChargeRefundModel::IdColumn).data().toString();
        QCOMPARE(ids.count(QStringLiteral("re_dashboard")), 1);
        const int web = ids.indexOf(QStringLiteral("re_3PqWeb"));
        const int dash = ids.indexOf(QStringLiteral("re_dashboard"));
        QVERIFY(web >= 0);
        const auto cell = [refunds](int row, int column) { return refunds->model()->index(row, column).data().toString(); };
        QCOMPARE(cell(web, ChargeRefundModel::MadeByColumn), QStringLiteral("not through Countersign \u2014 from a webhook"));
        QCOMPARE(cell(web, ChargeRefundModel::StatusColumn), QStringLiteral("failed: lost_or_stolen_card"));
        QCOMPARE(cell(web, ChargeRefundModel::AmountColumn), QStringLiteral("40.00 USD"));
        QCOMPARE(cell(dash, ChargeRefundModel::MadeByColumn), QStringLiteral("not through Countersign \u2014 from a webhook"));
        QCOMPARE(cell(dash, ChargeRefundModel::StatusColumn), QStringLiteral("failed: expired_or_canceled_card"));
        refunds->clearSelection();
        const QColor fill = StatePalette::warningFill(refunds->palette());
        QCOMPARE(cellColour(refunds, web, ChargeRefundModel::StatusColumn), fill);
        // The banner names it beside the refund the read listed; the list's title says where the rows come from.
        QVERIFY(w.outsideBanner()->isVisible());
        const QString banner = w.outsideLabel()->text();
        QVERIFY2(banner.contains(QStringLiteral("not through Countersign \u2014 from a webhook")), qPrintable(banner));
        QVERIFY2(banner.contains(QStringLiteral("re_3PqWeb")) && banner.contains(QStringLiteral("failed: lost_or_stolen_card")), qPrintable(banner));
        QVERIFY2(banner.contains(QStringLiteral("re_dashboard")), qPrintable(banner));
        const QString title = w.refundTitleLabel()->text();
        QVERIFY2(title.contains(QStringLiteral("(3)")) && title.contains(QStringLiteral("webhook event")), qPrintable(title));

        // From an older backend (no unmatched_refund_events): the read's refunds only, nothing said of webhooks.
        w.setOverview(fake());
        QCOMPARE(refunds->model()->rowCount(), 2);
        QVERIFY(!w.outsideLabel()->text().contains(QStringLiteral("webhook")));
        QVERIFY(!w.refundTitleLabel()->text().contains(QStringLiteral("webhook")));
    }

    void actionsWithTheirStates()
    {
        ChargeWindow w;
        w.setOverview(fake());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTableView *actions = w.actionTable();
        QCOMPARE(actions->model()->rowCount(), 3);
        QCOMPARE(actions->model()->index(0, ChargeActionModel::StateColumn).data().toString(), QStringLiteral("Completed"));
        QCOMPARE(actions->model()->index(1, ChargeActionModel::StateColumn).data().toString(), QStringLiteral("Pending"));
        QCOMPARE(actions->model()->index(1, ChargeActionModel::BudgetColumn).data().toString(), QStringLiteral("reserved"));
        QVERIFY(w.findChild<QLabel *>(QStringLiteral("actionsTitle"))->text().contains(QStringLiteral("(3)")));
        w.hideRejectedBox()->click();
        QCOMPARE(actions->model()->rowCount(), 2);
        QVERIFY(w.findChild<QLabel *>(QStringLiteral("actionsTitle"))->text().contains(QStringLiteral("2 shown")));
        // Sorting by a header click: amounts as numbers.
        actions->horizontalHeader()->setSortIndicator(ChargeActionModel::AmountColumn, Qt::AscendingOrder);
        QCOMPARE(actions->model()->index(0, ChargeActionModel::IdColumn).data().toString(), QStringLiteral("act_wait"));
    }

    void doubleClickOrEnterSelectsTheAction()
    {
        ChargeWindow w;
        w.setOverview(fake());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy activated(&w, &ChargeWindow::actionActivated);
        QVERIFY(activated.isValid());
        QTableView *actions = w.actionTable();
        const QRect cell = actions->visualRect(actions->model()->index(1, ChargeActionModel::IdColumn));
        QTest::mouseClick(actions->viewport(), Qt::LeftButton, {}, cell.center());
        QTest::mouseDClick(actions->viewport(), Qt::LeftButton, {}, cell.center());
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.takeFirst().at(0).toString(), QStringLiteral("act_wait"));
        actions->setFocus();
        actions->setCurrentIndex(actions->model()->index(0, 0));
        QTest::keyClick(actions, Qt::Key_Return);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.takeFirst().at(0).toString(), QStringLiteral("act_done"));
        // Tab leaves the table for the next control (not the next cell): the window works by keyboard.
        w.activateWindow();
        actions->setFocus();
        QTRY_COMPARE(QApplication::focusWidget(), actions);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        QCOMPARE(QApplication::focusWidget(), w.hideRejectedBox());
    }

    void refresh_data()
    {
        QTest::addColumn<bool>("canLookUp");
        QTest::addColumn<QString>("text");
        QTest::newRow("asks the provider") << true << QStringLiteral("&Look up now");
        QTest::newRow("reads again (auditor)") << false << QStringLiteral("&Reload");
    }

    void refresh()
    {
        QFETCH(bool, canLookUp);
        QFETCH(QString, text);
        ChargeWindow w;
        w.setCanLookUp(canLookUp);
        w.setOverview(fake());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy refresh(&w, &ChargeWindow::refreshRequested);
        QVERIFY(refresh.isValid());
        QCOMPARE(w.refreshButton()->text(), text);
        w.refreshButton()->click();
        QCOMPARE(refresh.count(), 1);
        w.activateWindow();
        QTest::keyClick(&w, Qt::Key_F5);
        QCOMPARE(refresh.count(), 2);
        // While a read is out, Refresh waits for it.
        w.setLookingUp();
        QVERIFY(!w.refreshButton()->isEnabled());
        QVERIFY(w.statusLabel()->text().contains(QStringLiteral("provider now")));
        w.refreshButton()->click();
        QTest::keyClick(&w, Qt::Key_F5);
        QCOMPARE(refresh.count(), 2);
        w.setOverview(fake());
        QVERIFY(w.refreshButton()->isEnabled());
    }

    // Offline and refused: said, and what was shown stays shown.
    void activity_data()
    {
        QTest::addColumn<int>("activity");
        QTest::addColumn<QString>("words");
        QTest::newRow("offline") << int(ChargeWindow::Activity::Offline) << QStringLiteral("Offline");
        QTest::newRow("refused") << int(ChargeWindow::Activity::Failed) << QStringLiteral("Could not read the charge");
    }

    void activity()
    {
        QFETCH(int, activity);
        QFETCH(QString, words);
        ChargeWindow w;
        w.setOverview(fake());
        w.show();
        if (ChargeWindow::Activity(activity) == ChargeWindow::Activity::Offline)
            w.setOffline(QStringLiteral("Connection refused"));
        else
            w.setFailed(QStringLiteral("Provider unavailable (502)"));
        QVERIFY(w.statusLabel()->isVisible());
        QVERIFY2(w.statusLabel()->text().contains(words), qPrintable(w.statusLabel()->text()));
        QCOMPARE(w.actionTable()->model()->rowCount(), 3); // still shown
        QVERIFY(w.budgetBar()->hasBudget());
        QVERIFY(w.refreshButton()->isEnabled()); // try again
        // Nothing shown yet and offline: says nothing can be shown.
        ChargeWindow fresh;
        fresh.showLoading(QStringLiteral("ch_x"));
        QVERIFY(fresh.statusLabel()->text().contains(QStringLiteral("Loading")));
        fresh.setOffline(QStringLiteral("Connection refused"));
        QVERIFY(fresh.statusLabel()->text().contains(QStringLiteral("Nothing can be shown")));
        QCOMPARE(fresh.actionTable()->model()->rowCount(), 0);
    }

    // A payment intent whose charge was never read: said so, not a blank charge.
    void paymentIntentNeverRead()
    {
        ChargeOverview o = fake();
        o.id = QStringLiteral("pi_only");
        o.targetType = TargetType::PaymentIntent;
        o.chargeId.clear();
        o.paymentIntentId = QStringLiteral("pi_only");
        o.snapshot.reset();
        o.budget = ChargeBudget();
        ChargeWindow w;
        w.setOverview(o);
        QVERIFY(w.titleLabel()->text().contains(QStringLiteral("Payment intent")));
        QVERIFY(w.findChild<QLabel *>(QStringLiteral("chargeSubtitle"))->text().contains(QStringLiteral("not known yet")));
        QVERIFY(!w.disputeLabel()->isVisible());
    }
};

QTEST_MAIN(TestChargeWindow)
#include "tst_chargewindow.moc"
